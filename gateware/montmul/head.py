"""The quotient head of one context: the serial part of a product, one quotient digit m_i per iteration.

With V_i = X_i + 2^W Y_i the two low columns (X, Y: column sums including carries), n' = -N^-1 and
Q = 1 + bits[W:2W) of n'*(n_0 + 2^W n_1) mod 2^2W (from SETMOD):

    m_{i+1} = (m_i*Q + bits[W:2W) of (n'*V_i mod 2^2W) + n'*a_{i+1}*b_0) mod 2^W
    V_{i+1} = (V_i + m_i*(n_0 + 2^W n_1)) / 2^W + a_{i+1}*b_0 + 2^W*(a_{i+1}*b_1 + t_1)

where t_1 is the low word of lane 2's column sum (the context's row) of iteration i.  The head keeps the
window V' = V without that lane term (it arrives a cycle later) and adds n'*t_1 separately, so the loop
from m_i to m_{i+1} is one multiply-add: one iteration every 2 cycles.

The head also reads a's rows (the register file's read port, in the cycle its schedule gives it) and
hands each a_i to the lanes, two iterations ahead of the products that use it.
"""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..interface import SIZE_BITS, SLOT_BITS
from .regfile import ReadPortSignature, row_address

__all__ = ["HeadScheduleSignature", "QuotientHead"]


def period_shape(config):
    """Shape of an iteration's length P = max(rows, 2) and of a phase within it."""
    return range(max(config.rows_per_slot, 2) + 1)


class HeadScheduleSignature(wiring.Signature):
    """One context's view of a product's schedule, seen from the control that drives it.  Context 1's
    (a pair's) is context 0's one cycle later."""

    def __init__(self, config):
        super().__init__({
            "running":   Out(1),                                # in RUN: prologue cycle x is cycle == x
            "cycle":     Out(range(config.rows_per_slot + 9)),  # cycles since RUN began (saturating)
            "on":        Out(1),                                # the iterations have begun
            "phase":     Out(period_shape(config)),             # cycle within the current iteration
            "iteration": Out(SIZE_BITS),
            "period":    Out(period_shape(config)),             # cycles per iteration, P
            "a_slot":    Out(SLOT_BITS),
            "a_row":     Out(1),                                # the row of slot a this context reads first
            "b_latch":   Out(1),                                # b's row 0 for this context is read data now
        })


