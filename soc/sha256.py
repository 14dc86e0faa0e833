"""LiteX wrapper of the SHA-256 engine (gateware/sha256/engine.py): its ports become CSRs.

The engine is converted to Verilog when the SoC is built and instantiated as a black box, as the entropy
source is (soc/entropy.py). Every build carries it, the simulation's and the board's alike.

Register map (generated into `csr.h`, never copied by hand; widths and codes from the contract,
gateware/sha256/interface.py):

- `message_index` write: which of the 16 message words (FIPS order, big-endian) `message_data` writes.
- `message_data`  write: the word; the write itself is the engine's `message_we` (refused while busy).
- `state_index`   write: which of the 8 state words (H0..H7) `state_data` writes and `state` reads.
- `state_data`    write: the word; the write itself is the engine's `state_we` (refused while busy).
- `state`         read: the state word at `state_index` (while busy, as it was before the command).
- `command`       write: `code`, a `Command` (INIT, BLOCK); the write itself issues it.
- `status`        read: busy, busy_refused, bad_command (fields from the contract's `Status` layout).

The SoC also gets `SHA256_COMMAND_INIT`, `SHA256_COMMAND_BLOCK` and `SHA256_BLOCK_CYCLES` (soc.h).

A block takes `BLOCK_CYCLES` cycles after its command, whatever the data: the firmware loads a context's
state (8 words), writes the 16 message words, issues BLOCK, waits for `busy` to fall and reads the state
back (firmware/hash/sha256_hw.c).
"""

import functools
from functools import reduce
from operator import or_
from pathlib import Path

from amaranth.lib import data
from migen import ClockSignal, Instance, ResetSignal, Signal

from litex.gen import LiteXModule
from litex.soc.interconnect.csr import CSRField, CSRStatus, CSRStorage

from gateware.sha256.interface import (BLOCK_CYCLES, COMMAND_BITS, MESSAGE_ADDR_BITS, STATE_ADDR_BITS, WORD_BITS,
                                       Command, Status)
from soc import config, sim_clock_gate

_STATUS = data.Layout.cast(Status)
#: The status fields the firmware reads, in the register as in the contract.
STATUS_FIELDS = {
    "busy": "A command runs: commands and writes are refused.",
    "busy_refused": "A command or write came while busy (cleared by the next accepted command).",
    "bad_command": "A command with an unknown code came (cleared by the next accepted command).",
}


@functools.lru_cache(maxsize=2)
def _verilog(name):
    """The engine's Verilog; a board build elaborates the SoC twice, convert once."""
    from eda.synth import amaranth_verilog
    from gateware.sha256 import SHA256Engine
    return amaranth_verilog(SHA256Engine(), name=name)


class SHA256CSR(LiteXModule):
    def __init__(self, platform, name="sha256_engine", idle_clock_gate=False):
        self.message_index = CSRStorage(MESSAGE_ADDR_BITS, description="Which message word `message_data` "
                                                                       "writes (0: the block's first 4 bytes).")
        self.message_data = CSRStorage(WORD_BITS, description="Write: the message word at `message_index` "
                                                              "(big-endian); refused while busy.")
        self.state_index = CSRStorage(STATE_ADDR_BITS, description="Which state word (H0..H7) `state_data` "
                                                                   "writes and `state` reads.")
        self.state_data = CSRStorage(WORD_BITS, description="Write: the state word at `state_index`; "
                                                            "refused while busy.")
        self.state = CSRStatus(WORD_BITS, description="The state word at `state_index`.")
        self.command = CSRStorage(fields=[
            CSRField("code", size=COMMAND_BITS, description="The command; writing it issues it.",
                     values=[(str(int(c)), c.name, "") for c in Command]),
        ], description=f"Engine command (BLOCK keeps it busy {BLOCK_CYCLES} cycles).")
        self.status = CSRStatus(fields=[
            CSRField(field, size=_STATUS[field].width, offset=_STATUS[field].offset, description=text)
            for field, text in STATUS_FIELDS.items()], description="SHA-256 engine status.")

        # # #

        status = Signal(32)
        # A CSRStorage's `re` rises in the cycle its new value is in `storage`: value and strobe line up.
        clk = ClockSignal("sys")
        inputs = [ResetSignal("sys"), self.message_index.storage, self.message_data.storage, self.message_data.re,
                  self.state_index.storage, self.state_data.storage, self.state_data.re,
                  self.command.storage, self.command.re]
        if idle_clock_gate:
            # every write to a register opens the gate (an index that changes, too: `state` follows it)
            writes = [csr.re for csr in (self.message_index, self.message_data, self.state_index,
                                         self.state_data, self.command)]
            busy = status[_STATUS["busy"].offset]
            clk, inputs = sim_clock_gate.gate(self, inputs, reduce(or_, writes, ResetSignal("sys") | busy))
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
            o_state_rdata  = self.state.status,
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
    """What the firmware takes from soc.h besides the registers: the command codes and a block's cycles."""
    return {**{f"SHA256_COMMAND_{command.name}": int(command) for command in Command},
            "SHA256_BLOCK_CYCLES": BLOCK_CYCLES}


def add_sha256_engine(soc, idle_clock_gate=False):
    """The engine in `soc` (its CSRs `sha256_*`), at its pinned CSR location, and its constants (soc.h).
    `idle_clock_gate`: its clock stops while it idles (simulation only, soc/sim_clock_gate.py)."""
    soc.csr.add("sha256", n=config.SHA256_CSR_LOCATION)
    soc.sha256 = SHA256CSR(soc.platform, idle_clock_gate=idle_clock_gate)
    for name, value in soc_constants().items():
        soc.add_constant(name, value)
