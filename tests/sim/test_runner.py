"""`python -m sim` as scripts use it: exit codes, messages, no needless rebuilds, and the flag forms
of the subcommands (`--run`, `--bench`, ...) as deprecated aliases."""

import subprocess
import sys

import pytest

from sim import build as sim_build
from jobs.cli import JOB_FLAGS, UsageError, _parse_args, _subcommand_argv
from link.console import ConsoleError, SimConsole

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


def test_bad_sizes_option_is_refused(sim_soc):
    result = _sim("bench", "--sizes", "512,1000")
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


# The flag forms: aliases of the subcommands ----------------------------------------------------------

def _note(flag, name):
    return f"note: 'python -m sim {flag}' is now 'python -m sim {name}'; the flag form will go away"


@pytest.mark.parametrize("old, new", [
    (["--run", "help; info"], ["run", "help; info"]),
    (["--run=help"], ["run", "help"]),
    (["--bench"], ["bench"]),
    (["--leak"], ["leak"]),
    (["--keygen", "512,1024"], ["keygen", "512,1024"]),
    (["--pty"], ["pty"]),
    (["--random-lines", "2000"], ["random-lines", "2000"]),
    (["--faults", "20"], ["faults", "20"]),
    (["--tls"], ["tls"]),
    (["--tls-bench"], ["tls-bench"]),
])
def test_every_job_flag_becomes_its_subcommand_with_its_value(old, new):
    argv, note = _subcommand_argv(old)
    assert argv == new and note == _note(old[0].partition("=")[0], new[0])
    assert sorted(flag for flag, _ in JOB_FLAGS.values()) == sorted(
        ["--run", "--bench", "--leak", "--keygen", "--pty", "--random-lines", "--faults", "--tls", "--tls-bench"])


@pytest.mark.parametrize("old, new", [
    (["--quiet", "--timeout", "5", "--run", "bench 4096"], ["run", "bench 4096", "--quiet", "--timeout", "5"]),
    (["--cpu-type", "serv", "--run", "info", "--port", "/dev/ttyUSB1"],
     ["run", "info", "--cpu-type", "serv", "--port", "/dev/ttyUSB1"]),
    (["--bench", "--sizes", "512", "--full", "--cpus", "all"], ["bench", "--sizes", "512", "--full", "--cpus", "all"]),
    (["--seed", "s", "--faults", "3", "--bits", "512"], ["faults", "3", "--seed", "s", "--bits", "512"]),
    (["--tls", "--listen", "127.0.0.1:4444", "--key", "1024"], ["tls", "--listen", "127.0.0.1:4444", "--key", "1024"]),
    (["--run", "--quiet"], ["run", "--quiet"]),      # no value: run's parser says COMMANDS is missing
])
def test_the_other_arguments_are_kept_in_their_order(old, new):
    assert _subcommand_argv(old)[0] == new


@pytest.mark.parametrize("argv, flags", [
    (["--bench", "--leak"], "--bench, --leak"),
    (["--run", "help", "--quiet", "--tls"], "--run, --tls"),
    (["--tls", "--tls-bench"], "--tls, --tls-bench"),
    (["--faults", "3", "--faults", "4"], "--faults, --faults"),
])
def test_two_job_flags_are_refused(argv, flags):
    with pytest.raises(UsageError) as refused:
        _subcommand_argv(argv)
    assert str(refused.value) == f"one job at a time: {flags}"


@pytest.mark.parametrize("argv, new", [
    (["bench", "--sizes", "512"], ["bench", "--sizes", "512"]),
    (["run", "--bench"], ["run", "--bench"]),         # the subcommand's own affair (here: the commands typed)
    (["console", "--trace"], ["console", "--trace"]),
    ([], ["console"]),                                 # nothing: the console, as before
    (["--trace", "--quiet"], ["console", "--trace", "--quiet"]),
    (["-h"], ["-h"]),                                  # the list of subcommands
    (["--quiet", "--help"], ["--quiet", "--help"]),
    (["nosuch"], ["nosuch"]),                          # argparse names the subcommands
])
def test_subcommand_forms_and_the_console_take_no_note(argv, new):
    assert _subcommand_argv(argv) == (new, None)


@pytest.mark.parametrize("old, new", [
    (["--quiet", "--run", "help", "--trace", "--timeout", "9"],
     ["run", "help", "--quiet", "--trace", "--timeout", "9"]),
    (["--bench", "--port", "/dev/ttyUSB1", "--baud", "9600", "--sizes", "512,1024"],
     ["bench", "--port", "/dev/ttyUSB1", "--baud", "9600", "--sizes", "512,1024"]),
    (["--keygen", "512", "--seeds", "2", "--impls", "sw", "--out-dir", "x"],
     ["keygen", "512", "--seeds", "2", "--impls", "sw", "--out-dir", "x"]),
    (["--leak", "--bits", "512", "--slow-messages", "all"], ["leak", "--bits", "512", "--slow-messages", "all"]),
    (["--random-lines", "5", "--seed", "s"], ["random-lines", "5", "--seed", "s"]),
    (["--pty", "--empty-ram"], ["pty", "--empty-ram"]),
    (["--tls-bench", "--handshakes", "1", "--tls-sizes", "1024"],
     ["tls-bench", "--handshakes", "1", "--tls-sizes", "1024"]),
])
def test_the_flag_form_parses_to_what_the_subcommand_does(old, new):
    assert vars(_parse_args(_subcommand_argv(old)[0])) == vars(_parse_args(new))


def test_the_flag_form_runs_the_subcommand_with_one_note():
    """Stops at bench's check of --sizes, before anything is built: the same refusal as the
    subcommand's, after one line of note."""
    old, new = _sim("--bench", "--sizes", "999", timeout=60), _sim("bench", "--sizes", "999", timeout=60)
    assert old.returncode == new.returncode == 2
    assert old.stderr == _note("--bench", "bench") + "\n" + new.stderr
    assert new.stderr.startswith("error: --sizes takes key sizes") and new.stderr.count("\n") == 1


def test_two_job_flags_exit_2_with_one_line():
    result = _sim("--bench", "--leak", timeout=60)
    assert result.returncode == 2 and result.stderr == "error: one job at a time: --bench, --leak\n"


@pytest.mark.parametrize("argv, message", [
    (["run"], "python -m sim run: error: the following arguments are required: COMMANDS"),
    (["leak", "--full"], "python -m sim leak: error: unrecognized arguments: --full (--full goes with bench)"),
    (["faults", "0"], "error: faults takes a number of runs, at least 1"),
    (["run", "help", "--trace", "--port", "/dev/ttyUSB1"],
     "error: --trace builds a traced simulation; --port talks to a board"),
    (["bench", "--cpus", "all", "--build-dir", "x"], "error: --cpus builds each CPU's simulation in a build "
     "directory of its own: not with --build-dir, --port, --montmul-word-bits or --montmul-lanes"),
])
def test_what_a_subcommand_does_not_take_is_refused_before_a_build(argv, message):
    result = _sim(*argv, timeout=60)
    assert result.returncode == 2 and result.stderr.strip().splitlines()[-1] == message


def test_help_lists_the_subcommands_and_each_its_options():
    top = _sim("-h", timeout=60)
    assert top.returncode == 0
    assert all(f"    {name}" in top.stdout for name in ("console", *JOB_FLAGS))
    assert "deprecated aliases" in top.stdout
    bench = _sim("bench", "-h", timeout=60)
    assert bench.returncode == 0 and "--cpus" in bench.stdout and "--port" in bench.stdout
    assert "--messages" not in bench.stdout and "--trace" not in bench.stdout
