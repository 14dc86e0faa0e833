"""The command line of ``python -m gateware``: ``--report`` (gateware.tools.report), ``--sweep``
(gateware.tools.sweep) and ``--prove`` (gateware.tools.formal, its own options).  The figures live in
those modules; this one only parses, calls and prints.  ``python -m sim report`` (jobs.report) runs the
same report and sweep with the options below, adding the firmware's count on the simulated SoC."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from common.errors import ProjectError
from eda import timing
from gateware.options import add_peripheral_options, peripheral_config

from . import sweep
from .report import DEFAULT_BUILD, UNMEASURED, build_report, format_report

__all__ = ["add_figure_options", "usage_error", "run_report", "run_sweep", "main"]


def _lanes_list(text: str) -> tuple:
    try:
        return sweep.parse_lanes(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_figure_options(parser, processes: str = "--jobs") -> None:
    """The options of the report and the sweep besides --report: --sweep, ``processes`` (the sweep's
    worker processes, ``args.jobs``), --json, --workdir, --route-ns and the peripheral's configuration
    (``gateware.options``)."""
    parser.add_argument("--sweep", nargs="?", const=sweep.DEFAULT_LANES, type=_lanes_list, metavar="LANES",
                        help="the same figures for several configurations, and what they make of RSA-2048 "
                             "(LANES: comma-separated, default "
                             f"{','.join(map(str, sweep.DEFAULT_LANES))} at the default's "
                             f"{sweep.FIRMWARE_CONFIG.word_bits}-bit words, "
                             f"{','.join(map(str, sweep.default_lanes(16)))} with --montmul-word-bits 16); "
                             "writes sweep.json, sweep.md and sweep.png in the working directory")
    parser.add_argument(processes, dest="jobs", type=int, default=2, metavar="N",
                        help="processes the sweep runs its jobs on (default: %(default)s)")
    parser.add_argument("--json", type=Path, default=DEFAULT_BUILD / "report.json", metavar="PATH",
                        help="where to write the JSON report (default: build/gateware/report.json)")
    parser.add_argument("--workdir", type=Path, default=DEFAULT_BUILD, metavar="DIR",
                        help="synthesis working directory, where the sweep writes its files too "
                             "(default: build/gateware)")
    parser.add_argument("--route-ns", type=float, default=timing.ROUTE_PS / 1000, metavar="NS",
                        help="routing allowance per net in the timing estimate (default: %(default)s)")
    add_peripheral_options(parser.add_argument_group(
        "peripheral configuration (gateware.interface.PeripheralConfig; by default PeripheralConfig(), the SoC's)"))


def usage_error(args: argparse.Namespace, processes: str = "--jobs") -> str | None:
    """What argparse cannot refuse in the options of ``add_figure_options`` (None: nothing)."""
    if args.sweep and args.montmul_lanes is not None:
        return "--sweep takes the lanes itself: --sweep 8,16,32"
    if args.sweep and args.jobs < 1:
        return f"{processes} must be at least 1"
    return None


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run_report(args: argparse.Namespace, *, firmware=None, sys_clk_mhz: float | None = None,
               unmeasured: str = UNMEASURED, progress=_progress) -> int:
    """The report of the configuration ``args`` name, printed and written to --json (``firmware``,
    ``sys_clk_mhz``, ``unmeasured``: ``report.build_report``'s).  ProjectError on failure."""
    config = peripheral_config(args)
    if args.route_ns < 0:
        raise ProjectError("--route-ns must not be negative")
    report = build_report(config, workdir=args.workdir, route_ps=round(args.route_ns * 1000), firmware=firmware,
                          sys_clk_mhz=sys_clk_mhz, unmeasured=unmeasured, progress=progress)
    print(format_report(report))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nwritten to {args.json}")
    return 0


def run_sweep(args: argparse.Namespace, *, firmware=None, sys_clk_mhz: float | None = None,
              unmeasured: str = UNMEASURED, command: str = sweep.COMMAND, progress=_progress) -> int:
    """The sweep ``args`` ask for, printed and written to --workdir (the keywords: ``sweep.sweep``'s).
    ProjectError on failure."""
    if args.route_ns < 0:
        raise ProjectError("--route-ns must not be negative")
    config = peripheral_config(args)
    # --sweep without a list: the default lanes of the word width asked for
    data = sweep.sweep(None if args.sweep is sweep.DEFAULT_LANES else args.sweep, max_bits=config.max_bits,
                       word_bits=config.word_bits, workdir=args.workdir, jobs=args.jobs,
                       route_ps=round(args.route_ns * 1000), firmware=firmware, unmeasured=unmeasured,
                       sys_clk_mhz=sys_clk_mhz, command=command, progress=progress)
    paths = sweep.write_outputs(data, args.workdir)
    print(paths["md"].read_text())
    print("written to " + ", ".join(str(path) for path in paths.values()) + f" ({data['seconds']} s)")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m gateware", description="Montgomery peripheral: cycles, resources, timing.",
        epilog="The firmware's count of RSA-2048 with CRT on the simulated SoC, and times at the SoC's clock: "
               "python -m sim report (--sweep), with the same options.")
    parser.add_argument("--report", action="store_true",
                        help="simulate, synthesise for xc7z020 and estimate timing; print and write JSON")
    parser.add_argument("--prove", action="store_true",
                        help="SymbiYosys proofs of constant time and of refusals' integrity, written to "
                             "build/formal/report.{json,md} (its own options: --prove --help)")
    add_figure_options(parser)
    return parser


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if "--prove" in argv:
        from . import formal
        return formal.main([arg for arg in argv if arg != "--prove"])
    parser = _parser()
    args = parser.parse_args(argv)
    if args.report and args.sweep:
        parser.error("--report and --sweep: one at a time")
    message = usage_error(args)
    if message:
        parser.error(message)
    if not args.report and not args.sweep:
        parser.print_help()
        return 0
    try:
        return run_sweep(args) if args.sweep else run_report(args)
    except ProjectError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
