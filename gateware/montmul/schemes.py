"""The exponent sequencer's machines, one per scheme: EXP_WINDOW, EXP_LADDER and EXP_FIXED (with
EXP_FIXED_PAIR).  See ``gateware.montmul.sequencer`` for what each computes and how long it takes.

Each machine has its own states, named with its prefix (EW_, EL_, EF_) so that state names stay unique
across machines: IDLE until ``start``, then back to IDLE in the cycle it pulses ``done``.  It issues its
products on ``mul``, each waited for in a state named ``*_WAIT`` (``when_done``), and reads the exponent
through ``exponent`` (an ``ExponentReader`` request): a bit costs three cycles, the register-file row
holding it (``read``), the W-bit word holding it (``latch_word``), then the bit (``exponent_bit``).

Each machine also declares what the formal proofs need to know of it (``FORMAL``, a ``FormalFacts``):
``gateware.tools.formal`` gathers the declarations of every machine in ``MACHINES`` and names no scheme
itself.
"""

from contextlib import contextmanager
from dataclasses import dataclass
from types import SimpleNamespace

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..interface import (ARG_BITS, EXP_INDEX_BITS, SLOT_BITS, WINDOW_BITS, SHORT_EXPONENT_BITS,
                         FIXED_WINDOW_BITS, SQUARE_SLOT, LADDER_SLOT, PAIR_ROW, table_slot, fixed_table_slot)
from .control import ProductSignature

__all__ = ["ExponentReadSignature", "FormalFacts", "SchemeMachine", "WindowExponent", "LadderExponent",
           "FixedExponent", "MACHINES"]


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


@dataclass(frozen=True)
class FormalFacts:
    """What a scheme machine declares for the formal proofs (``gateware.tools.formal``), in the names of
    its own states and registers (as in its module: the prover adds the path ``sequencer.<scheme>.``).

    The covers are reached from reset under the constant-time proof's assumptions, for a scheme whose
    opcodes that proof allows: they show that the proof has runs of the scheme to be about.  A scheme
    whose time follows the exponent is outside that proof and declares none."""
    #: States reached early (the scheme's first product under way): the shallow cover.
    covers: tuple = ()
    #: States reached later: the deep cover, which also reaches a pair product.
    deep_covers: tuple = ()
    #: Registers set only while the machine runs (in a state other than IDLE): invariants the integrity
    #: proof needs to be inductive, asserted (and so proved) with it.
    running_only: tuple = ()


