"""The bus-facing contract of the Montgomery peripheral: the one source of truth.

Everything the LiteX wrapper, the C driver and the tests need to agree on is defined here once:
the internal word width, the slot counts and the hidden slots' plan, the command word layout, the
opcodes, the error codes and the status bits.  ``gateware.header.c_header(config)`` renders the same facts as a C
header for the firmware.

The peripheral's bus ports: ``cmd`` with ``cmd_stb`` (a command word, issued in the cycle of its
strobe), ``wdata`` with ``wdata_stb`` (the next 32-bit word of the slot a WRITE selected; the write
pointer moves on), ``rdata`` with ``rdata_stb`` (``rdata`` is the word at the read pointer, which a READ
sets and the strobe moves on; it shows the word a strobe or command leads to two cycles after it),
``status`` (the ``Status`` word) and ``irq``.  The SoC (``soc/montmul.py``) makes ``cmd``, ``status`` and a
reset CSRs, and the data port one 32-bit word of its Wishbone bus, the data window: a store there is
a ``wdata_stb``, a load returns ``rdata`` and strobes ``rdata_stb``.

The three exponentiations compute dst = a^e in the Montgomery domain from the exponent's low ``arg``
bits, dst holding R mod N (the Montgomery one) when the command starts:

* EXP_WINDOW: sliding windows of ``WINDOW_BITS`` over a table of odd powers; zero bits are cheaper, so
  its time depends on the exponent.  The fastest on average, for public exponents.
* EXP_LADDER: the Montgomery ladder, two products per bit whatever the bit.
* EXP_FIXED: fixed windows of ``FIXED_WINDOW_BITS``, aligned to bit 0, over the table of every power
  a^0 .. a^(2^k - 1); every window, a zero digit too, costs k squarings and one product.  Its time
  depends only on the operand size and ``arg`` (the declared exponent length), never on the
  exponent's bits, and it needs far fewer products than the ladder: the mode for secret exponents.

Two moduli can be resident at once, in modulus banks 0 and 1 (SETMOD's ``dst`` field names the bank).
Every single command (MUL, EXP_*) uses bank 0.  The pair commands run two independent computations
in one command, context 0 over bank 0 and context 1 over bank 1, for the two halves of an RSA CRT:

* operands: context 0's in row 0 of each named slot (the bus words below ``pair_offset``), context 1's
  in row 1 (bus words ``pair_offset`` = lanes*W/32 onwards), so a slot holds x0 + 2^(lanes*W) x1;
* both moduli must fit one register-file row (size <= lanes words), which is where a single product
  leaves the lanes idle every other cycle: the core issues context 0's rows and context 1's rows
  in alternate cycles, each context with its own quotient digits, so a pair costs little more than one;
* MUL_PAIR: dst = a*b*R^-1 in each context (R = 2^(W*size) of that context's modulus).  With
  ``arg`` = A != 0 (A <= max_words; BAD_SIZE above) both contexts multiply by the same a, slot a's low A
  words from its row 0 up, which may be wider than the moduli: dst_k = a*b_k*2^(-W*A) mod N_k (b_k <
  N_k).  With b_k = 2^(W*(A + size_k)) mod N_k that is a mod N_k in Montgomery form: an RSA input
  reduced modulo both factors and converted in one command;
* EXP_FIXED_PAIR: EXP_FIXED in each context, the two in lock step over the same declared exponent
  length ``arg`` <= max(size0, size1)*W (context 0's exponent: the low ``arg`` bits of row 0 of slot b,
  context 1's of row 1, each read up to ``arg`` even past its own modulus' size), so the time is a
  function of the two sizes and ``arg`` only.

Four word-serial commands finish what the products start (an RSA CRT's Garner step, its recombination
and its fault check, and the modular additions of elliptic-curve arithmetic) without moving operands over
the bus.  They run W bits a cycle, in a number of cycles that depends only on the configuration and the
sizes of the moduli in force, never on the operands:

* ADD dst, a, b: dst = (a + b) mod N over bank 0's modulus, for a, b < N; SUB: dst = (a - b) mod N.
  Like a product's result, dst's rows 0 .. rows-1 are written, the words above the size in its last row
  become 0, its rows above keep their words; dst may be a and/or b.  Both candidates (a +/- b and that
  corrected by N) are made in one pass over the words, the second kept in ``SCRATCH_SLOT``, and a pass
  over the rows copies the right one into dst: a +/- b outside [0, N) takes the corrected one.  (Exactly,
  for any words: ADD's sum S = a + b gives S - N mod R if S >= N, else S; SUB gives a - b + N mod R if
  a < b, else a - b; R = 2^(W*size).)
* COPY dst, a, arg = k: context k's operand as a single operand: dst's row 0 = row k of slot a, its
  words below bank k's size (0 above), and every other row of dst 0.  Refused with BAD_BANK for a k
  other than 0 and 1 (1 only with pairs) and with NO_MODULUS when bank k has none; b is ignored.
* EQUAL a, b: the status bit ``equal`` reads 1 if the words below bank 0's size of slots a and b are
  equal, 0 if not; it keeps the answer of the last EQUAL that completed (0 after reset and after
  CLEAR) whatever the other commands do.  dst is ignored.

They refuse a slot field above the user slots (BAD_SLOT, only the fields they use) and run only with
bank 0's modulus in force (NO_MODULUS; COPY: bank k's).

CLEAR wipes the peripheral: it zeroes every row of every memory that can hold an operand or a value
derived from one (every slot, user and hidden, both modulus banks and their N', the core's copy of b
and its accumulator) and the registers that hold such words (the moduli in force, n', the core's
digits and a's words, the exponent's latched words and window bits, the word-serial unit's latched
row, words and carries), one row per cycle, all memories in step.  It takes ``PeripheralConfig.clear_cycles`` cycles, a function of the configuration only
(1 + ``operand_rows``), whatever the memories hold; its fields are ignored.  Afterwards no modulus is in
force (a product or exponentiation is refused with NO_MODULUS until a SETMOD), every slot reads 0 and
``equal`` reads 0 (from the CLEAR's accepting cycle on); the bus pointers stay where they were.
"""

