"""The host side of the LiteX BIOS's serial boot, through `litex_term`'s own code.

The BIOS prints a magic request and waits a quarter of a second (of SoC time) for the host's answer;
then it takes SFL frames (load, jump) until a jump. `litex_term --kernel firmware.bin PORT` is the
usual host. Here:

- `jump_to_main_ram(transport)`: answers the request and sends only the jump, so the BIOS starts the
  firmware already in main RAM without waiting out its window (what the simulation does at every
  start: the window is tens of seconds of wall-clock time in Verilator);
- `upload_firmware(port, firmware_bin)`: uploads a firmware and jumps to it, with `LiteXTerm`'s
  `answer_magic` / `upload` / `boot` on a pyserial port.
"""

import contextlib
import io
import time

from litex.tools import litex_term

from soc import config

#: What the BIOS prints when it asks for a serial boot (text; the console reads text).
REQUEST = litex_term.sfl_magic_req.decode("ascii")


def jump_to_main_ram(transport, address=config.MAIN_RAM_BASE):
    """Answers the BIOS's request and sends the jump frame (LiteX's SFL encoding): no upload."""
    frame = litex_term.SFLFrame()
    frame.cmd = litex_term.sfl_cmd_jump
    frame.payload = address.to_bytes(4, "big")
    transport.write(litex_term.sfl_magic_ack + frame.encode())


class _Host(litex_term.LiteXTerm):
    """`LiteXTerm` without its terminal: its constructor takes over stdin (a tty) and SIGINT, which a
    script or a test does not have. Everything else, the serial-boot protocol included, is litex_term's."""

    def __init__(self, port, kernel, address, in_flight):
        self.port = port
        self.mem_regions = {str(kernel): f"0x{address:08x}"}
        self.boot_address = f"0x{address:08x}"
        self.safe = True            # no calibration (timing a board's UART); frames of 64 bytes
        self.delay = 0
        self.length = 64
        self.outstanding = in_flight


def upload_firmware(port, firmware_bin, address=config.MAIN_RAM_BASE, in_flight=0, timeout=120.0, log=None):
    """Answers the BIOS's serial-boot request on the pyserial `port`: uploads `firmware_bin` to
    `address` and jumps to it. `in_flight`: frames sent ahead of their acknowledgements (litex_term:
    0 with `--safe`, else 128 after a calibration that times a board's UART). The simulated UART
    has no such timing to calibrate, and the BIOS loses bytes when a second frame arrives while it
    handles one (measured: CRC errors with 1 and with 16 frames ahead), so the default is `--safe`'s. Returns the seconds the upload and jump took. `log` receives
    litex_term's messages (default: dropped)."""
    from sim.transport import ConsoleError
    host = _Host(port, firmware_bin, address, in_flight)
    saved = port.timeout
    port.timeout = timeout                  # litex_term reads its acknowledgements blocking
    started = time.monotonic()
    messages = io.StringIO()
    try:
        with contextlib.redirect_stdout(messages):
            host.answer_magic()
    except SystemExit:                      # litex_term's reaction to a failed frame
        raise ConsoleError("serial boot failed: " + messages.getvalue().strip().splitlines()[-1]) from None
    finally:
        port.timeout = saved
        if log is not None:
            log(messages.getvalue())
    return time.monotonic() - started
