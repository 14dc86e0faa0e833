import pytest

from sim import build as sim_build
from sim.console import SimConsole


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
def serial_boot_bench_512(sim_soc):
    """The firmware loaded by the BIOS's serial boot (litex_term's code, main RAM starting zeroed),
    then `help`, `bench 512` and `info` on it: one whole 512-bit benchmark, shared by the serial-boot
    test (tests/sim/test_serial.py) and the parallel runner's (tests/sim/test_bench_split.py), which
    compares its split run with these counts. Both tests are in xdist_group "bench_512" (one worker)."""
    from sim import serial_boot
    from sim.console import Console
    from sim.pty_uart import SimulatedSerialPort
    from sim.transport import SerialTransport
    from soc import config

    uploads = []

    def boot(transport):
        uploads.append(serial_boot.upload_firmware(transport.port, sim_soc.firmware_bin))

    with SimulatedSerialPort(sim_soc, empty_ram=True) as device:
        con = Console(SerialTransport(device, config.UART_BAUDRATE), timeout=900, boot=boot)
        try:
            con.wait_prompt()
            boot_output = con.output
            help_text = con.command("help")
            bench = con.command("bench 512")
            info = con.command("info")
        finally:
            con.close()
    return {"uploads": uploads, "boot_output": boot_output, "help": help_text, "bench": bench, "info": info}
