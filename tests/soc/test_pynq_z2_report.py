"""`python -m boards.pynq_z2 --report`: the whole SoC through Yosys for xc7z020.

The whole-SoC report comes from the session's first configuration (see conftest.py), which also runs
`--build` and so ends at the missing-Vivado message, after the report. That test synthesises the whole
SoC (minutes of Yosys), so it runs only with BOARD_REPORT=1 in the environment (`BOARD_REPORT=1 make
test`); `make report` makes the report itself. The targets' logic and the synthesis cache are tested
on their own, on small inputs, in every run."""

import json

import pytest

from boards import pynq_z2
from soc import soc_report
from soc.soc_report import MARGINS, target_checks

#: The board's part's resources.
DEVICE_RESOURCES = soc_report.device_resources(pynq_z2.DEVICE)

from board_runs import REPORT_CONFIGURATION, REPORT_LANES


def _resources(share):
    """Resources using `share` of the device each."""
    return {key: round(share * total) for key, total in DEVICE_RESOURCES.items()}


def test_targets_met_at_the_margins_and_short_beyond():
    at_margin = {key: int(share * DEVICE_RESOURCES[key]) for key, share in MARGINS.items()}
    checks = target_checks(at_margin, fmax_mhz=100.0, sys_clk_mhz=100.0, totals=DEVICE_RESOURCES)
    assert {key: checks[key]["status"] for key in (*MARGINS, "fit", "fmax")} == dict.fromkeys(
        (*MARGINS, "fit", "fmax"), "MET")
    for key in MARGINS:
        over = dict(at_margin, **{key: at_margin[key] + 1})
        checks = target_checks(over, fmax_mhz=100.0, sys_clk_mhz=100.0, totals=DEVICE_RESOURCES)
        assert checks[key]["status"] == "SHORT" and checks["fit"]["status"] == "SHORT", key
        assert [k for k in MARGINS if checks[k]["status"] == "SHORT"] == [key]
    short_clock = target_checks(at_margin, fmax_mhz=99.9, sys_clk_mhz=100.0, totals=DEVICE_RESOURCES)
    assert short_clock["fmax"]["status"] == "SHORT" and short_clock["fit"]["status"] == "MET"


VERILOG = "module counter(input clk, output reg [7:0] q); initial $readmemh(\"rom.init\", mem); " \
          "reg [7:0] mem [0:3]; always @(posedge clk) q <= mem[q[1:0]] + q; endmodule\n"


def test_synthesis_is_reused_only_for_the_same_inputs(tmp_path):
    source = tmp_path / "src" / "counter.v"
    source.parent.mkdir()
    source.write_text("// generated on Monday\n" + VERILOG)
    (source.parent / "rom.init").write_text("01\n02\n03\n04\n")
    cache_dir = tmp_path / "cache"

    first = soc_report.synthesize_cached([source], "counter", cache_dir)
    assert first.seconds > 0 and first.ff > 0
    source.write_text("// generated on Tuesday\n" + VERILOG)         # a date stamp is no input
    again = soc_report.synthesize_cached([source], "counter", cache_dir)
    assert again.seconds == 0.0 and again.workdir == first.workdir and again.cells == first.cells
    (source.parent / "rom.init").write_text("05\n06\n07\n08\n")      # new ROM contents are
    changed = soc_report.synthesize_cached([source], "counter", cache_dir)
    assert changed.seconds > 0 and changed.workdir != first.workdir


@pytest.mark.slow
@pytest.mark.board_report                   # minutes of Yosys: BOARD_REPORT=1 (tests/conftest.py)
@pytest.mark.xdist_group("pynq_z2")         # on the worker that has the board runs
def test_report(pynq_z2_runs):
    run = pynq_z2_runs[REPORT_CONFIGURATION]
    assert "--report" in run.args
    assert "Traceback" not in run.stdout + run.stderr
    report = json.loads((run.build_dir / "report.json").read_text())

    assert report["device"] == pynq_z2.DEVICE
    assert report["details"]["device_resources"] == DEVICE_RESOURCES
    assert report["config"]["peripheral"]["lanes"] == REPORT_LANES
    for key, total in DEVICE_RESOURCES.items():
        assert 0 < report["peripheral"][key] <= report[key] <= total, key
    # Main RAM with the firmware (one RAMB36 per 4 KiB as Yosys maps it), the BIOS ROM (at least one
    # more), the SRAM and the CPU come on top.
    assert report["bram36"] >= report["peripheral"]["bram36"] + pynq_z2.MAIN_RAM_SIZE // 4096 + 1
    assert report["lut"] > report["peripheral"]["lut"] + 1000
    for timing in (report["timing"], report["peripheral"]["timing"]):
        assert 1.0 < timing["critical_path_ns"] < 50.0
        assert timing["fmax_mhz"] == pytest.approx(1000 / timing["critical_path_ns"], rel=0.01)
        assert timing["start"] and timing["end"]
    assert report["sys_clk_mhz"] == 100
    assert report["checks"] == target_checks(report, report["timing"]["fmax_mhz"], report["sys_clk_mhz"],
                                             DEVICE_RESOURCES)
    # The printed report is the JSON one.
    assert soc_report.format_report(report) in run.stdout
