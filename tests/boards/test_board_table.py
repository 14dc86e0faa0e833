"""The boards are the modules of boards/ with a part and a command line, each runnable as
`python -m boards.<module>` (docs/extending.md): a new board is a new module there. A dummy board, a
module in a directory added to the package's path, is listed and runnable, and the report sizes it
against its own part; the PYNQ-Z2's module answers --help as a command. And a new 7-series board, the
Arty A7-35 on a part no board used, added in a copy of the tree through the files docs/extending.md lists
and no others: listed, sized against its part, its SoC built, its command line run."""

import subprocess
import sys

import pytest

import boards
from common.errors import ProjectError
from common.paths import ROOT
from eda.devices import DEVICES
from soc import soc_report
from tree_copy import add_entry, doc_files, replace, run_python

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


# ---- a new 7-series board in a copy of the tree, through the files docs/extending.md lists ----

#: A second 7-series board, the Digilent Arty A7-35 (litex-boards' platform), written as boards/pynq_z2.py
#: is: part, main RAM, platform, clock and reset, the SoC, the command line.
ARTY = '''"""Digilent Arty A7-35 (xc7a35ticsg324-1L): the benchmark SoC on an Artix-7 (a test's board)."""

import argparse
import shutil

from migen import ClockDomain, Signal

from litex.gen import LiteXModule
from litex.soc.cores.clock import S7PLL
from litex_boards.platforms import digilent_arty

from common.errors import reports_errors
from common.paths import BUILD_DIR
from gateware.options import add_peripheral_options, peripheral_config
from soc import config
from soc.soc import RSABenchSoC

DEVICE = "xc7a35ticsg324-1L"
MAIN_RAM_SIZE = 0x34000


class Platform(digilent_arty.Platform):
    def __init__(self, toolchain="vivado"):
        digilent_arty.Platform.__init__(self, variant="a7-35", toolchain=toolchain)
        self.toolchain_name = toolchain

    def missing_tools(self):
        return [] if shutil.which("vivado") else [("vivado", "put Vivado on PATH")]

    def create_programmer(self, programmer="auto"):
        from litex.build.openfpgaloader import OpenFPGALoader
        return OpenFPGALoader(board="arty"), "openFPGALoader", {}


class _CRG(LiteXModule):
    def __init__(self, platform, sys_clk_freq):
        self.rst = Signal()
        self.cd_sys = ClockDomain()
        self.pll = pll = S7PLL(speedgrade=-1)
        self.comb += pll.reset.eq(~platform.request("cpu_reset") | self.rst)
        pll.register_clkin(platform.request("clk100"), 100e6)
        pll.create_clkout(self.cd_sys, sys_clk_freq)
        platform.add_false_path_constraints(self.cd_sys.clk, pll.clkin)


class BaseSoC(RSABenchSoC):
    def __init__(self, toolchain="vivado", sys_clk_freq=config.SYS_CLK_FREQ, **kwargs):
        platform = Platform(toolchain)
        self.crg = _CRG(platform, int(sys_clk_freq))
        kwargs.setdefault("main_ram_size", MAIN_RAM_SIZE)
        RSABenchSoC.__init__(self, platform, int(sys_clk_freq), with_montmul=True, **kwargs)


@reports_errors
def main(argv=None, prog="python -m boards.arty_a7"):
    from soc import board_build
    parser = argparse.ArgumentParser(prog=prog, description="RSA benchmark SoC on the Digilent Arty A7-35.")
    parser.add_argument("--build", action="store_true", help="make the bitstream (Vivado)")
    parser.add_argument("--load", action="store_true", help="program it (openFPGALoader)")
    parser.add_argument("--report", action="store_true", help="Yosys utilisation and timing estimate")
    add_peripheral_options(parser)
    args = parser.parse_args(argv)
    montmul_config = peripheral_config(args)
    board_build.run(lambda main_ram_init=None: BaseSoC(montmul_config=montmul_config, main_ram_init=main_ram_init),
                    build_dir=BUILD_DIR / "arty_a7", build=args.build, load=args.load, report=args.report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
'''


def _board_module(root):
    (root / "boards" / "arty_a7.py").write_text(ARTY)


def _board_part(root):
    replace(root / "eda" / "devices.py", '    "xc7z020": {"dsp": 220, "lut": 53_200, "ff": 106_400, "bram36": 140},\n',
            '    "xc7z020": {"dsp": 220, "lut": 53_200, "ff": 106_400, "bram36": 140},\n'
            '    "xc7a35t": {"dsp": 90, "lut": 20_800, "ff": 41_600, "bram36": 50},\n')


def _board_doc(root):
    (root / "docs" / "arty_a7.md").write_text("# The Digilent Arty A7-35\n\n`python -m boards.arty_a7 --build --load`.\n")


#: What the copy gets, file by file: the files docs/extending.md lists for a new board (<board>: arty_a7).
BOARD_EDITS = {
    "boards/<board>.py": _board_module,
    "eda/devices.py": _board_part,
    "docs/<board>.md": _board_doc,
}

BOARD_CHECKS = """
import subprocess, sys
import boards
from soc import soc_report

assert "arty_a7" in boards.targets()
module = boards.target("arty_a7")
assert soc_report.device_resources(module.DEVICE)["dsp"] == 90
soc = module.BaseSoC()
assert soc.platform.device == module.DEVICE and soc.montmul.config.word_bits == 32
assert soc.bus.regions["main_ram"].size == module.MAIN_RAM_SIZE
result = subprocess.run([sys.executable, "-m", "boards.arty_a7", "--help"], capture_output=True, text=True)
assert result.returncode == 0 and result.stdout.startswith("usage: python -m boards.arty_a7"), result.stderr
assert "--montmul-lanes" in result.stdout
print("new board: listed, sized and runnable")
"""


def test_the_doc_lists_the_files_a_new_board_edits():
    files = doc_files("A new board")
    assert files == list(BOARD_EDITS) and len(files) <= 3


def test_a_new_7_series_board_is_three_files(tmp_path):
    copy, edited = add_entry(tmp_path, BOARD_EDITS.values())
    assert edited == sorted(name.replace("<board>", "arty_a7") for name in doc_files("A new board"))
    assert "runnable" in run_python(copy, BOARD_CHECKS, timeout=120)
