"""The exponent sequencer's machines, one per scheme: EXP_WINDOW, EXP_LADDER and EXP_FIXED (with
EXP_FIXED_PAIR).  See ``gateware.montmul.sequencer`` for what each computes and how long it takes.

Each machine has its own states, named with its prefix (EW_, EL_, EF_; ``gateware.tools.formal`` relies on it):
IDLE until ``start``, then back to IDLE in the cycle it pulses ``done``.  It issues its products on
``mul`` and reads the exponent through ``exponent`` (an ``ExponentReader`` request): a bit costs three
cycles, the register-file row holding it (``read``), the W-bit word holding it (``latch_word``), then the
bit (``exponent_bit``).
"""

from contextlib import contextmanager

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..interface import (ARG_BITS, EXP_INDEX_BITS, SLOT_BITS, WINDOW_BITS, SHORT_EXPONENT_BITS,
                         FIXED_WINDOW_BITS, SQUARE_SLOT, LADDER_SLOT, PAIR_ROW, table_slot, fixed_table_slot)
from .control import ProductSignature

__all__ = ["ExponentReadSignature", "WindowExponent", "LadderExponent", "FixedExponent", "MACHINES"]


class ExponentReadSignature(wiring.Signature):
    """A machine's reads of the exponent, seen from the machine (see ``ExponentReader``)."""

    def __init__(self):
        super().__init__({
            "read":            Out(1),
            "read_index":      Out(EXP_INDEX_BITS),
            "latch_word":      Out(1),
            "latch_high_word": Out(1),
            "latch_index":     Out(EXP_INDEX_BITS),
        })


class SchemeMachine(wiring.Component):
    """What the three machines share: their ports and the steps every state is written with.

    ``start`` comes with the command's ``start_bits``; ``base``, ``dst`` and ``exponent_bits`` are the command's
    operands from the next cycle on (kept by the sequencer); ``word`` and ``high_word`` the words of the
    exponent latched by ``ExponentReader``."""

    def __init__(self, config, ports=None):
        self.config = config
        super().__init__({
            "start":      In(1),
            "start_bits": In(ARG_BITS),
            "base":          In(SLOT_BITS),
            "dst":           In(SLOT_BITS),
            "exponent_bits": In(ARG_BITS),
            "busy":       Out(1),
            "done":       Out(1),
            "mul":        Out(ProductSignature()),
            "exponent":   Out(ExponentReadSignature()),
            "word":       In(config.word_bits),
            "high_word":  In(config.word_bits),
            **(ports or {}),
        })

    def multiply(self, m, dst, a, b, then, pair=0, b1=None):
        """Start dst = a*b*R^-1 in this cycle (a pair if ``pair``, context 1's b being ``b1``, by default
        ``b``); state ``then`` waits for it."""
        m.d.comb += [self.mul.start.eq(1), self.mul.pair.eq(pair), self.mul.dst.eq(dst), self.mul.a.eq(a),
                     self.mul.b.eq(b), self.mul.b1.eq(b if b1 is None else b1)]
        m.next = then

    @contextmanager
    def when_done(self, m, state):
        """State ``state`` waits for the product in flight; the body runs in the cycle it is done."""
        with m.State(state):
            with m.If(self.mul.done):
                yield

    def finish(self, m):
        m.d.comb += self.done.eq(1)
        m.next = "IDLE"

    def read_row(self, m, index):
        """Read the register-file row holding exponent bit ``index``."""
        m.d.comb += [self.exponent.read.eq(1), self.exponent.read_index.eq(index)]

    def latch_word(self, m, index, high=False):
        """Keep the word holding bit ``index`` from the row read in the previous cycle."""
        m.d.comb += [(self.exponent.latch_high_word if high else self.exponent.latch_word).eq(1),
                     self.exponent.latch_index.eq(index)]

    def exponent_bit(self, index):
        """Bit ``index`` of the exponent from the latched word; 0 at or above ``exponent_bits``."""
        return self.word.bit_select(index[:self.config.word_bits.bit_length() - 1], 1) & (index < self.exponent_bits)


