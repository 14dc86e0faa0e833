"""The exponent sequencers: EXP_WINDOW, EXP_LADDER and EXP_FIXED as sequences of products issued to the core.

All three compute dst = a^e in the Montgomery domain (dst holds R mod N, the Montgomery one, on entry),
with the exponent's ``bits`` low bits read from its slot most significant bit first.  A bit is read in
three cycles: the register-file row holding it, then the W-bit word holding it (a short path from the
block RAM), then the bit.  Bit indices below 0 wrap to values at or above ``bits`` (see
``interface.EXP_INDEX_BITS``) and read as 0, and so do bits at or above ``bits``.

* EXP_WINDOW: a left-to-right sliding window of ``WINDOW_BITS`` = K bits over the odd powers.  It first
  builds the table a^2 (``SQUARE_SLOT``), a^3, a^5, .. a^(2^K - 1) (``table_slot``: 2^(K-1) - 1 products
  after the square).  Then, from the top bit: a zero bit costs one squaring; a one bit starts a window of
  up to K bits, which ends at its lowest set bit (digit = the window's value without trailing zeros, odd,
  wlen = its length), and costs wlen squarings and one product by a^digit.  Squarings before the first
  window are skipped (dst = 1 needs none), so the first window's product replaces them.  Exponents of at
  most ``SHORT_EXPONENT_BITS`` bits (e = 65537) use 1-bit windows and build no table.  The time depends on
  the exponent (zero bits are cheaper).
* EXP_LADDER: the Montgomery ladder with R0 = dst and R1 = a*R0 (``LADDER_SLOT``): for every bit, from
  the top, R_(1-bit) = R0*R1 and R_bit = R_bit^2, two products per bit whatever its value.
* EXP_FIXED: fixed windows of ``FIXED_WINDOW_BITS`` = k bits, window j being bits jk+k-1 .. jk, so the
  top one holds the ((bits-1) mod k) + 1 top bits.  It first builds the whole table (``fixed_table_slot``):
  t0 = dst*dst (the Montgomery one again), t2 = a*a, t_d = t_(d-1)*a up to d = 2^k - 1 (t1 is the base's
  slot).  Then, for each window from the top: k squarings (none before the top window) and dst = dst*t_d,
  t0 for a zero digit.  A window is read as the two words that hold it (4 cycles), so neither the reading
  nor the products depend on the exponent's bits: the time is a function of the size and ``bits``.  The
  top window's position, k*floor((bits-1)/k), is found by stepping up from 0 by k once per cycle while
  the table is built: at most size*W/k + 1 steps against 2^k - 1 products of more than 2*size cycles, so
  the search has always ended when the table is.

* EXP_FIXED_PAIR: EXP_FIXED in both contexts of a pair (see ``gateware.interface``), in lock step: every
  product is a pair, and each window reads context 0's digit, then context 1's (4 cycles each, the
  exponent's row 1 for context 1); the digit products differ only in b, which names each context's
  own table entry.

Every product is a request on ``mul`` (start with the slots, then wait for done); the state that issued it
names the state that continues when it is done.
"""

from contextlib import contextmanager

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..interface import (WORD_BITS, ARG_BITS, EXP_INDEX_BITS, SLOT_BITS, WINDOW_BITS, SHORT_EXPONENT_BITS,
                         FIXED_WINDOW_BITS, SQUARE_SLOT, LADDER_SLOT, PAIR_ROW, table_slot, fixed_table_slot,
                         Opcode)
from .core import ProductSignature
from .regfile import ReadPortSignature, row_address

__all__ = ["ExponentSequencer"]


