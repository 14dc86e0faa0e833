"""The console over a serial port (pyserial), the BIOS's serial boot, and the runner's robustness.

The simulated SoC's UART is exposed as a pseudo-terminal (jobs/pty.py): `run` and `bench`
reach it with `--port`, through pyserial, as they reach a board. The error cases (no port, no
permission, no answer, wrong baud rate, the BIOS instead of the firmware) use ptys with scripted
far ends, or pyserial's own exception where a pty cannot produce it (root opens any device).
"""

import errno
import json
import os
import pty
import subprocess
import sys
import threading
import time
import tty
from pathlib import Path

import pytest
import serial

from link import serial_boot
from link.console import LINE_MAX, Console, ConsoleError
from jobs.pty import SimulatedSerialPort
from link.transport import SocModelTransport, TransportError, open_serial
from soc import config
from soc import console_protocol as protocol

ROOT = Path(__file__).resolve().parents[2]
FAKE_CONSOLE = Path(__file__).parent / "fake_console.py"


def _sim(*args, timeout=900):
    return subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


# Runner robustness ---------------------------------------------------------------------------------

def test_a_command_longer_than_the_console_is_refused_at_once_and_the_next_one_runs(sim_soc):
    digits = "f" * 5000
    result = _sim("run", f"modexp {digits} 3 {digits}; modexp 2 5 b", "--quiet", "--timeout", "120")
    assert result.returncode == 1, result.stderr
    assert f"the console takes at most {LINE_MAX}" in result.stderr
    assert "time limit" not in result.stderr and "Traceback" not in result.stderr
    # The command after it ran, with its result (2^5 mod 11 = 10).
    assert "rsa> modexp 2 5 b" in result.stdout
    assert "sw=a hw=a" in result.stdout and "match=yes" in result.stdout


def test_the_limit_is_the_firmware_s_own(sim_soc):
    """The longest line the runner sends is the longest the firmware takes: LINE_MAX characters are
    echoed and parsed (an unknown command then), one more would be refused by the runner."""
    con = Console(SocModelTransport(sim_soc.model, sim_soc.gateware_dir), timeout=300,
                  boot=serial_boot.jump_to_main_ram)
    try:
        con.wait_prompt()
        out = con.command("x" * LINE_MAX)
        assert protocol.error_code(out.strip().splitlines()[-1]) == protocol.Error.UNKNOWN_COMMAND
        with pytest.raises(ConsoleError, match="not sent"):
            con.command("x" * (LINE_MAX + 1))
        assert "cycle_counter=ok" in con.command("info")     # the session goes on
    finally:
        con.close()


def test_a_console_that_stops_answering_is_reported_before_the_time_limit():
    con = Console(_fake("mute"), timeout=300, echo_timeout=2)
    started = time.monotonic()
    try:
        con.wait_prompt()
        with pytest.raises(ConsoleError, match="stopped answering: no echo"):
            con.command("help")
    finally:
        con.close()
    assert time.monotonic() - started < 60        # the echo limit, not the 300 s session limit


def _fake(mode):
    class Fake(SocModelTransport):
        def __init__(self):
            script = f"#!/bin/sh\nexec {sys.executable} {FAKE_CONSOLE} {mode}\n"
            path = Path(os.environ.get("TMPDIR", "/tmp")) / f"fake_console_{mode}_{os.getpid()}.sh"
            path.write_text(script)
            path.chmod(0o755)
            super().__init__(path, ROOT)
    return Fake()


# The simulated SoC as a serial device ----------------------------------------------------------------

def test_run_over_a_serial_port(sim_soc):
    """A simulation started by the port's opening: the runner answers the BIOS's serial-boot request
    (a jump to the preloaded firmware) before it finds the prompt."""
    with SimulatedSerialPort(sim_soc) as device:
        result = _sim("run", "help; info", "--quiet", "--port", device)
    assert result.returncode == 0, result.stderr
    assert "Commands:" in result.stdout
    [soc] = protocol.INFO_SOC.parse_all(result.stdout)
    assert soc["main_ram_bytes"] == config.MAIN_RAM_SIZE


@pytest.mark.xdist_group("bench_512")          # the worker that has serial_boot_bench_512
def test_bench_over_a_serial_port_records_where_it_ran(serial_boot_bench_512):
    """`bench --sizes 512` at the port of the SoC the serial boot started (serial_boot_bench_512)."""
    result, device, out_dir = (serial_boot_bench_512[k] for k in ("bench", "device", "out_dir"))
    assert result.returncode == 0, result.stderr
    data = json.loads((out_dir / "results.json").read_text())
    assert data["source"] == {"transport": "serial", "port": device, "baud": config.UART_BAUDRATE}
    assert data["soc"]["sys_clk_hz"] == config.SYS_CLK_FREQ
    assert {(r["op"], r["impl"]) for r in data["results"]} == set(protocol.bench_rows())
    assert all(r["ok"] for r in data["results"])
    assert f"board on {device}" in (out_dir / "results.md").read_text()
    assert (out_dir / "results.png").stat().st_size > 0