class QuotientHead(wiring.Component):
    """The quotient head of context ``context``.

    Iteration i owns the cycles mu_i .. mu_i + P - 1 (phases 0 .. P - 1), and ``quotient`` holds m_i
    for exactly those cycles.  At phase 0 the products m_i*n_0, m_i*n_1, n'*V'_i and n'*t_1
    (+ n'*a_{i+1}*b_0); at phase 1 the next window V'_{i+1}; at phase P - 1 m_{i+1} = m_i*Q + G_i
    (``update``, ``next_quotient``).  The prologue (cycles 1..6) reads b_0, b_1, N's two low words and the
    row of a holding a_0..a_3, and runs the phase-0 products and the update once with Q = V' = t_1 = 0,
    which gives m_0 through the same datapath.  ``a_lane_load``/``a_lane``: a_i for the lanes (the row in
    their stage s2).  ``lane_*``: the lanes' stage s4, whose lane 2 gives t_1."""

    def __init__(self, config, context):
        self.config = config
        self.context = context
        W = config.word_bits
        super().__init__({
            "schedule":      In(HeadScheduleSignature(config)),
            "n_inv":         In(W),
            "q":             In(W),
            "operand_read":  Out(ReadPortSignature(config.operand_rows, config.row_bits)),
            "modulus_low":   In(2 * W),             # N's row 0 (n_0, n_1), read data in prologue cycle 1
            "lane_valid":    In(1),
            "lane_row":      In(range(config.rows_per_slot)),
            "lane_t1":       In(W),
            "quotient":      Out(W),
            "update":        Out(1),
            "next_quotient": Out(W),
            "a_lane_load":   Out(1),
            "a_lane":        Out(W),
        })

    def elaborate(self, platform):
        m = Module()
        cfg = self.config
        L, W = cfg.lanes, cfg.word_bits
        log_lanes = L.bit_length() - 1
        s = self.schedule
        rd = self.operand_read
        n_inv = self.n_inv
        quotient = self.quotient                    # m_i

        def at(x):
            return s.running & (s.cycle == x)

        b0, b1 = Signal(W), Signal(W)
        n0, n1 = Signal(W), Signal(W)
        t1 = Signal(W)                              # t_1 of the last iteration (lane 2's low word)
        mn0 = Signal(2 * W)                         # m_i*n_0
        mn1 = Signal(2 * W)                         # m_i*n_1
        # V' < 2^(3W+1) for any W (2^49 at W = 16): with X, Y < 2^(2W+1), the bound B = 2^(3W+1) is kept
        # by V' -> V'/2^W + m*(n_0 + 2^W n_1)/2^W + a*b_0 + 2^W (a*b_1 + t_1) < 2^(2W+1) + 2^(2W+1) + 2^(3W)
        window_part = Signal(3 * W + 3)             # V'_{i+1} but for the m_i*n terms
        window = Signal(3 * W + 3)                  # V'_i
        nv_low = Signal(2 * W)                      # n' * (V'_i mod 2^W)
        nv_high = Signal(W)                         # n' * bits[W:2W) of V'_i, mod 2^W
        nt = Signal(W)                              # n'*t_1 + n'*a_{i+1}*b_0, mod 2^W
        ab0 = Signal(2 * W)                         # a_{i+2}*b_0
        ab1 = Signal(2 * W)                         # a_{i+2}*b_1
        ab = Signal(3 * W + 1)                      # a_{i+1} b_0 + 2^W a_{i+1} b_1
        n_ab0 = Signal(W)                           # n' * a_{i+1} b_0 mod 2^W
        a_row = Signal(L * W, reset_less=True)      # the row of a holding a_{i+3}
        a_next = Signal(W)                          # a_{i+1}
        a_after = Signal(W)                         # a_{i+2}: the a*b_0, a*b_1 products use it
        a_row_words = Array(a_row.word_select(j, W) for j in range(L))

        with m.If(self.lane_valid & (self.lane_row == self.context)):
            m.d.sync += t1.eq(self.lane_t1[:W])

        def a_products():
            m.d.sync += [ab0.eq(a_after * b0), ab1.eq(a_after * b1)]

        def a_sums():
            m.d.sync += [ab.eq(ab0 + (ab1 << W)), n_ab0.eq((ab0[:W] * n_inv)[:W])]

        # the prologue runs the phase-0 products (at 5) and the update (at 6) once with Q = V' = 0, t_1 = 0
        # and n_ab0 = n'*a_0*b_0: that gives m_0 through the same datapath (no extra mux)
        prologue_products = at(5)
        prologue_update = at(6)
        with m.If((s.on & (s.phase == 0)) | prologue_products):
            m.d.sync += [
                mn0.eq(quotient * n0),
                mn1.eq(quotient * n1),
                window_part.eq((window >> W) + t1 + ab + (window[:W] != 0)),
                nv_low.eq(window[:W] * n_inv),
                nv_high.eq((window[W:2 * W] * n_inv)[:W]),
                nt.eq((t1 * n_inv + n_ab0)[:W]),
            ]
        update = (s.on & (s.phase == s.period - 1)) | prologue_update
        quotient_part = Signal(W)                   # G_i
        m.d.comb += [quotient_part.eq((nv_low[W:] + nv_high + nt)[:W]),
                     self.next_quotient.eq((quotient * Mux(prologue_update, 0, self.q) + quotient_part)[:W]),
                     self.update.eq(update)]
        with m.If(update):
            m.d.sync += quotient.eq(self.next_quotient)
        with m.If(s.on):
            with m.If(s.phase == 1):
                m.d.sync += window.eq(window_part + (mn0 >> W) + mn1)
            with m.If(s.phase == s.period - 1):
                a_sums()
                m.d.sync += a_row.eq(rd.data)
            with m.If(s.phase == s.period - 2):
                a_products()
                m.d.sync += [a_next.eq(a_after), a_after.eq(a_row_words[(s.iteration + 3)[:log_lanes]])]
                m.d.comb += [self.a_lane_load.eq(1), self.a_lane.eq(a_next),
                             rd.en.eq(1),
                             rd.addr.eq(row_address(cfg, s.a_slot, s.a_row + ((s.iteration + 4) >> log_lanes)))]

        # prologue: at 1 the row of a holding a_0..a_3 and N's row 0 arrive; b's row 0 arrives with
        # ``b_latch``; at 2..6 the products for a_0 and a_1 give V'_0, m_0, ab = E_1, n'*a_1*b_0
        with m.If(at(1)):
            m.d.sync += [a_row.eq(rd.data), n0.eq(self.modulus_low[:W]), n1.eq(self.modulus_low[W:2 * W])]
        with m.If(s.b_latch):
            m.d.sync += [b0.eq(rd.data[:W]), b1.eq(rd.data[W:2 * W])]
        with m.If(at(2)):
            m.d.sync += [a_after.eq(a_row.word_select(0, W)), t1.eq(0), window.eq(0)]
        with m.If(at(3)):
            a_products()
            m.d.sync += a_after.eq(a_row.word_select(1, W))
        with m.If(at(4)):
            a_sums()
            a_products()
            m.d.sync += [a_after.eq(a_row.word_select(2, W)), a_next.eq(a_row.word_select(1, W))]
        with m.If(at(5)):
            a_sums()
            m.d.sync += window.eq(ab)
        # a_0 for the lanes (row 0 of iteration 0 reaches s2 at cycle 6, row 1 at 7)
        with m.If(at(5) & ~s.on):
            m.d.comb += [self.a_lane_load.eq(1), self.a_lane.eq(a_row.word_select(0, W))]
        return m
