"""`python -m sim run` as scripts use it: the commands typed one after another, exit codes and messages."""

import io
import subprocess
import sys

from jobs import run
from sim import build as sim_build

ROOT = sim_build.ROOT


def _sim(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def test_run_types_commands_and_exits_zero(sim_soc):
    result = _sim("run", "help; nosuch; info", "--quiet")
    assert result.returncode == 0, result.stderr
    assert "rsa> help" in result.stdout and "Commands:" in result.stdout
    assert "error=unknown_command" in result.stdout     # bad input still counts as ran
    assert "cycle_counter=ok" in result.stdout


def test_time_limit_gives_nonzero_exit_and_a_message(sim_soc):
    result = _sim("run", "bench 4096", "--quiet", "--timeout", "5")
    assert result.returncode == 1
    assert "error: time limit of 5 s passed" in result.stderr
    assert "Traceback" not in result.stderr


class _Console:
    """Answers every command with its echo; refuses one that is too long, as link.console does."""

    def __init__(self):
        self.closed = False

    def command(self, text):
        from link.console import LineTooLong
        if len(text) > 20:
            raise LineTooLong(f"{len(text)} characters")
        return f"ran {text}\n"

    def close(self):
        self.closed = True


def test_a_command_too_long_is_refused_and_the_next_ones_still_run(capsys):
    console, out = _Console(), io.StringIO()
    assert run.run_commands(console, ["info", "x" * 70, "help"], out=out) == 1
    assert out.getvalue() == f"rsa> info\nran info\nrsa> {'x' * 60}... (70 characters)\nrsa> help\nran help\n"
    assert console.closed and "error: 70 characters" in capsys.readouterr().err