class SchemeMachine(wiring.Component):
    """What the three machines share: their ports and the steps every state is written with.

    ``start`` comes with the command's ``start_bits``; ``base``, ``dst`` and ``exponent_bits`` are the command's
    operands from the next cycle on (kept by the sequencer); ``word`` and ``high_word`` the words of the
    exponent latched by ``ExponentReader``.  ``wipe`` (CLEAR, while every machine is idle): each machine
    zeroes the registers that keep bits of the last exponent (``wipe_registers``)."""

    #: What the formal proofs need to know of this machine (each subclass declares its own).
    FORMAL = FormalFacts()

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
            "wipe":       In(1),
            **(ports or {}),
        })

    def wipe_registers(self, m, *registers):
        """Zero ``registers`` (bits of the exponent: windows, digits) while ``wipe``; called last in
        ``elaborate``, so that it wins over the states' assignments."""
        with m.If(self.wipe):
            m.d.sync += [register.eq(0) for register in registers]

    def multiply(self, m, dst, a, b, then, pair=0, b1=None):
        """Start dst = a*b*R^-1 in this cycle (a pair if ``pair``, context 1's b being ``b1``, by default
        ``b``); state ``then`` waits for it."""
        m.d.comb += [self.mul.start.eq(1), self.mul.pair.eq(pair), self.mul.dst.eq(dst), self.mul.a.eq(a),
                     self.mul.b.eq(b), self.mul.b1.eq(b if b1 is None else b1)]
        m.next = then

    @contextmanager
    def when_done(self, m, state):
        """State ``state`` waits for the product in flight; the body runs in the cycle it is done."""
        # the formal proofs find the states in which a product may run by this suffix
        assert state.endswith("_WAIT"), state
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

    # variable time: outside the constant-time proof, so no covers of its own
    FORMAL = FormalFacts()

    def _registers(self):
        """Reset-less: written before they are read in each exponentiation (see ExponentReader)."""
        K = WINDOW_BITS
        s = SimpleNamespace()
        s.bit_index = Signal(EXP_INDEX_BITS, reset_less=True)     # the next exponent bit
        s.remaining = Signal(EXP_INDEX_BITS, reset_less=True)     # exponent bits not yet consumed
        s.window_width = Signal(range(K + 1), reset_less=True)    # K, or 1 for short exponents
        s.window = Signal(K, reset_less=True)                     # window bits read so far, the first (top) one set
        s.window_read = Signal(range(K + 1), reset_less=True)     # how many
        s.window_index = Signal(EXP_INDEX_BITS, reset_less=True)  # the next window bit to read
        s.digit = Signal(K, reset_less=True)                      # the window without its trailing zeros
        s.digit_bits = Signal(range(K + 1), reset_less=True)      # its length
        s.squarings = Signal(range(K + 1), reset_less=True)
        s.table_digit = Signal(range(2 ** K + 2), reset_less=True)  # the table entry being made
        s.started = Signal(reset_less=True)                       # a window has been multiplied in
        return s

    def _table(self, m, s):
        """The table of odd powers: a^2 in ``SQUARE_SLOT``, then a^3 .. a^(2^K - 1)."""
        base, table_digit = self.base, s.table_digit
        with m.State("EW_SQUARE"):
            self.multiply(m, SQUARE_SLOT, base, base, then="EW_SQUARE_WAIT")
        with self.when_done(m, "EW_SQUARE_WAIT"):
            m.next = "EW_TABLE"
        with m.State("EW_TABLE"):
            self.multiply(m, table_slot(table_digit), Mux(table_digit == 3, base, table_slot(table_digit - 2)),
                          SQUARE_SLOT, then="EW_TABLE_WAIT")
        with self.when_done(m, "EW_TABLE_WAIT"):
            m.d.sync += table_digit.eq(table_digit + 2)
            with m.If(table_digit == 2 ** WINDOW_BITS - 1):
                m.next = "EW_TOP"
            with m.Else():
                m.next = "EW_TABLE"

    def _top_bit(self, m, s):
        """The exponent, top bit first: a zero bit costs a squaring, a one bit starts a window."""
        dst, bit_index, remaining = self.dst, s.bit_index, s.remaining
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
                with m.If(s.started):
                    self.multiply(m, dst, dst, dst, then="EW_ZERO_WAIT")
                with m.Else():
                    m.d.sync += [bit_index.eq(bit_index - 1), remaining.eq(remaining - 1)]
                    m.next = "EW_TOP"
            with m.Else():
                m.d.sync += [s.window.eq(1), s.window_read.eq(1), s.window_index.eq(bit_index - 1)]
                m.next = "EW_WINDOW"
        with self.when_done(m, "EW_ZERO_WAIT"):
            m.d.sync += [bit_index.eq(bit_index - 1), remaining.eq(remaining - 1)]
            m.next = "EW_TOP"

    def _window(self, m, s):
        """A window: its bits read, its digit found, its squarings and its product."""
        K = WINDOW_BITS
        base, dst = self.base, self.dst
        window, window_read, window_index, window_width = s.window, s.window_read, s.window_index, s.window_width
        digit, digit_bits, squarings = s.digit, s.digit_bits, s.squarings
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
            with m.If(s.started & (squarings != digit_bits)):
                self.multiply(m, dst, dst, dst, then="EW_SQUARINGS_WAIT")
            with m.Else():
                m.next = "EW_DIGIT_MUL"
        with self.when_done(m, "EW_SQUARINGS_WAIT"):
            m.d.sync += squarings.eq(squarings + 1)
            m.next = "EW_SQUARINGS"
        with m.State("EW_DIGIT_MUL"):
            self.multiply(m, dst, dst, Mux(digit == 1, base, table_slot(digit)), then="EW_DIGIT_MUL_WAIT")
        with self.when_done(m, "EW_DIGIT_MUL_WAIT"):
            m.d.sync += [s.started.eq(1), s.bit_index.eq(s.bit_index - digit_bits),
                         s.remaining.eq(s.remaining - digit_bits)]
            m.next = "EW_TOP"

    def elaborate(self, platform):
        m = Module()
        s = self._registers()
        with m.FSM():
            m.d.comb += self.busy.eq(1)
            with m.State("IDLE"):
                m.d.comb += self.busy.eq(0)
                with m.If(self.start):
                    m.d.sync += [s.bit_index.eq(self.start_bits - 1), s.remaining.eq(self.start_bits),
                                 s.started.eq(0)]
                    with m.If(self.start_bits <= SHORT_EXPONENT_BITS):
                        m.d.sync += s.window_width.eq(1)
                        m.next = "EW_TOP"
                    with m.Else():
                        m.d.sync += [s.window_width.eq(WINDOW_BITS), s.table_digit.eq(3)]
                        m.next = "EW_SQUARE"
            self._table(m, s)
            self._top_bit(m, s)
            self._window(m, s)
        self.wipe_registers(m, s.window, s.digit, s.digit_bits, s.squarings)
        return m


