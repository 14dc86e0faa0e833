"""The operand register file and the modulus memory, with the arbitration of their ports.

Operands live in one block RAM with a row of ``lanes`` words per address: ``rows_per_slot`` rows per slot,
the user slots first and then the hidden ones (see the slot plan in ``gateware.interface``).  A slot's
words above the current size are ignored by every command.  SETMOD copies N (the words below the size)
into a separate modulus memory (bank 0's rows, then bank 1's one row), so N's slot may be reused
afterwards and the core can read N while the operand memory's only read port serves a and b.
CLEAR (``wipe``) zeroes both memories a row per cycle.

Read data arrives the cycle after the address (synchronous block-RAM ports).
"""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.lib.memory import Memory

from ..interface import BUS_BITS

__all__ = ["ReadPortSignature", "WritePortSignature", "WordWriteSignature", "PairWriteSignature", "RegisterFile",
           "row_address"]


class ReadPortSignature(wiring.Signature):
    """A row read, seen from the reader: ``addr`` in one cycle, ``data`` in the next.  With ``claim``,
    ``en`` asks for a shared port in the cycle of the address."""

    def __init__(self, rows, row_bits, claim=True):
        members = {"addr": Out(range(rows)), "data": In(row_bits)}
        if claim:
            members["en"] = Out(1)
        super().__init__(members)


class WritePortSignature(wiring.Signature):
    """A row write, seen from the writer: ``data`` is a whole row, ``en`` writes it."""

    def __init__(self, rows, row_bits):
        super().__init__({"en": Out(1), "addr": Out(range(rows)), "data": Out(row_bits)})


class WordWriteSignature(wiring.Signature):
    """A write of one bus word into a row, seen from the writer: ``en`` has one bit per W-bit word of the
    row, set for the words the bus word goes to.  Every member is 0 in a cycle without a write (the
    register file merges it with the word-serial unit's writes)."""

    def __init__(self, rows, lanes):
        super().__init__({"en": Out(lanes), "addr": Out(range(rows)), "data": Out(BUS_BITS)})


class PairWriteSignature(wiring.Signature):
    """A write of the word-serial unit into a row, seen from the writer: ``en`` has one bit per W-bit word
    of the row; word j of the row takes word j of the operand memory's read data (the row read in the
    previous cycle) where ``copy`` has bit j set, else its word of ``data``, two words repeated along the
    row (so that a pair lands on any even word and the one after it).  Every member is 0 in a cycle
    without a write (the register file merges it with the bus's writes, which are 0 then too)."""

    def __init__(self, config):
        super().__init__({"en": Out(config.lanes), "addr": Out(range(config.operand_rows)),
                          "data": Out(2 * config.word_bits), "copy": Out(config.lanes)})


def row_address(config, slot, row):
    """Register-file address of row ``row`` of slot ``slot`` (ints or Amaranth values)."""
    return slot * config.rows_per_slot + row


