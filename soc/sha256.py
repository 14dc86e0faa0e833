"""LiteX wrapper of the SHA-256 engine (gateware/sha256/engine.py): its command and status ports become
CSRs, its message buffer and state words a window on the SoC bus, and a DMA feeds it blocks from main RAM.

The engine is converted to Verilog when the SoC is built and instantiated as a black box, as the entropy
source is (soc/entropy.py). Every build carries it, the simulation's and the board's alike.

Registers (generated into `csr.h`, never copied by hand; widths and codes from the contract,
gateware/sha256/interface.py):

- `command` write: `code`, a `Command` (INIT, BLOCK); the write itself issues it.
- `status`  read: busy, busy_refused, bad_command (fields from the contract's `Status` layout, busy
  also while the DMA runs), and the wrapper's dma_refused.
- `dma_address`, `dma_blocks` write: the DMA's source (a byte address) and its count of blocks; writing
  `dma_blocks` starts it (`BlockFetcher`).

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

A block takes `BLOCK_CYCLES` cycles after its command, whatever the data. The firmware hands whole blocks
word-aligned in main RAM to the DMA; others it writes into the window while the engine runs the last,
waits for `busy` to fall and issues BLOCK; it loads a context's state only when the engine holds
another, and reads it back once a call (firmware/hash/sha256_hw.c).

The DMA (`BlockFetcher`, a master on the SoC bus) feeds the engine whole blocks from main RAM: the
block's words in memory order, as the window takes them, and BLOCK for each, reading block k+1 while the
engine runs block k. Its cycles depend on the count only: a block takes BLOCK_CYCLES + 1 cycles, the
first one the reads of its words before (the CPU's accesses meanwhile, its polls of `status`, delay a
block's reads by a few bus accesses at most, which the engine's time hides). Main RAM holds what the CPU wrote before it started the DMA:
VexRiscv's data cache is write-through (its `DataCache` sends every store to the bus), and the bus keeps
the CPU's store and the `dma_blocks` write in order.

For simulation only (`idle_clock_gate=True`), the engine's clock stops while it has nothing to do: no
command running, no window access, no command written, no DMA running (soc/sim_clock_gate.py).
"""

import functools
from pathlib import Path

from amaranth.lib import data
from migen import Cat, ClockSignal, Constant, If, Instance, Mux, ResetSignal, Signal

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
#: The wrapper's own status field, at the first bit the engine's status leaves free.
DMA_STATUS_FIELDS = {
    "dma_refused": "A DMA start was refused (busy, address not word-aligned or not in main RAM, count 0 or "
                   "past main RAM's end), or a command or window store came while the DMA ran (dropped); "
                   "cleared by the next accepted DMA start or command.",
}
#: Bit position of every field of the `status` register.
STATUS_OFFSETS = {**{field: _STATUS[field].offset for field in STATUS_FIELDS},
                  **{field: _STATUS["reserved"].offset + i for i, field in enumerate(DMA_STATUS_FIELDS)}}
#: Width of the DMA's count register.
DMA_BLOCKS_BITS = 32

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


