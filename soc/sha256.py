"""LiteX wrapper of the SHA-256 engine (gateware/sha256/engine.py): its command and status ports become
CSRs, its message buffer and state words a window on the SoC bus.

The engine is converted to Verilog when the SoC is built and instantiated as a black box, as the entropy
source is (soc/entropy.py). Every build carries it, the simulation's and the board's alike.

Registers (generated into `csr.h`, never copied by hand; widths and codes from the contract,
gateware/sha256/interface.py):

- `command` write: `code`, a `Command` (INIT, BLOCK); the write itself issues it.
- `status`  read: busy, busy_refused, bad_command (fields from the contract's `Status` layout).

The window (`MessageStateWindow`), an uncached region at a pinned address (`mem.h`: `SHA256_WINDOW_BASE`),
holds the engine's words at fixed word offsets (`soc.h`: `SHA256_WINDOW_MESSAGE`, `SHA256_WINDOW_STATE`):

- message words 0..15, write only (they read 0), taken in any cycle, busy or not: a word as the CPU
  loads it from the message's bytes (memory order, little-endian), the window swapping its bytes into
  FIPS 180-4's big-endian word (wiring only), so the firmware stores the block's words as they are.
- state words H0..H7, read and written as the engine's 32-bit words (a write refused while busy; a read
  while busy gives the state of before the command).

A store is acknowledged in the cycle it is made, a load in the next. Accesses are whole words (the byte
enables are ignored).

The SoC also gets `SHA256_COMMAND_INIT`, `SHA256_COMMAND_BLOCK` and `SHA256_BLOCK_CYCLES` (soc.h).

A block takes `BLOCK_CYCLES` cycles after its command, whatever the data: the firmware writes the next
block's words while the engine runs the last, waits for `busy` to fall and issues BLOCK; it loads a
context's state only when the engine holds another, and reads it back once a call
(firmware/hash/sha256_hw.c).

For simulation only (`idle_clock_gate=True`), the engine's clock stops while it has nothing to do: no
command running, no window access, no command written (soc/sim_clock_gate.py).
"""

import functools
from pathlib import Path

from amaranth.lib import data
from migen import Cat, ClockSignal, If, Instance, Mux, ResetSignal, Signal

from litex.gen import LiteXModule
from litex.soc.integration.soc import SoCRegion
from litex.soc.interconnect import wishbone
from litex.soc.interconnect.csr import CSRField, CSRStatus, CSRStorage

from gateware.sha256.interface import (BLOCK_CYCLES, BLOCK_WORDS, COMMAND_BITS, MESSAGE_ADDR_BITS, STATE_ADDR_BITS,
                                       STATE_WORDS, WORD_BITS, Command, Status)
from soc import config, sim_clock_gate

_STATUS = data.Layout.cast(Status)
#: The status fields the firmware reads, in the register as in the contract.
STATUS_FIELDS = {
    "busy": "A command runs: commands and state writes are refused.",
    "busy_refused": "A command or state write came while busy (cleared by the next accepted command).",
    "bad_command": "A command with an unknown code came (cleared by the next accepted command).",
}

#: The window's word offsets: the message words from WINDOW_MESSAGE, the state words from WINDOW_STATE.
WINDOW_MESSAGE = 0
WINDOW_STATE = WINDOW_MESSAGE + BLOCK_WORDS
#: Bytes of the window's region: its words, rounded up to a power of two (the bus decodes such a region).
WINDOW_BYTES = 1 << (4 * (WINDOW_STATE + STATE_WORDS) - 1).bit_length()


