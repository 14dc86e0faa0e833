"""A Python model of the Montgomery peripheral: what every bus access does, and in how many cycles.

It plays the part OpenTitan's ISS plays for OTBN: the RTL (``gateware.montmul``) is checked against
it (``tests/gateware/test_model.py``, ``test_fuzz.py``), and it answers what the RTL would answer,
at any size, in a fraction of the time.

* The arithmetic: ``mont_mul`` (the core's product), ``to_mont``/``from_mont``.
* The schedule: ``mul_cycles``, ``setmod_cycles``, ``exp_cycles``, ``add_cycles`` (ADD and SUB),
  ``equal_cycles``, ``copy_cycles`` and ``clear_cycles`` give the cycles of a command
  from the strobe that is accepted (counted as 1) to the first cycle ``status.busy`` reads 0
  (exclusive); a NOP takes 1.  An exponentiation is a program of Montgomery products
  (``exp_program``), built from the sliding-window decomposition of the exponent
  (``exponent_windows``, EXP_WINDOW), its bits (EXP_LADDER) or its fixed windows
  (``fixed_windows``, EXP_FIXED, whose program depends only on the exponent's declared length
  except for which table entry each window multiplies by); the model both executes that program
  and counts its cycles.
* ``PeripheralModel`` is the whole peripheral, one clock edge at a time: every slot, hidden ones
  too, as register-file rows, the modulus state, the bus pointers, status, irq and every refusal.
  ``gateware.driver.PeripheralModelTransport`` drives it like the RTL.

The operand contract is the RTL's (``gateware/montmul/``): b < N and a < R = 2^(W*size); outside
it the model gives a classic Montgomery product's value (not the quotient-pipelined core's), which
the RTL is not checked against.
"""

from dataclasses import dataclass
from functools import lru_cache

from amaranth.lib import data

from .interface import (WORD_BITS, BUS_BITS, NUM_SLOTS, NUM_BANKS, MIN_WORDS, WINDOW_BITS, SHORT_EXPONENT_BITS,
                        FIXED_WINDOW_BITS, SQUARE_SLOT, LADDER_SLOT, PAIR_ROW, table_slot, fixed_table_slot,
                        exponent_scheme, Opcode, ErrorCode, Command, Status, PeripheralConfig)

__all__ = [
    "size_words", "mont_mul", "to_mont", "from_mont",
    "mul_cycles", "setmod_cycles", "exp_cycles", "clear_cycles", "pair_mul_cycles", "pair_exp_cycles",
    "add_cycles", "sub_cycles", "equal_cycles", "copy_cycles", "add_sub",
    "wait_bounds", "exp_cycles_bound",
    "exponent_windows", "fixed_windows", "exp_program", "pair_program", "EXP_PROGRAMS", "PAIR_PROGRAMS", "Step",
    "Modulus", "PeripheralModel",
]


