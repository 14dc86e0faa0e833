"""`python -m sim report`: the peripheral's report and sweep (gateware.tools) with the firmware's count of
RSA-2048 with CRT on the simulated SoC and the times at the SoC's clock; where the count comes from; its
refusals. The SoC and Yosys are stood in for: the figures themselves are tests/gateware/tools'."""

import pickle

import pytest

from common.errors import ProjectError
from gateware.interface import PeripheralConfig
from gateware.tools import cli as figures
from gateware.tools import report as peripheral_report
from gateware.tools import sweep
from jobs import cli
from jobs import report
from sim import build as sim_build
from soc import config


def test_the_model_of_the_firmware_s_commands_uses_the_soc_s_public_exponent():
    assert peripheral_report.PUBLIC_EXPONENT == config.PUBLIC_EXPONENT
    assert report.SYS_CLK_MHZ == config.SYS_CLK_FREQ / 1e6


def test_where_the_firmware_s_count_comes_from():
    assert report.firmware_build_dir(PeripheralConfig()) is None
    assert report.firmware_source(PeripheralConfig()) == (
        'python -m sim run "bench 2048 rows=2048:private_crt:hw_seq": the firmware\'s cycle counter on the '
        "simulated SoC (build/sim)")
    # Another configuration: its own SoC, in the build directory `python -m sim` gives it.
    other = PeripheralConfig(lanes=64, word_bits=16)
    assert report.firmware_source(other).startswith(
        'python -m sim run "bench 2048 rows=2048:private_crt:hw_seq" --montmul-word-bits 16 --montmul-lanes 64:')
    assert report.firmware_build_dir(other).name == "sim-w16-l64"
    smaller = PeripheralConfig(max_bits=2048, lanes=16, word_bits=16)
    assert report.firmware_build_dir(smaller).name == "sim-w16-l16-b2048"
    assert "--montmul-max-bits 2048" in report.firmware_source(smaller)
    assert report.firmware_build_dir(other) == sim_build.cpu_build_dir(config.CPU_TYPE, config.CPU_VARIANT, other)


def test_the_firmware_count_is_the_bench_row_on_the_simulated_soc(monkeypatch):
    asked = []

    def firmware_crt_cycles(montmul_config, bits=peripheral_report.CRT_BITS, log=print):
        asked.append((montmul_config, bits))
        return 500_000

    monkeypatch.setattr(report, "firmware_crt_cycles", firmware_crt_cycles)
    config = PeripheralConfig()
    assert report.firmware_count(config) == {"cycles": 500_000, "source": report.firmware_source(config)}
    assert asked == [(config, 2048)]
    # The report's figure from it, at the clock estimate and at the SoC's clock.
    figure = peripheral_report.rsa2048_crt(config, 125.0, report.firmware_count, sys_clk_mhz=report.SYS_CLK_MHZ)
    assert figure == {"cycles": 500_000, "ms": 4.0, "sys_clk_mhz": 100.0, "ms_at_sys_clk": 5.0,
                      "peripheral_cycles": peripheral_report.crt_cycles(config),
                      "source": report.firmware_source(config)}
    # The sweep hands it to a worker process, by name.
    assert pickle.loads(pickle.dumps(report.firmware_count)) is report.firmware_count


@pytest.fixture
def asked(monkeypatch):
    """What the report and the sweep were asked for, instead of running them."""
    seen = {}

    def build_report(config, **kwargs):
        seen.update(kwargs, config=config, what="report")
        raise ProjectError("stop here")

    def run_sweep(lanes, **kwargs):
        seen.update(kwargs, lanes=lanes, what="sweep")
        raise ProjectError("stop here")

    monkeypatch.setattr(figures, "build_report", build_report)
    monkeypatch.setattr(sweep, "sweep", run_sweep)
    return seen


def test_the_report_asks_for_the_firmware_s_count_and_the_soc_s_clock(asked, capsys):
    assert cli.main(["report", "--quiet"]) == 1
    assert capsys.readouterr().err == "error: stop here\n"
    assert asked["what"] == "report" and asked["config"] == PeripheralConfig()
    assert asked["firmware"] is report.firmware_count and asked["sys_clk_mhz"] == 100.0


def test_no_firmware_leaves_the_count_out_and_says_how_to_get_it(asked):
    assert cli.main(["report", "--quiet", "--no-firmware", "--montmul-lanes", "16"]) == 1
    assert asked["config"] == PeripheralConfig(lanes=16) and asked["firmware"] is None
    assert asked["unmeasured"] == ("not measured (--no-firmware); without it: "
                                   + report.firmware_source(PeripheralConfig(lanes=16)))
    assert asked["unmeasured"].startswith("not measured (--no-firmware); without it: python -m sim run")


def test_the_sweep_takes_the_firmware_s_count_at_the_default_configuration(asked):
    assert cli.main(["report", "--quiet", "--sweep", "8,32", "--processes", "1"]) == 1
    assert asked["what"] == "sweep" and asked["lanes"] == (8, 32) and asked["jobs"] == 1
    assert asked["firmware"] is report.firmware_count and asked["sys_clk_mhz"] == 100.0
    assert asked["command"] == "python -m sim report --sweep"
    assert asked["unmeasured"].endswith(report.firmware_source(PeripheralConfig()))


@pytest.mark.parametrize("argv, message", [
    (["--montmul-lanes", "3"], "invalid peripheral configuration: --montmul-lanes 3"),
    (["--sweep", "8", "--montmul-lanes", "16"], "--sweep takes the lanes itself"),
    (["--sweep", "--processes", "0"], "--processes must be at least 1"),
    (["--sweep", "8,12"], "lanes=12: lanes must be a power of two"),
])
def test_refusals_are_one_line_and_status_2(asked, capsys, argv, message):
    assert cli.main(["report", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.splitlines()) == 1 and not asked
