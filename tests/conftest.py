import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

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
    the collection's). pytest-xdist deals the tests out in this order, so under `make test` the
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


# ---- the simulated SoC, shared by tests/sim, tests/link and tests/jobs ----------------------------------
# Session fixtures live here, once, so that a module that moves between those directories keeps them and a
# session builds and boots each only once. The project's modules are imported inside them: a test run that
# uses none of them (tests/gateware alone, say) does not load LiteX.

#: A line of `python -m sim bench`'s progress (stderr) for a row that came back, in the order it did.
BENCH_PROGRESS_ROW = re.compile(r"\] RSA-(\d+) +(\S+) +(\S+) +([\d,]+) cycles (ok|MISMATCH)$", re.M)


@pytest.fixture(scope="session")
def sim_soc():
    """The simulated SoC with its firmware, built once per test session (stale parts only)."""
    from sim import build as sim_build
    return sim_build.build(log=lambda msg: None)


@pytest.fixture
def console(sim_soc):
    """A freshly booted SoC, at its first prompt."""
    from link.console import SimConsole
    con = SimConsole(sim_soc.model, sim_soc.gateware_dir, timeout=300)
    con.wait_prompt()
    yield con
    con.close()


@pytest.fixture(scope="module")
def shared_console(sim_soc):
    """One booted SoC for a module's tests that leave nothing behind on it (no key set, only refused
    commands or ones that take their operands on the line), in whatever order they run: a boot costs
    more than most of those tests' commands."""
    from link.console import SimConsole
    con = SimConsole(sim_soc.model, sim_soc.gateware_dir, timeout=900)
    con.wait_prompt()
    yield con
    con.close()


@pytest.fixture(scope="session")
def bench_ours_512_1024(sim_soc):
    """`bench ours 512 1024` on a freshly booted SoC (our implementations, software and hardware, every
    row at both sizes): its output, for tests/sim/test_rsa.py's bench tests and
    tests/jobs/test_bench_split.py's hardware rows; all of them are in xdist_group "bench_ours" (one
    worker, one run)."""
    from link.console import SimConsole
    con = SimConsole(sim_soc.model, sim_soc.gateware_dir, timeout=1800)
    try:
        con.wait_prompt()
        return con.command("bench ours 512 1024")
    finally:
        con.close()


@pytest.fixture(scope="session")
def serial_boot_bench_512(sim_soc, tmp_path_factory):
    """One simulated SoC behind a serial port (jobs/pty.py), main RAM starting zeroed: the firmware
    loaded by the BIOS's serial boot (litex_term's code), then on that firmware, through the port,
    `python -m sim bench --sizes 512 --port` (one whole 512-bit benchmark, every row in one `bench`
    command) and `python -m sim run "help; info" --port`. Shared by the serial-boot and serial-port
    bench tests (tests/link/test_serial.py) and the parallel runner's (tests/jobs/test_bench_split.py),
    which compares its split run with this run's counts, in the order the firmware printed them (the
    bench's progress lines). All are in xdist_group "bench_512" (one worker)."""
    from jobs.pty import SimulatedSerialPort
    from link import serial_boot
    from link.console import Console
    from link.transport import SerialTransport
    from soc import config

    uploads = []

    def boot(transport):
        uploads.append(serial_boot.upload_firmware(transport.port, sim_soc.firmware_bin))

    def sim(*args):
        return subprocess.run([sys.executable, "-m", "sim", *args, "--port", device, "--answer-timeout", "60"],
                               cwd=ROOT, capture_output=True, text=True, timeout=900)

    out_dir = tmp_path_factory.mktemp("bench-serial")
    with SimulatedSerialPort(sim_soc, empty_ram=True) as device:
        con = Console(SerialTransport(device, config.UART_BAUDRATE), timeout=900, boot=boot)
        try:
            con.wait_prompt()
            boot_output = con.output
        finally:
            con.close()             # the model runs on; the next client finds the firmware's prompt
        bench = sim("bench", "--sizes", "512", "--out", str(out_dir))
        run = sim("run", "help; info", "--quiet")
    arrived = [(int(bits), op, impl, int(cycles.replace(",", "")), int(ok == "ok"))
               for bits, op, impl, cycles, ok in BENCH_PROGRESS_ROW.findall(bench.stderr)]
    return {"device": device, "uploads": uploads, "boot_output": boot_output, "bench": bench, "arrived": arrived,
            "out_dir": out_dir, "run": run}
