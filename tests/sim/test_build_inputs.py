"""sim/build.py: what makes the Verilator model stale, and what must not (a running simulation's
output, the memories' contents)."""

from sim import build as sim_build


def test_model_inputs_follow_sources_not_runtime_outputs(tmp_path):
    for name, text in {"sim.v": "module sim; endmodule\n", "sim_init.cpp": "int x;\n",
                       "sim_config.js": "{}\n", "sim_main_ram.init": "00000000\n", "build_sim.sh": "true\n"}.items():
        (tmp_path / name).write_text(text)
    base = sim_build._model_inputs(tmp_path)
    (tmp_path / "sim.vcd").write_text("$date today $end\n")          # written by a running simulation
    (tmp_path / "sim_main_ram.init").write_text("deadbeef\n")          # a new firmware: no model rebuild
    (tmp_path / "build_sim.sh").write_text("false\n")
    assert sim_build._model_inputs(tmp_path) == base
    (tmp_path / "sim.v").write_text("module sim; wire w; endmodule\n")
    assert sim_build._model_inputs(tmp_path) != base
    (tmp_path / "sim.v").write_text("module sim; endmodule\n")
    (tmp_path / "sim_config.js").write_text('{"x": 1}\n')
    assert sim_build._model_inputs(tmp_path) != base