from dataclasses import dataclass

from amaranth.lib import data, enum

__all__ = [
    "WORD_BITS", "LANES_DEFAULT", "BUS_BITS", "NUM_SLOTS", "NUM_HIDDEN_SLOTS", "TOTAL_SLOTS", "SLOT_FIELD_BITS",
    "SLOT_BITS", "WORD_BITS_CHOICES", "ARG_BITS", "SIZE_BITS", "EXP_INDEX_BITS", "MAX_BITS_DEFAULT", "MIN_WORDS",
    "WINDOW_BITS", "SHORT_EXPONENT_BITS", "FIXED_WINDOW_BITS", "SQUARE_SLOT", "LADDER_SLOT", "SCRATCH_SLOT", "table_slot",
    "fixed_table_slot", "NUM_BANKS", "PAIR_ROW", "Opcode", "ExponentScheme", "EXPONENT_SCHEMES", "FIRMWARE_SCHEMES",
    "exponent_scheme", "ErrorCode", "Command", "Status", "PeripheralConfig", "pack_cmd", "bus_words", "field_offsets",
]

#: Internal word width W (bits) of the default configuration, the SoC's (``PeripheralConfig().word_bits``).
#: A 32 x 32 product takes 3 DSP48E1 (a 16-bit one would fit one); 32 lanes of it make a 1024-bit row,
#: so RSA-2048's halves run as pairs, within the xc7z020's 220 DSPs.
WORD_BITS = 32
#: Multiplier lanes of the default configuration (``PeripheralConfig().lanes``).
LANES_DEFAULT = 32
#: Width of a bus data word.
BUS_BITS = 32
#: User-visible operand slots (0 .. NUM_SLOTS-1): the only slots a command may name.
NUM_SLOTS = 16
#: Width of a slot field in the command word.  One bit wider than the user slots need, so that a command
#: naming a slot above them is refused (BAD_SLOT) instead of wrapping onto a user slot.  Fixed: the firmware
#: packs command words with it.
SLOT_FIELD_BITS = 5
#: Window width of EXP_FIXED (chosen with ``gateware.model.exp_cycles``: of 4, 5 and 6 bits, 6 takes the
#: fewest cycles at 1024- and 2048-bit operands with exponents as long; 5 would at 512 bits).
FIXED_WINDOW_BITS = 6
#: Slots only the exponentiation sequencers use (NUM_SLOTS .. TOTAL_SLOTS-1): as many as EXP_FIXED's table
#: has entries (see the slot plan below).
NUM_HIDDEN_SLOTS = 2 ** FIXED_WINDOW_BITS
#: Every slot, user and hidden.
TOTAL_SLOTS = NUM_SLOTS + NUM_HIDDEN_SLOTS
#: Width of a slot number inside the gateware (any slot, hidden ones too).
SLOT_BITS = (TOTAL_SLOTS - 1).bit_length()
#: Word widths a build may choose: powers of two that pack evenly into bus words (or a bus word into
#: them), at least as wide as an EXP_FIXED window (the sequencer reads a window from two adjacent words).
WORD_BITS_CHOICES = (8, 16, 32)
#: Width of the command's ``arg`` field: an operand size in W-bit words (SETMOD) or an exponent length in
#: bits (EXP_*).
ARG_BITS = 13
#: Width of a size register (a SETMOD argument) and of the core's iteration counters (an index below it).
SIZE_BITS = ARG_BITS
#: Width of an exponent bit index.  One bit more than the length, so that stepping below bit 0 wraps to an
#: index at or above any exponent length, which the sequencers read as a zero bit.
EXP_INDEX_BITS = ARG_BITS + 1
#: Largest operand size (bits) of the default configuration (``PeripheralConfig().max_bits``): RSA-4096.
MAX_BITS_DEFAULT = 4096
#: Smallest operand size accepted by SETMOD, in W-bit words.
MIN_WORDS = 1
#: Exponent window width of EXP_WINDOW (sliding window over odd powers: a^2 and a^3 .. a^(2**k-1) in
#: 2**(k-1) hidden slots).
WINDOW_BITS = 5
#: EXP_WINDOW with at most this many exponent bits uses 1-bit windows and builds no table (e = 65537).
SHORT_EXPONENT_BITS = 24