class WindowExponent(SchemeMachine):
    """EXP_WINDOW: sliding windows of ``WINDOW_BITS`` over the odd powers (1-bit windows and no table for
    exponents of at most ``SHORT_EXPONENT_BITS`` bits)."""

    def elaborate(self, platform):
        m = Module()
        K = WINDOW_BITS
        base, dst = self.base, self.dst
        # Reset-less: written before they are read in each exponentiation (see ExponentReader)
        bit_index = Signal(EXP_INDEX_BITS, reset_less=True)     # the next exponent bit
        remaining = Signal(EXP_INDEX_BITS, reset_less=True)     # exponent bits not yet consumed
        window_width = Signal(range(K + 1), reset_less=True)    # K, or 1 for short exponents
        window = Signal(K, reset_less=True)                     # window bits read so far, the first (top) one set
        window_read = Signal(range(K + 1), reset_less=True)     # how many
        window_index = Signal(EXP_INDEX_BITS, reset_less=True)  # the next window bit to read
        digit = Signal(K, reset_less=True)                      # the window without its trailing zeros
        digit_bits = Signal(range(K + 1), reset_less=True)      # its length
        squarings = Signal(range(K + 1), reset_less=True)
        table_digit = Signal(range(2 ** K + 2), reset_less=True)  # the table entry being made
        started = Signal(reset_less=True)                       # a window has been multiplied in

        with m.FSM():
            m.d.comb += self.busy.eq(1)
            with m.State("IDLE"):
                m.d.comb += self.busy.eq(0)
                with m.If(self.start):
                    m.d.sync += [bit_index.eq(self.start_bits - 1), remaining.eq(self.start_bits), started.eq(0)]
                    with m.If(self.start_bits <= SHORT_EXPONENT_BITS):
                        m.d.sync += window_width.eq(1)
                        m.next = "EW_TOP"
                    with m.Else():
                        m.d.sync += [window_width.eq(K), table_digit.eq(3)]
                        m.next = "EW_SQUARE"

            # the table of odd powers
            with m.State("EW_SQUARE"):
                self.multiply(m, SQUARE_SLOT, base, base, then="EW_SQUARE_WAIT")
            with self.when_done(m, "EW_SQUARE_WAIT"):
                m.next = "EW_TABLE"
            with m.State("EW_TABLE"):
                self.multiply(m, table_slot(table_digit), Mux(table_digit == 3, base, table_slot(table_digit - 2)),
                              SQUARE_SLOT, then="EW_TABLE_WAIT")
            with self.when_done(m, "EW_TABLE_WAIT"):
                m.d.sync += table_digit.eq(table_digit + 2)
                with m.If(table_digit == 2 ** K - 1):
                    m.next = "EW_TOP"
                with m.Else():
                    m.next = "EW_TABLE"

            # the exponent, top bit first
            with m.State("EW_TOP"):
                with m.If(remaining == 0):
                    self.finish(m)
                with m.Else():
                    self.read_row(m, bit_index)
                    m.next = "EW_TOP_WORD"
            with m.State("EW_TOP_WORD"):
                self.latch_word(m, bit_index)
                m.next = "EW_TOP_BIT"
            with m.State("EW_TOP_BIT"):
                with m.If(~self.exponent_bit(bit_index)):
                    # a zero bit: one squaring (none before the first window)
                    with m.If(started):
                        self.multiply(m, dst, dst, dst, then="EW_ZERO_WAIT")
                    with m.Else():
                        m.d.sync += [bit_index.eq(bit_index - 1), remaining.eq(remaining - 1)]
                        m.next = "EW_TOP"
                with m.Else():
                    m.d.sync += [window.eq(1), window_read.eq(1), window_index.eq(bit_index - 1)]
                    m.next = "EW_WINDOW"
            with self.when_done(m, "EW_ZERO_WAIT"):
                m.d.sync += [bit_index.eq(bit_index - 1), remaining.eq(remaining - 1)]
                m.next = "EW_TOP"
            with m.State("EW_WINDOW"):
                with m.If(window_read == window_width):
                    m.next = "EW_DIGIT"
                with m.Else():
                    self.read_row(m, window_index)
                    m.next = "EW_WINDOW_WORD"
            with m.State("EW_WINDOW_WORD"):
                self.latch_word(m, window_index)
                m.next = "EW_WINDOW_BIT"
            with m.State("EW_WINDOW_BIT"):
                m.d.sync += [window.eq(Cat(self.exponent_bit(window_index), window[:K - 1])),
                             window_read.eq(window_read + 1), window_index.eq(window_index - 1)]
                m.next = "EW_WINDOW"
            with m.State("EW_DIGIT"):
                # the window ends at its lowest set bit: digit = window >> trailing zeros, odd
                with m.Switch(window):
                    for value in range(1, 2 ** K):
                        trailing_zeros = (value & -value).bit_length() - 1
                        with m.Case(value):
                            m.d.sync += [digit.eq(value >> trailing_zeros),
                                         digit_bits.eq(window_width - trailing_zeros)]
                m.d.sync += squarings.eq(0)
                m.next = "EW_SQUARINGS"
            with m.State("EW_SQUARINGS"):
                with m.If(started & (squarings != digit_bits)):
                    self.multiply(m, dst, dst, dst, then="EW_SQUARINGS_WAIT")
                with m.Else():
                    m.next = "EW_DIGIT_MUL"
            with self.when_done(m, "EW_SQUARINGS_WAIT"):
                m.d.sync += squarings.eq(squarings + 1)
                m.next = "EW_SQUARINGS"
            with m.State("EW_DIGIT_MUL"):
                self.multiply(m, dst, dst, Mux(digit == 1, base, table_slot(digit)), then="EW_DIGIT_MUL_WAIT")
            with self.when_done(m, "EW_DIGIT_MUL_WAIT"):
                m.d.sync += [started.eq(1), bit_index.eq(bit_index - digit_bits),
                             remaining.eq(remaining - digit_bits)]
                m.next = "EW_TOP"
        return m


