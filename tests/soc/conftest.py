"""One run of `python -m boards.pynq_z2` per configuration, shared by the session.

The configurations (board_runs.CONFIGURATIONS) are generated side by side: each is a LiteX
generation, a firmware build and a second generation (~30 s alone). When the session includes the
(board_report) report test, the first configuration also runs `--report` (on a narrower peripheral,
board_runs.REPORT_OPTIONS), so that the report reuses its generation and its synthesis overlaps the
other configurations.
"""

import shutil
import subprocess

import pytest

from board_runs import (CONFIGURATIONS, REPORT_CONFIGURATION, REPORT_OPTIONS, ROOT, Run, board_command,
                        toolchain_free_env)


@pytest.fixture(scope="session")
def pynq_z2_runs(tmp_path_factory, request):
    if shutil.which("riscv64-unknown-elf-gcc") is None:      # installed by `make setup`: a failure
        pytest.fail("riscv64-unknown-elf-gcc is not installed (make setup)")
    base = tmp_path_factory.mktemp("pynq_z2")
    started = {}
    with_report = any(item.get_closest_marker("board_report") and "pynq_z2_runs" in getattr(item, "fixturenames", ())
                      for item in request.session.items)
    for name, options in CONFIGURATIONS.items():
        if name == REPORT_CONFIGURATION and with_report:
            options = [*options, *REPORT_OPTIONS]
        args = board_command(*options, "--output-dir", str(base / name))
        started[name] = (args, subprocess.Popen(args, cwd=ROOT, env=toolchain_free_env(), text=True,
                                                stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    runs = {}
    for name, (args, process) in started.items():
        stdout, stderr = process.communicate(timeout=600)
        runs[name] = Run(args, base / name, process.returncode, stdout, stderr)
    return runs
