"""`python -m boards.pynq_z2 --montmul-lanes N [--montmul-word-bits W] [--montmul-max-bits B]`: the
options reach the SoC's peripheral and the firmware's generated header, and a bad N or W is one error
line. The board flow itself is stood in for (it is run for real in test_pynq_z2_build.py)."""

import dataclasses
import subprocess
import sys

import pytest

from boards import pynq_z2
from gateware.interface import PeripheralConfig
from soc import board_build, firmware

from board_runs import ROOT


@pytest.fixture
def flow(monkeypatch):
    """What `board_build.run` was called with, instead of running it."""
    calls = []
    monkeypatch.setattr(board_build, "run", lambda make_soc, **kwargs: calls.append((make_soc, kwargs)))
    return calls


@pytest.mark.parametrize("argv, lanes, word_bits", [
    ([], PeripheralConfig().lanes, PeripheralConfig().word_bits),
    (["--montmul-lanes", "16"], 16, PeripheralConfig().word_bits),
    (["--montmul-lanes", "4", "--report"], 4, PeripheralConfig().word_bits),
    (["--montmul-lanes", "8", "--montmul-word-bits", "16"], 8, 16)])
def test_lanes_reach_the_peripheral_and_its_header(flow, argv, lanes, word_bits):
    assert pynq_z2.main(argv) == 0
    (make_soc, kwargs), = flow
    assert kwargs["report"] == ("--report" in argv)
    soc = make_soc()
    assert soc.montmul.config == dataclasses.replace(PeripheralConfig(), lanes=lanes, word_bits=word_bits)
    header = firmware.soc_headers(soc.montmul.config)["montmul.h"]
    assert f"#define MONTMUL_LANES {lanes}\n" in header
    assert f"#define MONTMUL_WORD_BITS {word_bits}\n" in header


def test_bad_word_width_is_one_error_line(flow, capsys):
    assert pynq_z2.main(["--montmul-word-bits", "12"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: invalid peripheral configuration: --montmul-word-bits 12: ")
    assert len(err.splitlines()) == 1
    assert flow == []


@pytest.mark.parametrize("lanes", ["12", "2", "0"])
def test_bad_lanes_are_one_error_line(flow, capsys, lanes):
    assert pynq_z2.main(["--montmul-lanes", lanes]) == 1
    assert capsys.readouterr().err == (f"error: invalid peripheral configuration: --montmul-lanes {lanes}: "
                                       "lanes must be a power of two, at least 4\n")
    assert flow == []


def test_bad_lanes_from_the_command_line():
    result = subprocess.run([sys.executable, "-m", "boards.pynq_z2", "--montmul-lanes", "24"],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert result.stderr == ("error: invalid peripheral configuration: --montmul-lanes 24: lanes must be a power of "
                             "two, at least 4\n")


def test_help_names_the_option(capsys):
    with pytest.raises(SystemExit):
        pynq_z2.main(["--help"])
    assert "--montmul-lanes" in capsys.readouterr().out
