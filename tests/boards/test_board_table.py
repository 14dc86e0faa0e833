"""The boards are the modules of boards/ with a part and a command line, each runnable as
`python -m boards.<module>` (docs/extending.md): a new board is a new module there. A dummy board, a
module in a directory added to the package's path, is listed and runnable, and the report sizes it
against its own part; the PYNQ-Z2's module answers --help as a command."""

import subprocess
import sys

import pytest

import boards
from common.errors import ProjectError
from common.paths import ROOT
from eda.devices import DEVICES
from soc import soc_report

DUMMY = '''
import sys

DEVICE = "xc7z010clg400-1"
MAIN_RAM_SIZE = 0x10000
CALLS = []

def main(argv=None, prog="python -m boards.dummy_board"):
    CALLS.append((list(sys.argv[1:] if argv is None else argv), prog))
    return 7

if __name__ == "__main__":
    raise SystemExit(main())
'''


@pytest.fixture
def dummy_board(tmp_path, monkeypatch):
    (tmp_path / "dummy_board.py").write_text(DUMMY)
    monkeypatch.setattr(boards, "__path__", [*boards.__path__, str(tmp_path)])
    yield "dummy_board"
    sys.modules.pop("boards.dummy_board", None)


def test_a_board_module_is_a_target(dummy_board):
    assert boards.targets() == sorted(["pynq_z2", dummy_board])
    module = boards.target(dummy_board)
    assert module.main(["--report"]) == 7
    assert module.CALLS == [(["--report"], f"python -m boards.{dummy_board}")]
    assert soc_report.device_resources(module.DEVICE)["dsp"] == 80


def test_modules_without_a_part_are_not_boards():
    assert "sim" not in boards.targets() and "amaranth_pynq_z2" not in boards.targets()
    with pytest.raises(ValueError, match="no board 'sim'"):
        boards.target("sim")


def test_the_report_sizes_against_the_board_s_part():
    from boards import pynq_z2
    assert pynq_z2.DEVICE.startswith("xc7z020")
    assert soc_report.device_resources(pynq_z2.DEVICE) == DEVICES["xc7z020"]
    with pytest.raises(ProjectError, match="no resources known for the part xc7a35t"):
        soc_report.device_resources("xc7a35tcsg324-1")


def test_a_board_runs_as_a_module():
    result = subprocess.run([sys.executable, "-m", "boards.pynq_z2", "--help"], cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: python -m boards.pynq_z2")
    assert "--montmul-lanes" in result.stdout and "--report" in result.stdout
