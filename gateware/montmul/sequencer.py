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
  t0 for a zero digit.  A window is read as the two words that hold it (3 cycles, its digit taken as its
  first squaring starts; 4 for the top window, which has no squarings), so neither the reading nor the
  products depend on the exponent's bits: the time is a function of the size and ``bits``.  The
  top window's position, k*floor((bits-1)/k), is found by stepping up from 0 by k once per cycle while
  the table is built: at most size*W/k + 1 steps against 2^k - 1 products of more than 2*size cycles, so
  the search has always ended when the table is.

* EXP_FIXED_PAIR: EXP_FIXED in both contexts of a pair (see ``gateware.interface``), in lock step: every
  product is a pair, and each window reads context 0's words, then context 1's (3 cycles each, the
  exponent's row 1 for context 1, context 0's digit taken while context 1's first row is read); the digit products differ only in b, which names each context's
  own table entry.

Every product is a request on ``mul`` (start with the slots, then wait for done); the state that issued it
names the state that continues when it is done.  Each scheme is its own machine (``schemes``) with its
own states; the sequencer latches the command's operands, starts the machine of the opcode and passes
its products to the core and its reads to the ``ExponentReader``.  One machine runs at a time.
"""

import operator
from functools import reduce

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..interface import ARG_BITS, SLOT_BITS, EXPONENT_SCHEMES, Opcode
from .control import ProductSignature
from .regfile import ReadPortSignature, row_address
from .schemes import ExponentReadSignature, MACHINES

__all__ = ["ExponentReader", "ExponentSequencer"]


class ExponentReader(wiring.Component):
    """The exponent's words, for the scheme machines (``requests``, one at a time).  A request's ``read``
    puts the register-file row holding bit ``read_index`` of slot ``exponent_slot`` on the read port;
    in the next cycle ``latch_word`` (or ``latch_high_word``) keeps the W-bit word holding bit
    ``latch_index`` of that row in ``word`` (or ``high_word``).

    Reset-less: both words are written before they are read in each exponentiation, and without a reset
    their logic stays out of Verilator's evaluation on input changes.  ``wipe`` (CLEAR) zeroes them."""

    def __init__(self, config, requesters):
        self.config = config
        super().__init__({
            "exponent_slot": In(SLOT_BITS),
            "requests":      In(ExponentReadSignature()).array(requesters),
            "read":          Out(ReadPortSignature(config.operand_rows, config.row_bits)),
            "word":          Out(config.word_bits),
            "high_word":     Out(config.word_bits),
            "wipe":          In(1),
        })

    def elaborate(self, platform):
        m = Module()
        cfg = self.config
        L, W = cfg.lanes, cfg.word_bits
        log_word = W.bit_length() - 1
        log_row = (L * W).bit_length() - 1
        rd = self.read
        word = Signal(W, reset_less=True, name="latched_word")
        high_word = Signal(W, reset_less=True, name="latched_high_word")
        m.d.comb += [self.word.eq(word), self.high_word.eq(high_word)]
        # One machine at a time, and a request's fields are 0 unless it reads or latches: their OR is the
        # request of the machine that runs (one word selection for all, not one per machine).
        def either(field):
            return Cat(getattr(request, field) for request in self.requests).any()

        def index(field):
            return reduce(operator.or_, (getattr(request, field) for request in self.requests))

        with m.If(either("read")):
            m.d.comb += [rd.en.eq(1), rd.addr.eq(row_address(cfg, self.exponent_slot, index("read_index") >> log_row))]
        latched = Array(rd.data.word_select(k, W) for k in range(L))[index("latch_index")[log_word:log_row]]
        with m.If(either("latch_word")):
            m.d.sync += word.eq(latched)
        with m.If(either("latch_high_word")):
            m.d.sync += high_word.eq(latched)
        with m.If(self.wipe):
            m.d.sync += [word.eq(0), high_word.eq(0)]
        return m


class ExponentSequencer(wiring.Component):
    """The exponentiations: one machine per scheme of ``gateware.interface.EXPONENT_SCHEMES``.

    ``start`` (one cycle, the operands already checked by the caller: ``dst`` differs from ``base`` and
    ``exponent``, 1 <= ``bits`` <= size*W) begins the exponentiation ``op`` (an opcode of one of
    the schemes); ``busy`` is high until the cycle in which ``done`` pulses.  Products go to the core
    through ``mul``; exponent bits are read through ``read``.  ``wipe`` (CLEAR, while idle) zeroes what
    the reader and the machines keep of the last exponent."""

    def __init__(self, config):
        self.config = config
        super().__init__({
            "start":    In(1),
            "op":       In(Opcode),
            "dst":      In(SLOT_BITS),
            "base":     In(SLOT_BITS),
            "exponent": In(SLOT_BITS),
            "bits":     In(ARG_BITS),
            "wipe":     In(1),
            "busy":     Out(1),
            "done":     Out(1),
            "mul":      Out(ProductSignature()),
            "read":     Out(ReadPortSignature(config.operand_rows, config.row_bits)),
        })

    def elaborate(self, platform):
        m = Module()
        cfg = self.config
        # one machine per scheme (gateware.interface.EXPONENT_SCHEMES), submodule sequencer.<name>
        machines = []
        for scheme in EXPONENT_SCHEMES:
            m.submodules[scheme.name] = machine = MACHINES[scheme.name](cfg)
            machines.append(machine)
        m.submodules.reader = reader = ExponentReader(cfg, len(machines))
        wiring.connect(m, reader.read, wiring.flipped(self.read))

        # the command's operands, kept for the whole exponentiation (reset-less: see ExponentReader)
        base = Signal(SLOT_BITS, reset_less=True, name="base_slot")
        exponent = Signal(SLOT_BITS, reset_less=True, name="exponent_slot")
        dst = Signal(SLOT_BITS, reset_less=True, name="dst_slot")
        bits = Signal(ARG_BITS, reset_less=True, name="exponent_bits")
        start = Signal()
        m.d.comb += [self.busy.eq(Cat(machine.busy for machine in machines).any()),
                     self.done.eq(Cat(machine.done for machine in machines).any()),
                     start.eq(self.start & ~self.busy), reader.exponent_slot.eq(exponent), reader.wipe.eq(self.wipe)]
        with m.If(start):
            m.d.sync += [base.eq(self.base), exponent.eq(self.exponent), dst.eq(self.dst), bits.eq(self.bits)]
        for scheme, machine in zip(EXPONENT_SCHEMES, machines):
            m.d.comb += machine.start.eq(start & Cat(self.op == op for op in scheme.opcodes).any())
            if scheme.pair_opcode is not None:
                m.d.comb += machine.start_pair.eq(self.op == scheme.pair_opcode)

        for machine, request in zip(machines, reader.requests):
            wiring.connect(m, machine.exponent, request)
            m.d.comb += [machine.word.eq(reader.word), machine.high_word.eq(reader.high_word),
                         machine.start_bits.eq(self.bits), machine.base.eq(base), machine.dst.eq(dst),
                         machine.exponent_bits.eq(bits), machine.wipe.eq(self.wipe),
                         machine.mul.busy.eq(self.mul.busy), machine.mul.done.eq(self.mul.done)]
            # the product of the machine that starts one (one machine runs at a time)
            with m.If(machine.mul.start):
                m.d.comb += [self.mul.start.eq(1), self.mul.pair.eq(machine.mul.pair), self.mul.dst.eq(machine.mul.dst),
                             self.mul.a.eq(machine.mul.a), self.mul.b.eq(machine.mul.b),
                             self.mul.b1.eq(machine.mul.b1)]
        return m
