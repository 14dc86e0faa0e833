"""`python -m sim`'s command line, built from the job registry (jobs/registry.py, jobs/cli.py): every job
registered with a summary and its own --help, the shared options where a job declares them, one name
per option across jobs, refusals as one `error:` line with exit status 2 before anything is built, and
no job meaning the console."""

import argparse
import os
import subprocess
import sys
import textwrap

import pytest

import jobs
from jobs import cli, options, registry
from sim import build as sim_build

ROOT = sim_build.ROOT

#: The jobs the command line has (others may join them: each is a module of jobs/).
JOBS = ("console", "run", "bench", "cpus", "leak", "keygen", "pty", "random-lines", "faults", "tls", "tls-bench")
#: The shared groups' options, by group.
GROUP_OPTIONS = {
    options.BUILD: ("--cpu-type", "--cpu-variant", "--build-dir", "--firmware-cflags", "--montmul-word-bits",
                    "--montmul-lanes", "--montmul-max-bits"),
    options.SERIAL: ("--port", "--baud", "--answer-timeout"),
}
#: Spellings the jobs used to have and no longer take.
OLD_SPELLINGS = ("--out-dir", "--bits", "--key", "--tls-sizes", "--tls-impls", "--cpus", "--jobs", "--bench",
                 "--run", "--leak", "--keygen", "--pty", "--faults", "--tls", "--tls-bench", "--random-lines")


