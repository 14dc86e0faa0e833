"""The core's control: the product's schedule (prologue, iterations, final passes) and the reads it makes.

States: IDLE (its accepting cycle makes the first read, a's row 0; a product may also be accepted in
the last cycle of the one before); RUN (the prologue's reads, then the iterations: rows issued to the
lanes 3 cycles ahead of the heads' phase, those of the first iteration in the cycle their row of b is
read); DRAIN (one cycle, for a product of several
rows); FIN1 (the resolve pass issues every row); FIN1W (its pipeline empties: a cycle less for a pair,
whose row 0 is chosen first); FIN2 (the select pass writes every row).

A context of s iterations (its a's words) issues its rows with N' (``config.n_prime_row`` rows after N
in the modulus memory) in iterations 0 .. s - 1, and its classic second pass, with N, in iteration
s - 1 + ``classic_gap(P)``; the product runs until the later context's second pass.
"""

from types import SimpleNamespace

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..interface import SIZE_BITS, SLOT_BITS, PAIR_ROW
from .head import HeadScheduleSignature, period_shape, classic_gap
from .modulus import ModulusStateSignature
from .regfile import ReadPortSignature, WritePortSignature, row_address

__all__ = ["ProductSignature", "ProductControl"]


class ProductSignature(wiring.Signature):
    """A request for one product dst = a*b*R^-1 mod N, seen from the requester.  ``start`` (one cycle, while
    the core is not busy or in the cycle in which it pulses ``done``) passes the slots; ``busy`` is high
    from the next cycle until the cycle in which ``done`` pulses, when the last row of the result is
    written (a product started in that cycle keeps it high).  With ``pair`` it is a pair of
    products (see ``gateware.interface``): context 0 on row 0 of dst, a, b over bank 0, context 1 on
    row 1 of dst, a, ``b1`` over bank 1 (both moduli one row).  A pair with ``a_words`` != 0 multiplies
    both b's by the same a, slot a's low ``a_words`` words (from its row 0 up, possibly wider than the
    moduli), in ``a_words`` iterations: dst_k = a*b_k*2^(-W*a_words) mod N_k."""

    def __init__(self):
        super().__init__({
            "start":  Out(1),
            "pair":   Out(1),
            "dst":    Out(SLOT_BITS),
            "a":      Out(SLOT_BITS),
            "b":      Out(SLOT_BITS),
            "b1":     Out(SLOT_BITS),
            "a_words": Out(SIZE_BITS),
            "busy":   In(1),
            "done":   In(1),
        })


