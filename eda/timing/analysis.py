"""``analyze``: read a netlist, build its timing graph, find the critical path and describe it."""

import json
from pathlib import Path

from .delays import BUFFERS, ROUTE_PS
from .netlist import TimingError, TimingGraph, build_graph, clean_name, find_top, is_public, net_names
from .paths import longest_path, topological_order
from .result import PathStep, TimingResult

__all__ = ["analyze", "analyze_netlist"]


def analyze(netlist_path: Path, top: str | None = None, *, route_ps: int = ROUTE_PS,
            include_io: bool = False) -> TimingResult:
    """Estimate the critical path of a flattened Yosys JSON netlist (``write_json``)."""
    try:
        with open(netlist_path) as f:
            netlist = json.load(f)
    except (OSError, ValueError) as error:
        raise TimingError(f"cannot read netlist {netlist_path}: {error}") from None
    return analyze_netlist(netlist, top, route_ps=route_ps, include_io=include_io)


def analyze_netlist(netlist: dict, top: str | None = None, *, route_ps: int = ROUTE_PS,
                    include_io: bool = False) -> TimingResult:
    """As ``analyze``, for a netlist already loaded from JSON."""
    top = find_top(netlist, top)
    graph = build_graph(netlist, top, route_ps=route_ps, include_io=include_io)
    order, loops = topological_order(graph.succ, graph.indegree, graph.edge_info)
    names, hidden_nets = net_names(graph.module)
    scored, arrival, pred, per_domain = longest_path(graph, order, lambda bit: names.get(bit, str(bit)))

    def label(cell_name: str, kind: str, out_bit: int | None) -> str:
        """A cell as shown in a report: its name when public, else the net it drives."""
        if kind == "port":
            return f"<port {cell_name}>"
        if is_public(cell_name) or out_bit is None:
            return clean_name(cell_name)
        if out_bit in hidden_nets or out_bit not in names:
            return clean_name(cell_name)
        return f"{names[out_bit]}~{kind}"

    steps = _critical_path(graph, scored[0], arrival, pred, label, names)
    total, _bit, _setup, _route, _name, end_kind, end_pin = scored[0]
    start_pin, start_kind = steps[0].to_pin, steps[0].type

    worst_by_end = []
    seen = set()
    for score, _bit, _setup, _route, name, kind, pin in scored:
        key = (name, pin.partition("[")[0])
        if key in seen:
            continue
        seen.add(key)
        worst_by_end.append((score / 1000, f"{label(name, kind, graph.cell_output_bit(name))}.{pin}"))
        if len(worst_by_end) == 10:
            break

    critical_ns = total / 1000
    return TimingResult(
        critical_path_ns=critical_ns,
        fmax_mhz=1000.0 / critical_ns if critical_ns > 0 else float("inf"),
        start=f"{steps[0].cell}.{start_pin} ({start_kind})",
        end=f"{steps[-1].cell}.{end_pin} ({end_kind})",
        path=steps,
        logic_levels=sum(1 for s in steps[1:-1] if s.type not in BUFFERS),
        route_ps=route_ps,
        cells=len(graph.cells),
        nets=len(graph.driver),
        endpoints=len(graph.ends),
        loops=[[label(cell, "", None) for cell in loop] for loop in loops],
        unknown_cells=graph.unknown,
        top_endpoints=worst_by_end,
        clock_domains=per_domain,
    )


def _critical_path(graph: TimingGraph, worst, arrival, pred, label, names) -> list[PathStep]:
    """Walk back from the worst end point to its start point; one step per cell."""
    total, end_bit, end_setup, end_route, end_name, end_kind, end_pin = worst
    chain = []
    bit = end_bit
    while pred[bit] is not None:
        src, info_index = pred[bit]
        chain.append((bit, src, info_index))
        bit = src
    chain.reverse()
    start_bit = bit
    start_delay, start_name, start_kind, start_pin, _clock = graph.start_at[start_bit]

    steps = [PathStep(cell=label(start_name, start_kind, start_bit), type=start_kind, from_pin="",
                      to_pin=start_pin, cell_ns=start_delay / 1000, route_ns=0.0,
                      arrival_ns=start_delay / 1000, net=names.get(start_bit, str(start_bit)))]
    for dst, src, info_index in chain:
        cname, kind, from_pin, to_pin, delay = graph.edge_info[info_index]
        edge_delay = next(d for (b, d, i) in graph.succ[src] if i == info_index)
        steps.append(PathStep(cell=label(cname, kind, dst), type=kind, from_pin=from_pin, to_pin=to_pin,
                              cell_ns=delay / 1000, route_ns=(edge_delay - delay) / 1000,
                              arrival_ns=arrival[dst] / 1000, net=names.get(dst, str(dst))))
    steps.append(PathStep(cell=label(end_name, end_kind, graph.cell_output_bit(end_name)), type=end_kind,
                          from_pin=end_pin, to_pin="", cell_ns=end_setup / 1000,
                          route_ns=end_route / 1000, arrival_ns=total / 1000,
                          net=names.get(end_bit, str(end_bit))))
    return steps