class BlockFetcher(LiteXModule):
    """The DMA: a Wishbone master that reads whole blocks from a region of memory into the engine's
    message buffer and issues BLOCK for each, and the switch between it and the CPU's side (the window and
    the command CSR) on the engine's inputs.

    ``start`` (a strobe) with ``address`` (bytes) and ``blocks``: accepted when nothing is busy (neither
    the engine, ``engine_busy``, nor the DMA), the address word-aligned and ``blocks`` blocks from it
    inside [``origin``, ``origin + size``); else refused, nothing else changes. An accepted start reads a
    block's 16 words one after another, holding the bus for the block (a load takes two cycles: the block
    is read in about half the engine's time, and no other master waits more than a block's reads), then
    strobes BLOCK in the first cycle the engine is idle, and reads the next block while that one runs. The
    buffer takes the words as the window does (memory order swapped into FIPS order), the engine taking
    the buffer as it was before the edge that accepts BLOCK. ``active``: from the accepted start to the
    last BLOCK's edge (then the engine is busy): the status's busy is ``active | engine_busy``.

    While active, the CPU's commands and window stores do not reach the engine (its state or buffer
    would change under the DMA): they set ``refused``, as a refused start does. An accepted start, or a
    command passed to the engine, clears it.

    The CPU's side in: ``cpu_command``/``cpu_command_stb`` and ``window`` (a ``MessageStateWindow``);
    the engine's inputs out: ``message_addr``/``message_data``/``message_we``, ``state_we`` (address and
    data are the window's), ``command``/``command_stb``."""

    def __init__(self, window, origin, size):
        self.bus = bus = wishbone.Interface(data_width=32, address_width=32, addressing="word")
        self.start = Signal()
        self.address = Signal(32)
        self.blocks = Signal(DMA_BLOCKS_BITS)
        self.engine_busy = Signal()
        self.active = Signal()
        self.refused = Signal()
        self.cpu_command = Signal(COMMAND_BITS)
        self.cpu_command_stb = Signal()
        self.message_addr = Signal(MESSAGE_ADDR_BITS)
        self.message_data = Signal(WORD_BITS)
        self.message_we = Signal()
        self.state_we = Signal()
        self.command = Signal(COMMAND_BITS)
        self.command_stb = Signal()

        # # #

        # the end of the blocks asked for, in bits enough for any address and count
        end = Signal(max(32, DMA_BLOCKS_BITS + 6) + 1)
        bad, accept, intrude = Signal(), Signal(), Signal()
        self.comb += [
            end.eq(self.address + Cat(Constant(0, 6), self.blocks)),
            bad.eq((self.address[:2] != 0) | (self.blocks == 0) | (self.address < origin)
                   | (end > origin + size)),
            accept.eq(self.start & ~bad & ~self.active & ~self.engine_busy),
            intrude.eq(self.active & (self.cpu_command_stb | window.message_we | window.state_we)),
        ]
        self.sync += If(self.start & ~accept | intrude, self.refused.eq(1)).Elif(
            accept | self.cpu_command_stb, self.refused.eq(0))

        word = Signal(MESSAGE_ADDR_BITS)               # the buffer's word the next load fills
        left = Signal(DMA_BLOCKS_BITS)                  # blocks not yet issued
        reading, full, issue = Signal(), Signal(), Signal()
        adr = Signal(len(bus.adr))
        self.comb += [
            bus.cyc.eq(reading), bus.stb.eq(reading), bus.we.eq(0), bus.sel.eq(0xf), bus.adr.eq(adr),
            issue.eq(full & ~self.engine_busy),
            self.active.eq(reading | full),
        ]
        self.sync += [
            If(accept, adr.eq(self.address[2:]), left.eq(self.blocks), word.eq(0), reading.eq(1)),
            If(reading & bus.ack,
                adr.eq(adr + 1), word.eq(word + 1),
                If(word == BLOCK_WORDS - 1, reading.eq(0), full.eq(1))),
            If(issue, full.eq(0), left.eq(left - 1), reading.eq(left != 1)),
        ]

        # the engine's inputs: the DMA's while it runs, else the CPU's
        self.comb += [
            If(self.active,
                self.message_addr.eq(word), self.message_data.eq(_memory_order(bus.dat_r)),
                self.message_we.eq(reading & bus.ack),
                self.command.eq(int(Command.BLOCK)), self.command_stb.eq(issue),
            ).Else(
                self.message_addr.eq(window.message_addr), self.message_data.eq(window.message_data),
                self.message_we.eq(window.message_we), self.state_we.eq(window.state_we),
                self.command.eq(self.cpu_command), self.command_stb.eq(self.cpu_command_stb),
            ),
        ]