class RegisterFile(wiring.Component):
    """Operand and modulus memories.

    The operand memory has one read and one write port.  The multiplier core owns both while it runs
    (``core_read.en`` is its busy flag); otherwise SETMOD (``setmod_read``), the exponent sequencer
    (``exp_read``) or the word-serial unit (``serial_read``) may claim the read port for a cycle (they
    never run together), and it follows the bus read pointer (``bus_read``) in every other cycle, so
    ``rdata`` needs no extra latency.  Bus writes (``bus_write``: a 32-bit word and the enables of the
    W-bit words it goes to) happen only while every engine is idle; the word-serial unit's
    (``serial_write``) share their path, and may copy words of the row the read port gives instead.
    The modulus memory has two readers (the core, and the word-serial unit when it claims it) and one
    writer (SETMOD).
    While ``wipe`` (CLEAR, nothing else running) row ``wipe_row`` of each memory that has it is written
    with zeros, over every other writer."""

    def __init__(self, config):
        self.config = config
        rows, n_rows, row = config.operand_rows, config.modulus_rows, config.row_bits
        super().__init__({
            "core_read":     In(ReadPortSignature(rows, row)),
            "core_write":    In(WritePortSignature(rows, row)),
            "setmod_read":   In(ReadPortSignature(rows, row)),
            "exp_read":      In(ReadPortSignature(rows, row)),
            "bus_read":      In(ReadPortSignature(rows, row, claim=False)),
            "bus_write":     In(WordWriteSignature(rows, config.lanes)),
            "serial_read":   In(ReadPortSignature(rows, row)),
            "serial_write":  In(PairWriteSignature(config)),
            "modulus_read":  In(ReadPortSignature(n_rows, row, claim=False)),
            "serial_modulus_read": In(ReadPortSignature(n_rows, row)),
            "modulus_write": In(WritePortSignature(n_rows, row)),
            "wipe":          In(1),
            "wipe_row":      In(range(rows)),
        })

    def elaborate(self, platform):
        m = Module()
        cfg = self.config
        m.submodules.operands = operands = Memory(shape=unsigned(cfg.row_bits), depth=cfg.operand_rows, init=[])
        m.submodules.modulus = modulus = Memory(shape=unsigned(cfg.row_bits), depth=cfg.modulus_rows, init=[])
        rd = operands.read_port()
        wr = operands.write_port(granularity=cfg.word_bits)
        n_rd = modulus.read_port()
        n_wr = modulus.write_port()

        with m.If(self.core_read.en):
            m.d.comb += rd.addr.eq(self.core_read.addr)
        with m.Elif(self.setmod_read.en):
            m.d.comb += rd.addr.eq(self.setmod_read.addr)
        with m.Elif(self.exp_read.en):
            m.d.comb += rd.addr.eq(self.exp_read.addr)
        with m.Elif(self.serial_read.en):
            m.d.comb += rd.addr.eq(self.serial_read.addr)
        with m.Else():
            m.d.comb += rd.addr.eq(self.bus_read.addr)
        for port in (self.core_read, self.setmod_read, self.exp_read, self.serial_read, self.bus_read):
            m.d.comb += port.data.eq(rd.data)

        with m.If(self.core_write.en):
            m.d.comb += [wr.addr.eq(self.core_write.addr), wr.data.eq(self.core_write.data),
                         wr.en.eq(self.core_write.en.replicate(cfg.lanes))]
        with m.Else():
            # the bus word, or the word-serial unit's pair, goes to every part of the row as wide as
            # either; the enables pick the words, and the unit's copy bits take the read port's instead.
            # The two never write together and each drives 0 when it does not: an OR merges them (a
            # select made from the enables would be spread by synthesis over every bit of the row)
            serial = self.serial_write
            period = max(BUS_BITS, 2 * cfg.word_bits)
            repeated = Signal(period)
            m.d.comb += repeated.eq(serial.data.replicate(period // (2 * cfg.word_bits)) |
                                    self.bus_write.data.replicate(period // BUS_BITS))
            row_data = repeated.replicate(cfg.row_bits // period)
            m.d.comb += [wr.addr.eq(serial.addr | self.bus_write.addr),
                         wr.data.eq(Cat(Mux(serial.copy[j], rd.data.word_select(j, cfg.word_bits),
                                            row_data.word_select(j, cfg.word_bits)) for j in range(cfg.lanes))),
                         wr.en.eq(serial.en | self.bus_write.en)]

        with m.If(self.serial_modulus_read.en):
            m.d.comb += n_rd.addr.eq(self.serial_modulus_read.addr)
        with m.Else():
            m.d.comb += n_rd.addr.eq(self.modulus_read.addr)
        m.d.comb += [self.modulus_read.data.eq(n_rd.data), self.serial_modulus_read.data.eq(n_rd.data),
                     n_wr.addr.eq(self.modulus_write.addr), n_wr.data.eq(self.modulus_write.data),
                     n_wr.en.eq(self.modulus_write.en)]

        with m.If(self.wipe):
            m.d.comb += [wr.addr.eq(self.wipe_row), wr.data.eq(0), wr.en.eq(C((1 << cfg.lanes) - 1, cfg.lanes)),
                         n_wr.addr.eq(self.wipe_row), n_wr.data.eq(0), n_wr.en.eq(self.wipe_row < cfg.modulus_rows)]
        return m
