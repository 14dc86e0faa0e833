"""Helpers for the `python -m soc --board pynq_z2` tests, which run it as a user does.

None of the FPGA toolchains is installed here, so every `--build` ends at the missing-toolchain
message; that is part of what the tests check.
"""

import os
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: The peripheral's width in every board run: 4 lanes of the SoC's word width (soc.config.MONTMUL).
#: What the runs are checked for (generated files, pins, ROM and RAM images, the toolchain's exit, the
#: report's figures against each other) does not depend on it. The SoC's own 32 lanes take Amaranth
#: and Yosys longer; at 32-bit words 4 lanes save this module 18 s against 8 (75 s against 93 for the
#: runs and the report, measured alone). That the width reaches the SoC and the firmware is
#: test_montmul_lanes.py's; the SoC's own lanes are what `make report` shows.
LANES = 4
#: name -> command-line options (besides --output-dir).
CONFIGURATIONS = {
    "vivado":  ["--montmul-lanes", str(LANES), "--build"],                     # LiteX's default toolchain
    "openxc7": ["--montmul-lanes", str(LANES), "--toolchain", "openxc7", "--uart", "jtag", "--build"],
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


def soc_command(*args):
    return [sys.executable, "-m", "soc", "--board", "pynq_z2", *args]
