"""No import loop between the project's modules, counting the imports inside functions (the ones that
only hide a loop): each package's modules and the packages' layering stay a tree a newcomer can read
from the bottom up."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("common", "gateware", "eda", "soc", "link", "boards", "sim", "jobs")


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


def test_the_gateware_imports_no_tooling():
    """The RTL, its model and its driver import nothing of eda, soc, sim or boards; only the command
    `python -m gateware` (gateware/__main__.py) hands over to gateware.tools.cli."""
    known = modules()
    for name, path in known.items():
        if name.startswith("gateware") and name != "gateware.__main__":
            outside = {m for m in imports(name, path, known) if not m.startswith(("gateware", "common"))}
            assert not outside, f"{name} imports {sorted(outside)}"


def test_the_simulator_and_the_link_import_no_job():
    """The jobs sit on top: the device link (link/) and the simulator (sim/) import none of them (the
    command `python -m sim`, sim/__main__.py, only hands over to jobs.cli), and the link imports
    nothing of the simulator."""
    known = modules()
    for name, path in known.items():
        found = imports(name, path, known)
        if name.startswith("link"):
            assert not {m for m in found if m.startswith(("sim", "jobs", "boards"))}, f"{name} imports {sorted(found)}"
        if name.startswith("sim") and name != "sim.__main__":
            assert not {m for m in found if m.startswith("jobs")}, f"{name} imports {sorted(found)}"
    assert imports("sim.__main__", known["sim.__main__"], known) == {"jobs.cli"}

