"""Path search over the timing graph: a topological order with combinational loops cut, then the
longest path (dynamic programming in that order) from any start point to any end point, one pass
per clock domain."""

from .netlist import TimingError, TimingGraph

__all__ = ["topological_order", "longest_path"]

_NEG = -1 << 60     # arrival of a net no start point reaches


def topological_order(succ, indegree, edge_info):
    """Kahn's algorithm; combinational loops are cut at DFS back edges (edge marked with info
    index -1) and returned as lists of the cells on each cut edge's cycle."""
    n = len(succ)
    indeg = list(indegree)
    order = [v for v in range(n) if indeg[v] == 0]
    head = 0
    while head < len(order):
        v = order[head]
        head += 1
        edges = succ[v]
        if edges:
            for dst, _d, _i in edges:
                indeg[dst] -= 1
                if indeg[dst] == 0:
                    order.append(dst)
    if len(order) == n:
        return order, []

    # Some nodes remain: cut back edges found by an iterative DFS over the remaining subgraph.
    remaining = [indeg[v] > 0 for v in range(n)]
    state = [0] * n      # 0 new, 1 on stack, 2 done
    loops = []
    for root in range(n):
        if not remaining[root] or state[root]:
            continue
        stack = [(root, 0)]
        path = [root]
        state[root] = 1
        while stack:
            v, i = stack[-1]
            edges = succ[v] or []
            if i < len(edges):
                stack[-1] = (v, i + 1)
                dst, d, info = edges[i]
                if info < 0 or not remaining[dst]:
                    continue
                if state[dst] == 1:
                    # back edge: record the cycle's cells and cut it
                    cycle_nodes = path[path.index(dst):]
                    cycle_cells = []
                    for a in cycle_nodes:
                        for b, _dd, inf in succ[a] or []:
                            if inf >= 0 and b in cycle_nodes:
                                cycle_cells.append(edge_info[inf][0])
                                break
                    cycle_cells.append(edge_info[info][0])
                    loops.append(list(dict.fromkeys(cycle_cells)))
                    edges[i] = (dst, d, -1)
                elif state[dst] == 0:
                    state[dst] = 1
                    stack.append((dst, 0))
                    path.append(dst)
            else:
                state[v] = 2
                stack.pop()
                path.pop()
    # Recount in-degrees without the cut edges and redo Kahn on everything.
    indeg = [0] * n
    for v in range(n):
        for dst, _d, info in succ[v] or []:
            if info >= 0:
                indeg[dst] += 1
    order = [v for v in range(n) if indeg[v] == 0]
    head = 0
    while head < len(order):
        v = order[head]
        head += 1
        for dst, _d, info in succ[v] or []:
            if info < 0:
                continue
            indeg[dst] -= 1
            if indeg[dst] == 0:
                order.append(dst)
    return order, loops



def longest_path(graph: TimingGraph, order: list[int], domain_name) -> tuple:
    """The worst path over all clock domains.

    Each domain (the net on the launching clock pin) gets its own pass: paths between different
    clocks are not single-cycle paths and are left out. Ports (``include_io``) belong to every
    domain. Returns ``(scored, arrival, pred, per_domain)``: the domain's end points as
    ``(arrival + route + setup, bit, setup, route, cell, type, pin)`` worst first, the arrival per
    bit and the predecessor ``(src bit, edge_info index)`` per bit in that domain, and the worst
    path of every domain in ns keyed by ``domain_name(clock bit)``."""
    succ, start_at, ends = graph.succ, graph.start_at, graph.ends
    size = len(succ)
    domains = sorted({entry[4] for entry in start_at.values() if entry[4] is not None}) or [None]
    best = None
    per_domain: dict[str, float] = {}
    for domain in domains:
        arrival = [_NEG] * size
        pred: list[tuple[int, int] | None] = [None] * size
        for bit, entry in start_at.items():
            if entry[4] == domain or entry[4] is None or domain is None:
                arrival[bit] = entry[0]
        for src in order:
            a = arrival[src]
            if a == _NEG:
                continue
            edges = succ[src]
            if edges is None:
                continue
            for dst, delay, info_index in edges:
                if info_index < 0:
                    continue     # cut loop edge
                t = a + delay
                if t > arrival[dst]:
                    arrival[dst] = t
                    pred[dst] = (src, info_index)
        scored = []
        for bit, setup, route, name, kind, pin, clock in ends:
            if arrival[bit] == _NEG or not (clock == domain or clock is None or domain is None):
                continue
            scored.append((arrival[bit] + route + setup, bit, setup, route, name, kind, pin))
        if not scored:
            continue
        scored.sort(key=lambda s: s[0], reverse=True)
        per_domain[domain_name(domain) if domain is not None else ""] = scored[0][0] / 1000
        if best is None or scored[0][0] > best[0][0][0]:
            best = (scored, arrival, pred)
    if best is None:
        raise TimingError("no register-to-register path found (no start point reaches an end point)")
    return (*best, per_domain)
