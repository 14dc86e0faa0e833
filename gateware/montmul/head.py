"""The quotient head of one context: its quotient digits, and its reads of a.

Quotient pipelining with delay 1 (``gateware.quotient_pipelining``): iteration i of a product adds
q_{i-1}*N' (N' = (n'*N + 1)/2^W, from SETMOD) and its quotient digit q_i is simply the low word of its
accumulator, lane 0's low word of the context's first row: no multiplier, no dependency but on the lanes.
The last iteration is classic: its pass adds a_{s-1}*B + q_{s-2}*N' like the others, then
m = (its low word)*n' mod 2^W (one W x W multiply, registered twice) is the digit of a second pass that
adds m*N without dividing (see ``LanePipeline``).

The head also reads a's rows (the register file's read port, in the cycle its schedule gives it) and
hands each a_i to the lanes, ahead of the products that use it.
"""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..interface import SIZE_BITS, SLOT_BITS
from .regfile import ReadPortSignature, row_address

__all__ = ["HeadScheduleSignature", "QuotientHead", "period_shape", "classic_gap"]


def period_shape(config):
    """Shape of an iteration's length P = max(rows, 2) and of a phase within it."""
    return range(max(config.rows_per_slot, 2) + 1)


def classic_gap(period):
    """Iterations from a context's last (classic) iteration to its second pass: the digit m is ready 3
    cycles after the row that gives it, which is in stage s4 in phase 1, so the second pass waits an
    iteration more when P < 4.  ``period`` may be an int or an Amaranth value."""
    if isinstance(period, int):
        return 1 if period >= 4 else 2
    return Mux(period >= 4, 1, 2)


class HeadScheduleSignature(wiring.Signature):
    """One context's view of a product's schedule, seen from the control that drives it.  Context 1's
    (a pair's) is context 0's one cycle later."""

    def __init__(self, config):
        super().__init__({
            "running":    Out(1),                                # in RUN: prologue cycle x is cycle == x
            "cycle":      Out(range(config.rows_per_slot + 9)),  # cycles since RUN began (saturating)
            "lead":       Out(range(config.rows_per_slot + 9)),  # the cycle a_0 goes to the lanes (mu_0 - 2)
            "on":         Out(1),                                # the iterations have begun
            "phase":      Out(period_shape(config)),             # cycle within the current iteration
            "iteration":  Out(SIZE_BITS + 1),
            "period":     Out(period_shape(config)),             # cycles per iteration, P
            "iterations": Out(SIZE_BITS),                        # this context's s (its a's words)
            "a_slot":     Out(SLOT_BITS),
            "a_row":      Out(1),                                # the row of slot a this context reads first
        })


class QuotientHead(wiring.Component):
    """The quotient head of context ``context``.

    Iteration i owns the cycles mu_i .. mu_i + P - 1 (phases 0 .. P - 1); the lanes' digit register must
    hold iteration i's digit in exactly those cycles, so the head loads it at phase P - 1 of iteration
    i - 1 (``update``, ``next_quotient``): 0 for iteration 0 (prologue cycle ``lead`` + 1), q_{i-1} for the pipelined
    ones, m for the second pass.  q_i is lane 0's low word of the context's row (``lane_low0``) when that
    row (``lane_row``, not of a second pass) is in stage s4, at phase 1: taken from the lanes in that
    cycle when P = 2, from the register it is kept in otherwise.  ``a_lane_load``/``a_lane``: a_i for
    the lanes (the row in their stage s2), 0 for the second pass.  ``wipe`` (CLEAR) zeroes the digits
    and a's words it keeps (m follows q a cycle later)."""

    def __init__(self, config, context):
        self.config = config
        self.context = context
        W = config.word_bits
        super().__init__({
            "schedule":      In(HeadScheduleSignature(config)),
            "n_inv":         In(W),
            "wipe":          In(1),
            "operand_read":  Out(ReadPortSignature(config.operand_rows, config.row_bits)),
            "lane_valid":    In(1),
            "lane_row":      In(range(config.rows_per_slot)),
            "lane_classic":  In(1),
            "lane_low0":     In(W),
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

        def at(x):
            return s.running & (s.cycle == x)

        # the digits
        q = Signal(W)                               # q_i, the low word of this context's row
        q_now = Signal(W)
        classic = Signal(W, reset_less=True)        # m = q_{s-1} * n' mod 2^W
        m.d.comb += q_now.eq(q)
        with m.If(self.lane_valid & (self.lane_row == self.context) & ~self.lane_classic):
            m.d.comb += q_now.eq(self.lane_low0)
            m.d.sync += q.eq(self.lane_low0)
        m.d.sync += classic.eq((q * self.n_inv)[:W])
        with m.If(at(s.lead + 1)):
            m.d.comb += [self.update.eq(1), self.next_quotient.eq(0)]
        with m.If(s.on & (s.phase == s.period - 1)):
            m.d.comb += [self.update.eq(1),
                         self.next_quotient.eq(Mux(s.iteration + 1 < s.iterations, q_now, classic))]

        # a's words: ``a_row`` holds the row of a_{i+3}, a_next = a_{i+1}, a_after = a_{i+2}
        a_row = Signal(L * W, reset_less=True)
        a_next = Signal(W)
        a_after = Signal(W)
        a_row_words = Array(a_row.word_select(j, W) for j in range(L))
        with m.If(s.on):
            with m.If(s.phase == s.period - 1):
                m.d.sync += a_row.eq(rd.data)
            with m.If(s.phase == s.period - 2):
                m.d.sync += [a_next.eq(a_after), a_after.eq(a_row_words[(s.iteration + 3)[:log_lanes]])]
                # 0 for the classic pass (and the iteration before it, if any)
                m.d.comb += [self.a_lane_load.eq(1), self.a_lane.eq(Mux(s.iteration + 1 < s.iterations, a_next, 0)),
                             rd.en.eq(1),
                             rd.addr.eq(row_address(cfg, s.a_slot, s.a_row + ((s.iteration + 4) >> log_lanes)))]

        # prologue: at 1 the row of a holding a_0..a_3 arrives; a_0 goes to the lanes at ``lead`` (the
        # context's row of iteration 0 reaches s2 in the next cycle), a_1 at iteration 0's phase P - 2
        with m.If(at(1)):
            m.d.sync += a_row.eq(rd.data)
        with m.If(at(s.lead)):
            m.d.sync += [a_after.eq(a_row.word_select(2, W)), a_next.eq(a_row.word_select(1, W))]
            m.d.comb += [self.a_lane_load.eq(1), self.a_lane.eq(a_row.word_select(0, W))]
        with m.If(self.wipe):
            m.d.sync += [q.eq(0), a_row.eq(0), a_next.eq(0), a_after.eq(0)]
        return m
