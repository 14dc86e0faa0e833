"""The simulated SoC's UART as a pseudo-terminal: a serial device that pyserial, `litex_term` or any
terminal opens like a board's USB-UART (`python -m sim pty`).

The model runs with LiteX's `serial2console` module (its UART on stdin/stdout, as everywhere else);
a thread copies bytes between it and the pty's master side. The model starts only once a client
has opened the device (and pyserial has flushed its input on open), so the client sees the BIOS
from its first line, serial-boot request included: `litex_term --kernel firmware.bin <device>`
boots the simulated SoC exactly as it boots a board.
"""

import os
import pty
import select
import shutil
import threading
import time
import tty
from pathlib import Path

from common.errors import ProjectError
from jobs import options, registry
from link.transport import SocModelTransport, TransportError


def _run_dir(build, empty_ram):
    """Where the model runs: its gateware directory, or with `empty_ram` a directory holding the same
    files but a zeroed main RAM (nothing to boot but what a serial boot sends)."""
    if not empty_ram:
        return build.gateware_dir
    from sim.build import main_ram_init
    run_dir = build.build_dir / "pty-empty-ram"
    if run_dir.exists():
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True)
    ram_init = main_ram_init(build.gateware_dir)
    for path in build.gateware_dir.iterdir():
        if path.name in ("sim_config.js", "modules") or (path.suffix == ".init" and path != ram_init):
            (run_dir / path.name).symlink_to(path)
    words = len(ram_init.read_text().split())
    (run_dir / ram_init.name).write_text("00000000\n" * words)
    return run_dir


class SimulatedSerialPort:
    """`with SimulatedSerialPort(build) as device:` -> the pty's path; the model runs once a client
    opens it and stops when the block ends."""

    def __init__(self, build, empty_ram=False, start_delay=0.2):
        self.build = build
        self.run_dir = _run_dir(build, empty_ram)
        self.start_delay = start_delay
        self.master, slave = pty.openpty()
        tty.setraw(slave)
        self.path = os.ttyname(slave)
        os.close(slave)             # the client's open is what the bridge waits for (POLLHUP clears)
        self.model = None
        self.error = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._bridge, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self.path

    def __exit__(self, *exc):
        self.close()

    def _client_open(self):
        poller = select.poll()
        poller.register(self.master, select.POLLHUP)
        return not poller.poll(0)

    def _bridge(self):
        try:
            while not self._client_open():
                if self._stop.wait(0.01):
                    return
            time.sleep(self.start_delay)    # pyserial flushes its input right after opening
            self.model = SocModelTransport(self.build.model, self.run_dir, entropy=self.build.entropy)
            out = self.model.proc.stdout.fileno()
            while not self._stop.is_set():
                ready, _, _ = select.select([self.master, out], [], [], 0.1)
                if out in ready:
                    data = self.model.read(0)
                    if data:
                        os.write(self.master, data)
                if self.master in ready:
                    try:
                        data = os.read(self.master, 4096)
                    except OSError:         # the client closed the device: wait for the next one
                        data = b""
                        time.sleep(0.01)
                    if data:
                        self.model.write(data)
        except (TransportError, OSError) as error:
            self.error = error

    def close(self):
        self._stop.set()
        self._thread.join(timeout=5)
        if self.model is not None:
            self.model.close()
        os.close(self.master)


def serve(build, empty_ram=False, out=print, timeout=None):
    """`python -m sim pty`: shows the device and keeps the simulation up until Ctrl-C (or for
    `timeout` wall-clock seconds)."""
    port = SimulatedSerialPort(build, empty_ram=empty_ram)
    with port as device:
        out(f"[sim] the simulated SoC's UART is {device} (the model starts when a terminal opens it)")
        out(f"[sim]   console:     litex_term {device}")
        out(f"[sim]   serial boot: litex_term --kernel {Path(build.firmware_bin)} {device}")
        out(f"[sim]   benchmark:   python -m sim bench --port {device}")
        out("[sim] Ctrl-C ends it")
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            while port.error is None and (deadline is None or time.monotonic() < deadline):
                time.sleep(0.5)
            if port.error is None:
                return 0
        except KeyboardInterrupt:
            return 0
    raise ProjectError(f"the simulation stopped: {port.error}")


# ---- the job: `python -m sim pty` ----

def add_arguments(parser):
    parser.add_argument("--empty-ram", action="store_true",
                        help="start with main RAM zeroed, so only a serial boot (litex_term --kernel) gives the "
                             "BIOS a firmware")


def main(args, log):
    return serve(options.simulation(args, log), empty_ram=args.empty_ram, out=log, timeout=args.timeout)


registry.register(registry.Job(
    "pty", "the simulated SoC's UART as a serial device", main, add_arguments=add_arguments,
    groups=(options.BUILD,),
    description="Expose the simulated SoC's UART as a pseudo-terminal and wait; Ctrl-C ends it. Board "
                "tools open it as a board's port (litex_term, and the jobs' --port)."))
