"""The command line of ``python -m gateware``: ``--report`` (gateware.tools.report), ``--sweep`` (gateware.tools.sweep), both
with ``--no-firmware`` to leave out the firmware's RSA-2048 count on the simulated SoC, and
``--prove`` (gateware.tools.formal, its own options).  The figures live in those modules; this one only parses,
calls and prints."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from common.errors import ProjectError
from gateware.options import add_peripheral_options, peripheral_config

from eda import timing

from . import sweep
from .report import DEFAULT_BUILD, build_report, format_report

__all__ = ["main"]


def _lanes_list(text: str) -> tuple:
    try:
        return sweep.parse_lanes(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m gateware",
                                     description="Montgomery peripheral: cycles, resources, timing.")
    parser.add_argument("--report", action="store_true",
                        help="simulate, synthesise for xc7z020 and estimate timing; print and write JSON")
    parser.add_argument("--sweep", nargs="?", const=sweep.DEFAULT_LANES, type=_lanes_list, metavar="LANES",
                        help="the same figures for several configurations, and what they make of RSA-2048 "
                             "(LANES: comma-separated, default "
                             f"{','.join(map(str, sweep.DEFAULT_LANES))} at the SoC's {sweep.FIRMWARE_CONFIG.word_bits}-bit "
                             f"words, {','.join(map(str, sweep.default_lanes(16)))} with --montmul-word-bits 16); writes sweep.json, sweep.md and "
                             "sweep.png in the working directory")
    parser.add_argument("--prove", action="store_true",
                        help="SymbiYosys proofs of constant time and of refusals' integrity, written to "
                             "build/formal/report.{json,md} (its own options: --prove --help)")
    parser.add_argument("--no-firmware", dest="firmware", action="store_false",
                        help="leave out the firmware's count of RSA-2048 with CRT, timed on the simulated SoC "
                             "(whose first build takes minutes)")
    parser.add_argument("--jobs", type=int, default=2, metavar="N",
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
    if args.sweep:
        return _main_sweep(parser, args)
    if not args.report:
        parser.print_help()
        return 0
    try:
        config = peripheral_config(args)
        if args.route_ns < 0:
            raise ProjectError("--route-ns must not be negative")
        report = build_report(config, workdir=args.workdir, route_ps=round(args.route_ns * 1000),
                              firmware=args.firmware,
                              progress=lambda message: print(message, file=sys.stderr, flush=True))
    except ProjectError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(format_report(report))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nwritten to {args.json}")
    return 0


def _main_sweep(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.montmul_lanes is not None:
        parser.error("--sweep takes the lanes itself: --sweep 8,16,32")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    try:
        if args.route_ns < 0:
            raise ProjectError("--route-ns must not be negative")
        config = peripheral_config(args)
        # --sweep without a list: the default lanes of the word width asked for
        data = sweep.sweep(None if args.sweep is sweep.DEFAULT_LANES else args.sweep, max_bits=config.max_bits,
                           word_bits=config.word_bits, workdir=args.workdir, jobs=args.jobs,
                           route_ps=round(args.route_ns * 1000), firmware=args.firmware,
                           progress=lambda message: print(message, file=sys.stderr, flush=True))
        paths = sweep.write_outputs(data, args.workdir)
    except ProjectError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(paths["md"].read_text())
    print("written to " + ", ".join(str(path) for path in paths.values()) + f" ({data['seconds']} s)")
    return 0
