import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: The groups of tests that share the longest fixtures (xdist_group names), longest first: the board
#: runs (with BOARD_REPORT=1 their whole-SoC synthesis, ~2.5 minutes), the leak run (~2 minutes).
LONGEST_GROUPS = ("pynq_z2", "leak")


def _start_order(item):
    marker = item.get_closest_marker("xdist_group")
    group = marker.args[0] if marker and marker.args else None
    if group in LONGEST_GROUPS:
        return LONGEST_GROUPS.index(group)
    if group or item.get_closest_marker("slow"):
        return len(LONGEST_GROUPS)
    return len(LONGEST_GROUPS) + 1


def pytest_collection_modifyitems(config, items):
    """The long tests first, the longest groups at their head (a stable sort: the order is otherwise
    the collection's). pytest-xdist deals the tests out in this order, so under `make test` the two
    workers start on the long ones and finish together on the short ones, instead of one waiting
    minutes at the end for the board runs collected last (tests/soc).

    The tests marked ``board_report`` (the whole SoC synthesised for the board, minutes of Yosys) are
    deselected unless BOARD_REPORT=1 is in the environment: the report is `make report`'s, and the
    pieces it is made of are tested on small inputs in every run."""
    if not os.environ.get("BOARD_REPORT"):
        deselected = [item for item in items if item.get_closest_marker("board_report")]
        if deselected:
            config.hook.pytest_deselected(items=deselected)
            items[:] = [item for item in items if not item.get_closest_marker("board_report")]
    items.sort(key=_start_order)
