"""`python -m sim` as scripts use it: exit codes, messages, and no needless rebuilds."""

import subprocess
import sys

import pytest

from sim import build as sim_build
from sim.console import ConsoleError, SimConsole

ROOT = sim_build.ROOT


def _sim(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def test_run_types_commands_and_exits_zero(sim_soc):
    result = _sim("--quiet", "--run", "help; nosuch; info")
    assert result.returncode == 0, result.stderr
    assert "rsa> help" in result.stdout and "Commands:" in result.stdout
    assert "error=unknown_command" in result.stdout     # bad input still counts as ran
    assert "cycle_counter=ok" in result.stdout


def test_time_limit_gives_nonzero_exit_and_a_message(sim_soc):
    result = _sim("--quiet", "--timeout", "5", "--run", "bench 4096")
    assert result.returncode == 1
    assert "error: time limit of 5 s passed" in result.stderr
    assert "Traceback" not in result.stderr


def test_bad_sizes_option_is_refused(sim_soc):
    result = _sim("--bench", "--sizes", "512,1000")
    assert result.returncode == 2
    assert "--sizes" in result.stderr and "Traceback" not in result.stderr


def test_nothing_changed_means_no_model_rebuild(sim_soc):
    again = sim_build.build(log=lambda msg: None)
    assert not again.model_rebuilt
    assert again.model == sim_soc.model


def test_a_simulation_that_cannot_start_is_reported(tmp_path):
    with pytest.raises(ConsoleError, match="could not start"):
        SimConsole(tmp_path / "no-such-model", tmp_path)


def test_a_simulation_that_exits_is_reported(tmp_path):
    con = SimConsole("/bin/true", tmp_path, timeout=30)
    with pytest.raises(ConsoleError, match="exited"):
        con.wait_prompt()
    con.close()
