"""The core's lanes: ``lanes`` column multiply-adders in a five-stage pipeline, and the copy of b they read.

Lane j owns column j of a row and computes u_j = a_i*b_j + m_i*n_j + c_j + t_j, one row per cycle:

    s0 issue: b's and N's rows are read | s1 DSP input registers | s2 a_i*b_j
    | s3 m_i*n_j, and z_j = a_i*b_j + c_j + t_j from the accumulator's row | s4 u_j = m_i*n_j + z_j,
    written back

Lane L-1 adds its t (lane 0's low word of the next row) only in s4: that row may have been written in
the previous cycle.  In the first iteration the accumulator is not read (it holds the last product).
"""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.lib.memory import Memory

from .regfile import WritePortSignature
from .resolve import lane_signals

__all__ = ["column_sum_bits", "carry_bits", "DSP_WORD_BITS", "word_product", "LanePipeline"]

def column_sum_bits(config):
    """Width of a column sum u_j = a_i*b_j + m_i*n_j + c_j + t_j < 2^(2W+1)."""
    return 2 * config.word_bits + 1


def carry_bits(config):
    """Width of a column's carry c_j (the high part of u_j)."""
    return config.word_bits + 1


#: The widest word whose product is one DSP48E1 multiply (17x17 unsigned inside its 25x18 signed one).
DSP_WORD_BITS = 17


def word_product(m, name, x, y):
    """The product x*y of two W-bit registers, registered: the lanes' multiply stage.  Up to
    ``DSP_WORD_BITS`` one multiply (one DSP48E1 with its input and product registers).  Wider words
    (W = 32) use one level of Karatsuba on the halves, three DSP48E1 instead of four: the half products
    L = x0*y0, H = x1*y1 and M = (x0 + x1)*(y0 + y1) (17-bit factors) are the registers, and the product
    L + (M - L - H)*2^(W/2) + H*2^W is formed after them, in the stage that adds the product (the
    middle term M - (L + H) = x0*y1 + x1*y0 is never negative).  Returns a signal holding x*y in the cycle
    after x and y."""
    W = len(x)
    product = Signal(2 * W, name=name, reset_less=True)
    if W <= DSP_WORD_BITS:
        m.d.sync += product.eq(x * y)
        return product
    h = W // 2
    low = Signal(2 * h, name=f"{name}_low", reset_less=True)
    high = Signal(2 * h, name=f"{name}_high", reset_less=True)
    mixed = Signal(2 * h + 2, name=f"{name}_mixed", reset_less=True)
    m.d.sync += [low.eq(x[:h] * y[:h]), high.eq(x[h:] * y[h:]),
                 mixed.eq((x[:h] + x[h:]) * (y[:h] + y[h:]))]
    middle = Signal(2 * h + 1, name=f"{name}_middle")       # x0*y1 + x1*y0 < 2^(2h+1)
    m.d.comb += [middle.eq(mixed - (low + high)), product.eq(Cat(low, high) + (middle << h))]
    return product


