"""No function of the project (an `elaborate()` included) runs over 100 lines: a longer one is split
where its parts meet (a state machine and its datapath, a parser and its checks), so that each reads on
a screen or two."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("common", "eda", "gateware", "soc", "link", "boards", "sim", "jobs")
MAX_LINES = 100


def long_functions(source, limit=MAX_LINES):
    """(name, lines) of each function in `source` longer than `limit` lines, nested ones too."""
    return [(node.name, node.end_lineno - node.lineno + 1) for node in ast.walk(ast.parse(source))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > limit]


def test_the_check_sees_a_long_function():
    function = "def f():\n    a = 1\n    b = 2\n    return a + b\n"
    method = "class C:\n    def elaborate(self):\n        a = 1\n        b = 2\n        return a + b\n"
    assert long_functions(function, limit=3) == [("f", 4)]
    assert long_functions(method, limit=3) == [("elaborate", 4)]
    assert long_functions(function, limit=4) == []


def test_no_function_over_the_limit():
    found = [f"{path.relative_to(ROOT)}: {name} ({lines} lines)"
             for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))
             for name, lines in long_functions(path.read_text())]
    assert found == []