def _sim(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture
def no_build(monkeypatch):
    """Any attempt to build a simulation fails the test: refusals come before."""
    def refuse(*args, **kwargs):
        raise AssertionError("a simulation was built")
    monkeypatch.setattr(sim_build, "build", refuse)
    monkeypatch.setattr(sim_build, "build_bare", refuse)


def _job_parsers():
    _, commands = cli.parser()
    return commands.choices


# ---- the registry ----------------------------------------------------------------------------------

def test_every_job_is_registered_with_a_one_line_summary():
    found = {job.name: job for job in registry.jobs()}
    assert set(JOBS) <= set(found)
    assert registry.jobs()[0].name == registry.DEFAULT_JOB == "console"
    for job in found.values():
        assert job.summary and "\n" not in job.summary and len(job.summary) <= 70, job.name
        assert callable(job.main) and set(job.groups) <= set(options.GROUPS)


def test_the_top_help_lists_every_job_on_one_line():
    """Its name and its summary, whatever the terminal's width."""
    result = subprocess.run([sys.executable, "-m", "sim", "--help"], cwd=ROOT, capture_output=True, text=True,
                            timeout=120, env={**os.environ, "COLUMNS": "60"})
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    for job in registry.jobs():
        mentions = [line for line in lines if line.split()[:1] == [job.name]]
        assert len(mentions) == 1 and mentions[0].split(None, 1)[1] == job.summary, job.name


@pytest.mark.parametrize("name", JOBS)
def test_each_job_parses_its_own_help(name, capsys):
    with pytest.raises(SystemExit) as done:
        cli.parse([name, "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    job = registry.get(name)
    assert out.startswith(f"usage: python -m sim {name} ")
    assert " ".join((job.description or job.summary).split()[:4]) in " ".join(out.split())
    assert "--timeout SECONDS" in out and "--quiet" in out


@pytest.mark.parametrize("name", JOBS)
def test_a_job_takes_the_shared_groups_it_declares_and_no_other(name):
    parser = _job_parsers()[name]
    job = registry.get(name)
    for group, names in GROUP_OPTIONS.items():
        taken = [option in parser._option_string_actions for option in names]
        assert taken == [group in job.groups] * len(names), (name, group)


def test_one_name_for_each_option_across_the_jobs():
    """Sizes are --sizes (a list) or --size (one), implementations --impls or --impl, the report's
    directory --out; none of the old spellings remains."""
    parsers = _job_parsers()
    for name, parser in parsers.items():
        taken = set(parser._option_string_actions)
        assert not taken & set(OLD_SPELLINGS), name
    takes = {name: set(parser._option_string_actions) for name, parser in parsers.items()}
    assert {name for name in JOBS if "--sizes" in takes[name]} == {"bench", "cpus", "keygen", "tls-bench"}
    assert {name for name in JOBS if "--size" in takes[name]} == {"leak", "faults", "tls"}
    assert {name for name in JOBS if "--impls" in takes[name]} == {"keygen", "tls-bench"}
    assert {name for name in JOBS if "--out" in takes[name]} == {"bench", "cpus", "leak", "keygen", "faults",
                                                                    "tls-bench"}


def test_a_module_written_to_the_convention_is_picked_up(tmp_path, monkeypatch):
    """A new job is one module of the package: the registry finds it and the command line has it."""
    (tmp_path / "probe_job.py").write_text(textwrap.dedent('''
        from jobs import options, registry

        def add_arguments(parser):
            options.add_sizes(parser, default=(512,))

        def main(args, log):
            print("probe", args.sizes)
            return 7

        registry.register(registry.Job("probe-job", "a job made by a test", main, add_arguments=add_arguments))
    '''))
    monkeypatch.setattr(jobs, "__path__", [*jobs.__path__, str(tmp_path)])
    monkeypatch.setattr(registry, "_JOBS", dict(registry._JOBS))
    monkeypatch.delitem(sys.modules, "jobs.probe_job", raising=False)
    try:
        assert "probe-job" in [job.name for job in registry.jobs()]
        assert cli.main(["probe-job", "--sizes", "1024,512"]) == 7
        assert cli.main(["probe-job", "--sizes", "100"]) == 2
    finally:
        sys.modules.pop("jobs.probe_job", None)


def test_a_second_job_of_a_name_and_a_summary_of_two_lines_are_mistakes(monkeypatch):
    monkeypatch.setattr(registry, "_JOBS", dict(registry._JOBS))
    registry.jobs()
    with pytest.raises(ValueError, match="two jobs named run"):
        registry.register(registry.Job("run", "another run", lambda args, log: 0))
    with pytest.raises(ValueError, match="one-line summary"):
        registry.Job("x", "two\nlines", lambda args, log: 0)
    with pytest.raises(ValueError, match="groups"):
        registry.Job("x", "a job", lambda args, log: 0, groups=("nosuch",))


# ---- parsing ---------------------------------------------------------------------------------------

def test_no_job_means_the_console():
    args = cli.parse([])
    assert args.job.name == "console" and args.trace is False
    assert args.cpu_type == "vexriscv" and args.timeout is None


def test_list_options_parse_to_lists():
    args = cli.parse(["keygen", "--sizes", "1024,512,1024", "--impls", "sw,hw_seq"])
    assert args.sizes == [512, 1024] and args.impls == ["sw", "hw_seq"] and args.timeout == 7200
    args = cli.parse(["tls-bench", "--sizes", "1024", "--impls", "bearssl", "--out", "x"])
    assert args.sizes == [1024] and args.impls == ["bearssl"] and str(args.out) == "x"
    assert cli.parse(["leak", "--size", "512", "--slow-messages", "all"]).slow_messages is None
    assert [c.name for c in cli.parse(["cpus", "vexriscv:full,serv"]).cpus] == ["vexriscv:full", "serv:standard"]


@pytest.mark.parametrize("argv, message", [
    (["bench", "--sizes", "512,1000"], "python -m sim bench: argument --sizes: takes key sizes from "
                                        "512,1024,1536,2048,3072,4096, comma-separated (got '512,1000')"),
    (["cpus", "--sizes", "x"], "python -m sim cpus: argument --sizes: takes key sizes from"),
    (["keygen", "--sizes", "500"], "python -m sim keygen: argument --sizes: takes key sizes from multiples of 64"),
    (["tls-bench", "--sizes", ""], "python -m sim tls-bench: argument --sizes: takes key sizes from"),
    (["leak", "--size", "1000"], "python -m sim leak: argument --size: invalid choice: 1000"),
    (["faults", "3", "--size", "777"], "python -m sim faults: argument --size: invalid choice: 777"),
    (["tls", "--size", "100"], "python -m sim tls: argument --size: invalid choice: 100"),
    (["keygen", "--impls", "sw,nosuch"], "python -m sim keygen: argument --impls: takes implementations from"),
    (["tls", "--impl", "nosuch"], "python -m sim tls: argument --impl: invalid choice: 'nosuch'"),
    (["faults", "0"], "python -m sim faults: argument N: takes a whole number, at least 1 (got '0')"),
    (["leak", "--messages", "1"], "python -m sim leak: argument --messages: takes a whole number, at least 2"),
    (["run"], "python -m sim run: the following arguments are required: COMMANDS"),
    (["leak", "--full"], "python -m sim leak: unrecognized arguments: --full (--full goes with bench)"),
    (["--bench"], "python -m sim: the job first, then its options: python -m sim JOB [options]\n"),
    (["--trace"], "python -m sim: the job first, then its options: python -m sim JOB [options] (--trace goes "
                  "with console, run)"),
    (["--quiet", "run", "help"], "python -m sim: the job first, then its options: python -m sim JOB [options] "
                                 "(--quiet goes with"),
    (["bench", "--out-dir", "x"], "python -m sim bench: unrecognized arguments: --out-dir x"),
    (["nosuch"], "python -m sim: argument JOB: invalid choice: 'nosuch'"),
    (["run", "help", "--trace", "--port", "/dev/ttyUSB1"],
     "python -m sim run: --trace builds a traced simulation; --port talks to a board"),
    (["run", "help", "--montmul-lanes", "8", "--port", "/dev/ttyUSB1"],
     "python -m sim run: the --montmul-* options build a simulation; --port talks to a board"),
    (["run", "help", "--entropy-seed", "3", "--port", "/dev/ttyUSB1"],
     "python -m sim run: --entropy-seed and --entropy-mode drive a simulation's entropy source; --port talks to"),
    (["run", "help", "--entropy-mode", "nosuch"], "python -m sim run: argument --entropy-mode: invalid choice"),
    (["bench", "--montmul-lanes", "3"], "python -m sim bench: invalid peripheral configuration: --montmul-lanes 3"),
    (["tls", "--listen", "nowhere"], "python -m sim tls: --listen takes HOST:PORT"),
    (["run", "help", "--cpu-type", "nosuch"], "python -m sim run: unknown CPU type 'nosuch'"),
])
def test_a_refusal_is_one_error_line_and_status_2_before_a_build(argv, message, no_build, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: " + message), err


def test_a_refusal_from_the_command_line_itself():
    """The same, through `python -m sim` in a process of its own."""
    result = _sim("bench", "--sizes", "999")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("error: python -m sim bench: argument --sizes: takes key sizes")
    assert result.stderr.count("\n") == 1


def test_the_parsers_refuse_through_usage_errors():
    parser = cli._Parser(prog="p")
    with pytest.raises(options.UsageError, match="^p: unrecognized arguments: --x$"):
        parser.parse_args(["--x"])
    with pytest.raises(argparse.ArgumentTypeError, match="at least 3"):
        options.at_least(3)("2")
