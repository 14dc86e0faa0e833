"""The host side of the LiteX BIOS's serial boot, through `litex_term`'s own code.

The BIOS prints a magic request and waits a quarter of a second (of SoC time) for the host's answer;
then it takes SFL frames (load, jump) until a jump. `litex_term --kernel firmware.bin PORT` is the
usual host. Here:

- `jump_to_main_ram(transport)`: answers the request and sends only the jump, so the BIOS starts the
  firmware already in main RAM without waiting out its window (what the simulation does at every
  start: the window is tens of seconds of wall-clock time in Verilator);
- `upload_firmware(port, firmware_bin)`: uploads a firmware and jumps to it, with `LiteXTerm`'s
  `answer_magic` / `upload` / `boot` on a pyserial port: the image's loaded parts only (its ELF's
  segments, as litex_term's `--images` sends several files): the .bss between them (120 KB of the
  297 KB image's zeros) is cleared by crt0 anyway.
"""

import contextlib
import io
import select
import struct
import tempfile
import time
from pathlib import Path

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

    def __init__(self, port, images, address, in_flight):
        self.port = _WaitingPort(port)
        self.mem_regions = {str(path): f"0x{start:08x}" for path, start in images}
        self.boot_address = f"0x{address:08x}"
        self.safe = True            # no calibration (timing a board's UART); frames of 64 bytes
        self.delay = 0
        self.length = 64
        self.outstanding = in_flight


class _WaitingPort:
    """The pyserial `port` as litex_term sees it, but `in_waiting` waits up to `wait` seconds for a
    byte (in select(), which lets other threads run) before it says 0. litex_term polls in_waiting in
    a loop while a frame's acknowledgement is on its way; polled at once, that loop keeps the
    interpreter's lock from the thread that passes the acknowledgement on (SimulatedSerialPort's
    bridge, jobs/pty.py) for its whole time slice, 5 ms a frame."""

    def __init__(self, port, wait=0.01):
        self._port, self._wait = port, wait

    def __getattr__(self, name):
        return getattr(self._port, name)

    @property
    def in_waiting(self):
        waiting = self._port.in_waiting
        if not waiting:
            select.select([self._port.fileno()], [], [], self._wait)
            waiting = self._port.in_waiting
        return waiting


#: ELF32 little-endian (RISC-V 32): where the program headers are, and what a loadable one holds.
_ELF_HEADER = struct.Struct("<16sHHIIIIIHHHHHH")
_PROGRAM_HEADER = struct.Struct("<IIIIIIII")
_PT_LOAD = 1


def loaded_parts(firmware_bin, address=config.MAIN_RAM_BASE):
    """[(address, bytes)]: the parts of `firmware_bin` (loaded at `address`) that its ELF beside it
    (firmware.elf) has file contents for: its loadable segments. What lies between them in the image
    is a .bss (zeros in firmware.bin, cleared by crt0 at start). The whole image when it has no ELF."""
    image = Path(firmware_bin).read_bytes()
    elf_path = Path(firmware_bin).with_suffix(".elf")
    if not elf_path.exists():
        return [(address, image)]
    elf = elf_path.read_bytes()
    header = _ELF_HEADER.unpack_from(elf)
    table, entry_size, count = header[5], header[9], header[10]
    parts = []
    for i in range(count):
        kind, _, _, paddr, file_size, *_ = _PROGRAM_HEADER.unpack_from(elf, table + i * entry_size)
        if kind == _PT_LOAD and file_size:
            offset = paddr - address
            if not 0 <= offset <= len(image) - file_size:
                raise ValueError(f"{elf_path}: a segment at 0x{paddr:08x} outside {firmware_bin}")
            parts.append((paddr, image[offset:offset + file_size]))
    kept = bytearray(len(image))
    for start, data in parts:
        kept[start - address:start - address + len(data)] = data
    if kept != image:           # a byte the parts leave out is not a zero of the bss: send it all
        return [(address, image)]
    return parts


def upload_firmware(port, firmware_bin, address=config.MAIN_RAM_BASE, in_flight=0, timeout=120.0, log=None):
    """Answers the BIOS's serial-boot request on the pyserial `port`: uploads the loaded parts of
    `firmware_bin` (`loaded_parts`) to `address` and jumps to it. `in_flight`: frames sent ahead of
    their acknowledgements (litex_term: 0 with `--safe`, else 128 after a calibration that times a
    board's UART). The simulated UART has no such timing to calibrate, and the BIOS loses bytes when
    a second frame arrives while it handles one (measured: CRC errors with 1 and with 16 frames
    ahead), so the default is `--safe`'s, as are the frames' 64 bytes (with 255, one try got the
    BIOS's frame-timeout error). Returns the seconds the upload and jump took. `log` receives
    litex_term's messages (default: dropped)."""
    from link.transport import ConsoleError
    with tempfile.TemporaryDirectory(prefix="serial-boot-") as parts_dir:
        images = []
        for start, data in loaded_parts(firmware_bin, address):
            path = Path(parts_dir) / f"part-{start:08x}.bin"
            path.write_bytes(data)
            images.append((path, start))
        host = _Host(port, images, address, in_flight)
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
