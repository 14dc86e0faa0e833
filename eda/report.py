"""``python -m gateware --report``: cycle counts, xc7z020 resources and a timing estimate for one
configuration of the Montgomery peripheral, next to the targets of the issue (the command line is
``eda.cli``; ``--sweep`` runs ``eda.sweep``: the same figures for several configurations).

The figures come from:
  * ``gateware.driver.mul_cycles(config, bits)`` (the RTL, simulated) and
    ``gateware.model.exp_cycles(config, bits, mode)`` (the model, checked against the RTL),
  * ``eda.synth.synthesize`` (Yosys ``synth_xilinx -family xc7``),
  * ``eda.timing.analyze`` (static estimate, 7-series -1 figures).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from common import cache
from common.errors import ProjectError
from gateware.interface import PeripheralConfig

from . import synth, timing
from .synth import generate_verilog

__all__ = ["TARGETS", "MUL_BITS", "mul_cycles", "synthesize_peripheral", "resource_figures",
           "timing_figures", "build_report", "check_targets", "format_report"]

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


def mul_cycles(config: PeripheralConfig, sizes=MUL_BITS) -> dict:
    """Cycles of one Montgomery product per operand size in ``sizes``, measured on the RTL
    (``gateware.driver.mul_cycles``), as {str(bits): cycles}, None for sizes beyond
    ``config.max_bits``.  Each count must equal the model's (``gateware.model.mul_cycles``), which
    the exponentiation figures stand on: a difference is an error, not a figure."""
    from gateware import driver, model

    cycles = {}
    for bits in sizes:
        if bits > config.max_bits:
            cycles[str(bits)] = None
            continue
        measured, expected = driver.mul_cycles(config, bits), model.mul_cycles(config, bits)
        if measured != expected:
            raise ProjectError(f"the RTL takes {measured} cycles for a {bits}-bit product at {config}, "
                               f"the model says {expected}: the model is out of date")
        cycles[str(bits)] = measured
    return cycles


def _cycle_counts(config: PeripheralConfig, say) -> tuple[dict, dict]:
    """Simulated cycles of one Montgomery product per size in MUL_BITS, and the model's cycles of one
    EXP_BITS-bit exponentiation per mode; None for sizes beyond ``config.max_bits``."""
    from gateware import model

    exp_cycles = {f"{EXP_BITS}_{mode}": None for mode in EXP_MODES}
    say("simulating Montgomery products ...")
    mul = mul_cycles(config, MUL_BITS)
    if EXP_BITS <= config.max_bits:
        say("counting the cycles of exponentiations (model) ...")
        for mode in EXP_MODES:
            exp_cycles[f"{EXP_BITS}_{mode}"] = model.exp_cycles(config, EXP_BITS, mode)
    return mul, exp_cycles


def synthesize_peripheral(config: PeripheralConfig, workdir: Path, cache_dir: Path | None = None,
                          keep: int = 2) -> synth.SynthResult:
    """The peripheral's Verilog (``workdir/montmul.v``) through Yosys for xc7.  Without ``cache_dir``
    Yosys runs in ``workdir/synth``; with it, in ``cache_dir/montmul-<config>-<digest>``, and not at
    all when the same Verilog was synthesised there before (``seconds`` is then 0).  The ``keep``
    most recent runs of each configuration stay in the cache."""
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    source = workdir / "montmul.v"
    text = generate_verilog(config, name="montmul")
    if not source.exists() or source.read_text() != text:
        source.write_text(text)
    if cache_dir is None:
        return synth.synthesize([source], "montmul", workdir / "synth")
    name = f"montmul-lanes{config.lanes}-bits{config.max_bits}"
    made = []
    directory, _ = cache.cached_dir(cache_dir, name, ("montmul", cache.digest(files=[source])),
                                    lambda d: made.append(synth.synthesize([source], "montmul", d)),
                                    keep=keep)
    if made:
        return made[0]
    with open(directory / "netlist.json") as f:
        cells = synth.count_cells(json.load(f), "montmul")
    return synth.SynthResult(top="montmul", workdir=directory, netlist=directory / "netlist.json",
                             log=directory / "yosys.log", cells=cells, seconds=0.0)


def resource_figures(result: synth.SynthResult) -> dict:
    """The resources the report and the sweep show: DSP48E1, LUT, FF, BRAM36."""
    return {key: result.resources[key] for key in ("dsp", "lut", "ff", "bram36")}


def timing_figures(result: synth.SynthResult, route_ps: int = timing.ROUTE_PS):
    """The static timing estimate of a synthesised netlist: (figures for the report, the estimate)."""
    estimate = timing.analyze(result.netlist, result.top, route_ps=route_ps)
    return {
        "critical_path_ns": round(estimate.critical_path_ns, 3),
        "fmax_mhz": round(estimate.fmax_mhz, 1),
        "start": estimate.start,
        "end": estimate.end,
    }, estimate


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

    mul, exp = _cycle_counts(config, say)

    say("synthesising for xc7z020 (yosys synth_xilinx) ...")
    result = synthesize_peripheral(config, workdir)
    say(f"timing estimate over {sum(result.cells.values())} cells ...")
    times, estimate = timing_figures(result, route_ps)
    resources = resource_figures(result)
    targets = check_targets({"mul_cycles": mul, "resources": resources, "timing": times})
    return {
        "config": dataclasses.asdict(config),
        "mul_cycles": mul,
        "exp_cycles": exp,
        "resources": resources,
        "timing": times,
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
