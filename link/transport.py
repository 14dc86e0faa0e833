"""Byte pipes to a firmware console: the Verilator model's stdin/stdout, or a serial port.

`link.console.Console` speaks the console protocol over either. A serial port is opened through
pyserial's `serial_for_url`, so `/dev/ttyUSB1`, a pseudo-terminal or `socket://host:port` (the
simulated SoC's UART behind LiteX's `serial2tcp` module) are all the same to it.
"""

import errno
import os
import re
import selectors
import signal
import subprocess
import time
from pathlib import Path

from dataclasses import dataclass

from common.errors import ProjectError


class ConsoleError(ProjectError):
    """The console did not answer as its protocol says (exited, stopped answering, ran out of time)."""


class TransportError(ConsoleError):
    """The link to the console failed (could not open, closed, the model exited)."""


#: The line the model (sim/harness/main.cpp) prints on stderr when it ends.
SUMMARY = re.compile(rb"sim cycles=(\d+) seconds=([\d.]+)")


@dataclass(frozen=True)
class SimEntropy:
    """The simulated entropy source's raw bits (soc/entropy.py), as the model's harness takes them
    (`+entropy_seed=`, `+entropy_mode=`): `ok`, bits of a generator seeded with `seed`; `stuck`, one
    constant bit, which the source's repetition count test fails. The same seed gives the same words."""
    seed: int = 1
    mode: str = "ok"

    MODES = ("ok", "stuck")

    def model_args(self):
        return (f"+entropy_seed={self.seed}", f"+entropy_mode={self.mode}")


class SocModelTransport:
    """The whole simulated SoC, a Verilator model: its UART is the model's stdin/stdout
    (sim/harness/main.cpp). Not gateware.driver's PeripheralModelTransport, which drives the Python
    model of the peripheral alone. After close(), `cycles` and `seconds` hold what the model simulated,
    and in how much wall-clock time (None when it did not say: killed, or another program)."""

    def __init__(self, model, cwd, args=(), pass_fds=(), env=None, entropy=None):
        """`pass_fds`, `env`: descriptors the model inherits and its environment (the fault hook's pipes,
        sim/fault_model.py); by default none and ours. `entropy`: the entropy source's raw bits (a
        SimEntropy: seed and mode; by default its defaults), always given, so that a run
        says which bits it had."""
        self.entropy = entropy or SimEntropy()
        try:
            self.proc = subprocess.Popen([str(Path(model).absolute()), *args, *self.entropy.model_args()], cwd=str(cwd), stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0,
                                         pass_fds=pass_fds, env=env)
        except OSError as exc:
            raise TransportError(f"the simulation could not start: {exc}") from exc
        self._sel = selectors.DefaultSelector()
        self._sel.register(self.proc.stdout, selectors.EVENT_READ)
        self.source = {"transport": "simulation"}
        self.cycles = self.seconds = None

    def read(self, timeout):
        """Bytes the console sent, waiting up to `timeout` s; b"" when none came."""
        if not self._sel.select(timeout=timeout):
            return b""
        data = os.read(self.proc.stdout.fileno(), 65536)
        if not data:
            raise TransportError(f"the simulation exited (code {self.proc.wait()}){self._stderr_tail()}")
        return data

    def _stderr_tail(self):
        """What the model said on stderr before it exited (a Verilator error, say), for the message."""
        try:
            self.proc.wait(timeout=5)
            text = self.proc.stderr.read().decode(errors="replace").strip()
        except (subprocess.TimeoutExpired, OSError, ValueError):
            return ""
        return f": {text.splitlines()[-1][:200]}" if text else ""

    def idle(self):
        """The console waits at its prompt and nothing is typed yet: the model stops clocking until the
        next byte comes (sim/harness/main.cpp, SIGUSR1), so that a test's or a runner's own work does
        not share its core with a simulation spinning in the firmware's wait for a key."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGUSR1)

    def write(self, data):
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise TransportError(f"the simulation exited (code {self.proc.wait()})") from None

    def close(self):
        """Ends the simulation: its stdin closed, the model stops and says how many cycles it ran
        (killed if it does not within a few seconds)."""
        try:
            _, err = self.proc.communicate(timeout=10)         # closes stdin first
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        except (ValueError, OSError):        # the streams were closed already, or the pipe broke
            self.proc.kill()
            self.proc.wait()
            err = b""
        self._sel.close()
        summary = SUMMARY.search(err or b"")
        if summary:
            self.cycles, self.seconds = int(summary.group(1)), float(summary.group(2))


def open_serial(url, baudrate):
    """A pyserial port for `url` (a device, or any pyserial URL); a one-line TransportError that
    says what to do when it cannot be opened."""
    import serial
    try:
        return serial.serial_for_url(url, baudrate=baudrate, timeout=0, write_timeout=10)
    except ValueError as error:         # bad URL or baud rate
        raise TransportError(f"cannot open {url}: {error}") from None
    except (serial.SerialException, OSError) as error:
        code = getattr(error, "errno", None)
        text = str(error)
        if code == errno.ENOENT or "No such file" in text:
            raise TransportError(f"no serial port {url}: is the board's USB-UART plugged in? "
                                 "(`ls /dev/ttyUSB*`)") from None
        if code == errno.EACCES or "Permission denied" in text:
            raise TransportError(f"permission denied on {url}: add your user to the `dialout` group "
                                 "(sudo usermod -aG dialout $USER, then log in again)") from None
        if code == errno.EBUSY or "busy" in text.lower():
            raise TransportError(f"{url} is busy: close the terminal (litex_term, screen, ...) "
                                 "that holds it") from None
        if "refused" in text.lower():
            raise TransportError(f"nothing answers at {url} (connection refused)") from None
        raise TransportError(f"cannot open {url}: {text}") from None


class SerialTransport:
    """A serial port (or pyserial URL) to a console on a board, or on a simulation that exposes its
    UART as one."""

    def __init__(self, url, baudrate):
        self.url, self.baudrate = url, baudrate
        self.port = open_serial(url, baudrate)
        self.source = {"transport": "serial", "port": url, "baud": baudrate}

    def read(self, timeout):
        import serial
        deadline = time.monotonic() + timeout
        try:
            while True:
                waiting = self.port.in_waiting
                if waiting:
                    return self.port.read(max(waiting, 4096))   # what is there, without blocking
                if time.monotonic() >= deadline:
                    return b""
                time.sleep(min(0.002, max(0.0, deadline - time.monotonic())))
        except (serial.SerialException, OSError) as error:
            raise TransportError(f"{self.url}: {error}") from None

    def write(self, data):
        import serial
        try:
            self.port.write(data)
            self.port.flush()
        except (serial.SerialException, OSError) as error:
            raise TransportError(f"{self.url}: {error}") from None

    def close(self):
        self.port.close()
