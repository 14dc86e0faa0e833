"""Drives the firmware's console inside the running simulation, over the model's stdin/stdout.

The simulated UART is fed from a small buffer in LiteX's `serial2console` module, so long lines
are sent in chunks, each once the firmware has echoed the previous one.
"""

import os
import selectors
import subprocess
import time

from common.errors import ProjectError
from soc.console_protocol import PROMPT

CHUNK = 64   # below the firmware UART driver's 128-byte receive ring


class ConsoleError(ProjectError):
    """The simulation did not answer as the console protocol says (exited, or ran out of time)."""


class SimConsole:
    def __init__(self, model, cwd, timeout=600.0):
        self.deadline = time.monotonic() + timeout
        self.timeout = timeout
        self.output = ""        # everything the model printed
        self._pos = 0           # how far `expect` has consumed `output`
        try:
            self.proc = subprocess.Popen([str(model)], cwd=str(cwd), stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, bufsize=0)
        except OSError as exc:
            raise ConsoleError(f"the simulation could not start: {exc}") from exc
        self.started = time.monotonic()
        self._sel = selectors.DefaultSelector()
        self._sel.register(self.proc.stdout, selectors.EVENT_READ)

    def _read(self, until):
        """Reads output until `until()` is true; raises when the model exits or time runs out."""
        while not until():
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                raise ConsoleError(f"time limit of {self.timeout:.0f} s passed")
            events = self._sel.select(timeout=min(remaining, 1.0))
            if not events:
                continue
            data = os.read(self.proc.stdout.fileno(), 65536)
            if not data:
                raise ConsoleError(f"the simulation exited (code {self.proc.wait()})")
            self.output += data.decode("ascii", errors="replace").replace("\r", "")

    def expect(self, text):
        """Waits for `text` after what was consumed so far; returns the output before it."""
        def found():
            return self.output.find(text, self._pos) >= 0
        self._read(found)
        idx = self.output.find(text, self._pos)
        before = self.output[self._pos:idx]
        self._pos = idx + len(text)
        return before

    def send(self, text, echo=True):
        """Types `text` in chunks. With `echo`, each chunk waits for the console's echo of the one
        before (flow control); without (text the console will not echo), chunks are paced."""
        for i in range(0, len(text), CHUNK):
            chunk = text[i:i + CHUNK]
            mark = len(self.output)
            self.proc.stdin.write(chunk.encode("ascii"))
            self.proc.stdin.flush()
            printable = chunk.rstrip("\n")
            if not echo or "\x08" in printable or "\x7f" in printable:
                time.sleep(0.1)
            elif printable:
                self._read(lambda: printable in self.output[mark:])

    def wait_prompt(self):
        return self.expect(PROMPT)

    def command(self, line):
        """Runs one console command; returns its output (without the echoed line and prompt)."""
        self.send(line + "\n")
        out = self.wait_prompt()
        # Drop the echoed command line itself.
        first_nl = out.find("\n")
        return out[first_nl + 1:] if first_nl >= 0 else ""

    def command_lines(self, line):
        """Runs one console command and yields its output lines as they arrive."""
        self.send(line + "\n")
        self.expect("\n")                       # the echoed command line
        while True:
            self._read(lambda: "\n" in self.output[self._pos:] or self.output.endswith(PROMPT))
            nl = self.output.find("\n", self._pos)
            if nl < 0:                           # only the prompt is left
                self.expect(PROMPT)
                return
            text = self.output[self._pos:nl]
            self._pos = nl + 1
            yield text

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self._sel.close()
        self.proc.stdin.close()
        self.proc.stdout.close()