# Slot plan of the hidden slots.  EXP_WINDOW keeps the odd powers a^3 .. a^(2**WINDOW_BITS - 1) in the
# hidden slots from NUM_SLOTS up and a^2 (only needed while the table is built) in the last slot; EXP_LADDER
# keeps its second register R1 in that same last slot.  EXP_FIXED keeps a^digit in slot NUM_SLOTS + digit
# for every digit but 1 (the base's own slot), over all the hidden slots.  The three never run together, so
# their slots may overlap.
#: Hidden slot holding a^2 while EXP_WINDOW builds its table.
SQUARE_SLOT = TOTAL_SLOTS - 1
#: Hidden slot holding the Montgomery ladder's R1.
LADDER_SLOT = TOTAL_SLOTS - 1
#: Hidden slot where ADD and SUB keep their second candidate (the sum or difference corrected by N)
#: until the last word says which one is the result.  No exponentiation runs with them, and each
#: exponentiation writes this slot before it reads it, so sharing it costs nothing.
SCRATCH_SLOT = SQUARE_SLOT


def table_slot(digit):
    """Slot of a^digit for an odd window digit >= 3 (digit 1 is the base's own slot).  ``digit`` may be an
    int or an Amaranth value."""
    return NUM_SLOTS - 1 + (digit >> 1)


def fixed_table_slot(digit):
    """Slot of a^digit in EXP_FIXED's table, for a digit other than 1 (a^0 is the Montgomery one; digit 1
    is the base's own slot and its slot here stays unused, so that the plan is a plain addition).
    ``digit`` may be an int or an Amaranth value."""
    return NUM_SLOTS + digit


#: Modulus banks (SETMOD's ``dst`` field): bank 0 for every command, bank 1 for context 1 of the pair
#: commands.
NUM_BANKS = 2
#: The register-file row of a slot that holds context 1's operand in the pair commands (context 0's is
#: row 0).
PAIR_ROW = 1


assert table_slot(2 ** WINDOW_BITS - 1) < SQUARE_SLOT, "the window table overlaps the square slot"
assert fixed_table_slot(2 ** FIXED_WINDOW_BITS - 1) < TOTAL_SLOTS
assert NUM_SLOTS <= 1 << (SLOT_FIELD_BITS - 1), "a slot field cannot name a slot past the user slots"
# The sequencer reads a fixed window from two adjacent words, and finds the top window while it builds the
# table, which k >= 3 makes long enough (see ``gateware.montmul.sequencer``).
assert 3 <= FIXED_WINDOW_BITS <= min(WORD_BITS_CHOICES) and WORD_BITS in WORD_BITS_CHOICES


class Opcode(enum.Enum, shape=4):
    NOP        = 0
    WRITE      = 1
    READ       = 2
    SETMOD     = 3
    MUL        = 4
    EXP_WINDOW = 5
    EXP_LADDER = 6
    EXP_FIXED  = 7
    MUL_PAIR   = 8
    EXP_FIXED_PAIR = 9
    CLEAR      = 10
    COPY       = 11
    ADD        = 12
    SUB        = 13
    EQUAL      = 14


