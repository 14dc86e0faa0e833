import re
import subprocess
import sys
from pathlib import Path

import pytest

from sim import build as sim_build
from link.console import SimConsole

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def sim_soc():
    """The simulated SoC with its firmware, built once per test session (stale parts only)."""
    return sim_build.build(log=lambda msg: None)


@pytest.fixture
def console(sim_soc):
    """A freshly booted SoC, at its first prompt."""
    con = SimConsole(sim_soc.model, sim_soc.gateware_dir, timeout=300)
    con.wait_prompt()
    yield con
    con.close()


@pytest.fixture(scope="module")
def shared_console(sim_soc):
    """One booted SoC for a module's tests that leave nothing behind on it (no key set, only refused
    commands or ones that take their operands on the line), in whatever order they run: a boot costs
    more than most of those tests' commands."""
    con = SimConsole(sim_soc.model, sim_soc.gateware_dir, timeout=900)
    con.wait_prompt()
    yield con
    con.close()


@pytest.fixture(scope="session")
def bench_ours_512_1024(sim_soc):
    """`bench ours 512 1024` on a freshly booted SoC (our implementations, software and hardware, every
    row at both sizes): its output, for tests/sim/test_rsa.py's bench tests and
    tests/sim/test_bench_split.py's hardware rows; all of them are in xdist_group "bench_ours" (one
    worker, one run)."""
    con = SimConsole(sim_soc.model, sim_soc.gateware_dir, timeout=1800)
    try:
        con.wait_prompt()
        return con.command("bench ours 512 1024")
    finally:
        con.close()


#: A line of `python -m sim bench`'s progress (stderr) for a row that came back, in the order it did.
BENCH_PROGRESS_ROW = re.compile(r"\] RSA-(\d+) +(\S+) +(\S+) +([\d,]+) cycles (ok|MISMATCH)$", re.M)


@pytest.fixture(scope="session")
def serial_boot_bench_512(sim_soc, tmp_path_factory):
    """One simulated SoC behind a serial port (sim/pty_uart.py), main RAM starting zeroed: the firmware
    loaded by the BIOS's serial boot (litex_term's code), then on that firmware, through the port,
    `python -m sim bench --sizes 512 --port` (one whole 512-bit benchmark, every row in one `bench`
    command) and `python -m sim run "help; info" --port`. Shared by the serial-boot and serial-port
    bench tests (tests/sim/test_serial.py) and the parallel runner's (tests/sim/test_bench_split.py), which
    compares its split run with this run's counts, in the order the firmware printed them (the bench's
    progress lines). All are in xdist_group "bench_512" (one worker)."""
    from link import serial_boot
    from link.console import Console
    from jobs.pty import SimulatedSerialPort
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
        bench = sim("bench", "--sizes", "512", "--out-dir", str(out_dir))
        run = sim("run", "help; info", "--quiet")
    arrived = [(int(bits), op, impl, int(cycles.replace(",", "")), int(ok == "ok"))
               for bits, op, impl, cycles, ok in BENCH_PROGRESS_ROW.findall(bench.stderr)]
    return {"device": device, "uploads": uploads, "boot_output": boot_output, "bench": bench, "arrived": arrived,
            "out_dir": out_dir, "run": run}
