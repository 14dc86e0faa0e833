"""The core's accumulator: per column the low word of u_j (which becomes t_{j-1}: the division by 2^W is a
renaming) and its carry c_j, in one memory per lane, and who uses its ports when.

One memory per lane (shared addresses) rather than one wide memory: no row is packed into or unpacked
from a wide word every cycle.  Only lane 0 has a second read port: row k+1's low word of lane 0 is
t_{L-1} of row k.
"""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.lib.memory import Memory

from .lanes import carry_bits

__all__ = ["Accumulator"]


class Accumulator(wiring.Component):
    """The accumulator's rows and the arbitration of their ports.

    Both read ports are asynchronous.  The row read (``low``/``carry``, and ``next_low0``: lane 0's low word
    of the row after the second address) is, by priority: the resolve pass's row (``resolve_read``), the
    select pass's row (``select_read``), else the lanes' s3 row (``lane_read_row``), the second port the
    row after ``lane_write_row``.  The write is the resolve pass's (``resolved``: V - N in the low-word
    field, V in the carry field and the borrow into the column of V - 2N as its top bit) or else the
    lanes' column sums (``lane_write``); while ``wipe`` (CLEAR), zeros into row ``wipe_row`` (if it has one)."""

    def __init__(self, config):
        self.config = config
        rows, L, W = config.rows_per_slot, config.lanes, config.word_bits
        CARRY_BITS = carry_bits(config)
        super().__init__({
            "lane_read_row":   In(range(rows)),
            "lane_write":      In(1),
            "lane_write_row":  In(range(rows)),
            "lane_write_data": In(W + CARRY_BITS).array(L),
            "resolve_read":    In(1),
            "resolve_row":     In(range(rows)),
            "select_read":     In(1),
            "select_row":      In(range(rows)),
            "resolved":        In(1),
            "resolved_row":    In(range(rows)),
            "resolved_value":  In(W).array(L),
            "resolved_diff":   In(W).array(L),
            "resolved_borrow2": In(1).array(L),
            "low":             Out(W).array(L),
            "carry":           Out(CARRY_BITS).array(L),
            "next_low0":       Out(W),
            "wipe":            In(1),
            "wipe_row":        In(range(config.operand_rows)),
        })

    def elaborate(self, platform):
        m = Module()
        cfg = self.config
        L, W, rows = cfg.lanes, cfg.word_bits, cfg.rows_per_slot
        CARRY_BITS = carry_bits(cfg)
        entry_bits = W + CARRY_BITS

        columns = []
        for j in range(L):
            columns.append(Memory(shape=unsigned(entry_bits), depth=rows, init=[]))
            m.submodules[f"column{j}"] = columns[-1]
        row_reads = [column.read_port(domain="comb") for column in columns]
        next_read = columns[0].read_port(domain="comb")
        writes = [column.write_port() for column in columns]
        m.d.comb += [self.low[j].eq(row_reads[j].data[:W]) for j in range(L)]
        m.d.comb += [self.carry[j].eq(row_reads[j].data[W:]) for j in range(L)]
        m.d.comb += self.next_low0.eq(next_read.data[:W])

        read_row = Signal(range(rows))
        next_base = Signal(range(rows))     # next_read reads the row after this one
        m.d.comb += [port.addr.eq(read_row) for port in row_reads]
        m.d.comb += next_read.addr.eq(Mux(next_base == rows - 1, 0, next_base + 1))
        with m.If(self.resolve_read):
            m.d.comb += [read_row.eq(self.resolve_row), next_base.eq(self.resolve_row)]
        with m.Elif(self.select_read):
            m.d.comb += read_row.eq(self.select_row)
        with m.Else():
            m.d.comb += [read_row.eq(self.lane_read_row), next_base.eq(self.lane_write_row)]

        write_row = Signal(range(rows))
        write_en = Signal()
        write_data = [Signal(entry_bits, name=f"write_data{j}") for j in range(L)]
        for j in range(L):
            m.d.comb += [writes[j].addr.eq(write_row), writes[j].en.eq(write_en), writes[j].data.eq(write_data[j])]
        with m.If(self.resolved):
            m.d.comb += [write_row.eq(self.resolved_row), write_en.eq(1)]
            m.d.comb += [write_data[j].eq(Cat(self.resolved_diff[j], self.resolved_value[j],
                                              self.resolved_borrow2[j])) for j in range(L)]
        with m.Else():
            m.d.comb += [write_row.eq(self.lane_write_row), write_en.eq(self.lane_write)]
            m.d.comb += [write_data[j].eq(self.lane_write_data[j]) for j in range(L)]
        with m.If(self.wipe):
            m.d.comb += [write_row.eq(self.wipe_row), write_en.eq(self.wipe_row < rows)]
            m.d.comb += [write_data[j].eq(0) for j in range(L)]
        return m
