"""`python -m sim`: the command line of the jobs, built from their registry (jobs/registry.py).

Each job is a subcommand with its own options (`python -m sim JOB --help`); with no job at all, the
console opens on this terminal.
"""

import argparse
import sys

from common.errors import reports_errors
from jobs import options, registry

DESCRIPTION = """\
Build what is stale and run the SoC with its firmware in Verilator, or drive the same firmware on a
board over a serial port (the jobs that take --port). With no job, the console on this terminal."""

EPILOG = """\
`python -m sim JOB --help` lists a job's options. Examples:
  python -m sim run "help; info"
  python -m sim bench --sizes 512,1024,2048
  python -m sim keygen --sizes 512,1024 --seeds 16"""


class _JobList(argparse.RawTextHelpFormatter):
    """The top-level help: each job's summary on its one line (raw text, never wrapped), beside the
    job's name however long the name."""

    def add_argument(self, action):
        super().add_argument(action)
        if isinstance(action, argparse._SubParsersAction):
            # argparse measures the jobs' names at the list's indent but prints them one level deeper
            self._action_max_length += 2


class _Parser(argparse.ArgumentParser):
    """A parser whose refusals come back as options.UsageError (one line, exit status 2, by main)
    instead of argparse's exit; --help still prints and exits."""

    def error(self, message):
        raise options.UsageError(f"{self.prog}: {message}")


def parser():
    """The top-level parser and its subparsers' action (its `choices`: job name -> parser)."""
    top = _Parser(prog="python -m sim", description=DESCRIPTION, epilog=EPILOG, formatter_class=_JobList)
    commands = top.add_subparsers(dest="command", title="jobs", metavar="JOB", parser_class=_Parser)
    for job in registry.jobs():
        sub = commands.add_parser(job.name, help=job.summary, description=job.description or job.summary)
        if job.add_arguments:
            job.add_arguments(sub)
        if options.BUILD in job.groups:
            options.add_build_options(sub)
        if options.SERIAL in job.groups:
            options.add_serial_options(sub)
        options.add_common_options(sub, job.timeout)
        sub.set_defaults(job=job)
    return top, commands


def _hints(tokens, commands):
    """The hint ` (--x goes with a, b; ...)` for the options among `tokens` that some job takes ("" for none)."""
    hints = []
    for option in dict.fromkeys(token.partition("=")[0] for token in tokens if token.startswith("-")):
        takers = [name for name, sub in commands.choices.items() if option in sub._option_string_actions]
        if takers:
            hints.append(f"{option} goes with {', '.join(takers)}")
    return f" ({'; '.join(hints)})" if hints else ""


def parse(argv):
    """The options of `argv` (empty: the default job), every check done: a UsageError otherwise. An
    option the job does not take is named with the jobs that do."""
    top, commands = parser()
    argv = list(argv) or [registry.DEFAULT_JOB]
    if argv[0].startswith("-") and argv[0] not in ("-h", "--help"):
        top.error("the job first, then its options: python -m sim JOB [options]" + _hints(argv, commands))
    args, extra = top.parse_known_args(argv)
    job_parser = commands.choices[args.command] if args.command else top
    if extra:
        job_parser.error("unrecognized arguments: " + " ".join(extra) + _hints(extra, commands))
    try:
        options.check_build(args)
        if args.job.check:
            args.job.check(args)
    except options.UsageError as error:
        job_parser.error(str(error))
    return args


@reports_errors
def main(argv=None):
    """Runs the job `argv` asks for; its exit status (2: the command line was refused, nothing built)."""
    try:
        args = parse(sys.argv[1:] if argv is None else argv)
    except options.UsageError as error:
        print(f"error: {error}", file=sys.stderr, flush=True)
        return 2
    return args.job.main(args, options.log(args))


if __name__ == "__main__":
    sys.exit(main())