@functools.lru_cache(maxsize=2)
def _verilog(name):
    """The engine's Verilog; a board build elaborates the SoC twice, convert once."""
    from eda.synth import amaranth_verilog
    from gateware.sha256 import SHA256Engine
    return amaranth_verilog(SHA256Engine(), name=name)


class SHA256CSR(LiteXModule):
    """The engine's CSRs, its window and its DMA (``BlockFetcher``, which reads from
    [``dma_origin``, ``dma_origin + dma_size``), main RAM on the SoC)."""

    def __init__(self, platform, dma_origin, dma_size, name="sha256_engine", idle_clock_gate=False):
        self.command = CSRStorage(fields=[
            CSRField("code", size=COMMAND_BITS, description="The command; writing it issues it.",
                     values=[(str(int(c)), c.name, "") for c in Command]),
        ], description=f"Engine command (BLOCK keeps it busy {BLOCK_CYCLES} cycles).")
        self.status = CSRStatus(fields=[
            *(CSRField(field, size=_STATUS[field].width, offset=STATUS_OFFSETS[field], description=text)
              for field, text in STATUS_FIELDS.items()),
            *(CSRField(field, size=1, offset=STATUS_OFFSETS[field], description=text)
              for field, text in DMA_STATUS_FIELDS.items()),
        ], description="SHA-256 engine status.")
        self.dma_address = CSRStorage(32, description="The DMA's first byte: word-aligned, in main RAM.")
        self.dma_blocks = CSRStorage(DMA_BLOCKS_BITS, description=(
            f"Blocks the DMA feeds the engine; writing it starts the DMA (busy then for about "
            f"{BLOCK_CYCLES + 1} cycles a block), or refuses it (dma_refused)."))

        # # #

        status = Signal(32)
        self.window = window = MessageStateWindow()
        self.fetcher = fetcher = BlockFetcher(window, dma_origin, dma_size)
        engine_busy = status[_STATUS["busy"].offset]
        self.comb += [
            fetcher.start.eq(self.dma_blocks.re), fetcher.address.eq(self.dma_address.storage),
            fetcher.blocks.eq(self.dma_blocks.storage), fetcher.engine_busy.eq(engine_busy),
            fetcher.cpu_command.eq(self.command.storage), fetcher.cpu_command_stb.eq(self.command.re),
        ]
        # A CSRStorage's `re` rises in the cycle its new value is in `storage`: value and strobe line up.
        clk = ClockSignal("sys")
        inputs = [ResetSignal("sys"), fetcher.message_addr, fetcher.message_data, fetcher.message_we,
                  window.state_addr, window.state_data, fetcher.state_we, fetcher.command, fetcher.command_stb]
        if idle_clock_gate:
            # a window access opens the gate (a load too: the engine takes its address), as a command and
            # the DMA do
            clk, inputs = sim_clock_gate.gate(self, inputs, ResetSignal("sys") | engine_busy | window.access
                                              | self.command.re | fetcher.active)
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
                      for field in STATUS_FIELDS if field != "busy"]
        self.comb += [self.status.fields.busy.eq(engine_busy | fetcher.active),
                      self.status.fields.dma_refused.eq(fetcher.refused)]
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
    address (`mem.h`: `SHA256_WINDOW_BASE`), its DMA a master on the bus reading main RAM, and its constants
    (soc.h). `idle_clock_gate`: its clock stops
    while it idles (simulation only, soc/sim_clock_gate.py)."""
    soc.csr.add("sha256", n=config.SHA256_CSR_LOCATION)
    main_ram = soc.bus.regions["main_ram"]
    soc.sha256 = SHA256CSR(soc.platform, main_ram.origin, main_ram.size, idle_clock_gate=idle_clock_gate)
    soc.bus.add_slave("sha256_window", soc.sha256.window.bus,
                      SoCRegion(origin=config.SHA256_WINDOW_BASE, size=WINDOW_BYTES, cached=False))
    soc.bus.add_master("sha256_dma", soc.sha256.fetcher.bus)
    for name, value in soc_constants().items():
        soc.add_constant(name, value)