class LanePipeline(wiring.Component):
    """The lanes and the copy of b (``b_write`` fills it before the loop, so that the register file's read
    port is free for a while they run).

    ``issue`` with ``issue_row`` (and ``first``, the first iteration) starts a row in s0; ``modulus_row``
    is N's row, read data one cycle later.  The heads (one per context) load a_i and m_i: ``a_load[h]``
    with ``a_word[h]``, ``quotient_update[h]`` with ``quotient[h]``, the last head taking priority (the
    heads never load in the same cycle).  ``acc_low``/``acc_carry`` are the accumulator's row
    ``s3_row``, ``acc_next_low0`` lane 0's low word of the row after ``s4_row``; ``column_sum`` is
    written back to row ``s4_row`` when ``s4_valid``."""

    def __init__(self, config):
        self.config = config
        rows, L, W = config.rows_per_slot, config.lanes, config.word_bits
        heads = 2 if config.has_pairs else 1
        super().__init__({
            "issue":           In(1),
            "issue_row":       In(range(rows)),
            "first":           In(1),
            "b_write":         In(WritePortSignature(rows, config.row_bits)),
            "modulus_row":     In(config.row_bits),
            "a_load":          In(1).array(heads),
            "a_word":          In(W).array(heads),
            "quotient_update": In(1).array(heads),
            "quotient":        In(W).array(heads),
            "acc_low":         In(W).array(L),
            "acc_carry":       In(carry_bits(config)).array(L),
            "acc_next_low0":   In(W),
            "pair":            In(1),
            "rows":            In(range(rows + 1)),
            "s3_row":          Out(range(rows)),
            "s4_valid":        Out(1),
            "s4_row":          Out(range(rows)),
            "column_sum":      Out(column_sum_bits(config)).array(L),
        })

    def elaborate(self, platform):
        m = Module()
        cfg = self.config
        L, W, rows = cfg.lanes, cfg.word_bits, cfg.rows_per_slot

        m.submodules.b_rows = b_rows = Memory(shape=unsigned(L * W), depth=rows, init=[])
        b_read = b_rows.read_port()
        b_write = b_rows.write_port()
        m.d.comb += [b_write.addr.eq(self.b_write.addr), b_write.en.eq(self.b_write.en),
                     b_write.data.eq(self.b_write.data), b_read.addr.eq(self.issue_row)]

        # a_i of the row in s2 and m_i of the row in s3, from the head that loads them
        a_lane = Signal(W)
        lane_m = Signal(W)
        for load, word in zip(self.a_load, self.a_word):
            with m.If(load):
                m.d.sync += a_lane.eq(word)
        lane_m_next = self.quotient[0]
        for update, quotient in zip(self.quotient_update[1:], self.quotient[1:]):
            lane_m_next = Mux(update, quotient, lane_m_next)
        with m.If(Cat(self.quotient_update).any()):
            m.d.sync += lane_m.eq(lane_m_next)

        # each stage: valid, row, first iteration (s3's and s4's row are ports)
        s1_valid, s1_row, s1_first = Signal(), Signal(range(rows)), Signal()
        s2_valid, s2_row, s2_first = Signal(), Signal(range(rows)), Signal()
        s3_valid, s3_row, s3_first = Signal(), self.s3_row, Signal()
        s4_valid, s4_row, s4_first = self.s4_valid, self.s4_row, Signal()
        m.d.sync += [s1_valid.eq(self.issue), s1_row.eq(self.issue_row), s1_first.eq(self.first),
                     s2_valid.eq(s1_valid), s2_row.eq(s1_row), s2_first.eq(s1_first),
                     s3_valid.eq(s2_valid), s3_row.eq(s2_row), s3_first.eq(s2_first),
                     s4_valid.eq(s3_valid), s4_row.eq(s3_row), s4_first.eq(s3_first)]

        def lanes(name, width):
            return lane_signals(L, name, width)

        b = lanes("b", W)                   # s1: b_j
        n_s1 = lanes("n_s1_", W)            # s1: n_j
        n_s2 = lanes("n_s2_", W)            # s2: n_j
        z = lanes("z", 2 * W + 1)           # s4: a_i*b_j + c_j + t_j
        for j in range(L):
            m.d.sync += [
                b[j].eq(b_read.data.word_select(j, W)),
                n_s1[j].eq(self.modulus_row.word_select(j, W)),
                n_s2[j].eq(n_s1[j]),
            ]
        ab = [word_product(m, f"ab{j}", a_lane, b[j]) for j in range(L)]       # s3: a_i*b_j
        mn = [word_product(m, f"mn{j}", lane_m, n_s2[j]) for j in range(L)]    # s4: m_i*n_j
        for j in range(L):
            t_next = self.acc_low[j + 1] if j < L - 1 else 0
            m.d.sync += z[j].eq(ab[j] + Mux(s3_first, 0, self.acc_carry[j] + t_next))
        for j in range(L):
            if j < L - 1:
                m.d.comb += self.column_sum[j].eq(mn[j] + z[j])
            else:
                t_last = Mux(s4_first | self.pair | (s4_row == self.rows - 1), 0, self.acc_next_low0)
                m.d.comb += self.column_sum[j].eq(mn[j] + z[j] + t_last)
        return m