@dataclass(frozen=True)
class ExponentScheme:
    """One way the sequencer runs an exponentiation: the one table every layer reads its schemes from.

    ``name`` names its machine (``gateware.montmul.schemes.MACHINES[name]``, the sequencer's submodule
    ``sequencer.<name>``, which ``gateware.tools.formal`` reaches by that path) and its program in the model
    (``gateware.model.EXP_PROGRAMS[name]``).  ``opcode`` starts it in bank 0; ``pair_opcode``, if any,
    in both contexts at once (pair configurations only).  ``constant_time``: its time depends only on the
    operand size and the declared exponent length, never on the exponent's bits (``gateware.tools.formal`` proves it
    for every scheme that claims it, and shows the others leak).

    ``impl``: the firmware's implementation whose private-key exponentiations run this scheme, if it has
    one: its backend ``rsa_<impl>`` (firmware/rsa/rsa_hw.c), its name in the console protocol
    (``soc.console_protocol.IMPLS``, with ``impl_description`` for the bench's legend), its row in the
    firmware's table of implementations; ``FIRMWARE_SCHEMES`` lists them, and the C header renders them as
    the X macro ``MONTMUL_SCHEME_IMPLS``."""
    name: str
    opcode: Opcode
    constant_time: bool
    pair_opcode: Opcode | None = None
    impl: str | None = None
    impl_description: str = ""

    @property
    def opcodes(self):
        return (self.opcode,) if self.pair_opcode is None else (self.opcode, self.pair_opcode)


#: The exponent schemes (module docstring).
EXPONENT_SCHEMES = (
    ExponentScheme("window", Opcode.EXP_WINDOW, constant_time=False, impl="hw_seq_window",
                   impl_description="peripheral sequencer, sliding window (not constant-time)"),
    ExponentScheme("ladder", Opcode.EXP_LADDER, constant_time=True),
    ExponentScheme("fixed", Opcode.EXP_FIXED, constant_time=True, pair_opcode=Opcode.EXP_FIXED_PAIR,
                   impl="hw_seq", impl_description="peripheral sequencer"),
)
#: The schemes the firmware has an implementation of (``ExponentScheme.impl``), in the order of its table of
#: implementations and of the bench's rows: the constant-time ones first, each group in table order.
FIRMWARE_SCHEMES = tuple(sorted((scheme for scheme in EXPONENT_SCHEMES if scheme.impl),
                                key=lambda scheme: not scheme.constant_time))


def exponent_scheme(op):
    """The scheme ``op`` (an opcode, or a scheme's name) starts; None for the other commands."""
    for scheme in EXPONENT_SCHEMES:
        if op == scheme.name or op in scheme.opcodes:
            return scheme
    return None


class ErrorCode(enum.Enum, shape=8):
    """Status bits [15:8]: why the last command or data access was refused (0: none).

    A refused command or access changes no operand and no pointer.  BUSY: any command, ``wdata_stb`` or
    ``rdata_stb`` while busy.  OVERFLOW: ``wdata_stb`` with the write pointer past the slot's last word,
    or ``rdata_stb`` with the read pointer already past it (advancing from the last word to "past the
    end" is allowed, so read-then-advance over a whole slot is fine; rdata is undefined there).
    EVEN_MODULUS is found after SETMOD was accepted (done stays 0, irq pulses); the previous modulus
    stays in force after any refused SETMOD.  BAD_BANK: SETMOD (its ``dst``) or COPY (its ``arg``)
    naming a bank other than 0 and 1, or bank 1 in a configuration without pair commands (one row per
    slot).  The pair commands refuse with
    NO_MODULUS when either bank has none, and with BAD_SIZE when either modulus is wider than a row."""
    NONE         = 0
    BAD_OPCODE   = 1
    BUSY         = 2
    BAD_SLOT     = 3
    BAD_SIZE     = 4
    EVEN_MODULUS = 5
    NO_MODULUS   = 6
    BAD_EXP_BITS = 7
    ALIAS        = 8
    OVERFLOW     = 9
    BAD_BANK     = 10


class Command(data.Struct):
    """Command word: [3:0] op, [8:4] dst, [13:9] a, [18:14] b, [31:19] arg."""
    op:  Opcode
    dst: SLOT_FIELD_BITS
    a:   SLOT_FIELD_BITS
    b:   SLOT_FIELD_BITS
    arg: ARG_BITS


class Status(data.Struct):
    """Status word: bit 0 busy, bit 1 done, bit 2 equal (the result of the last EQUAL that completed; 0
    after reset and after CLEAR, other commands leave it), bits [15:8] error code."""
    busy:  1
    done:  1
    equal: 1
    _rsv0: 5
    error: ErrorCode
    _rsv1: 16


def field_offsets(layout_cls):
    layout = data.Layout.cast(layout_cls)
    return {name: (field.offset, field.width) for name, field in layout}


