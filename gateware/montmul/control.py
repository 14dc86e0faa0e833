"""The core's control: the product's schedule (prologue, iterations, final passes) and the reads it makes.

States: IDLE; PAIR (a pair reads context 0's b row first); RUN (the prologue's reads, then the
iterations: rows issued to the lanes 3 cycles ahead of the heads' phase); DRAIN (one cycle); FIN1 (the
resolve pass issues every row); FIN1W (its pipeline empties); FIN2 (the select pass writes every row).
"""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..interface import SIZE_BITS, SLOT_BITS, PAIR_ROW
from .head import HeadScheduleSignature, period_shape
from .modulus import ModulusStateSignature
from .regfile import ReadPortSignature, WritePortSignature, row_address

__all__ = ["ProductSignature", "ProductControl"]


class ProductSignature(wiring.Signature):
    """A request for one product dst = a*b*R^-1 mod N, seen from the requester.  ``start`` (one cycle, only
    while the core is not busy) passes the slots; ``busy`` is high from the next cycle until the cycle in
    which ``done`` pulses, when the last row of the result is written.  With ``pair`` it is a pair of
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


class ProductControl(wiring.Component):
    """The schedule of one product (see ``MontMulCore``).

    Drives: ``operand_read`` (``en``: the address is the control's in this cycle, over the heads'; its
    data fills ``b_copy``, the last row masked to the size), ``modulus_row`` (N's row for the lanes'
    issue, the resolve pass or the prologue), the lanes' ``issue``, each head's ``schedule`` (context
    1's one cycle behind context 0's), the resolve pass (``resolve_*``, ``resolve_clear``) and the
    select pass (``select_*``)."""

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
            "first":          Out(1),
            "schedule":       Out(HeadScheduleSignature(config)).array(heads),
            "resolve_issue":  Out(1),
            "resolve_row":    Out(range(rows)),
            "resolve_clear":  Out(1),
            "select_issue":   Out(1),
            "select_row":     Out(range(rows)),
            "dst_slot":       Out(SLOT_BITS),
        })

    def elaborate(self, platform):
        m = Module()
        cfg = self.config
        KM = cfg.rows_per_slot
        ctl, mod, mod1, rd = self.ctl, self.modulus, self.modulus1, self.operand_read
        a_slot, b_slot, b1_slot, dst_slot = (Signal(SLOT_BITS, name=n) for n in ("a_slot", "b_slot", "b1_slot",
                                                                                  "dst_slot"))
        # A pair (see ``ProductSignature``) runs as a product of two rows, row k being context k:
        # rows 0 and 1 of the accumulator and of the b copy, of the operand slots (PAIR_ROW = 1) and the
        # modulus banks' rows; no carry crosses from row 0 to row 1, and each row has its own head.
        pair = Signal()
        a_words = Signal(SIZE_BITS)     # a pair's shared a (0: each context's own)
        shared = Signal()
        rows = Signal(range(KM + 1))
        size = Signal(SIZE_BITS)
        period = Signal(period_shape(cfg))
        m.d.comb += [shared.eq(a_words != 0), self.pair.eq(pair), self.rows.eq(rows), self.dst_slot.eq(dst_slot)]
        ctx1_row = Mux(shared, 0, PAIR_ROW)     # the row of a context 1 reads first
        if cfg.has_pairs:
            assert PAIR_ROW == 1
            m.d.comb += [rows.eq(Mux(pair, 2, mod.rows)),
                         size.eq(Mux(shared, a_words, Mux(pair & (mod1.size > mod.size), mod1.size, mod.size)))]
        else:
            m.d.comb += [rows.eq(mod.rows), size.eq(mod.size)]

        def n_addr(k):
            """The modulus memory's row for row k of the product."""
            if not cfg.has_pairs:
                return k
            return Mux(pair & (k == 1), cfg.bank1_row, k)

        # Iteration i owns the cycles mu_i .. mu_i + P - 1 (mu_i = mu_0 + i*P): the heads' phase.  Rows
        # are issued 3 cycles ahead of it: two counter pairs.
        cycle = Signal(range(KM + 9))           # cycles since RUN began, then the resolve pass's tail
        running = Signal()                      # in RUN
        issue_on = Signal()
        issue_iteration = Signal(SIZE_BITS)
        issue_phase = Signal(period_shape(cfg))
        head_on = Signal()
        head_iteration = Signal(SIZE_BITS)
        head_phase = Signal(period_shape(cfg))
        final_row = Signal(range(KM + 1))       # row counter of the final passes
        head0 = self.schedule[0]
        m.d.comb += [head0.running.eq(running), head0.cycle.eq(cycle), head0.on.eq(head_on),
                     head0.phase.eq(head_phase), head0.iteration.eq(head_iteration), head0.period.eq(period),
                     head0.a_slot.eq(a_slot), head0.a_row.eq(0),
                     head0.b_latch.eq(Mux(pair, running & (cycle == 0), running & (cycle == 2)))]
        if cfg.has_pairs:
            head1 = self.schedule[1]
            m.d.sync += [head1.on.eq(head_on & pair), head1.phase.eq(head_phase),
                         head1.iteration.eq(head_iteration), head1.cycle.eq(cycle), head1.running.eq(running & pair)]
            m.d.comb += [head1.period.eq(period), head1.a_slot.eq(a_slot), head1.a_row.eq(ctx1_row),
                         head1.b_latch.eq(head1.running & (head1.cycle == 2))]

        m.d.comb += [self.issue_row.eq(0), self.first.eq(issue_iteration == 0),
                     self.modulus_row.eq(n_addr(self.issue_row))]
        with m.If(self.resolve_issue):
            m.d.comb += self.modulus_row.eq(n_addr(self.resolve_row))

        # b's rows are copied the cycle after they are read, the last one masked to its size
        b_copy_valid = Signal()
        b_copy_row = Signal(range(KM))
        m.d.sync += b_copy_valid.eq(0)
        last_mask = mod.last_row_mask
        if cfg.has_pairs:
            last_mask = Mux(pair & (b_copy_row == 1), mod1.last_row_mask, last_mask)
        with m.If(b_copy_valid):
            m.d.comb += [self.b_copy.addr.eq(b_copy_row), self.b_copy.en.eq(1),
                         self.b_copy.data.eq(Mux(pair | (b_copy_row == rows - 1), rd.data & last_mask, rd.data))]

        def read(slot, row):
            m.d.comb += [rd.en.eq(1), rd.addr.eq(row_address(cfg, slot, row))]

        with m.FSM():
            with m.State("IDLE"):
                with m.If(ctl.start):
                    m.d.sync += [a_slot.eq(ctl.a), b_slot.eq(ctl.b), b1_slot.eq(ctl.b1), dst_slot.eq(ctl.dst),
                                 cycle.eq(0), issue_iteration.eq(0), issue_phase.eq(0), head_iteration.eq(0),
                                 head_phase.eq(0), issue_on.eq(0), head_on.eq(0)]
                    if cfg.has_pairs:
                        m.d.sync += [pair.eq(ctl.pair), a_words.eq(Mux(ctl.pair, ctl.a_words, 0))]
                        m.d.sync += period.eq(Mux(ctl.pair | (mod.rows <= 2), 2, mod.rows))
                        with m.If(ctl.pair):
                            m.next = "PAIR"
                        with m.Else():
                            m.next = "RUN"
                    else:
                        m.d.sync += period.eq(Mux(mod.rows > 2, mod.rows, 2))
                        m.next = "RUN"
            with m.State("PAIR"):
                # a pair reads context 0's b row first: cycle 1 of the prologue reads context 1's a row
                m.d.comb += ctl.busy.eq(1)
                read(b_slot, 0)
                m.d.sync += [b_copy_valid.eq(1), b_copy_row.eq(0)]
                m.next = "RUN"
            with m.State("RUN"):
                m.d.comb += [ctl.busy.eq(1), running.eq(1)]
                with m.If(cycle != KM + 8):
                    m.d.sync += cycle.eq(cycle + 1)
                # prologue reads: c0 a's row 0 (and N's row 0); c1..cK b's rows, copied.  A pair: c1 context
                # 1's a row (and its N row), c2 its b row.
                with m.If(cycle == 0):
                    read(a_slot, 0)
                    m.d.comb += self.modulus_row.eq(0)
                with m.Elif(pair):
                    with m.If(cycle == 1):
                        read(a_slot, ctx1_row)
                        m.d.comb += self.modulus_row.eq(n_addr(1))
                    with m.Elif(cycle == 2):
                        read(b1_slot, PAIR_ROW)
                        m.d.sync += [b_copy_valid.eq(1), b_copy_row.eq(1)]
                with m.Elif(cycle <= rows):
                    read(b_slot, cycle - 1)
                    m.d.sync += [b_copy_valid.eq(1), b_copy_row.eq(cycle - 1)]
                with m.If(cycle == 3):
                    m.d.sync += issue_on.eq(1)
                with m.If(cycle == 6):
                    m.d.sync += head_on.eq(1)

                # lanes: rows of iteration issue_iteration, issued 3 cycles ahead of the heads
                with m.If(issue_on):
                    own_size = Mux(issue_phase == 0, mod.size, mod1.size)
                    with m.If((issue_phase < rows) & (~pair | shared | (issue_iteration < own_size))):
                        m.d.comb += [self.issue.eq(1), self.issue_row.eq(issue_phase)]
                    m.d.sync += issue_phase.eq(issue_phase + 1)
                    with m.If(issue_phase == period - 1):
                        m.d.sync += [issue_phase.eq(0), issue_iteration.eq(issue_iteration + 1)]
                        with m.If(issue_iteration == size - 1):
                            m.d.sync += issue_on.eq(0)
                with m.If(head_on):
                    m.d.sync += head_phase.eq(head_phase + 1)
                    with m.If(head_phase == period - 1):
                        m.d.sync += [head_phase.eq(0), head_iteration.eq(head_iteration + 1)]
                        with m.If(head_iteration == size - 1):
                            # the last row's update lands by mu_{s-1} + K <= mu_s
                            m.d.sync += head_on.eq(0)
                            m.next = "DRAIN"
            with m.State("DRAIN"):
                m.d.comb += [ctl.busy.eq(1), self.resolve_clear.eq(1)]
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
                with m.If(cycle == 3):
                    # the last row's V - N is written and the final borrow registered in this cycle
                    m.d.sync += final_row.eq(0)
                    m.next = "FIN2"
            with m.State("FIN2"):
                m.d.comb += [ctl.busy.eq(1), self.select_issue.eq(1), self.select_row.eq(final_row)]
                m.d.sync += final_row.eq(final_row + 1)
                with m.If(final_row == rows - 1):
                    m.d.comb += ctl.done.eq(1)
                    m.next = "IDLE"
        return m
