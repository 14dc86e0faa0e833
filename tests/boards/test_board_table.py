"""The boards are the modules of boards/ with a part and a command line: a new board is a new module
there (docs/extending.md). A dummy board, a module in a directory added to the package's path, is
listed and run by `python -m soc --board`, and the report sizes it against its own part."""

import sys

import pytest

import boards
from soc import __main__ as soc_main
from soc import soc_report

DUMMY = '''
DEVICE = "xc7z010clg400-1"
MAIN_RAM_SIZE = 0x10000
CALLS = []

def main(argv, prog=None):
    CALLS.append((list(argv), prog))
    return 7
'''


@pytest.fixture
def dummy_board(tmp_path, monkeypatch):
    (tmp_path / "dummy_board.py").write_text(DUMMY)
    monkeypatch.setattr(boards, "__path__", [*boards.__path__, str(tmp_path)])
    yield "dummy_board"
    sys.modules.pop("boards.dummy_board", None)


def test_a_board_module_is_a_target(dummy_board):
    assert boards.targets() == sorted(["pynq_z2", dummy_board])
    assert soc_main.main(["--board", dummy_board, "--report"]) == 7
    module = boards.target(dummy_board)
    assert module.CALLS == [(["--report"], f"python -m soc --board {dummy_board}")]
    assert soc_report.device_resources(module.DEVICE)["dsp"] == 80


def test_modules_without_a_part_are_not_boards():
    assert "sim" not in boards.targets() and "amaranth_pynq_z2" not in boards.targets()
    with pytest.raises(ValueError, match="no board 'sim'"):
        boards.target("sim")
