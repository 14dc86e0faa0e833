"""Helpers for the `python -m boards.pynq_z2` tests, which run it as a user does.

None of the FPGA toolchains is installed here, so every `--build` ends at the missing-toolchain
message; that is part of what the tests check.
"""

import os
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: The peripheral in every board run: 8 lanes of 16-bit words. What the runs are checked for (generated
#: files, pins, ROM and RAM images, the toolchain's exit, the report's figures against each other) does
#: not depend on it. The SoC's own 32 lanes of 32-bit words take Amaranth and Yosys far longer (three
#: DSP48E1 and their adders per product); at 32-bit words even 4 lanes took this module 75 s alone
#: against about 60 here. That the options reach the SoC and the firmware is test_montmul_lanes.py's;
#: the SoC's own configuration is what `make report` shows.
LANES = 8
WORD_BITS = 16
#: name -> command-line options (besides --output-dir).
CONFIGURATIONS = {
    "vivado":  ["--montmul-lanes", str(LANES), "--montmul-word-bits", str(WORD_BITS), "--build"],  # LiteX's default toolchain
    "openxc7": ["--montmul-lanes", str(LANES), "--montmul-word-bits", str(WORD_BITS), "--toolchain", "openxc7",
                "--uart", "jtag", "--build"],
}
#: The configuration that also runs `--report` when the session has the report test, and the options
#: it adds. The report's code paths (both syntheses, the timing walk, the checks) are the same at any
#: width.
REPORT_CONFIGURATION = "vivado"
REPORT_LANES = LANES
REPORT_OPTIONS = ["--report"]


@dataclass
class Run:
    args: list
    build_dir: Path
    returncode: int
    stdout: str
    stderr: str

    @property
    def gateware(self):
        return self.build_dir / "gateware"

    def text(self, name):
        return (self.gateware / name).read_text()


def toolchain_free_env():
    """This interpreter's environment without any FPGA toolchain settings."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("CHIPDB", "PRJXRAY_DB_DIR", "LITEX_ENV_VIVADO", "PYTEST_ADDOPTS")}
    env["PYTHONWARNINGS"] = "default"
    return env


def board_command(*args):
    return [sys.executable, "-m", "boards.pynq_z2", *args]
