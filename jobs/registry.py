"""The jobs of `python -m sim`, one subcommand each, in one registry the command line is built from.

A job is a module of this package that registers itself when imported; jobs.cli imports every module
of the package (`discover`), so a new job is one new module and nothing else (a helper module that
registers nothing, such as cpu_figures, is simply not a job). A job module ends with:

    from jobs import options, registry

    def add_arguments(parser):            # the job's own options (argparse)
        options.add_sizes(parser, default=(2048,))
        parser.add_argument("--count", type=options.at_least(1), default=3, help="...")

    def check(args):                      # optional: what argparse cannot check; raise options.UsageError
        ...

    def main(args, log):                  # runs the job; returns the exit status
        build = options.simulation(args, log)
        ...
        return 0

    registry.register(registry.Job(
        "name", "one line for `python -m sim --help`", main, add_arguments=add_arguments, check=check,
        groups=(options.BUILD,), timeout=600,
        description="what the job does, for `python -m sim name --help`"))

`groups`: the shared option groups the job takes (options.BUILD: the simulation's build; options.SERIAL:
--port and friends, a board instead of a simulation); every job takes --timeout (default: the job's
`timeout` in seconds, None for none) and --quiet. Refusals (argparse's, `check`'s, the groups') exit
with status 2 before anything is built. `main` gets the parsed options and the job's log (stderr,
silent with --quiet); options.simulation(args, log) builds the SoC the build options ask for and
options.open_console(args, build) opens the console there or at --port.
"""

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Callable

from jobs import options

#: The job `python -m sim` runs with no subcommand.
DEFAULT_JOB = "console"
#: Modules of the package that are not jobs.
NOT_JOBS = ("cli", "registry", "options")

_JOBS = {}


@dataclass(frozen=True)
class Job:
    name: str
    #: One line in `python -m sim --help`.
    summary: str
    #: main(args, log) -> exit status.
    main: Callable
    #: add_arguments(parser): the job's own options.
    add_arguments: Callable = None
    #: check(args): raises options.UsageError for what argparse cannot check.
    check: Callable = None
    #: The shared option groups the job takes (options.GROUPS).
    groups: tuple = ()
    #: --timeout's default, in seconds (None: no limit).
    timeout: float = None
    #: The job's --help text (default: the summary).
    description: str = None

    def __post_init__(self):
        unknown = set(self.groups) - set(options.GROUPS)
        if unknown or not self.summary or "\n" in self.summary:
            raise ValueError(f"job {self.name}: groups from {options.GROUPS} and a one-line summary, please")


def register(job):
    """Adds `job` to the registry (a second job of the same name is a mistake) and returns it."""
    if _JOBS.get(job.name, job) is not job:
        raise ValueError(f"two jobs named {job.name}")
    _JOBS[job.name] = job
    return job


def discover():
    """Imports every job module of the package (each registers its jobs)."""
    import jobs
    for module in pkgutil.iter_modules(jobs.__path__):
        if module.name not in NOT_JOBS and not module.name.startswith("_"):
            importlib.import_module(f"jobs.{module.name}")


def jobs():
    """The registered jobs: the default one first, the others by name."""
    discover()
    return sorted(_JOBS.values(), key=lambda job: (job.name != DEFAULT_JOB, job.name))


def get(name):
    discover()
    return _JOBS[name]
