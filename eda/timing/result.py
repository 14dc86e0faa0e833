"""What the estimate returns (``TimingResult``, one ``PathStep`` per cell on the critical path) and
its text form."""

from collections import Counter
from dataclasses import dataclass, field

__all__ = ["PathStep", "TimingResult", "format_report"]


@dataclass
class PathStep:
    cell: str          # cleaned cell name ("<port>" for a top-level port)
    type: str
    from_pin: str      # "" for the start point
    to_pin: str        # "" for the end point
    cell_ns: float     # clock-to-out, logic delay or setup of this step
    route_ns: float    # routing charged on the net into this step
    arrival_ns: float  # cumulative, after this step
    net: str           # net driven by this step (the net read, for the end point)


@dataclass
class TimingResult:
    critical_path_ns: float
    fmax_mhz: float
    start: str
    end: str
    path: list[PathStep]
    logic_levels: int
    route_ps: int
    cells: int
    nets: int
    endpoints: int
    loops: list[list[str]] = field(default_factory=list)       # cells on cut combinational loops
    unknown_cells: Counter = field(default_factory=Counter)    # types with no model (paths cut there)
    top_endpoints: list[tuple[float, str]] = field(default_factory=list)  # worst few, by end point
    clock_domains: dict[str, float] = field(default_factory=dict)  # clock net -> its worst path, ns

    def as_dict(self) -> dict:
        return {
            "critical_path_ns": round(self.critical_path_ns, 3),
            "fmax_mhz": round(self.fmax_mhz, 1),
            "start": self.start,
            "end": self.end,
            "logic_levels": self.logic_levels,
            "route_ns_per_net": self.route_ps / 1000,
            "path": [vars(step) for step in self.path],
            "loops": len(self.loops),
            "unknown_cells": dict(self.unknown_cells),
            "clock_domains": self.clock_domains,
        }



def format_report(result: TimingResult, max_steps: int = 60) -> str:
    """The critical path as text: a summary line, then one line per step (the middle of a long
    path elided), then warnings about clock domains, loops and unmodelled cells."""
    lines = [
        f"critical path {result.critical_path_ns:.3f} ns  ->  Fmax {result.fmax_mhz:.1f} MHz"
        f"  ({result.logic_levels} logic levels, routing {result.route_ps / 1000:.2f} ns per net)",
        f"  from {result.start}",
        f"  to   {result.end}",
        f"  {'arrival':>8} {'cell':>6} {'route':>6}  step",
    ]
    steps = result.path
    shown = steps if len(steps) <= max_steps else steps[:max_steps // 2] + [None] + steps[-max_steps // 2:]
    for s in shown:
        if s is None:
            lines.append("       ...")
            continue
        pins = f"{s.from_pin}->{s.to_pin}" if s.from_pin and s.to_pin else (s.to_pin or s.from_pin)
        lines.append(f"  {s.arrival_ns:8.3f} {s.cell_ns:6.3f} {s.route_ns:6.3f}  {s.type} {pins}  {s.cell}")
    if len(result.clock_domains) > 1:
        lines.append("  clock domains (worst path each, cross-domain paths left out): "
                     + ", ".join(f"{clock} {ns:.3f} ns" for clock, ns in result.clock_domains.items()))
    if result.loops:
        lines.append(f"  warning: {len(result.loops)} combinational loop(s) cut, e.g. {result.loops[0][:4]}")
    if result.unknown_cells:
        lines.append(f"  warning: no timing model for {dict(result.unknown_cells)} (paths cut there)")
    return "\n".join(lines)