class LadderExponent(SchemeMachine):
    """EXP_LADDER: the Montgomery ladder, R0 = dst and R1 = ``LADDER_SLOT``, two products per bit."""

    def elaborate(self, platform):
        m = Module()
        base, dst = self.base, self.dst
        bit_index = Signal(EXP_INDEX_BITS, reset_less=True)     # the exponent bit being used
        bit = Signal(reset_less=True)

        with m.FSM():
            m.d.comb += self.busy.eq(1)
            with m.State("IDLE"):
                m.d.comb += self.busy.eq(0)
                with m.If(self.start):
                    m.d.sync += bit_index.eq(self.start_bits - 1)
                    m.next = "EL_INIT"
            with m.State("EL_INIT"):
                self.multiply(m, LADDER_SLOT, base, dst, then="EL_INIT_WAIT")
            with self.when_done(m, "EL_INIT_WAIT"):
                m.d.sync += bit_index.eq(self.exponent_bits - 1)
                m.next = "EL_BIT"
            with m.State("EL_BIT"):
                self.read_row(m, bit_index)
                m.next = "EL_BIT_WORD"
            with m.State("EL_BIT_WORD"):
                self.latch_word(m, bit_index)
                m.next = "EL_BIT_VALUE"
            with m.State("EL_BIT_VALUE"):
                m.d.sync += bit.eq(self.exponent_bit(bit_index))
                m.next = "EL_PRODUCT"
            with m.State("EL_PRODUCT"):
                # R_(1-bit) = R0 * R1
                self.multiply(m, Mux(bit, dst, LADDER_SLOT), dst, LADDER_SLOT, then="EL_PRODUCT_WAIT")
            with self.when_done(m, "EL_PRODUCT_WAIT"):
                m.next = "EL_SQUARE"
            with m.State("EL_SQUARE"):
                # R_bit = R_bit^2
                r_bit = Mux(bit, LADDER_SLOT, dst)
                self.multiply(m, r_bit, r_bit, r_bit, then="EL_SQUARE_WAIT")
            with self.when_done(m, "EL_SQUARE_WAIT"):
                with m.If(bit_index == 0):
                    self.finish(m)
                with m.Else():
                    m.d.sync += bit_index.eq(bit_index - 1)
                    m.next = "EL_BIT"
        return m


