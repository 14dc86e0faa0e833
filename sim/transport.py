"""Byte pipes to a firmware console: the Verilator model's stdin/stdout, or a serial port.

`sim.console.Console` speaks the console protocol over either. A serial port is opened through
pyserial's `serial_for_url`, so `/dev/ttyUSB1`, a pseudo-terminal or `socket://host:port` (the
simulated SoC's UART behind LiteX's `serial2tcp` module) are all the same to it.
"""

import errno
import os
import selectors
import subprocess
import time

from common.errors import ProjectError


class ConsoleError(ProjectError):
    """The console did not answer as its protocol says (exited, stopped answering, ran out of time)."""


class TransportError(ConsoleError):
    """The link to the console failed (could not open, closed, the model exited)."""


class ModelTransport:
    """The simulated SoC with LiteX's `serial2console` module: the UART is the model's stdin/stdout."""

    def __init__(self, model, cwd):
        try:
            self.proc = subprocess.Popen([str(model)], cwd=str(cwd), stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, bufsize=0)
        except OSError as exc:
            raise TransportError(f"the simulation could not start: {exc}") from exc
        self._sel = selectors.DefaultSelector()
        self._sel.register(self.proc.stdout, selectors.EVENT_READ)
        self.source = {"transport": "simulation"}

    def read(self, timeout):
        """Bytes the console sent, waiting up to `timeout` s; b"" when none came."""
        if not self._sel.select(timeout=timeout):
            return b""
        data = os.read(self.proc.stdout.fileno(), 65536)
        if not data:
            raise TransportError(f"the simulation exited (code {self.proc.wait()})")
        return data

    def write(self, data):
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise TransportError(f"the simulation exited (code {self.proc.wait()})") from None

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self._sel.close()
        self.proc.stdin.close()
        self.proc.stdout.close()


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
