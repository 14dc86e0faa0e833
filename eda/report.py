"""``python -m gateware --report``: cycle counts, xc7z020 resources and a timing estimate for one
configuration of the Montgomery peripheral, next to the targets of the issue.

The figures come from:
  * ``gateware.driver.mul_cycles(config, bits)`` (the RTL, simulated) and
    ``gateware.model.exp_cycles(config, bits, mode)`` (the model, checked against the RTL),
  * ``eda.synth.synthesize`` (Yosys ``synth_xilinx -family xc7``),
  * ``eda.timing.analyze`` (static estimate, 7-series -1 figures).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from common.errors import ProjectError
from gateware.interface import PeripheralConfig
from gateware.montmul import generate_verilog

from . import synth, timing

__all__ = ["TARGETS", "MUL_BITS", "build_report", "check_targets", "format_report", "main"]

REPO = Path(__file__).resolve().parents[1]
DEFAULT_BUILD = REPO / "build" / "gateware"

MUL_BITS = (512, 1024, 1536, 2048, 3072, 4096)
EXP_BITS = 2048
EXP_MODES = ("window", "fixed", "ladder")

#: The issue's targets: cycle counts and resources are upper bounds.
TARGETS = {
    "mul_cycles": {"1024": 100, "2048": 300, "4096": 1100},
    "resources": {"dsp": 160, "lut": 30000, "bram36": 40},
    "timing": {"critical_path_ns": 10.0},
}


def _cycle_counts(config: PeripheralConfig, say) -> tuple[dict, dict]:
    """Simulated cycles of one Montgomery product per size in MUL_BITS, and the model's cycles of one
    EXP_BITS-bit exponentiation per mode; None for sizes beyond ``config.max_bits``."""
    from gateware import driver, model

    mul_cycles = {str(bits): None for bits in MUL_BITS}
    exp_cycles = {f"{EXP_BITS}_{mode}": None for mode in EXP_MODES}
    say("simulating Montgomery products ...")
    for bits in MUL_BITS:
        if bits <= config.max_bits:
            mul_cycles[str(bits)] = driver.mul_cycles(config, bits)
    if EXP_BITS <= config.max_bits:
        say("counting the cycles of exponentiations (model) ...")
        for mode in EXP_MODES:
            exp_cycles[f"{EXP_BITS}_{mode}"] = model.exp_cycles(config, EXP_BITS, mode)
    return mul_cycles, exp_cycles


def _status(value, bound) -> str:
    if value is None:
        return "N/A"
    return "MET" if value <= bound else "SHORT"


def check_targets(figures: dict, targets: dict = TARGETS) -> dict:
    """Each target's bound, the figure it bounds and MET/SHORT (N/A when there is no figure);
    ``figures`` and ``targets`` are grouped alike (``{"resources": {"lut": ...}, ...}``)."""
    return {group: {key: {"target": bound, "value": figures[group][key],
                          "status": _status(figures[group][key], bound)}
                    for key, bound in bounds.items()}
            for group, bounds in targets.items()}


def build_report(config: PeripheralConfig, *, workdir: Path = DEFAULT_BUILD,
                 route_ps: int = timing.ROUTE_PS, progress=None) -> dict:
    """Simulate, synthesise and time one peripheral configuration; return the report as a dict."""
    say = progress or (lambda message: None)
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)

    mul_cycles, exp_cycles = _cycle_counts(config, say)

    say("synthesising for xc7z020 (yosys synth_xilinx) ...")
    source = workdir / "peripheral.v"
    source.write_text(generate_verilog(config, name="montmul"))
    result = synth.synthesize([source], "montmul", workdir / "synth")
    say(f"timing estimate over {sum(result.cells.values())} cells ...")
    estimate = timing.analyze(result.netlist, result.top, route_ps=route_ps)

    resources = {key: result.resources[key] for key in ("dsp", "lut", "ff", "bram36")}
    timing_figures = {
        "critical_path_ns": round(estimate.critical_path_ns, 3),
        "fmax_mhz": round(estimate.fmax_mhz, 1),
        "start": estimate.start,
        "end": estimate.end,
    }
    targets = check_targets({"mul_cycles": mul_cycles, "resources": resources, "timing": timing_figures})
    return {
        "config": dataclasses.asdict(config),
        "mul_cycles": mul_cycles,
        "exp_cycles": exp_cycles,
        "resources": resources,
        "timing": timing_figures,
        "targets": targets,
        "details": {
            "top": result.top,
            "synth_seconds": round(result.seconds, 1),
            "resources": result.resources,
            "route_ns_per_net": route_ps / 1000,
            "logic_levels": estimate.logic_levels,
            "path": [dataclasses.asdict(step) for step in estimate.path],
            "clock_domains": estimate.clock_domains,
            "combinational_loops": len(estimate.loops),
            "unmodelled_cells": dict(estimate.unknown_cells),
        },
    }


def format_report(report: dict) -> str:
    """The report as a table for the terminal: value, target and MET/SHORT per figure."""
    targets = report["targets"]

    def row(label, value, group=None, key=None, unit=""):
        text = "-" if value is None else (f"{value:,}" if isinstance(value, int) else f"{value}")
        line = f"  {label:<22}{text + unit:>14}"
        if group and key in targets.get(group, {}):
            t = targets[group][key]
            bound = f"{t['target']:,}" if isinstance(t["target"], int) else f"{t['target']}"
            line += f"   target <= {bound + unit:<10} {t['status']}"
        return line

    config = ", ".join(f"{k}={v}" for k, v in report["config"].items())
    lines = [f"Montgomery peripheral ({config})", "", "Montgomery product, cycles"]
    for bits, value in report["mul_cycles"].items():
        lines.append(row(f"{bits} bits", value, "mul_cycles", bits))
    lines += ["", "Modular exponentiation, cycles"]
    for key, value in report["exp_cycles"].items():
        bits, mode = key.split("_", 1)
        lines.append(row(f"{bits} bits, {mode}", value))
    lines += ["", "Resources, xc7z020 (Yosys synth_xilinx)"]
    for key, label in (("dsp", "DSP48E1"), ("lut", "LUT"), ("ff", "FF"), ("bram36", "BRAM36")):
        lines.append(row(label, report["resources"][key], "resources", key))
    t = report["timing"]
    lines += ["", f"Timing estimate, 7-series -1 ({report['details']['route_ns_per_net']} ns routing per net)",
              row("critical path", t["critical_path_ns"], "timing", "critical_path_ns", " ns"),
              row("Fmax", t["fmax_mhz"], unit=" MHz"),
              f"  from {t['start']}", f"  to   {t['end']}"]
    return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m gateware",
                                     description="Montgomery peripheral: cycles, resources, timing.")
    parser.add_argument("--report", action="store_true",
                        help="simulate, synthesise for xc7z020 and estimate timing; print and write JSON")
    parser.add_argument("--json", type=Path, default=DEFAULT_BUILD / "report.json", metavar="PATH",
                        help="where to write the JSON report (default: build/gateware/report.json)")
    parser.add_argument("--workdir", type=Path, default=DEFAULT_BUILD, metavar="DIR",
                        help="synthesis working directory (default: build/gateware)")
    parser.add_argument("--route-ns", type=float, default=timing.ROUTE_PS / 1000, metavar="NS",
                        help="routing allowance per net in the timing estimate (default: %(default)s)")
    group = parser.add_argument_group("peripheral configuration (gateware.interface.PeripheralConfig)")
    for field in dataclasses.fields(PeripheralConfig):
        group.add_argument("--" + field.name.replace("_", "-"), dest=field.name, type=type(field.default),
                           default=None,
                           metavar=field.name.upper(), help=f"default: {field.default}")
    return parser


def _config(args: argparse.Namespace) -> PeripheralConfig:
    overrides = {field.name: getattr(args, field.name) for field in dataclasses.fields(PeripheralConfig)
                 if getattr(args, field.name) is not None}
    try:
        return PeripheralConfig(**overrides)
    except ValueError as error:
        raise ProjectError(f"invalid configuration: {error}") from None


def main(argv=None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not args.report:
        parser.print_help()
        return 0
    try:
        config = _config(args)
        if args.route_ns < 0:
            raise ProjectError("--route-ns must not be negative")
        report = build_report(config, workdir=args.workdir, route_ps=round(args.route_ns * 1000),
                              progress=lambda message: print(message, file=sys.stderr, flush=True))
    except ProjectError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(format_report(report))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nwritten to {args.json}")
    return 0