class FixedExponent(SchemeMachine):
    """EXP_FIXED: fixed windows of ``FIXED_WINDOW_BITS`` over the whole table; with ``start_pair``
    EXP_FIXED_PAIR, every product a pair and each window read for context 0, then context 1."""

    def __init__(self, config):
        super().__init__(config, {"start_pair": In(1)})

    def elaborate(self, platform):
        m = Module()
        L, W, KF = self.config.lanes, self.config.word_bits, FIXED_WINDOW_BITS
        log_word = W.bit_length() - 1
        base, dst = self.base, self.dst
        low = Signal(EXP_INDEX_BITS, reset_less=True)       # lowest bit index of the current window
        seek = Signal()                                     # stepping ``low`` up to the top window
        digit = Signal(KF, reset_less=True)
        digit1 = Signal(KF, reset_less=True)                # context 1's (EXP_FIXED_PAIR)
        pair = Signal(reset_less=True)                      # EXP_FIXED_PAIR: every product is a pair
        context = Signal(reset_less=True)                   # the context whose window is being read
        context_low = Signal(EXP_INDEX_BITS)                # ``low`` in that context's row of the exponent
        squarings = Signal(range(KF + 1), reset_less=True)
        table_digit = Signal(range(2 ** KF + 2), reset_less=True)   # the table entry being made
        started = Signal(reset_less=True)                   # a window has been multiplied in
        m.d.comb += context_low.eq(low + Mux(context, PAIR_ROW * L * W, 0))

        def multiply(dst_slot, a, b, then, b1=None):
            self.multiply(m, dst_slot, a, b, then, pair=pair, b1=b1)

        # the search for the top window: low = k*floor((bits-1)/k), one step of k per cycle from 0
        with m.If(seek):
            with m.If(low + KF < self.exponent_bits):
                m.d.sync += low.eq(low + KF)
            with m.Else():
                m.d.sync += seek.eq(0)

        with m.FSM():
            m.d.comb += self.busy.eq(1)
            with m.State("IDLE"):
                m.d.comb += self.busy.eq(0)
                with m.If(self.start):
                    m.d.sync += [started.eq(0), pair.eq(self.start_pair), context.eq(0), low.eq(0), seek.eq(1)]
                    m.next = "EF_ONE"

            # the whole table, t0 and t2 .. t_(2^k - 1), each product started in the cycle the one before
            # it is done (``table_digit``: the entry in flight)
            with m.State("EF_ONE"):
                multiply(fixed_table_slot(0), dst, dst, then="EF_ONE_WAIT")
            with self.when_done(m, "EF_ONE_WAIT"):
                multiply(fixed_table_slot(2), base, base, then="EF_TABLE_WAIT")
                m.d.sync += table_digit.eq(2)
            with self.when_done(m, "EF_TABLE_WAIT"):
                with m.If(table_digit == 2 ** KF - 1):
                    m.next = "EF_WINDOW"
                with m.Else():
                    multiply(fixed_table_slot(table_digit + 1), fixed_table_slot(table_digit), base,
                             then="EF_TABLE_WAIT")
                    m.d.sync += table_digit.eq(table_digit + 1)

            # the windows, from the top.  The word above the one holding bit ``low`` may lie past the
            # exponent's slot: it is then a row of the next slot, and only bits at or above ``bits`` come
            # from it, which read as 0.
            with m.State("EF_WINDOW"):
                with m.If(~seek):                   # always over by now (see the sequencer's docstring)
                    self.read_row(m, context_low + W)
                    m.next = "EF_WINDOW_HIGH"
            with m.State("EF_WINDOW_HIGH"):
                self.latch_word(m, context_low + W, high=True)
                self.read_row(m, context_low)
                m.next = "EF_WINDOW_LOW"
            with m.State("EF_WINDOW_LOW"):
                self.latch_word(m, context_low)
                m.next = "EF_DIGIT"
            with m.State("EF_DIGIT"):
                window = Cat(self.word, self.high_word).bit_select(low[:log_word], KF)
                below_bits = Cat(low + i < self.exponent_bits for i in range(KF))
                with m.If(pair & ~context):
                    # context 0's digit; now context 1's
                    m.d.sync += [digit.eq(window & below_bits), context.eq(1)]
                    m.next = "EF_WINDOW"
                with m.Else():
                    with m.If(pair):
                        m.d.sync += digit1.eq(window & below_bits)
                    with m.Else():
                        m.d.sync += digit.eq(window & below_bits)
                    m.d.sync += [squarings.eq(0), context.eq(0)]
                    with m.If(started):
                        m.next = "EF_SQUARINGS"
                    with m.Else():
                        m.next = "EF_DIGIT_MUL"
            with m.State("EF_SQUARINGS"):
                multiply(dst, dst, dst, then="EF_SQUARINGS_WAIT")
            # the window's squarings and its product: the first started from a state of its own, each
            # other in the cycle the one before it is done
            def digit_product():
                multiply(dst, dst, Mux(digit == 1, base, fixed_table_slot(digit)), then="EF_DIGIT_MUL_WAIT",
                         b1=Mux(digit1 == 1, base, fixed_table_slot(digit1)))

            with self.when_done(m, "EF_SQUARINGS_WAIT"):
                m.d.sync += squarings.eq(squarings + 1)
                with m.If(squarings == KF - 1):
                    digit_product()
                with m.Else():
                    multiply(dst, dst, dst, then="EF_SQUARINGS_WAIT")
            with m.State("EF_DIGIT_MUL"):
                digit_product()
            with self.when_done(m, "EF_DIGIT_MUL_WAIT"):
                m.d.sync += started.eq(1)
                with m.If(low == 0):
                    self.finish(m)
                with m.Else():
                    m.d.sync += low.eq(low - KF)
                    m.next = "EF_WINDOW"
        return m


#: The machine of each exponent scheme (``gateware.interface.EXPONENT_SCHEMES``), by the scheme's name.
MACHINES = {"window": WindowExponent, "ladder": LadderExponent, "fixed": FixedExponent}