class LadderExponent(SchemeMachine):
    """EXP_LADDER: the Montgomery ladder, R0 = dst and R1 = ``LADDER_SLOT``, two products per bit."""

    FORMAL = FormalFacts(covers=("EL_INIT_WAIT",))

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
        self.wipe_registers(m, bit)
        return m


class FixedExponent(SchemeMachine):
    """EXP_FIXED: fixed windows of ``FIXED_WINDOW_BITS`` over the whole table; with ``start_pair``
    EXP_FIXED_PAIR, every product a pair and each window read for context 0, then context 1."""

    # ``seek`` runs while the table is built, so only while the machine does
    FORMAL = FormalFacts(covers=("EF_ONE_WAIT",), deep_covers=("EF_TABLE_WAIT",), running_only=("seek",))

    def __init__(self, config):
        super().__init__(config, {"start_pair": In(1)})

    def _registers(self, m):
        L, W, KF = self.config.lanes, self.config.word_bits, FIXED_WINDOW_BITS
        s = SimpleNamespace()
        s.low = Signal(EXP_INDEX_BITS, reset_less=True)     # lowest bit index of the current window
        s.seek = Signal()                                   # stepping ``low`` up to the top window
        s.digit = Signal(KF, reset_less=True)
        s.digit1 = Signal(KF, reset_less=True)              # context 1's (EXP_FIXED_PAIR)
        s.pair = Signal(reset_less=True)                    # EXP_FIXED_PAIR: every product is a pair
        s.context = Signal(reset_less=True)                 # the context whose window is being read
        s.context_low = Signal(EXP_INDEX_BITS)              # ``low`` in that context's row of the exponent
        s.squarings = Signal(range(KF + 1), reset_less=True)
        s.table_digit = Signal(range(2 ** KF + 2), reset_less=True)     # the table entry being made
        s.started = Signal(reset_less=True)                 # a window has been multiplied in
        m.d.comb += s.context_low.eq(s.low + Mux(s.context, PAIR_ROW * L * W, 0))
        return s

    def _multiply(self, m, s, dst_slot, a, b, then, b1=None):
        self.multiply(m, dst_slot, a, b, then, pair=s.pair, b1=b1)

    def _seek(self, m, s):
        """The search for the top window: low = k*floor((bits-1)/k), one step of k per cycle from 0."""
        with m.If(s.seek):
            with m.If(s.low + FIXED_WINDOW_BITS < self.exponent_bits):
                m.d.sync += s.low.eq(s.low + FIXED_WINDOW_BITS)
            with m.Else():
                m.d.sync += s.seek.eq(0)

    def _table(self, m, s):
        """The whole table, t0 and t2 .. t_(2^k - 1), each product started in the cycle the one before it
        is done (``table_digit``: the entry in flight)."""
        base, dst, table_digit = self.base, self.dst, s.table_digit
        with m.State("EF_ONE"):
            self._multiply(m, s, fixed_table_slot(0), dst, dst, then="EF_ONE_WAIT")
        with self.when_done(m, "EF_ONE_WAIT"):
            self._multiply(m, s, fixed_table_slot(2), base, base, then="EF_TABLE_WAIT")
            m.d.sync += table_digit.eq(2)
        with self.when_done(m, "EF_TABLE_WAIT"):
            with m.If(table_digit == 2 ** FIXED_WINDOW_BITS - 1):
                m.next = "EF_WINDOW"
            with m.Else():
                self._multiply(m, s, fixed_table_slot(table_digit + 1), fixed_table_slot(table_digit), base,
                               then="EF_TABLE_WAIT")
                m.d.sync += table_digit.eq(table_digit + 1)

    def _latch_digit(self, m, s, digit):
        """Keep in ``digit`` the window at ``low`` of the two latched words (in the cycle after the low word
        is latched, or a later one before the next latch)."""
        W, KF = self.config.word_bits, FIXED_WINDOW_BITS
        window = Cat(self.word, self.high_word).bit_select(s.low[:W.bit_length() - 1], KF)
        below_bits = Cat(s.low + i < self.exponent_bits for i in range(KF))
        m.d.sync += digit.eq(window & below_bits)

    def _last_digit(self, m, s):
        """The digit of the context read last (context 1's in a pair)."""
        with m.If(s.pair):
            self._latch_digit(m, s, s.digit1)
        with m.Else():
            self._latch_digit(m, s, s.digit)

    def _read_window(self, m, s):
        """A window's digits, from the top: per context, the row of the word above the one holding bit
        ``low``, then the row of that word, each word latched in the cycle after its row.  Context 0's
        digit is taken while context 1's first row is read; the last context's as the window's first
        squaring starts (``_window_products``), or, in the top window, which has no squarings, in a cycle
        of its own (EF_DIGIT).  The word above may lie past the exponent's slot: it is then a row of the
        next slot, and only bits at or above ``bits`` come from it, which read as 0."""
        W = self.config.word_bits
        pair, context, context_low = s.pair, s.context, s.context_low
        with m.State("EF_WINDOW"):
            with m.If(context):
                self._latch_digit(m, s, s.digit)
            with m.If(~s.seek):                 # always over by now (see the sequencer's docstring)
                self.read_row(m, context_low + W)
                m.next = "EF_WINDOW_HIGH"
        with m.State("EF_WINDOW_HIGH"):
            self.latch_word(m, context_low + W, high=True)
            self.read_row(m, context_low)
            m.next = "EF_WINDOW_LOW"
        with m.State("EF_WINDOW_LOW"):
            self.latch_word(m, context_low)
            with m.If(pair & ~context):
                # now context 1's words
                m.d.sync += context.eq(1)
                m.next = "EF_WINDOW"
            with m.Else():
                m.d.sync += [s.squarings.eq(0), context.eq(0)]
                with m.If(s.started):
                    m.next = "EF_SQUARINGS"
                with m.Else():
                    m.next = "EF_DIGIT"
        with m.State("EF_DIGIT"):
            self._last_digit(m, s)
            m.next = "EF_DIGIT_MUL"

    def _window_products(self, m, s):
        """The window's squarings and its product: the first started from a state of its own, each other
        in the cycle the one before it is done."""
        base, dst, squarings = self.base, self.dst, s.squarings
        with m.State("EF_SQUARINGS"):
            self._last_digit(m, s)
            self._multiply(m, s, dst, dst, dst, then="EF_SQUARINGS_WAIT")

        def digit_product():
            self._multiply(m, s, dst, dst, Mux(s.digit == 1, base, fixed_table_slot(s.digit)),
                           then="EF_DIGIT_MUL_WAIT", b1=Mux(s.digit1 == 1, base, fixed_table_slot(s.digit1)))

        with self.when_done(m, "EF_SQUARINGS_WAIT"):
            m.d.sync += squarings.eq(squarings + 1)
            with m.If(squarings == FIXED_WINDOW_BITS - 1):
                digit_product()
            with m.Else():
                self._multiply(m, s, dst, dst, dst, then="EF_SQUARINGS_WAIT")
        with m.State("EF_DIGIT_MUL"):
            digit_product()
        with self.when_done(m, "EF_DIGIT_MUL_WAIT"):
            m.d.sync += s.started.eq(1)
            with m.If(s.low == 0):
                self.finish(m)
            with m.Else():
                m.d.sync += s.low.eq(s.low - FIXED_WINDOW_BITS)
                m.next = "EF_WINDOW"

    def elaborate(self, platform):
        m = Module()
        s = self._registers(m)
        self._seek(m, s)
        with m.FSM():
            m.d.comb += self.busy.eq(1)
            with m.State("IDLE"):
                m.d.comb += self.busy.eq(0)
                with m.If(self.start):
                    m.d.sync += [s.started.eq(0), s.pair.eq(self.start_pair), s.context.eq(0), s.low.eq(0),
                                 s.seek.eq(1)]
                    m.next = "EF_ONE"
            self._table(m, s)
            self._read_window(m, s)
            self._window_products(m, s)
        self.wipe_registers(m, s.digit, s.digit1)
        return m


#: The machine of each exponent scheme (``gateware.interface.EXPONENT_SCHEMES``), by the scheme's name.
MACHINES = {"window": WindowExponent, "ladder": LadderExponent, "fixed": FixedExponent}
