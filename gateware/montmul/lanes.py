"""The core's lanes: ``lanes`` column multiply-adders in a five-stage pipeline, and the copy of b they read.

Lane j owns column j of a row and computes u_j = a_i*b_j + q*n_j + c_j + t_j, one row per cycle (q the
digit register, n_j the word of N' or N the control reads):

    s0 issue: b's and N's rows are read | s1 DSP input registers | s2 a_i*b_j
    | s3 q*n_j, and z_j = a_i*b_j + c_j + t_j from the accumulator's row | s4 u_j = q*n_j + z_j,
    written back

t_j is the low word of column j+1 (the division by 2^W).  Lane L-1 adds its t (lane 0's low word of the
next row) only in s4: that row may have been written in the previous cycle.  In the first iteration the
accumulator is not read (it holds the last product).

A classic row (``issue_classic``: the second pass of a product's last iteration, with a_i = 0) adds m*N
without the division: u_j = m*n_j + t_j + c_{j-1} with t_j column j's own low word and
c_{j-1} the carry of column j-1 (lane 0 takes lane L-1's of the previous row, kept from that row's s3;
none in a context's first row).  The carry of a context's top column has no column above it in the row:
it is kept in ``top_carry`` (per context), where the resolve pass takes it as that column's t.
"""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.lib.memory import Memory

from .regfile import WritePortSignature
from .resolve import lane_signals

__all__ = ["column_sum_bits", "carry_bits", "DSP_WORD_BITS", "word_product", "LanePipeline"]

def column_sum_bits(config):
    """Width of a column sum u_j = a_i*b_j + q*n_j + c_j + t_j < 2^(2W+1) (a classic row's is smaller)."""
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
    """The lanes and the copy of b (``b_write`` fills it in the first iteration, so that the register
    file's read port is free for a while they run: a row written is the row in s1, which takes it
    instead of the copy's read).

    ``issue`` with ``issue_row`` (``first``: of the first iteration; ``issue_classic``: a classic row)
    starts a row in s0; ``modulus_row`` is N''s or N's row, read data one cycle later.  The heads (one per
    context) load a_i and the digit: ``a_load[h]`` with ``a_word[h]``, ``quotient_update[h]`` with
    ``quotient[h]``, the last head taking priority (the heads never load in the same cycle).  ``acc_low``/``acc_carry`` are the accumulator's row
    ``s3_row``, ``acc_next_low0`` lane 0's low word of the row after ``s4_row``; ``column_sum`` is
    written back to row ``s4_row`` when ``s4_valid`` (``s4_classic``: of a classic row).

    ``wipe`` (CLEAR) zeroes row ``wipe_row`` of the copy of b (if it has one), a_i, the digit and the
    kept carries; the stages' registers, which load every cycle from those and from the memories, are
    zero a few cycles later."""

    def __init__(self, config):
        self.config = config
        rows, L, W = config.rows_per_slot, config.lanes, config.word_bits
        heads = 2 if config.has_pairs else 1
        super().__init__({
            "issue":           In(1),
            "issue_row":       In(range(rows)),
            "issue_classic":   In(1),
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
            "s4_classic":      Out(1),
            "column_sum":      Out(column_sum_bits(config)).array(L),
            "top_carry":       Out(carry_bits(config)).array(heads),
            "wipe":            In(1),
            "wipe_row":        In(range(config.operand_rows)),
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

        # a_i of the row in s2 and the digit of the row in s3, from the head that loads them
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

        # each stage: valid, row, first iteration, classic (s3's and s4's row are ports)
        s1_valid, s1_row, s1_first, s1_classic = Signal(), Signal(range(rows)), Signal(), Signal()
        s2_valid, s2_row, s2_first, s2_classic = Signal(), Signal(range(rows)), Signal(), Signal()
        s3_valid, s3_row, s3_first, s3_classic = Signal(), self.s3_row, Signal(), Signal()
        s4_valid, s4_row, s4_first, s4_classic = self.s4_valid, self.s4_row, Signal(), self.s4_classic
        m.d.sync += [s1_valid.eq(self.issue), s1_row.eq(self.issue_row), s1_first.eq(self.first),
                     s1_classic.eq(self.issue_classic),
                     s2_valid.eq(s1_valid), s2_row.eq(s1_row), s2_first.eq(s1_first), s2_classic.eq(s1_classic),
                     s3_valid.eq(s2_valid), s3_row.eq(s2_row), s3_first.eq(s2_first), s3_classic.eq(s2_classic),
                     s4_valid.eq(s3_valid), s4_row.eq(s3_row), s4_first.eq(s3_first), s4_classic.eq(s3_classic)]

        def lanes(name, width):
            return lane_signals(L, name, width)

        b = lanes("b", W)                   # s1: b_j
        n_s1 = lanes("n_s1_", W)            # s1: n_j
        n_s2 = lanes("n_s2_", W)            # s2: n_j
        z = lanes("z", 2 * W + 1)           # s4: a_i*b_j + c_j + t_j
        # a row of the first iteration is issued in the cycle its row of b is read from the register file,
        # and the copy written in the next (while the row is in s1) is its b
        b_row = Mux(self.b_write.en, self.b_write.data, b_read.data)
        for j in range(L):
            m.d.sync += [
                b[j].eq(b_row.word_select(j, W)),
                n_s1[j].eq(self.modulus_row.word_select(j, W)),
                n_s2[j].eq(n_s1[j]),
            ]
        ab = [word_product(m, f"ab{j}", a_lane, b[j]) for j in range(L)]       # s3: a_i*b_j
        mn = [word_product(m, f"mn{j}", lane_m, n_s2[j]) for j in range(L)]    # s4: q*n_j
        # a classic row: lane 0's carry from the previous row's lane L-1 (none in a context's first row)
        row_carry = Signal(carry_bits(cfg))
        m.d.sync += row_carry.eq(self.acc_carry[L - 1])
        carry_in = Mux((s3_row == 0) | self.pair, 0, row_carry)
        for context, top in enumerate(self.top_carry):
            top_row = (s3_row == 1) if context else Mux(self.pair, s3_row == 0, s3_row == self.rows - 1)
            with m.If(s3_valid & s3_classic & top_row):
                m.d.sync += top.eq(self.acc_carry[L - 1])
        for j in range(L):
            t_next = self.acc_low[j + 1] if j < L - 1 else 0
            classic = self.acc_low[j] + (self.acc_carry[j - 1] if j else carry_in)
            m.d.sync += z[j].eq(Mux(s3_classic, classic, ab[j] + Mux(s3_first, 0, self.acc_carry[j] + t_next)))
        for j in range(L):
            if j < L - 1:
                m.d.comb += self.column_sum[j].eq(mn[j] + z[j])
            else:
                t_last = Mux(s4_first | s4_classic | self.pair | (s4_row == self.rows - 1), 0, self.acc_next_low0)
                m.d.comb += self.column_sum[j].eq(mn[j] + z[j] + t_last)

        with m.If(self.wipe):
            m.d.comb += [b_write.addr.eq(self.wipe_row), b_write.en.eq(self.wipe_row < rows), b_write.data.eq(0)]
            m.d.sync += [a_lane.eq(0), lane_m.eq(0), row_carry.eq(0), *(top.eq(0) for top in self.top_carry)]
        return m
