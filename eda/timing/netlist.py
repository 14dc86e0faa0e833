"""Reading a flattened Yosys JSON netlist into the timing graph: nets are nodes, cell arcs are edges
(each carrying the cell delay plus the routing charged on the net into the arc's input pin),
plus the start points (clock-to-out) and end points (setup) of every sequential cell.

Also the names shown in a report: Yosys' internal names are cleaned up and every net bit gets
its most readable name.
"""

import re
from collections import Counter
from dataclasses import dataclass, field

from common.errors import ProjectError

from .arcs import Arcs
from .cells import cell_arcs
from .delays import DEDICATED, FLIP_FLOPS, SLICE_LOCAL_TO_FF_D

__all__ = ["TimingError", "TimingGraph", "build_graph", "find_top", "clean_name", "is_public", "net_names"]


class TimingError(ProjectError):
    """The netlist cannot be timed (not flattened, no top module, no path to time)."""


_SOURCE_NAME = re.compile(r"\$(\w+)\$(?:[^$]*/)?([^/$:]+:\d+)(?:\.[\d.-]+)?\$\d+")
_GENBLK = re.compile(r"(?:genblk\d+\.)+")


def clean_name(name: str) -> str:
    """Readable form of a Yosys name: no leading backslash, ``$mul$../x.v:587$528`` becomes
    ``$mul@x.v:587``, runs of ``genblkN.`` scopes are dropped."""
    if name.startswith("\\"):
        name = name[1:]
    name = _SOURCE_NAME.sub(lambda m: f"${m[1]}@{m[2]}", name)
    return _GENBLK.sub("", name)


def is_public(name: str) -> bool:
    return not name.startswith("$")


def net_names(module: dict) -> tuple[dict[int, str], set[int]]:
    """Best human name for each net bit (a public name, the shortest, with its bit index), and
    the bits that only have internal names."""
    best: dict[int, tuple[int, int, str]] = {}
    for name, info in module.get("netnames", {}).items():
        hidden = 1 if info.get("hide_name") or not is_public(name) else 0
        bits = info["bits"]
        width = len(bits)
        for i, bit in enumerate(bits):
            if not isinstance(bit, int):
                continue
            label = clean_name(name) if width == 1 else f"{clean_name(name)}[{i}]"
            key = (hidden, len(label), label)
            current = best.get(bit)
            if current is None or key < current:
                best[bit] = key
    return {bit: key[2] for bit, key in best.items()}, {bit for bit, key in best.items() if key[0]}


def find_top(netlist: dict, top: str | None) -> str:
    """``top``, checked, or the module the netlist marks as top."""
    modules = netlist.get("modules")
    if not isinstance(modules, dict):
        raise TimingError("not a Yosys JSON netlist: no 'modules'")
    if top is not None:
        if top not in modules:
            raise TimingError(f"no module {top!r} in the netlist")
        return top
    for name, module in modules.items():
        value = str(module.get("attributes", {}).get("top", "0"))
        if "1" in value:
            return name
    raise TimingError("no module is marked as top in the netlist; name one")


@dataclass
class TimingGraph:
    """The timing graph of one module. Net bits index ``succ``; an edge is
    ``(dst bit, cell delay + route into the pin, index into edge_info)``."""
    module: dict
    cells: dict
    route_ps: int
    driver: dict = field(default_factory=dict)     # bit -> (cell name or port, cell type, pin)
    start_at: dict = field(default_factory=dict)   # bit -> (clock-to-out, cell, type, pin, clock bit)
    ends: list = field(default_factory=list)       # (bit, setup, route, cell, type, pin, clock bit)
    succ: list = field(default_factory=list)       # bit -> list of edges, or None
    indegree: list = field(default_factory=list)
    edge_info: list = field(default_factory=list)  # (cell, type, from pin, to pin, cell ps)
    unknown: Counter = field(default_factory=Counter)   # cell types with no model

    def cell_output_bit(self, cell_name: str) -> int | None:
        """The first output bit of a cell (names the cell in a report)."""
        cell = self.cells.get(cell_name)
        if cell is None:
            return None
        directions = cell.get("port_directions", {})
        for port, bits in cell["connections"].items():
            if directions.get(port) == "output":
                for b in bits:
                    if isinstance(b, int):
                        return b
        return None


def _bit_of(conns: dict, pin: str) -> int | None:
    """The net bit on ``pin`` (``port`` or ``port[i]``), or None when unconnected or constant."""
    base, _, index = pin.partition("[")
    bits = conns.get(base)
    if not bits:
        return None
    i = int(index[:-1]) if index else 0
    if i >= len(bits):
        return None
    bit = bits[i]
    return bit if isinstance(bit, int) else None