def _memory_order(word):
    """The FIPS (big-endian) word of the 4 bytes of which ``word`` is the little-endian load: its bytes
    in reverse order."""
    return Cat(*(word[8 * i:8 * i + 8] for i in reversed(range(WORD_BITS // 8))))


class MessageStateWindow(LiteXModule):
    """The engine's message buffer and state words as words of a Wishbone bus (see the module's docstring).

    Towards the engine, its ports: ``message_addr``/``message_data``/``message_we`` and
    ``state_addr``/``state_data``/``state_we`` (a store, in the cycle it is acknowledged), ``state_addr``
    also selecting ``state_rdata`` for a load (taken at the end of the load's first cycle, answered in the
    next). ``access``: the window is accessed this cycle."""

    def __init__(self):
        self.bus = bus = wishbone.Interface(data_width=32, address_width=32, addressing="word")
        self.message_addr = Signal(MESSAGE_ADDR_BITS)
        self.message_data = Signal(WORD_BITS)
        self.message_we = Signal()
        self.state_addr = Signal(STATE_ADDR_BITS)
        self.state_data = Signal(WORD_BITS)
        self.state_we = Signal()
        self.state_rdata = Signal(WORD_BITS)
        self.access = Signal()

        # # #

        offset = Signal((WINDOW_BYTES // 4 - 1).bit_length())
        is_message, is_state = Signal(), Signal()
        store, load, load_ack = Signal(), Signal(), Signal()
        self.comb += [
            offset.eq(bus.adr),
            is_message.eq((offset >= WINDOW_MESSAGE) & (offset < WINDOW_MESSAGE + BLOCK_WORDS)),
            is_state.eq((offset >= WINDOW_STATE) & (offset < WINDOW_STATE + STATE_WORDS)),
            self.access.eq(bus.cyc & bus.stb),
            store.eq(self.access & bus.we),
            load.eq(self.access & ~bus.we & ~load_ack),
            bus.ack.eq(store | load_ack),
            self.message_addr.eq(offset - WINDOW_MESSAGE),
            self.message_data.eq(_memory_order(bus.dat_w)),
            self.message_we.eq(store & is_message),
            self.state_addr.eq(offset - WINDOW_STATE),
            self.state_data.eq(bus.dat_w),
            self.state_we.eq(store & is_state),
        ]
        # anything but a state word reads 0
        self.sync += [load_ack.eq(load), If(load, bus.dat_r.eq(Mux(is_state, self.state_rdata, 0)))]


@functools.lru_cache(maxsize=2)
def _verilog(name):
    """The engine's Verilog; a board build elaborates the SoC twice, convert once."""
    from eda.synth import amaranth_verilog
    from gateware.sha256 import SHA256Engine
    return amaranth_verilog(SHA256Engine(), name=name)


class SHA256CSR(LiteXModule):
    def __init__(self, platform, name="sha256_engine", idle_clock_gate=False):
        self.command = CSRStorage(fields=[
            CSRField("code", size=COMMAND_BITS, description="The command; writing it issues it.",
                     values=[(str(int(c)), c.name, "") for c in Command]),
        ], description=f"Engine command (BLOCK keeps it busy {BLOCK_CYCLES} cycles).")
        self.status = CSRStatus(fields=[
            CSRField(field, size=_STATUS[field].width, offset=_STATUS[field].offset, description=text)
            for field, text in STATUS_FIELDS.items()], description="SHA-256 engine status.")

        # # #

        status = Signal(32)
        self.window = window = MessageStateWindow()
        # A CSRStorage's `re` rises in the cycle its new value is in `storage`: value and strobe line up.
        clk = ClockSignal("sys")
        inputs = [ResetSignal("sys"), window.message_addr, window.message_data, window.message_we,
                  window.state_addr, window.state_data, window.state_we, self.command.storage, self.command.re]
        if idle_clock_gate:
            # a window access opens the gate (a load too: the engine takes its address), as a command does
            busy = status[_STATUS["busy"].offset]
            clk, inputs = sim_clock_gate.gate(self, inputs, ResetSignal("sys") | busy | window.access
                                              | self.command.re)
        rst, message_addr, message_data, message_we, state_addr, state_data, state_we, command, command_stb = inputs
        self.specials += Instance(name,
            i_clk          = clk,
            i_rst          = rst,
            i_message_addr = message_addr,
            i_message_data = message_data,
            i_message_we   = message_we,
            i_state_addr   = state_addr,
            i_state_data   = state_data,
            i_state_we     = state_we,
            o_state_rdata  = window.state_rdata,
            i_command      = command,
            i_command_stb  = command_stb,
            o_status       = status,
        )
        self.comb += [getattr(self.status.fields, field).eq(status[_STATUS[field].offset])
                      for field in STATUS_FIELDS]
        self._platform, self._name, self._idle_clock_gate = platform, name, idle_clock_gate

    def do_finalize(self):
        # The builder has chosen the output directory by now: convert the engine there.
        out_dir = Path(getattr(self._platform, "output_dir", None) or "build") / "gateware"
        out_dir.mkdir(parents=True, exist_ok=True)
        path = out_dir / f"{self._name}.v"
        text = _verilog(self._name)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        self._platform.add_source(str(path.resolve()))
        if self._idle_clock_gate:
            sim_clock_gate.add_source(self._platform, out_dir)


def soc_constants():
    """What the firmware takes from soc.h besides the registers: the command codes, a block's cycles and
    the window's word offsets."""
    return {**{f"SHA256_COMMAND_{command.name}": int(command) for command in Command},
            "SHA256_BLOCK_CYCLES": BLOCK_CYCLES,
            "SHA256_WINDOW_MESSAGE": WINDOW_MESSAGE, "SHA256_WINDOW_STATE": WINDOW_STATE}


def add_sha256_engine(soc, idle_clock_gate=False):
    """The engine in `soc` (its CSRs `sha256_*`) at its pinned CSR location, its window at its pinned
    address (`mem.h`: `SHA256_WINDOW_BASE`), and its constants (soc.h). `idle_clock_gate`: its clock stops
    while it idles (simulation only, soc/sim_clock_gate.py)."""
    soc.csr.add("sha256", n=config.SHA256_CSR_LOCATION)
    soc.sha256 = SHA256CSR(soc.platform, idle_clock_gate=idle_clock_gate)
    soc.bus.add_slave("sha256_window", soc.sha256.window.bus,
                      SoCRegion(origin=config.SHA256_WINDOW_BASE, size=WINDOW_BYTES, cached=False))
    for name, value in soc_constants().items():
        soc.add_constant(name, value)