@dataclass(frozen=True)
class PeripheralConfig:
    """Build-time parameters.  ``PeripheralConfig()`` is the one default, the configuration the SoC carries
    (the simulation's, the board's, the proofs'): 32 lanes of 32-bit words, operands up to 4096 bits.
    Tests choose smaller ones; ``gateware.options`` sets the fields from a command line."""
    #: Largest operand size in bits (a multiple of 32).
    max_bits: int = MAX_BITS_DEFAULT
    #: Parallel multiplier lanes; each lane does a_i*b_j and q_i*n_j every cycle.
    #: A power of two (a register-file row is ``lanes`` words), at least 4.
    lanes: int = LANES_DEFAULT
    #: Word width W: the lanes multiply W x W, a quotient digit is W bits, sizes are counted in W-bit words
    #: and R = 2^(W*size).  Smaller widths make small, fast test and proof configurations of the same RTL.
    word_bits: int = WORD_BITS

    def __post_init__(self):
        if self.word_bits not in WORD_BITS_CHOICES:
            raise ValueError(f"word_bits must be one of {', '.join(map(str, WORD_BITS_CHOICES))}")
        if self.max_bits % BUS_BITS or self.max_bits <= 0:
            raise ValueError("max_bits must be a positive multiple of 32")
        if self.lanes < 4 or self.lanes & (self.lanes - 1):
            raise ValueError("lanes must be a power of two, at least 4")
        if self.max_words < MIN_WORDS:
            raise ValueError("max_bits too small")
        if self.max_words >= 1 << SIZE_BITS:
            raise ValueError("max_bits too large for the command's size field")

    @property
    def max_words(self):
        """Largest size in W-bit words."""
        return self.max_bits // self.word_bits

    @property
    def rows_per_slot(self):
        """Register-file rows (lanes*W bits each) per slot."""
        return -(-self.max_words // self.lanes)

    @property
    def row_bits(self):
        """Width of a register-file row: ``lanes`` words."""
        return self.lanes * self.word_bits

    @property
    def operand_rows(self):
        """Rows of the operand register file (every slot, user and hidden)."""
        return TOTAL_SLOTS * self.rows_per_slot

    @property
    def clear_cycles(self):
        """Cycles of a CLEAR (its accepting cycle, then one per operand row; the smaller memories are
        wiped in the same cycles), whatever the memories hold."""
        return 1 + self.operand_rows

    @property
    def has_pairs(self):
        """Whether the pair commands exist: a slot needs a second row for context 1's operands."""
        return self.rows_per_slot > PAIR_ROW

    @property
    def modulus_rows(self):
        """Rows of the modulus memory: N's rows of bank 0 (as many as a slot) and, with pairs, bank 1's one
        row; then the same again for N' = (n'*N + 1)/2^W, the multiple the core's pipelined iterations add."""
        return 2 * (self.rows_per_slot + int(self.has_pairs))

    @property
    def bank1_row(self):
        """The modulus memory's row holding bank 1's modulus."""
        return self.rows_per_slot

    @property
    def n_prime_row(self):
        """The modulus memory's first row of bank 0's N' (bank 1's N' is ``bank1_row`` rows after it)."""
        return self.rows_per_slot + int(self.has_pairs)

    @property
    def pair_max_words(self):
        """Largest modulus size (W-bit words) of either context of a pair command: one row (0: none)."""
        return self.lanes if self.has_pairs else 0

    @property
    def pair_offset(self):
        """Bus word of a slot where context 1's operand starts (row ``PAIR_ROW``)."""
        return PAIR_ROW * self.row_bits // BUS_BITS

    @property
    def bus_words_per_slot(self):
        return self.max_bits // BUS_BITS

    @property
    def total_slots(self):
        return TOTAL_SLOTS

    def bus_words(self, size_words):
        """32-bit bus words per operand at a size of ``size_words`` W-bit words."""
        return bus_words(size_words, self.word_bits)


def pack_cmd(op, dst=0, a=0, b=0, arg=0):
    """Pack a command word (Python side; the C side gets ``montmul_cmd()`` from ``gateware.header``)."""
    fields = field_offsets(Command)
    value = 0
    for name, v in (("op", int(getattr(op, "value", op))), ("dst", dst), ("a", a), ("b", b), ("arg", arg)):
        offset, width = fields[name]
        if not 0 <= v < (1 << width):
            raise ValueError(f"{name}={v} does not fit {width} bits")
        value |= v << offset
    return value


def bus_words(size_words, word_bits=WORD_BITS):
    """32-bit bus words per operand at a size of ``size_words`` words of ``word_bits`` bits."""
    return -(-size_words * word_bits // BUS_BITS)
