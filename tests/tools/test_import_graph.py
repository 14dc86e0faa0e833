"""No import loop between the project's modules, counting the imports inside functions (the ones that
only hide a loop), and packages on floors that only look down (common < eda < gateware < soc < link <
boards < sim < jobs): each package's modules and the packages' layering stay a tree a newcomer can read
from the bottom up."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("common", "eda", "gateware", "soc", "link", "boards", "sim", "jobs")


def modules():
    """{dotted name: path} of every module of the project's packages."""
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(name, path, known):
    """The project modules `name` imports, wherever the import statement is."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
            candidates = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        else:
            continue
        found.update(c for c in candidates if c in known and c != name)
    return found


def loops(graph):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_the_finder_sees_a_loop():
    assert loops({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert loops({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_itself_through_others():
    known = modules()
    assert "gateware.tools.cli" in known and "gateware.montmul.peripheral" in known
    graph = {name: imports(name, path, known) for name, path in known.items()}
    assert "gateware.tools.report" in graph["gateware.tools.cli"]           # the parser sees function-level imports too
    assert loops(graph) == []


#: The floors, bottom to top: a module imports only modules of its own floor or lower ones.
FLOORS = ("common", "eda", "gateware", "soc", "link", "boards", "sim", "jobs")
#: The one import up a floor: `python -m sim` (sim/__main__.py) hands over to the jobs' command line.
DOORS = {("sim.__main__", "jobs.cli")}


def floor(name):
    return FLOORS.index(name.partition(".")[0])


def upward_imports(graph, doors=DOORS):
    """The imports (importer, imported) of `graph` that go up a floor, but for the `doors`."""
    return sorted((name, imported) for name, found in graph.items() for imported in found
                  if floor(imported) > floor(name) and (name, imported) not in doors)


def outside(graph, modules, allowed):
    """The imports (importer, imported) of the `modules` of `graph` that `allowed(imported)` refuses."""
    return sorted((name, imported) for name in modules for imported in graph[name] if not allowed(imported))


def is_rtl(name):
    """The peripheral's RTL and contract: every gateware module but its tools and its command."""
    return (name.partition(".")[0] == "gateware" and name != "gateware.__main__"
            and name != "gateware.tools" and not name.startswith("gateware.tools."))


def test_the_floor_check_sees_an_upward_import():
    graph = {"common.a": set(), "eda.b": {"common.a"}, "gateware.c": {"eda.b"}, "soc.d": {"gateware.c"},
             "sim.e": {"soc.d", "jobs.f"}, "sim.__main__": {"jobs.cli"}, "jobs.f": {"sim.e"}, "jobs.cli": set()}
    assert upward_imports(graph) == [("sim.e", "jobs.f")]
    graph["eda.b"] = {"common.a", "gateware.c"}
    assert upward_imports(graph) == [("eda.b", "gateware.c"), ("sim.e", "jobs.f")]
    assert upward_imports(graph, doors=set()) == [("eda.b", "gateware.c"), ("sim.__main__", "jobs.cli"),
                                                  ("sim.e", "jobs.f")]
    assert outside({"gateware.x": {"eda.b", "gateware.y"}, "gateware.y": set()}, ["gateware.x", "gateware.y"],
                   is_rtl) == [("gateware.x", "eda.b")]


def test_every_module_looks_down_only():
    """Each package imports only its own floor or lower ones (FLOORS, counting the imports inside
    functions), but for the one door, `python -m sim` handing over to jobs.cli."""
    known = modules()
    assert set(FLOORS) == set(PACKAGES)
    graph = {name: imports(name, path, known) for name, path in known.items()}
    assert upward_imports(graph) == []
    assert graph["sim.__main__"] == {"jobs.cli"}


def test_the_rtl_and_the_netlist_tools_stand_alone():
    """The peripheral's RTL and contract (gateware but gateware.tools and gateware.__main__) import only
    gateware's own RTL and common; eda (serving any netlist) only eda and common."""
    known = modules()
    graph = {name: imports(name, path, known) for name, path in known.items()}
    rtl = [name for name in graph if is_rtl(name)]
    assert "gateware.interface" in rtl and "gateware.options" in rtl and "gateware.tools.report" not in rtl
    assert outside(graph, rtl, lambda m: is_rtl(m) or m.partition(".")[0] == "common") == []
    eda = [name for name in graph if name.partition(".")[0] == "eda"]
    assert outside(graph, eda, lambda m: m.partition(".")[0] in ("eda", "common")) == []
