"""Helpers for the `python -m soc --board pynq_z2` tests, which run it as a user does.

None of the FPGA toolchains is installed here, so every `--build` ends at the missing-toolchain
message; that is part of what the tests check.
"""

import os
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: name -> command-line options (besides --output-dir).
CONFIGURATIONS = {
    "vivado":  ["--build"],                                                    # LiteX's default
    "openxc7": ["--toolchain", "openxc7", "--uart", "jtag", "--build"],
}
#: The configuration that also runs `--report` when the session has the report test, and the options
#: it adds: a peripheral of 4 lanes, the narrowest there is. The report's code paths (both syntheses,
#: the timing walk, the checks) are the same at any width, and what the test asserts (each figure of
#: the peripheral within the SoC's, the SoC's memories and CPU on top) holds at any width; only Yosys'
#: time grows with the lanes. The default 64 lanes are what `make report` shows.
REPORT_CONFIGURATION = "vivado"
REPORT_LANES = 4
REPORT_OPTIONS = ["--report", "--montmul-lanes", str(REPORT_LANES)]


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
