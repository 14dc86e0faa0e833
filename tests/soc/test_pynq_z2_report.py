"""`python -m soc --board pynq_z2 --report`: the whole SoC through Yosys for xc7z020.

The report comes from the session's first configuration (see conftest.py), which also runs
`--build` and so ends at the missing-Vivado message, after the report."""

import json

import pytest

from soc.soc_report import DEVICE_RESOURCES, MARGINS

from board_runs import REPORT_CONFIGURATION


@pytest.mark.slow
def test_report(pynq_z2_runs):
    run = pynq_z2_runs[REPORT_CONFIGURATION]
    assert "--report" in run.args
    assert "Traceback" not in run.stdout + run.stderr
    report = json.loads((run.build_dir / "report.json").read_text())

    assert report["device"] == "xc7z020clg400-1"
    for key, total in DEVICE_RESOURCES.items():
        assert 0 < report["peripheral"][key] <= report[key] <= total, key
    # The firmware ROM (128 KiB: 29 RAMB36 as Yosys maps it), the SRAM and the CPU come on top.
    assert report["bram36"] >= report["peripheral"]["bram36"] + 29
    assert report["lut"] > report["peripheral"]["lut"] + 1000
    for timing in (report["timing"], report["peripheral"]["timing"]):
        assert 1.0 < timing["critical_path_ns"] < 50.0
        assert timing["fmax_mhz"] == pytest.approx(1000 / timing["critical_path_ns"], rel=0.01)
        assert timing["start"] and timing["end"]

    checks = report["checks"]
    assert checks["fmax"]["status"] == ("MET" if report["timing"]["fmax_mhz"] >= 100 else "SHORT")
    for key, share in MARGINS.items():
        assert checks[key]["status"] == ("MET" if report[key] <= share * DEVICE_RESOURCES[key] else "SHORT")
    # The printed report says the same.
    assert f"{report['lut']:,}" in run.stdout and f"{100 * report['lut'] / 53200:.1f}%" in run.stdout
    assert f"system clock 100 MHz: {checks['fmax']['status']}" in run.stdout
    assert f"fits with margin (LUT, DSP <= 75%, BRAM36 <= 60%): {checks['fit']['status']}" in run.stdout