def test_the_serial_boot_sends_the_image_but_the_zeros_of_its_bss(sim_soc):
    """What upload_firmware sends: the image's bytes at their places, the .bss between its parts left
    out (zeros in the image, cleared by crt0)."""
    image = Path(sim_soc.firmware_bin).read_bytes()
    parts = serial_boot.loaded_parts(sim_soc.firmware_bin)
    rebuilt = bytearray(len(image))
    for start, data in parts:
        rebuilt[start - config.MAIN_RAM_BASE:start - config.MAIN_RAM_BASE + len(data)] = data
    assert rebuilt == image
    assert len(parts) >= 2 and sum(len(data) for _, data in parts) < len(image)


@pytest.mark.xdist_group("bench_512")
def test_serial_boot_loads_the_firmware_with_litex_term_s_code(sim_soc, serial_boot_bench_512):
    """Main RAM starts zeroed: the only firmware the BIOS can run is the one litex_term's upload sends
    (the boot and the session after it: tests/conftest.py, serial_boot_bench_512)."""
    run = serial_boot_bench_512
    assert len(run["uploads"]) == 1
    assert "Booting from serial" in run["boot_output"] and "Timeout" not in run["boot_output"]
    assert "Commands:" in run["run"].stdout
    results = run["arrived"]
    [stack] = protocol.INFO_STACK.parse_all(run["run"].stdout)
    assert {(op, impl) for _, op, impl, *_ in results} == set(protocol.bench_rows())
    assert all(ok == 1 for *_, ok in results)
    # Every implementation has run: the deepest stack of the benchmark fits the reserve the linker
    # checks (the board's image has no more than that above its bss).
    assert 0 < stack["stack_used"] <= config.STACK_SIZE <= stack["stack_bytes"]
    print(f"stack: {stack['stack_used']} of {stack['stack_bytes']} bytes used after bench 512")
    sent = sum(len(data) for _, data in serial_boot.loaded_parts(sim_soc.firmware_bin))
    print(f"serial boot: {sent} of {Path(sim_soc.firmware_bin).stat().st_size} bytes (the loaded parts) "
          f"uploaded and started in {run['uploads'][0]:.1f} s")


# Clear errors at the port ------------------------------------------------------------------------------

class FarEnd:
    """A pty whose far end answers every write with `reply` (or never, with None)."""

    def __init__(self, reply):
        self.master, slave = pty.openpty()
        tty.setraw(slave)
        self.path = os.ttyname(slave)
        os.close(slave)
        self.reply, self.stop = reply, threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self):
        import select
        while not self.stop.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if ready:
                try:
                    os.read(self.master, 4096)
                except OSError:
                    time.sleep(0.02)
                    continue
                if self.reply is not None:
                    os.write(self.master, self.reply)

    def __enter__(self):
        self.thread.start()
        return self.path

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()
        os.close(self.master)


@pytest.mark.parametrize("reply, message", [
    (None, "no answer from"),
    (bytes(range(0x80, 0xff)), "wrong baud rate?"),
    (b"\r\nlitex> ", "LiteX BIOS prompt"),
    (b"hello\r\n", "without the console prompt"),
])
def test_a_port_that_does_not_answer_as_the_firmware_is_one_clear_line(reply, message):
    with FarEnd(reply) as device:
        result = _sim("run", "help", "--port", device, "--answer-timeout", "2", timeout=60)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], result.stderr


def test_a_missing_port_is_one_clear_line():
    result = _sim("run", "help", "--port", "/dev/ttyNOSUCHPORT", timeout=60)
    assert result.returncode == 1
    assert result.stderr.strip() == ("error: no serial port /dev/ttyNOSUCHPORT: is the board's USB-UART "
                                     "plugged in? (`ls /dev/ttyUSB*`)")


@pytest.mark.parametrize("code, message", [
    (errno.EACCES, "permission denied on /dev/ttyUSB7: add your user to the `dialout` group"),
    (errno.EBUSY, "/dev/ttyUSB7 is busy"),
])
def test_pyserial_s_open_errors_become_one_clear_line(monkeypatch, code, message):
    def refuse(url, **kwargs):      # what pyserial raises (serialposix.Serial.open)
        raise serial.SerialException(code, f"could not open port {url}: [Errno {code}] {os.strerror(code)}: "
                                           f"'{url}'")
    monkeypatch.setattr(serial, "serial_for_url", refuse)
    with pytest.raises(TransportError) as caught:
        open_serial("/dev/ttyUSB7", config.UART_BAUDRATE)
    assert str(caught.value).startswith(message)


def test_port_options_need_a_job_that_takes_them():
    """The console on this terminal is a simulation's: without a job that talks to a port, --port is
    refused before anything is built, naming the jobs that take it."""
    result = _sim("--port", "/dev/ttyUSB1", timeout=60)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr == ("error: python -m sim: the job first, then its options: python -m sim JOB [options] "
                             "(--port goes with bench, random-lines, run, tls, tls-bench)\n")
    result = _sim("leak", "--port", "/dev/ttyUSB1", timeout=60)
    assert result.returncode == 2
    assert result.stderr.startswith("error: python -m sim leak: unrecognized arguments: --port /dev/ttyUSB1 "
                                    "(--port goes with")