class ExponentSequencer(wiring.Component):
    """EXP_WINDOW, EXP_LADDER and EXP_FIXED.

    ``start`` (one cycle, the operands already checked by the caller: ``dst`` differs from ``base`` and
    ``exponent``, 1 <= ``bits`` <= size*W) begins the exponentiation ``op`` (one of the three EXP
    opcodes); ``busy`` is high until the cycle in which ``done`` pulses.  Products go to the core
    through ``mul``; exponent bits are read through ``read``."""

    def __init__(self, config):
        self.config = config
        super().__init__({
            "start":    In(1),
            "op":       In(Opcode),
            "dst":      In(SLOT_BITS),
            "base":     In(SLOT_BITS),
            "exponent": In(SLOT_BITS),
            "bits":     In(ARG_BITS),
            "busy":     Out(1),
            "done":     Out(1),
            "mul":      Out(ProductSignature()),
            "read":     Out(ReadPortSignature(config.operand_rows, config.row_bits)),
        })

    def elaborate(self, platform):
        m = Module()
        cfg = self.config
        L, W, K, KF = cfg.lanes, WORD_BITS, WINDOW_BITS, FIXED_WINDOW_BITS
        log_word = W.bit_length() - 1
        log_row = (L * W).bit_length() - 1
        rd, mul = self.read, self.mul

        # Reset-less: every one is written before it is read in each exponentiation, and without a reset
        # their logic stays out of Verilator's evaluation on input changes.
        e_a = Signal(SLOT_BITS, reset_less=True)
        e_b = Signal(SLOT_BITS, reset_less=True)
        e_d = Signal(SLOT_BITS, reset_less=True)
        e_bits = Signal(ARG_BITS, reset_less=True)
        e_idx = Signal(EXP_INDEX_BITS, reset_less=True)  # index of the next exponent bit
        rem = Signal(EXP_INDEX_BITS, reset_less=True)    # exponent bits not yet consumed (e_idx + 1)
        digit = Signal(K, reset_less=True)
        kw = Signal(range(K + 1), reset_less=True)       # window width: K, or 1 for short exponents
        win = Signal(K, reset_less=True)                 # window bits read so far, the first (top) one set
        wcnt = Signal(range(K + 1), reset_less=True)
        wlen = Signal(range(K + 1), reset_less=True)
        r_idx = Signal(EXP_INDEX_BITS, reset_less=True)  # index of the next window bit to read
        sqcnt = Signal(range(max(K, KF) + 1), reset_less=True)
        tcnt = Signal(range(2 ** max(K, KF) + 2), reset_less=True)
        started = Signal(reset_less=True)
        bit = Signal(reset_less=True)
        e_word = Signal(W, reset_less=True)
        # EXP_FIXED
        low = Signal(EXP_INDEX_BITS, reset_less=True)    # lowest bit index of the current window
        seek = Signal()                                   # stepping ``low`` up to the top window
        high_word = Signal(W, reset_less=True)           # the word above the one holding bit ``low``
        fixed_digit = Signal(KF, reset_less=True)
        fixed_digit1 = Signal(KF, reset_less=True)       # context 1's (EXP_FIXED_PAIR)
        e_pair = Signal(reset_less=True)                 # EXP_FIXED_PAIR: every product is a pair
        e_ctx = Signal(reset_less=True)                  # the context whose window is being read
        ctx_low = Signal(EXP_INDEX_BITS)                 # ``low`` in that context's row of the exponent
        m.d.comb += ctx_low.eq(low + Mux(e_ctx, PAIR_ROW * L * W, 0))

        def exp_bit_read(index=e_idx):
            m.d.comb += [rd.en.eq(1), rd.addr.eq(row_address(cfg, e_b, index >> log_row))]

        def exp_word_latch(index=e_idx, word=e_word):
            m.d.sync += word.eq(Array(rd.data.word_select(k, W) for k in range(L))[index[log_word:log_row]])

        def exp_bit_value(index=e_idx):
            return e_word.bit_select(index[:log_word], 1) & (index < e_bits)

        def multiply(dst, a, b, then, b1=None):
            """Start dst = a*b*R^-1 in this cycle (a pair in EXP_FIXED_PAIR, context 1's b being ``b1``,
            by default ``b``); state ``then`` waits for it."""
            m.d.comb += [mul.start.eq(1), mul.pair.eq(e_pair), mul.dst.eq(dst), mul.a.eq(a), mul.b.eq(b),
                         mul.b1.eq(b if b1 is None else b1)]
            m.next = then

        @contextmanager
        def when_done(state):
            """State ``state`` waits for the product in flight; the body runs in the cycle it is done."""
            with m.State(state):
                with m.If(mul.done):
                    yield

        def finish():
            m.d.comb += self.done.eq(1)
            m.next = "IDLE"

        # EXP_FIXED's search for the top window: low = k*floor((bits-1)/k), one step of k per cycle from 0
        with m.If(seek):
            with m.If(low + KF < e_bits):
                m.d.sync += low.eq(low + KF)
            with m.Else():
                m.d.sync += seek.eq(0)

        with m.FSM():
            m.d.comb += self.busy.eq(1)
            with m.State("IDLE"):
                m.d.comb += self.busy.eq(0)
                with m.If(self.start):
                    m.d.sync += [e_a.eq(self.base), e_b.eq(self.exponent), e_d.eq(self.dst), e_bits.eq(self.bits),
                                 e_idx.eq(self.bits - 1), rem.eq(self.bits), started.eq(0),
                                 e_pair.eq(self.op == Opcode.EXP_FIXED_PAIR), e_ctx.eq(0)]
                    with m.Switch(self.op):
                        with m.Case(Opcode.EXP_WINDOW):
                            with m.If(self.bits <= SHORT_EXPONENT_BITS):
                                m.d.sync += kw.eq(1)
                                m.next = "EW_TOP"
                            with m.Else():
                                m.d.sync += [kw.eq(K), tcnt.eq(3)]
                                m.next = "EW_SQUARE"
                        with m.Case(Opcode.EXP_LADDER):
                            m.next = "EL_INIT"
                        with m.Case(Opcode.EXP_FIXED, Opcode.EXP_FIXED_PAIR):
                            m.d.sync += [low.eq(0), seek.eq(1)]
                            m.next = "EF_ONE"

            # ---- EXP_WINDOW: the table of odd powers ----
            with m.State("EW_SQUARE"):
                multiply(SQUARE_SLOT, e_a, e_a, then="EW_SQUARE_WAIT")
            with when_done("EW_SQUARE_WAIT"):
                m.next = "EW_TABLE"
            with m.State("EW_TABLE"):
                multiply(table_slot(tcnt), Mux(tcnt == 3, e_a, table_slot(tcnt - 2)), SQUARE_SLOT,
                         then="EW_TABLE_WAIT")
            with when_done("EW_TABLE_WAIT"):
                m.d.sync += tcnt.eq(tcnt + 2)
                with m.If(tcnt == 2 ** K - 1):
                    m.next = "EW_TOP"
                with m.Else():
                    m.next = "EW_TABLE"

            # ---- EXP_WINDOW: the exponent, top bit first ----
            with m.State("EW_TOP"):
                with m.If(rem == 0):
                    finish()
                with m.Else():
                    exp_bit_read()
                    m.next = "EW_TOP_WORD"
            with m.State("EW_TOP_WORD"):
                exp_word_latch()
                m.next = "EW_TOP_BIT"
            with m.State("EW_TOP_BIT"):
                with m.If(~exp_bit_value()):
                    # a zero bit: one squaring (none before the first window)
                    with m.If(started):
                        multiply(e_d, e_d, e_d, then="EW_ZERO_WAIT")
                    with m.Else():
                        m.d.sync += [e_idx.eq(e_idx - 1), rem.eq(rem - 1)]
                        m.next = "EW_TOP"
                with m.Else():
                    m.d.sync += [win.eq(1), wcnt.eq(1), r_idx.eq(e_idx - 1)]
                    m.next = "EW_WINDOW"
            with when_done("EW_ZERO_WAIT"):
                m.d.sync += [e_idx.eq(e_idx - 1), rem.eq(rem - 1)]
                m.next = "EW_TOP"
            with m.State("EW_WINDOW"):
                with m.If(wcnt == kw):
                    m.next = "EW_DIGIT"
                with m.Else():
                    exp_bit_read(r_idx)
                    m.next = "EW_WINDOW_WORD"
            with m.State("EW_WINDOW_WORD"):
                exp_word_latch(r_idx)
                m.next = "EW_WINDOW_BIT"
            with m.State("EW_WINDOW_BIT"):
                m.d.sync += [win.eq(Cat(exp_bit_value(r_idx), win[:K - 1])), wcnt.eq(wcnt + 1),
                             r_idx.eq(r_idx - 1)]
                m.next = "EW_WINDOW"
            with m.State("EW_DIGIT"):
                # the window ends at its lowest set bit: digit = win >> trailing zeros, odd
                with m.Switch(win):
                    for value in range(1, 2 ** K):
                        tz = (value & -value).bit_length() - 1
                        with m.Case(value):
                            m.d.sync += [digit.eq(value >> tz), wlen.eq(kw - tz)]
                m.d.sync += sqcnt.eq(0)
                m.next = "EW_SQUARINGS"
            with m.State("EW_SQUARINGS"):
                with m.If(started & (sqcnt != wlen)):
                    multiply(e_d, e_d, e_d, then="EW_SQUARINGS_WAIT")
                with m.Else():
                    m.next = "EW_DIGIT_MUL"
            with when_done("EW_SQUARINGS_WAIT"):
                m.d.sync += sqcnt.eq(sqcnt + 1)
                m.next = "EW_SQUARINGS"
            with m.State("EW_DIGIT_MUL"):
                multiply(e_d, e_d, Mux(digit == 1, e_a, table_slot(digit)), then="EW_DIGIT_MUL_WAIT")
            with when_done("EW_DIGIT_MUL_WAIT"):
                m.d.sync += [started.eq(1), e_idx.eq(e_idx - wlen), rem.eq(rem - wlen)]
                m.next = "EW_TOP"

            # ---- EXP_LADDER: R0 = dst, R1 = LADDER_SLOT ----
            with m.State("EL_INIT"):
                multiply(LADDER_SLOT, e_a, e_d, then="EL_INIT_WAIT")
            with when_done("EL_INIT_WAIT"):
                m.d.sync += e_idx.eq(e_bits - 1)
                m.next = "EL_BIT"
            with m.State("EL_BIT"):
                exp_bit_read()
                m.next = "EL_BIT_WORD"
            with m.State("EL_BIT_WORD"):
                exp_word_latch()
                m.next = "EL_BIT_VALUE"
            with m.State("EL_BIT_VALUE"):
                m.d.sync += bit.eq(exp_bit_value())
                m.next = "EL_PRODUCT"
            with m.State("EL_PRODUCT"):
                # R_(1-bit) = R0 * R1
                multiply(Mux(bit, e_d, LADDER_SLOT), e_d, LADDER_SLOT, then="EL_PRODUCT_WAIT")
            with when_done("EL_PRODUCT_WAIT"):
                m.next = "EL_SQUARE"
            with m.State("EL_SQUARE"):
                # R_bit = R_bit^2
                r_bit = Mux(bit, LADDER_SLOT, e_d)
                multiply(r_bit, r_bit, r_bit, then="EL_SQUARE_WAIT")
            with when_done("EL_SQUARE_WAIT"):
                with m.If(e_idx == 0):
                    finish()
                with m.Else():
                    m.d.sync += e_idx.eq(e_idx - 1)
                    m.next = "EL_BIT"

            # ---- EXP_FIXED: the whole table, t0 and t2 .. t_(2^k - 1) ----
            with m.State("EF_ONE"):
                multiply(fixed_table_slot(0), e_d, e_d, then="EF_ONE_WAIT")
            with when_done("EF_ONE_WAIT"):
                m.next = "EF_SQUARE"
            with m.State("EF_SQUARE"):
                multiply(fixed_table_slot(2), e_a, e_a, then="EF_SQUARE_WAIT")
            with when_done("EF_SQUARE_WAIT"):
                m.d.sync += tcnt.eq(3)
                m.next = "EF_TABLE"
            with m.State("EF_TABLE"):
                multiply(fixed_table_slot(tcnt), fixed_table_slot(tcnt - 1), e_a, then="EF_TABLE_WAIT")
            with when_done("EF_TABLE_WAIT"):
                m.d.sync += tcnt.eq(tcnt + 1)
                with m.If(tcnt == 2 ** KF - 1):
                    m.next = "EF_WINDOW"
                with m.Else():
                    m.next = "EF_TABLE"

            # ---- EXP_FIXED: the windows, from the top ----
            # The word above the one holding bit ``low`` may lie past the exponent's slot: it is then a row
            # of the next slot, and only bits at or above ``bits`` come from it, which read as 0.
            with m.State("EF_WINDOW"):
                with m.If(~seek):                   # always over by now (see the module docstring)
                    exp_bit_read(ctx_low + W)
                    m.next = "EF_WINDOW_HIGH"
            with m.State("EF_WINDOW_HIGH"):
                exp_word_latch(ctx_low + W, high_word)
                exp_bit_read(ctx_low)
                m.next = "EF_WINDOW_LOW"
            with m.State("EF_WINDOW_LOW"):
                exp_word_latch(ctx_low)
                m.next = "EF_DIGIT"
            with m.State("EF_DIGIT"):
                window = Cat(e_word, high_word).bit_select(low[:log_word], KF)
                below_bits = Cat(low + i < e_bits for i in range(KF))
                with m.If(e_pair & ~e_ctx):
                    # context 0's digit; now context 1's
                    m.d.sync += [fixed_digit.eq(window & below_bits), e_ctx.eq(1)]
                    m.next = "EF_WINDOW"
                with m.Else():
                    with m.If(e_pair):
                        m.d.sync += fixed_digit1.eq(window & below_bits)
                    with m.Else():
                        m.d.sync += fixed_digit.eq(window & below_bits)
                    m.d.sync += [sqcnt.eq(0), e_ctx.eq(0)]
                    with m.If(started):
                        m.next = "EF_SQUARINGS"
                    with m.Else():
                        m.next = "EF_DIGIT_MUL"
            with m.State("EF_SQUARINGS"):
                multiply(e_d, e_d, e_d, then="EF_SQUARINGS_WAIT")
            with when_done("EF_SQUARINGS_WAIT"):
                m.d.sync += sqcnt.eq(sqcnt + 1)
                with m.If(sqcnt == KF - 1):
                    m.next = "EF_DIGIT_MUL"
                with m.Else():
                    m.next = "EF_SQUARINGS"
            with m.State("EF_DIGIT_MUL"):
                multiply(e_d, e_d, Mux(fixed_digit == 1, e_a, fixed_table_slot(fixed_digit)),
                         then="EF_DIGIT_MUL_WAIT",
                         b1=Mux(fixed_digit1 == 1, e_a, fixed_table_slot(fixed_digit1)))
            with when_done("EF_DIGIT_MUL_WAIT"):
                m.d.sync += started.eq(1)
                with m.If(low == 0):
                    finish()
                with m.Else():
                    m.d.sync += low.eq(low - KF)
                    m.next = "EF_WINDOW"
        return m