class IterationCounter(wiring.Component):
    """Iterations of ``period`` cycles (phases 0 .. period - 1), ``size`` of them.  ``clear`` empties it
    (or, with ``clear_on``, turns it on at phase ``clear_phase`` of iteration 0 in the next cycle);
    while ``run``, ``begin`` turns it on (from the next cycle) and it counts a phase per cycle while
    ``on``.  ``last`` is the last cycle of the last iteration (``on`` drops after it)."""

    def __init__(self, config):
        super().__init__({
            "clear":     In(1),
            "clear_on":  In(1),
            "clear_phase": In(period_shape(config)),
            "run":       In(1),
            "begin":     In(1),
            "period":    In(period_shape(config)),
            "size":      In(SIZE_BITS + 1),
            "on":        Out(1),
            "phase":     Out(period_shape(config)),
            "iteration": Out(SIZE_BITS + 1),
            "last":      Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        with m.If(self.clear):
            m.d.sync += [self.on.eq(self.clear_on), self.phase.eq(self.clear_phase), self.iteration.eq(0)]
        with m.If(self.run):
            with m.If(self.begin):
                m.d.sync += self.on.eq(1)
            with m.If(self.on):
                m.d.sync += self.phase.eq(self.phase + 1)
                with m.If(self.phase == self.period - 1):
                    m.d.sync += [self.phase.eq(0), self.iteration.eq(self.iteration + 1)]
                    with m.If(self.iteration == self.size - 1):
                        m.d.comb += self.last.eq(1)
                        m.d.sync += self.on.eq(0)
        return m


class ProductControl(wiring.Component):
    """The schedule of one product (see ``MontMulCore``).

    Drives: ``operand_read`` (``en``: the address is the control's in this cycle, over the heads'; its
    data fills ``b_copy``, the last row masked to the size), ``modulus_row`` (N''s or N's row for the
    lanes' issue, N's for the resolve pass, and for the select pass a cycle ahead), the lanes' ``issue``
    (``issue_classic``: the second pass), each head's ``schedule`` (context 1's one cycle behind context
    0's), the resolve pass (``resolve_*``, ``resolve_clear``) and the select pass (``select_*``)."""

    def __init__(self, config):
        self.config = config
        rows, row_bits = config.rows_per_slot, config.row_bits
        heads = 2 if config.has_pairs else 1
        super().__init__({
            "ctl":            In(ProductSignature()),
            "modulus":        In(ModulusStateSignature(config)),
            "modulus1":       In(ModulusStateSignature(config)),
            "operand_read":   Out(ReadPortSignature(config.operand_rows, row_bits)),
            "modulus_row":    Out(range(config.modulus_rows)),
            "b_copy":         Out(WritePortSignature(rows, row_bits)),
            "pair":           Out(1),
            "rows":           Out(range(rows + 1)),
            "issue":          Out(1),
            "issue_row":      Out(range(rows)),
            "issue_classic":  Out(1),
            "first":          Out(1),
            "schedule":       Out(HeadScheduleSignature(config)).array(heads),
            "resolve_issue":  Out(1),
            "resolve_row":    Out(range(rows)),
            "resolve_clear":  Out(1),
            "select_issue":   Out(1),
            "select_row":     Out(range(rows)),
            "dst_slot":       Out(SLOT_BITS),
        })

    def _latch_product(self, m, start):
        """The product's slots and kind, latched at ``start``, and its shape: rows, size (iterations) and
        period.  A pair (see ``ProductSignature``) runs as a product of two rows, row k being context k:
        rows 0 and 1 of the accumulator and of the b copy, of the operand slots (PAIR_ROW = 1) and the
        modulus banks' rows; no carry crosses from row 0 to row 1, and each row has its own head."""
        cfg, ctl, mod, mod1 = self.config, self.ctl, self.modulus, self.modulus1
        p = SimpleNamespace(**{name: Signal(SLOT_BITS, name=name) for name in ("a_slot", "b_slot", "b1_slot",
                                                                                "dst_slot")})
        p.pair = Signal()
        p.a_words = Signal(SIZE_BITS)   # a pair's shared a (0: each context's own)
        p.shared = Signal()
        p.rows = Signal(range(cfg.rows_per_slot + 1))
        p.size = Signal(SIZE_BITS)              # iterations of the longer context
        p.own = [Signal(SIZE_BITS, name=f"iterations{c}") for c in range(2)]   # each context's
        p.period = Signal(period_shape(cfg))
        p.context1_a_row = Mux(p.shared, 0, PAIR_ROW)     # the row of a context 1 reads first
        # the first row is issued in cycle 1 (2 for a pair), so the heads' iterations begin 3 cycles
        # later (mu_0): their counter is turned on in the cycle before, and a_0 goes to the lanes in the
        # one before that
        p.head_begin = Mux(p.pair, 4, 3)
        m.d.comb += [p.shared.eq(p.a_words != 0), self.pair.eq(p.pair), self.rows.eq(p.rows),
                     self.dst_slot.eq(p.dst_slot)]
        with m.If(start):
            m.d.sync += [p.a_slot.eq(ctl.a), p.b_slot.eq(ctl.b), p.b1_slot.eq(ctl.b1), p.dst_slot.eq(ctl.dst)]
        # the iteration counts are latched too (from the requested a_words and the banks' sizes, which
        # no command changes while a product runs): they set the end of the iterations, the schedule's
        # longest path, which then starts at a register
        if cfg.has_pairs:
            assert PAIR_ROW == 1
            shared = ctl.pair & (ctl.a_words != 0)
            own = [Mux(shared, ctl.a_words, mod.size), Mux(shared, ctl.a_words, mod1.size)]
            m.d.comb += p.rows.eq(Mux(p.pair, 2, mod.rows))
            with m.If(start):
                m.d.sync += [p.pair.eq(ctl.pair), p.a_words.eq(Mux(ctl.pair, ctl.a_words, 0)),
                             p.period.eq(Mux(ctl.pair | (mod.rows <= 2), 2, mod.rows)),
                             p.own[0].eq(own[0]), p.own[1].eq(own[1]),
                             p.size.eq(Mux(ctl.pair & (own[1] > own[0]), own[1], own[0]))]
        else:
            m.d.comb += p.rows.eq(mod.rows)
            with m.If(start):
                m.d.sync += [p.period.eq(Mux(mod.rows > 2, mod.rows, 2)), p.size.eq(mod.size),
                             p.own[0].eq(mod.size)]
        return p

    def _drive_schedules(self, m, p, running, cycle, head_counter):
        """Each head's schedule: context 0's from the counters, context 1's the same a cycle later."""
        head0 = self.schedule[0]
        m.d.comb += [head0.running.eq(running), head0.cycle.eq(cycle), head0.on.eq(head_counter.on),
                     head0.phase.eq(head_counter.phase), head0.iteration.eq(head_counter.iteration),
                     head0.period.eq(p.period), head0.iterations.eq(p.own[0]), head0.a_slot.eq(p.a_slot),
                     head0.a_row.eq(0), head0.lead.eq(p.head_begin - 1)]
        if self.config.has_pairs:
            head1 = self.schedule[1]
            m.d.sync += [head1.on.eq(head_counter.on & p.pair), head1.phase.eq(head_counter.phase),
                         head1.iteration.eq(head_counter.iteration), head1.cycle.eq(cycle),
                         head1.running.eq(running & p.pair)]
            m.d.comb += [head1.period.eq(p.period), head1.iterations.eq(p.own[1]), head1.a_slot.eq(p.a_slot),
                         head1.a_row.eq(p.context1_a_row), head1.lead.eq(p.head_begin - 1)]

    def _copy_b(self, m, p):
        """b's rows are copied the cycle after they are read, the last one masked to its size; returns the
        (valid, row) registers that schedule a copy."""
        cfg, mod, mod1, rd = self.config, self.modulus, self.modulus1, self.operand_read
        valid = Signal(name="b_copy_valid")
        row = Signal(range(cfg.rows_per_slot), name="b_copy_row")
        m.d.sync += valid.eq(0)
        last_mask = mod.last_row_mask
        if cfg.has_pairs:
            last_mask = Mux(p.pair & (row == 1), mod1.last_row_mask, last_mask)
        with m.If(valid):
            m.d.comb += [self.b_copy.addr.eq(row), self.b_copy.en.eq(1),
                         self.b_copy.data.eq(Mux(p.pair | (row == p.rows - 1), rd.data & last_mask, rd.data))]
        return valid, row

    def _n_addr(self, p, k):
        """The modulus memory's row of N for row k of the product (N' is ``n_prime_row`` rows after)."""
        if not self.config.has_pairs:
            return k
        return Mux(p.pair & (k == 1), self.config.bank1_row, k)

    def _datapath(self, m, p, start):
        """The counters the states step, the heads' schedules, b's copy and the registered issue to the
        lanes; returns them for the states (``_fsm``)."""
        cfg = self.config
        KM = cfg.rows_per_slot
        s = SimpleNamespace()
        gap = s.gap = Signal(2)                 # classic_gap(P)
        m.d.comb += gap.eq(classic_gap(p.period))

        # Iteration i owns the cycles mu_i .. mu_i + P - 1 (mu_i = mu_0 + i*P): the heads' phase.  Rows
        # are issued 3 cycles ahead of it: two counters.  The issue counter runs one cycle earlier still
        # and its decisions are registered, so that the modulus memory's address (and the lanes' issue)
        # come from registers, not from the counter's comparisons.
        cycle = s.cycle = Signal(range(KM + 9))     # cycles since RUN began, then the resolve pass's tail
        running = s.running = Signal()              # in RUN
        s.final_row = final_row = Signal(range(KM + 1))     # row counter of the final passes
        m.submodules.issue_counter = issue_counter = IterationCounter(cfg)
        m.submodules.head_counter = head_counter = IterationCounter(cfg)
        s.issue_counter, s.head_counter = issue_counter, head_counter
        # the issue counter is turned on by the accepting cycle (``_accept``), or by RUN's cycle 0 for a pair
        # accepted late; the heads' iterations begin at cycle 4 (5 for a pair)
        for counter, begin in ((issue_counter, p.pair & (cycle == 0)), (head_counter, cycle == p.head_begin)):
            m.d.comb += [counter.clear.eq(start), counter.run.eq(running), counter.begin.eq(begin),
                         counter.period.eq(p.period), counter.size.eq(p.size + gap)]
        self._drive_schedules(m, p, running, cycle, head_counter)
        s.b_copy_valid, s.b_copy_row = self._copy_b(m, p)

        issue_next = s.issue_next = Signal()
        issue_row_next = s.issue_row_next = Signal.like(self.issue_row)
        issue_classic_next = s.issue_classic_next = Signal()
        first_next = s.first_next = Signal()
        m.d.comb += first_next.eq(issue_counter.iteration == 0)
        m.d.sync += [self.issue.eq(issue_next), self.issue_row.eq(issue_row_next),
                     self.issue_classic.eq(issue_classic_next), self.first.eq(first_next)]
        m.d.comb += self.modulus_row.eq(Mux(self.issue_classic, 0, cfg.n_prime_row) + self._n_addr(p, self.issue_row))
        with m.If(self.resolve_issue):
            m.d.comb += self.modulus_row.eq(self._n_addr(p, self.resolve_row))
        return s

    def _read(self, m, slot, row):
        m.d.comb += [self.operand_read.en.eq(1), self.operand_read.addr.eq(row_address(self.config, slot, row))]

    def _accept(self, m, s, start, late=C(0)):
        """The accepting cycle of a product (in IDLE, or in the last cycle of the one before): it makes
        the product's first read, from the requested slots (they are latched in it): a's row 0, RUN's
        cycle 0, which RUN then skips.  A single's first row is issued to the lanes in RUN's cycle 1
        (with its row of b, read then), so its issue is decided here; a pair's in cycle 2.  ``late``:
        the product before writes row 0 of its result in this cycle (it has one row, and it is not a
        pair), so the first read waits a cycle (RUN's cycle 0) in case it reads that row."""
        cfg, ctl, counter = self.config, self.ctl, s.issue_counter
        with m.If(ctl.start):
            m.d.comb += start.eq(1)
            m.next = "RUN"
            single = ~ctl.pair if cfg.has_pairs else C(1)
            with m.If(late):
                # a late pair's issue counter is turned on in RUN's cycle 0
                m.d.comb += counter.clear_on.eq(single)
                m.d.sync += s.cycle.eq(0)
            with m.Else():
                self._read(m, ctl.a, 0)
                m.d.comb += counter.clear_on.eq(1)
                m.d.sync += s.cycle.eq(1)
                with m.If(single):
                    # the first row's issue, decided in this cycle: the counter goes on at its phase 1
                    m.d.comb += [counter.clear_phase.eq(1), s.issue_next.eq(1), s.issue_row_next.eq(0),
                                 s.first_next.eq(1)]

    def _run(self, m, p, s):
        """RUN: the prologue's reads, the rows issued to the lanes, and the move to the final passes."""
        KM = self.config.rows_per_slot
        pair, rows, cycle, issue_counter = p.pair, p.rows, s.cycle, s.issue_counter
        m.d.comb += [self.ctl.busy.eq(1), s.running.eq(1)]
        with m.If(cycle != KM + 8):
            m.d.sync += cycle.eq(cycle + 1)
        # prologue reads: c0 a's row 0; c1..cK b's rows, copied (and each issued to the lanes in the
        # cycle of its read).  A pair: c1 context 1's a row, c2 context 0's b row, c3 context 1's.
        with m.If(cycle == 0):
            self._read(m, p.a_slot, 0)
        with m.Elif(pair):
            with m.If(cycle == 1):
                self._read(m, p.a_slot, p.context1_a_row)
            with m.Elif(cycle == 2):
                self._read(m, p.b_slot, 0)
                m.d.sync += [s.b_copy_valid.eq(1), s.b_copy_row.eq(0)]
            with m.Elif(cycle == 3):
                self._read(m, p.b1_slot, PAIR_ROW)
                m.d.sync += [s.b_copy_valid.eq(1), s.b_copy_row.eq(1)]
        with m.Elif(cycle <= rows):
            self._read(m, p.b_slot, cycle - 1)
            m.d.sync += [s.b_copy_valid.eq(1), s.b_copy_row.eq(cycle - 1)]
        # lanes: rows of iteration issue_iteration, issued 3 cycles ahead of the heads: a
        # context's own iterations, then its classic pass
        phase, iteration = issue_counter.phase, issue_counter.iteration
        own = Mux(pair & (phase == 1), p.own[1], p.own[0])
        with m.If(issue_counter.on & (phase < rows)):
            with m.If(iteration < own):
                m.d.comb += [s.issue_next.eq(1), s.issue_row_next.eq(phase)]
            with m.If(iteration == own - 1 + s.gap):
                m.d.comb += [s.issue_next.eq(1), s.issue_row_next.eq(phase), s.issue_classic_next.eq(1)]
        with m.If(s.head_counter.last):
            # the last row's update lands by mu_{s-1} + K <= mu_s (s: the iterations counted).  A
            # product of one row, or a pair, has its rows in the accumulator in time for the
            # resolve pass to begin at once (each row is a number: none reads the next row's low
            # word); a product of more rows waits a cycle for its last one.
            m.d.sync += s.final_row.eq(0)
            with m.If(pair | (rows == 1)):
                m.next = "FIN1"
            with m.Else():
                m.next = "DRAIN"

    def _fsm(self, m, p, s, start):
        """The states (module docstring)."""
        ctl, pair, rows, cycle, final_row = self.ctl, p.pair, p.rows, s.cycle, s.final_row
        with m.FSM():
            with m.State("IDLE"):
                self._accept(m, s, start)
            with m.State("RUN"):
                self._run(m, p, s)
            with m.State("DRAIN"):
                m.d.comb += ctl.busy.eq(1)
                m.d.sync += final_row.eq(0)
                m.next = "FIN1"
            with m.State("FIN1"):
                m.d.comb += [ctl.busy.eq(1), self.resolve_issue.eq(1), self.resolve_row.eq(final_row)]
                m.d.sync += final_row.eq(final_row + 1)
                with m.If(final_row == rows - 1):
                    m.d.sync += cycle.eq(0)
                    m.next = "FIN1W"
            with m.State("FIN1W"):
                m.d.comb += ctl.busy.eq(1)
                m.d.sync += cycle.eq(cycle + 1)
                with m.If(cycle == Mux(pair, 1, 2)):
                    # the last row's V - N is written and the final borrow registered in this cycle (a
                    # pair's row 0, which the select pass writes first, a cycle earlier than its row 1);
                    # the select pass's N rows are read a cycle ahead
                    m.d.comb += self.modulus_row.eq(self._n_addr(p, 0))
                    m.d.sync += final_row.eq(0)
                    m.next = "FIN2"
            with m.State("FIN2"):
                m.d.comb += [ctl.busy.eq(1), self.select_issue.eq(1), self.select_row.eq(final_row),
                             self.modulus_row.eq(self._n_addr(p, final_row + 1))]
                m.d.sync += final_row.eq(final_row + 1)
                with m.If(final_row == rows - 1):
                    # the next product may start in this cycle: its first read is of a row written a
                    # cycle or more ago, or it waits a cycle (``late``)
                    m.d.comb += ctl.done.eq(1)
                    m.next = "IDLE"
                    self._accept(m, s, start, late=~pair & (rows == 1))

    def elaborate(self, platform):
        m = Module()
        start = Signal()                        # a product starts (in IDLE)
        p = self._latch_product(m, start)
        s = self._datapath(m, p, start)
        self._fsm(m, p, s, start)
        # the resolve pass's registers that carry between rows are emptied in the cycle after the
        # accepting one (the product before has made its last choice by then), from a register: not at
        # the end of the iterations, whose count is the schedule's longest path
        clear = Signal()
        m.d.sync += clear.eq(start)
        m.d.comb += self.resolve_clear.eq(clear)
        return m