def size_words(bits, word_bits=WORD_BITS):
    """W-bit words of a ``bits``-bit modulus (the SETMOD size)."""
    return -(-bits // word_bits)


# ---- arithmetic --------------------------------------------------------------------------------

@lru_cache(maxsize=64)
def _neg_inverse(n, r_bits):
    """n' = -n^-1 mod R = 2^r_bits, the constant of the quotient digits (the core computes its low
    word at SETMOD)."""
    r = 1 << r_bits
    return -pow(n, -1, r) % r


def mont_mul(a, b, n, size, word_bits=WORD_BITS):
    """The core's product a*b*R^-1 mod n, R = 2^(W*size), the classic way: t = (ab + mn)/R with the
    quotient m = ab*n' mod R, then one conditional subtraction.  For b < n and a < R, t < 2n and the
    result is fully reduced, so it is the value of the core's quotient-pipelined product too
    (``gateware.quotient_pipelining``, whose digits and unreduced sum differ)."""
    r_bits = word_bits * size
    ab = a * b
    m = ab * _neg_inverse(n, r_bits) & ((1 << r_bits) - 1)
    t = (ab + m * n) >> r_bits
    return t - n if t >= n else t


def to_mont(x, n, size, word_bits=WORD_BITS):
    return (x << (word_bits * size)) % n


def from_mont(x, n, size, word_bits=WORD_BITS):
    return x * pow(1 << (word_bits * size), -1, n) % n


# ---- schedule ----------------------------------------------------------------------------------

def _rows(config, size):
    return -(-size // config.lanes)


def _check_bits(config, bits):
    if not MIN_WORDS <= size_words(bits, config.word_bits) <= config.max_words:
        raise ValueError(f"a {bits}-bit modulus does not fit this configuration (max_bits={config.max_bits})")
    return size_words(bits, config.word_bits)


def _classic_gap(period):
    """Iterations from the last (classic) iteration to its second pass (``montmul.head.classic_gap``)."""
    return 1 if period >= 4 else 2


def mul_cycles(config, bits):
    """Cycles of a MUL at the size of a ``bits``-bit modulus, from the core's schedule: the accepting
    cycle (which reads a's first row), the rest of the prologue (3: the first row is issued with its
    row of b, read in the cycle after the accepting one), ``size`` iterations of
    P = max(rows, 2) cycles and the classic second pass (one iteration, after another when P < 4), a
    cycle for the last row to land when there are several, the two row passes (rows + 3, rows).  The
    sequencer's products cost the same (issuing state, call, core), or a cycle less when chained
    (``Step``)."""
    size = _check_bits(config, bits)
    rows = _rows(config, size)
    period = max(rows, 2)
    return 1 + 3 + (size + _classic_gap(period)) * period + (rows > 1) + (rows + 3) + rows


def pair_mul_cycles(config, bits0, bits1, a_words=0):
    """Cycles of a MUL_PAIR with moduli of ``bits0`` and ``bits1`` bits (each within a row): the
    accepting cycle (which reads context 0's a row), the prologue (4: context 1's a row, then each
    context's b row, issued to the lanes as it is read), max(size0, size1) iterations of
    2 cycles (context 0's row, then context 1's) and two more for the classic second pass, then the
    two row passes over both rows (2 + 2 and 2: each row is its own number, so row 0's choice is made
    while row 1 is still being resolved).  The sequencer's pair products cost the same.  With a shared
    a of ``a_words`` words (MUL_PAIR's arg), that many iterations instead."""
    sizes = [_check_bits(config, bits) for bits in (bits0, bits1)]
    if not config.has_pairs or max(sizes) > config.pair_max_words:
        raise ValueError(f"no pair of {bits0}- and {bits1}-bit moduli in this configuration")
    if not 0 <= a_words <= config.max_words:
        raise ValueError(f"MUL_PAIR refuses a {a_words}-word a")
    return 1 + 4 + 2 * ((a_words or max(sizes)) + _classic_gap(2)) + (2 + 2) + 2


def setmod_cycles(config, bits, odd=True):
    """Cycles of a SETMOD at the size of a ``bits``-bit modulus: accept, read row 0, check n_0 (an
    even modulus ends here), W/2 steps of the n' inversion (two bits each), one per row copied, N'
    word-serially (size + 1 words through a read, a word select, a multiply and an add: two cycles more),
    one to latch the new state."""
    size = _check_bits(config, bits)
    if not odd:
        return 3
    return 3 + config.word_bits // 2 + _rows(config, size) + 2 + (size + 1) + 1


def _serial_words(config, bits):
    """The words the word-serial unit runs over at the size of a ``bits``-bit modulus (the size rounded
    up to even: words go out in pairs) and the rows they fill."""
    size = _check_bits(config, bits)
    return size + (size & 1), _rows(config, size)


def add_cycles(config, bits):
    """Cycles of an ADD (or a SUB) at the size of a ``bits``-bit modulus (bank 0's), from the word-serial
    unit's schedule (``gateware.montmul.wordserial``), with s' the size rounded up to even and r its
    rows: the accepting cycle (a's first row read), two per pair of words (a's pair selected, then b's
    and N's), 2 to add the last pair's words, 1 to write it into dst, then the pass over the rows (r
    reads, each row written a cycle after its read), which waits a cycle more with one row (the scratch
    slot's pair is written before its row is read): s' + r + 5, one more with one row."""
    words, rows = _serial_words(config, bits)
    return 1 + words + 2 + 1 + (rows == 1) + rows + 1


#: SUB runs ADD's schedule.
sub_cycles = add_cycles


def equal_cycles(config, bits):
    """Cycles of an EQUAL at the size of a ``bits``-bit modulus (bank 0's): ADD's until its last word is
    compared, and a cycle for the answer: s' + 4."""
    words, _rows = _serial_words(config, bits)
    return 1 + words + 2 + 1


def copy_cycles(config):
    """Cycles of a COPY: the accepting cycle (it reads the row), one per row of dst (row 0 the copy,
    the others zeroed), whatever the bank's size."""
    return 1 + config.rows_per_slot


def add_sub(op, a, b, n, size, word_bits=WORD_BITS):
    """What ADD or SUB (``op``) writes for operands a, b (below 2^(W*size)) and modulus n: (a +/- b) mod
    n for a, b < n.  For any words, as the unit computes it (R = 2^(W*size)): ADD gives S - N mod R if S =
    a + b >= n, else S; SUB gives a - b + n mod R if a < b, else a - b."""
    r = 1 << (word_bits * size)
    if Opcode(op) is Opcode.ADD:
        total = a + b
        return (total - n) % r if total >= n else total
    return (a - b + n) % r if a < b else a - b


def clear_cycles(config):
    """Cycles of a CLEAR: the contract's ``PeripheralConfig.clear_cycles``, the accepting cycle and one per
    operand row (every memory is wiped a row per cycle, in step), whatever the memories hold."""
    return config.clear_cycles


def exponent_windows(exponent, exponent_bits, width):
    """The sequencer's left-to-right sliding windows over the low ``exponent_bits`` bits of
    ``exponent``: (length, digit) pairs, a zero bit as (1, 0), a window as the ``length`` bits from
    a set bit down to the lowest set bit among the next ``width`` bits (bits below 0 read as 0), its
    value ``digit`` odd."""
    e = exponent_bits - 1
    while e >= 0:
        if not (exponent >> e) & 1:
            yield 1, 0
            e -= 1
            continue
        window = 0
        for j in range(width):
            window = window << 1 | ((exponent >> (e - j)) & 1 if e - j >= 0 else 0)
        zeros = (window & -window).bit_length() - 1
        yield width - zeros, window >> zeros
        e -= width - zeros


def fixed_windows(exponent, exponent_bits, width):
    """EXP_FIXED's windows over the low ``exponent_bits`` bits of ``exponent``, from the top: the
    digits of ``width`` bits each that spell it, ceil(exponent_bits / width) of them, the first one
    short when ``width`` does not divide ``exponent_bits``."""
    exponent &= (1 << exponent_bits) - 1
    for low in reversed(range(0, exponent_bits, width)):
        yield exponent >> low & ((1 << width) - 1)


@dataclass(frozen=True)
class Step:
    """A stretch of an exponentiation: ``overhead`` cycles of the sequencer's own (reading exponent
    bits, ending a window, the final check), then Montgomery products ``(dst, a, b)`` (slot numbers),
    each taking a MUL's cycles.  ``chained``: every product but the first starts in the cycle the one
    before it is done, which is then its accepting cycle, so it costs a cycle less, unless the one
    before has a single row (and is not a pair): its row 0 is written in that cycle, and the core
    makes its first read a cycle later."""
    overhead: int
    products: tuple = ()
    chained: bool = False

    def cycles(self, mul, overlap=1):
        """The step's cycles, each product taking ``mul`` and a chained one ``overlap`` less."""
        followers = len(self.products) - 1 if self.chained and self.products else 0
        return self.overhead + mul * len(self.products) - overlap * followers


def _fixed_program(exponent, exponent_bits, dst, base, width, contexts=1):
    acc = (dst, dst, dst)
    table = [(fixed_table_slot(0), dst, dst), (fixed_table_slot(2), base, base)]
    table += [(fixed_table_slot(digit), fixed_table_slot(digit - 1), base) for digit in range(3, 1 << width)]
    steps = [Step(0, tuple(table), chained=True)]
    for digit in fixed_windows(exponent, exponent_bits, width):
        # read the window's two words in each context (3 cycles each); k squarings but before the first
        # window, which takes a cycle more for its digit
        squares = (acc,) * width if len(steps) > 1 else ()
        multiply = (dst, dst, base if digit == 1 else fixed_table_slot(digit))
        steps.append(Step(3 * contexts + (not squares), squares + (multiply,), chained=True))
    return steps


def pair_program(exponents, exponent_bits, dst, base, width=FIXED_WINDOW_BITS):
    """EXP_FIXED_PAIR's steps: EXP_FIXED's program with every product a pair ``(dst, a, b, b1)``
    (``b1``: context 1's b) and two windows read per step (6 cycles, 7 for the first).  ``exponents``: (context 0's,
    context 1's)."""
    steps0, steps1 = (_fixed_program(e & ((1 << exponent_bits) - 1), exponent_bits, dst, base, width, contexts=2)
                      for e in exponents)
    return [Step(s0.overhead, tuple(p0 + (p1[2],) for p0, p1 in zip(s0.products, s1.products)), s0.chained)
            for s0, s1 in zip(steps0, steps1)]


def _ladder_program(exponent, exponent_bits, dst, base):
    r1 = LADDER_SLOT
    acc = (dst, dst, dst)
    steps = [Step(0, ((r1, base, dst),))]
    for i in reversed(range(exponent_bits)):
        # read the bit (3 cycles); R0 = dst, R1 swap roles with the bit
        if (exponent >> i) & 1:
            steps.append(Step(3, ((dst, dst, r1), (r1, r1, r1))))
        else:
            steps.append(Step(3, ((r1, dst, r1), acc)))
    return steps


def _window_program(exponent, exponent_bits, dst, base):
    acc = (dst, dst, dst)
    width = 1 if exponent_bits <= SHORT_EXPONENT_BITS else WINDOW_BITS
    steps = []
    if width > 1:
        square = SQUARE_SLOT
        table = [(square, base, base)]
        for digit in range(3, 1 << width, 2):
            table.append((table_slot(digit), base if digit == 3 else table_slot(digit - 2), square))
        steps.append(Step(0, tuple(table)))
    started = False                     # no squaring before the first window
    for length, digit in exponent_windows(exponent, exponent_bits, width):
        if digit == 0:
            # read the bit (3 cycles, the third issues the squaring)
            steps.append(Step(2, (acc,)) if started else Step(3))
            continue
        # read the window (3 per bit), end check and digit (2), end of the squarings (1)
        squares = (acc,) * length if started else ()
        multiply = (dst, dst, base if digit == 1 else table_slot(digit))
        steps.append(Step(3 * width + 3, squares + (multiply,)))
        started = True
    steps.append(Step(1))               # the check that finds no bit left
    return steps


def _fixed_program_k(exponent, exponent_bits, dst, base):
    return _fixed_program(exponent, exponent_bits, dst, base, FIXED_WINDOW_BITS)


#: Each exponent scheme's program (``gateware.interface.EXPONENT_SCHEMES``), by the scheme's name:
#: ``(exponent, exponent_bits, dst, base) -> [Step]``, the exponent already cut to ``exponent_bits``.
EXP_PROGRAMS = {"window": _window_program, "ladder": _ladder_program, "fixed": _fixed_program_k}
#: The same for the schemes with a pair opcode: ``(exponents, exponent_bits, dst, base) -> [Step]``
#: with products ``(dst, a, b, b1)``, ``exponents`` being (context 0's, context 1's).
PAIR_PROGRAMS = {"fixed": pair_program}


def exp_program(config, op, exponent, exponent_bits, dst, base):
    """The steps of a single (bank 0) exponentiation ``op`` (a scheme's opcode) on slots ``dst`` (the
    accumulator, which holds the Montgomery one, R mod N, when the command starts) and ``base``."""
    op = Opcode(op)
    scheme = exponent_scheme(op)
    if scheme is None or op is not scheme.opcode:
        raise ValueError(f"{op} is not a single exponentiation")
    return EXP_PROGRAMS[scheme.name](exponent & ((1 << exponent_bits) - 1), exponent_bits, dst, base)


def _program_cycles(steps, mul, overlap):
    return 1 + sum(step.cycles(mul, overlap) for step in steps)


def _chain_overlap(config, bits, pair=False):
    """Cycles a chained product saves (``Step``) after a product at the size of a ``bits``-bit modulus
    (``pair``: a pair product): one, but after a single product of one row."""
    return int(pair or _rows(config, _check_bits(config, bits)) > 1)


def _exp_op(mode):
    """The single opcode of the scheme ``mode`` names (its name, in any case) or is."""
    scheme = exponent_scheme(mode.lower() if isinstance(mode, str) else Opcode(mode))
    if scheme is None:
        raise ValueError(f"{mode!r} is not an exponent scheme")
    return scheme.opcode


def exp_cycles(config, bits, mode, exponent=None, exponent_bits=None, fixed_window_bits=FIXED_WINDOW_BITS):
    """Cycles of an exponentiation (``mode``: "window", "ladder", "fixed" or the opcode) at the size of
    a ``bits``-bit modulus with an ``exponent_bits``-bit exponent (default ``bits``).  ``exponent``
    defaults to all ones: the most windows, window mode's worst case (the counts of the ladder and of
    fixed windows do not depend on the value).  ``fixed_window_bits`` counts EXP_FIXED with another
    window width than the peripheral's, to compare widths::

        python -c "from gateware import model, interface as i; c = i.PeripheralConfig(); \
                   print([model.exp_cycles(c, 1024, 'fixed', fixed_window_bits=k) for k in (4, 5, 6)])"
    """
    if exponent_bits is None:
        exponent_bits = bits
    if not 1 <= exponent_bits <= config.word_bits * size_words(bits, config.word_bits):
        raise ValueError(f"EXP refuses a {exponent_bits}-bit exponent at the size of a {bits}-bit modulus")
    if exponent is None:
        exponent = (1 << exponent_bits) - 1
    op = _exp_op(mode)
    if op is Opcode.EXP_FIXED:
        steps = _fixed_program(exponent, exponent_bits, dst=0, base=1, width=fixed_window_bits)
    else:
        steps = exp_program(config, op, exponent, exponent_bits, dst=0, base=1)
    return _program_cycles(steps, mul_cycles(config, bits), _chain_overlap(config, bits))


def pair_exp_cycles(config, bits0, bits1, exponent_bits):
    """Cycles of an EXP_FIXED_PAIR with moduli of ``bits0`` and ``bits1`` bits and a declared exponent
    length of ``exponent_bits`` (the exponents' values do not count)."""
    steps = pair_program((0, 0), exponent_bits, dst=0, base=1)
    return _program_cycles(steps, pair_mul_cycles(config, bits0, bits1), _chain_overlap(config, bits0, pair=True))


# ---- how long a driver may wait ----------------------------------------------------------------

#: An exponentiation's bound (exp_cycles_bound): (exponent bits + EXP_EXTRA_PRODUCTS) *
#: EXP_PRODUCTS_PER_BIT products, each of a product's cycles + EXP_PRODUCT_OVERHEAD. Two products a bit
#: (the ladder's), every table entry of EXP_FIXED (64 products) and a few cycles of the sequencer's own
#: per product: tests/gateware/test_model.py checks every scheme against it.
EXP_PRODUCTS_PER_BIT = 2
EXP_EXTRA_PRODUCTS = 2 ** FIXED_WINDOW_BITS + 8
EXP_PRODUCT_OVERHEAD = 8


def exp_cycles_bound(mul, exponent_bits):
    """At least the cycles of any exponentiation (any scheme) of ``exponent_bits`` bits whose products
    take at most ``mul`` cycles each."""
    return (exponent_bits + EXP_EXTRA_PRODUCTS) * EXP_PRODUCTS_PER_BIT * (mul + EXP_PRODUCT_OVERHEAD)


def wait_bounds(config):
    """What a driver needs to bound its waits on the peripheral (gateware.header renders it):
    ``command``: the most cycles any command but an exponentiation keeps it busy (MUL at the largest
    size, SETMOD, MUL_PAIR with the widest shared a, CLEAR, ADD/SUB, EQUAL, COPY); ``mul_by_rows``: a product's most cycles at a
    modulus of r rows (index r; 0 unused); ``pair_mul``: a pair product's most (both moduli one row)."""
    rows = config.rows_per_slot
    row_bits = config.row_bits
    mul_by_rows = [0] + [mul_cycles(config, r * row_bits) for r in range(1, rows + 1)]
    command = max(mul_by_rows[-1], setmod_cycles(config, config.max_bits), clear_cycles(config),
                  add_cycles(config, config.max_bits), equal_cycles(config, config.max_bits), copy_cycles(config))
    pair_mul = 0
    if config.has_pairs:
        pair_mul = pair_mul_cycles(config, row_bits, row_bits)
        command = max(command, pair_mul_cycles(config, row_bits, row_bits, a_words=config.max_words))
    return {"command": command, "mul_by_rows": mul_by_rows, "pair_mul": pair_mul}


# ---- the peripheral, edge by edge --------------------------------------------------------------

@dataclass(frozen=True)
class Modulus:
    """The state SETMOD latches: N (its words below the size) and the size in W-bit words."""
    n: int
    size: int


class PeripheralModel:
    """The peripheral's state after each clock edge.

    ``edge(cmd=..., wdata=..., rdata_stb=...)`` is one rising edge with those strobes; ``status``
    (the raw word), ``rdata`` and ``irq`` are the outputs after it.  A command accepted at an edge
    that takes C cycles keeps ``busy`` for the next C - 1 edges and makes its effects visible at the
    last of them; any strobe during that time is refused with BUSY.  ``rdata`` is None where the RTL's
    is not meaningful: while busy, past the slot's end, and at the edge after the read pointer moved.
    """

    def __init__(self, config=PeripheralConfig()):
        self.config = config
        #: every slot (hidden ones too) as the integer of its register-file rows
        self.slots = [0] * config.total_slots
        self.modulus = None
        #: bank 1's modulus (context 1 of the pair commands)
        self.modulus1 = None
        self.done = 0
        #: the status bit of the last EQUAL
        self.equal = 0
        self.error = ErrorCode.NONE
        self.irq = 0
        #: edges after which irq read 1
        self.irq_count = 0
        self.wslot = self.wpos = self.rslot = self.rpos = 0
        self._remaining = 0             # edges until the running command's last one
        self._finish = None
        self._rdata_settled = False

    # -- outputs --

    @property
    def busy(self):
        return int(self._remaining > 0)

    @property
    def edges_to_idle(self):
        """Edges until ``busy`` reads 0 (0 when idle)."""
        return self._remaining

    @property
    def status(self):
        return Status.const({"busy": self.busy, "done": self.done, "equal": self.equal,
                             "error": self.error}).as_bits()

    @property
    def rdata(self):
        if self.busy or not self._rdata_settled or self.rpos == self.config.bus_words_per_slot:
            return None
        return self.slots[self.rslot] >> (BUS_BITS * self.rpos) & ((1 << BUS_BITS) - 1)

    def operand(self, slot):
        """A slot's value as the current size sees it (the words above the size are ignored)."""
        return self.slots[slot] & ((1 << (self.config.word_bits * self.modulus.size)) - 1)

    # -- clock --

    def edge(self, cmd=None, wdata=None, rdata_stb=False):
        """One clock edge; ``cmd``/``wdata``: the word on a strobed port (None: not strobed)."""
        irq = 0
        pointer = (self.rslot, self.rpos)
        was_busy = self.busy
        if was_busy:
            self._remaining -= 1
            if self._remaining == 0:
                irq = self._finish()
            if cmd is not None or wdata is not None or rdata_stb:
                self.error = ErrorCode.BUSY
                irq |= cmd is not None
        else:
            if wdata is not None:
                self._write_word(wdata)
            if rdata_stb:
                if self.rpos == self.config.bus_words_per_slot:
                    self.error = ErrorCode.OVERFLOW
                else:
                    self.rpos += 1
            if cmd is not None:
                irq = self._command(data.Const(Command, cmd))
        self.irq = int(irq)
        self.irq_count += self.irq
        self._rdata_settled = not was_busy and pointer == (self.rslot, self.rpos) and wdata is None

    def idle(self, edges):
        """``edges`` clock edges without strobes, the long stretches at once."""
        while edges > 0:
            if self._remaining > 2 and edges > 1:
                # nothing visible changes before the command's last edge: skip to the one before it
                skip = min(edges, self._remaining - 1)
                self._remaining -= skip
                self.irq = 0
                self._rdata_settled = False
                edges -= skip
            elif not self._remaining and edges > 2:
                self.edge()
                self.edge()             # irq has fallen, rdata has settled: nothing changes any more
                edges = 0
            else:
                self.edge()
                edges -= 1

    def _write_word(self, word):
        if self.wpos == self.config.bus_words_per_slot:
            self.error = ErrorCode.OVERFLOW
            return
        shift = BUS_BITS * self.wpos
        self.slots[self.wslot] = self.slots[self.wslot] & ~(((1 << BUS_BITS) - 1) << shift) | word << shift
        self.wpos += 1

    # -- commands --

    def _refuse(self, code):
        # a refused command leaves done, the slots, the pointers and the modulus as they were
        self.error = code
        return 1

    def _accept(self, cycles, finish=None):
        self.error = ErrorCode.NONE
        self.done = int(cycles == 1)
        if cycles > 1:
            self._remaining, self._finish = cycles - 1, finish
        return 0

    def _finished(self):
        self.done = 1
        return 1

    def _command(self, cmd):
        try:
            op = cmd.op
        except ValueError:              # not an opcode
            op = None
        dst, a, b, arg = cmd.dst, cmd.a, cmd.b, cmd.arg
        bad = {slot: slot >= NUM_SLOTS for slot in (dst, a, b)}
        scheme = exponent_scheme(op) if op is not None else None
        if op is Opcode.NOP:
            return self._accept(1)
        if op is Opcode.CLEAR:
            self.equal = 0
            return self._accept(clear_cycles(self.config), self._clear)
        if op is Opcode.WRITE:
            if bad[dst]:
                return self._refuse(ErrorCode.BAD_SLOT)
            self.wslot, self.wpos = dst, 0
            return self._accept(1)
        if op is Opcode.READ:
            if bad[a]:
                return self._refuse(ErrorCode.BAD_SLOT)
            self.rslot, self.rpos = a, 0
            return self._accept(1)
        if op is Opcode.SETMOD:
            if bad[a]:
                return self._refuse(ErrorCode.BAD_SLOT)
            if dst >= NUM_BANKS or (dst == 1 and not self.config.has_pairs):
                return self._refuse(ErrorCode.BAD_BANK)
            if not MIN_WORDS <= arg <= (self.config.pair_max_words if dst == 1 else self.config.max_words):
                return self._refuse(ErrorCode.BAD_SIZE)
            return self._setmod(a, arg, dst)
        if op in (Opcode.ADD, Opcode.SUB, Opcode.EQUAL):
            if (op is not Opcode.EQUAL and bad[dst]) or bad[a] or bad[b]:
                return self._refuse(ErrorCode.BAD_SLOT)
            if self.modulus is None:
                return self._refuse(ErrorCode.NO_MODULUS)
            bits = self.config.word_bits * self.modulus.size
            if op is Opcode.EQUAL:
                return self._accept(equal_cycles(self.config, bits), lambda: self._compare(a, b))
            return self._accept(add_cycles(self.config, bits), lambda: self._add_sub(op, dst, a, b))
        if op is Opcode.COPY:
            if bad[dst] or bad[a]:
                return self._refuse(ErrorCode.BAD_SLOT)
            if arg >= NUM_BANKS or (arg == 1 and not self.config.has_pairs):
                return self._refuse(ErrorCode.BAD_BANK)
            if (self.modulus, self.modulus1)[arg] is None:
                return self._refuse(ErrorCode.NO_MODULUS)
            return self._accept(copy_cycles(self.config), lambda: self._copy(dst, a, arg))
        if (op is Opcode.MUL_PAIR or scheme and op is scheme.pair_opcode) and self.config.has_pairs:
            if bad[dst] or bad[a] or bad[b]:
                return self._refuse(ErrorCode.BAD_SLOT)
            if self.modulus is None or self.modulus1 is None:
                return self._refuse(ErrorCode.NO_MODULUS)
            if self.modulus.size > self.config.lanes or (op is Opcode.MUL_PAIR and arg > self.config.max_words):
                return self._refuse(ErrorCode.BAD_SIZE)
            sizes = (self.modulus.size, self.modulus1.size)
            bits = [self.config.word_bits * size for size in sizes]
            if op is Opcode.MUL_PAIR:
                return self._run_pair_products(pair_mul_cycles(self.config, *bits, a_words=arg),
                                               [Step(0, ((dst, a, b, b),))], a_words=arg)
            mul = pair_mul_cycles(self.config, *bits)
            if dst in (a, b):
                return self._refuse(ErrorCode.ALIAS)
            if not 1 <= arg <= self.config.word_bits * max(sizes):
                return self._refuse(ErrorCode.BAD_EXP_BITS)
            # each exponent is its row's low ``arg`` bits (not cut at its own modulus' size)
            exponents = (self._row(b, 0), self._row(b, 1))
            steps = PAIR_PROGRAMS[scheme.name](exponents, arg, dst, a)
            overlap = _chain_overlap(self.config, bits[0], pair=True)
            return self._run_pair_products(_program_cycles(steps, mul, overlap), steps)
        if op is Opcode.MUL or scheme and op is scheme.opcode:
            if bad[dst] or bad[a] or bad[b]:
                return self._refuse(ErrorCode.BAD_SLOT)
            if self.modulus is None:
                return self._refuse(ErrorCode.NO_MODULUS)
            mul = mul_cycles(self.config, self.config.word_bits * self.modulus.size)
            if op is Opcode.MUL:
                return self._run_products(mul, [Step(0, ((dst, a, b),))])
            if dst in (a, b):
                return self._refuse(ErrorCode.ALIAS)
            if not 1 <= arg <= self.config.word_bits * self.modulus.size:
                return self._refuse(ErrorCode.BAD_EXP_BITS)
            steps = exp_program(self.config, op, self.operand(b), arg, dst, a)
            overlap = _chain_overlap(self.config, self.config.word_bits * self.modulus.size)
            return self._run_products(_program_cycles(steps, mul, overlap), steps)
        return self._refuse(ErrorCode.BAD_OPCODE)

    def _clear(self):
        # every slot and both banks wiped; the pointers stay
        self.slots = [0] * self.config.total_slots
        self.modulus = self.modulus1 = None
        return self._finished()

    def _add_sub(self, op, dst, a, b):
        # the scratch slot's words (the other candidate) are left out: no command reads them before
        # writing them
        self._write_result(dst, add_sub(op, self.operand(a), self.operand(b), self.modulus.n, self.modulus.size,
                                        self.config.word_bits))
        return self._finished()

    def _compare(self, a, b):
        self.equal = int(self.operand(a) == self.operand(b))
        return self._finished()

    def _copy(self, dst, a, bank):
        # context ``bank``'s operand into row 0, every other row 0
        self.slots[dst] = self._context(a, bank)
        return self._finished()

    def _setmod(self, slot, size, bank=0):
        n = self.slots[slot] & ((1 << (self.config.word_bits * size)) - 1)
        odd = n & 1
        bits = size * self.config.word_bits

        def finish():
            if not odd:
                self.error = ErrorCode.EVEN_MODULUS     # found after the accept: done stays 0
                return 1
            if bank:
                self.modulus1 = Modulus(n, size)
            else:
                self.modulus = Modulus(n, size)
            return self._finished()

        return self._accept(setmod_cycles(self.config, bits, odd), finish)

    def _run_products(self, cycles, steps):
        def finish():
            for step in steps:
                for dst, a, b in step.products:
                    self._write_result(dst, mont_mul(self.operand(a), self.operand(b),
                                                     self.modulus.n, self.modulus.size, self.config.word_bits))
            return self._finished()

        return self._accept(cycles, finish)

    def _row(self, slot, ctx):
        """Context ``ctx``'s row of ``slot`` in a pair command (row 0 or ``PAIR_ROW``)."""
        row_bits = self.config.row_bits
        return self.slots[slot] >> (ctx * PAIR_ROW * row_bits) & ((1 << row_bits) - 1)

    def _context(self, slot, ctx):
        """Context ``ctx``'s operand of a pair command in ``slot`` (its row, below its modulus' size)."""
        size = (self.modulus, self.modulus1)[ctx].size
        return self._row(slot, ctx) & ((1 << (self.config.word_bits * size)) - 1)

    def _run_pair_products(self, cycles, steps, a_words=0):
        def finish():
            row_bits = self.config.row_bits
            for step in steps:
                for dst, a, b, b1 in step.products:
                    for ctx, (bank, slot_b) in enumerate(((self.modulus, b), (self.modulus1, b1))):
                        b_value = self._context(slot_b, ctx)
                        if a_words:     # the shared a, and R = 2^(W*a_words)
                            shared = self.slots[a] & ((1 << (self.config.word_bits * a_words)) - 1)
                            value = mont_mul(shared, b_value, bank.n, a_words, self.config.word_bits)
                        else:
                            value = mont_mul(self._context(a, ctx), b_value, bank.n, bank.size,
                                             self.config.word_bits)
                        shift = ctx * PAIR_ROW * row_bits
                        row_mask = ((1 << row_bits) - 1) << shift
                        self.slots[dst] = self.slots[dst] & ~row_mask | value << shift
            return self._finished()

        return self._accept(cycles, finish)

    def _write_result(self, dst, value):
        # the result covers whole register-file rows: the words above the size up to the end of the
        # last row become 0, the rows above it keep their words
        words = _rows(self.config, self.modulus.size) * self.config.lanes
        self.slots[dst] = self.slots[dst] >> (self.config.word_bits * words) << (self.config.word_bits * words) | value