def _read_cells(graph: TimingGraph, modules: dict, fanout: dict) -> tuple[list, list, int]:
    """Each cell's arcs (None when it has no model), the driver of every bit a cell drives and the
    fanout of every bit into cell inputs; returns (cells, their arcs, the highest bit)."""
    driver = graph.driver
    max_bit = 1
    cell_list = list(graph.cells.items())
    arcs_of: list[Arcs | None] = []
    for name, cell in cell_list:
        kind = cell["type"]
        arcs = cell_arcs(cell)
        if arcs is None:
            sub = modules.get(kind)
            if sub is not None and not sub.get("attributes", {}).get("blackbox") and sub.get("cells"):
                raise TimingError(f"netlist is not flattened: {name} is an instance of {kind}")
            graph.unknown[kind] += 1
        arcs_of.append(arcs)
        directions = cell.get("port_directions", {})
        for port, bits in cell["connections"].items():
            if directions.get(port) == "input":
                for bit in bits:
                    if isinstance(bit, int):
                        fanout[bit] = fanout.get(bit, 0) + 1
            if directions.get(port) == "output" or (not directions and arcs and
                                                   any(p.split("[")[0] == port for p, _ in arcs.starts)):
                for i, bit in enumerate(bits):
                    if isinstance(bit, int):
                        driver[bit] = (name, kind, port if len(bits) == 1 else f"{port}[{i}]")
            for bit in bits:
                if isinstance(bit, int) and bit > max_bit:
                    max_bit = bit
    return cell_list, arcs_of, max_bit


def _read_ports(graph: TimingGraph, fanout: dict, max_bit: int) -> int:
    """The module's ports: an input drives its bits, an output is fanout of its bits; returns the highest
    bit."""
    for port, info in graph.module.get("ports", {}).items():
        for i, bit in enumerate(info["bits"]):
            if isinstance(bit, int):
                max_bit = max(max_bit, bit)
                if info["direction"] in ("output", "inout"):
                    fanout[bit] = fanout.get(bit, 0) + 1
                if info["direction"] in ("input", "inout"):
                    graph.driver.setdefault(bit, (None, "port", port if len(info["bits"]) == 1 else f"{port}[{i}]"))
    return max_bit


def _route_into(graph: TimingGraph, fanout: dict, kind: str, port: str, bit: int) -> int:
    """The routing charged on net ``bit`` into ``port`` of a ``kind`` cell: none on a dedicated
    connection, or from a slice-local driver into a flip-flop it alone feeds."""
    driver = graph.driver
    dedicated = DEDICATED.get((kind, port))
    if dedicated is not None:
        drv = driver.get(bit)
        if drv is not None and drv[1] in dedicated:
            return 0
    if port == "D" and kind in FLIP_FLOPS and fanout.get(bit) == 1:
        drv = driver.get(bit)
        if drv is not None and drv[1] in SLICE_LOCAL_TO_FF_D:
            return 0
    return graph.route_ps


def _add_arcs(graph: TimingGraph, cell_list: list, arcs_of: list, route_into) -> None:
    """Every modelled cell's start points, end points and combinational edges."""
    succ, indegree = graph.succ, graph.indegree
    start_at, ends, edge_info = graph.start_at, graph.ends, graph.edge_info
    for (name, cell), arcs in zip(cell_list, arcs_of):
        if arcs is None:
            continue
        kind = cell["type"]
        conns = cell["connections"]
        for pin, delay in arcs.starts:
            bit = _bit_of(conns, pin)
            if bit is not None:
                current = start_at.get(bit)
                if current is None or delay > current[0]:
                    start_at[bit] = (delay, name, kind, pin, _bit_of(conns, arcs.clock_pin(pin)))
        for pin, setup in arcs.ends:
            bit = _bit_of(conns, pin)
            if bit is not None:
                base = pin.partition("[")[0]
                ends.append((bit, setup, route_into(kind, base, bit), name, kind, pin,
                             _bit_of(conns, arcs.clock_pin(pin))))
        for src_pin, dst_pin, delay in arcs.combs:
            src = _bit_of(conns, src_pin)
            dst = _bit_of(conns, dst_pin)
            if src is None or dst is None:
                continue
            base = src_pin.partition("[")[0]
            info_index = len(edge_info)
            edge_info.append((name, kind, src_pin, dst_pin, delay))
            edge = (dst, delay + route_into(kind, base, src), info_index)
            lst = succ[src]
            if lst is None:
                succ[src] = [edge]
            else:
                lst.append(edge)
            indegree[dst] += 1


def _add_io(graph: TimingGraph) -> None:
    """The module's input ports as start points (arrival 0) and its output ports as end points."""
    for port, info in graph.module.get("ports", {}).items():
        bits = info["bits"]
        for i, bit in enumerate(bits):
            if not isinstance(bit, int):
                continue
            pin = port if len(bits) == 1 else f"{port}[{i}]"
            if info["direction"] in ("input", "inout") and bit not in graph.start_at:
                graph.start_at[bit] = (0, pin, "port", pin, None)
            if info["direction"] in ("output", "inout"):
                graph.ends.append((bit, 0, graph.route_ps, pin, "port", pin, None))


def build_graph(netlist: dict, top: str, *, route_ps: int, include_io: bool) -> TimingGraph:
    """The timing graph of module ``top``; with ``include_io`` its input ports are start points
    (arrival 0) and its output ports end points."""
    modules = netlist["modules"]
    module = modules[top]
    graph = TimingGraph(module=module, cells=module.get("cells", {}), route_ps=route_ps)
    fanout: dict[int, int] = {}         # bit -> number of cell input pins it feeds
    cell_list, arcs_of, max_bit = _read_cells(graph, modules, fanout)
    max_bit = _read_ports(graph, fanout, max_bit)
    graph.succ = [None] * (max_bit + 1)
    graph.indegree = [0] * (max_bit + 1)
    _add_arcs(graph, cell_list, arcs_of,
              lambda kind, port, bit: _route_into(graph, fanout, kind, port, bit))
    if include_io:
        _add_io(graph)
    return graph
