"""The SHA-256 engine's contract: widths, constants, commands, status and timing, the one source of truth.

The gateware (``gateware.sha256.engine``) and its Python model (``gateware.sha256.model``) take every figure
from here.  The constants of FIPS 180-4 (4.2.2, 5.3.3) are computed from their definitions rather than copied:
the round constants are the first 32 bits of the fractional parts of the cube roots of the first 64 primes,
the initial hash value those of the square roots of the first 8 primes.

What software sees:

* 16 message words (``BLOCK_WORDS``), a buffer written by index in any cycle, busy or not; a block's
  words in FIPS order (word 0 is the first 4 bytes of the block, big-endian).  They cannot be read back.
  A BLOCK takes the buffer as it was before the edge that accepts it (a write in that cycle is for the
  next block) and leaves it as it was: the next block's words may be written while a block runs.
* 8 state words (``STATE_WORDS``), written and read by index: H0..H7 of FIPS 180-4, the hash after
  the last block.  Writing them restores a saved state, so hashes can be interleaved.  They read 0 after
  reset; INIT loads the initial hash value.
* a command port (``Command``) and a status word (``Status``).

Timing: a command accepted at a clock edge keeps ``busy`` high for exactly ``cycles(command)`` cycles
after it (``INIT_CYCLES``, ``BLOCK_CYCLES``), whatever the message and the state hold.  While busy the
state words read as they were before the command; the result is in them from the first cycle ``busy``
reads 0.  Commands and state writes while busy are refused; message writes never are.  Refusals change
nothing but the status's error bits (see ``Status``).
"""

from amaranth.lib import data, enum

__all__ = [
    "WORD_BITS", "BLOCK_WORDS", "STATE_WORDS", "ROUNDS", "MESSAGE_ADDR_BITS", "STATE_ADDR_BITS",
    "COMMAND_BITS", "Command", "Status", "STATUS_BITS", "INIT_CYCLES", "BLOCK_CYCLES", "cycles",
    "ROUND_CONSTANTS", "INITIAL_HASH", "first_primes", "integer_root", "fractional_bits",
]

#: Bits per word: every message, state and schedule word.
WORD_BITS = 32
#: Message words per 512-bit block.
BLOCK_WORDS = 16
#: Words of the hash state (and of the working variables a..h).
STATE_WORDS = 8
#: Rounds of the compression function, one per message schedule word.
ROUNDS = 64
#: Index widths of the message and state words.
MESSAGE_ADDR_BITS = (BLOCK_WORDS - 1).bit_length()
STATE_ADDR_BITS = (STATE_WORDS - 1).bit_length()
#: Width of the command code: room for more commands than there are.
COMMAND_BITS = 4


class Command(enum.IntEnum, shape=COMMAND_BITS):
    """The command codes.  Any other code (0 included, so that a zeroed register does nothing quietly) is
    refused with ``bad_command``."""
    INIT  = 1   # load the initial hash value into the state
    BLOCK = 2   # compress the 16 message words into the state


class Status(data.Struct):
    """The status word.  The error bits tell why a command or state write was refused since the last
    accepted command; an accepted command clears them (but for a state write it refuses in its own cycle)."""
    busy: 1           # a command runs: commands and state writes are refused
    busy_refused: 1   # a command or state write came while busy, or a state write in the cycle of an
                      # accepted command
    bad_command: 1    # a command with a code not in ``Command`` came while idle
    reserved: 29      # reads 0


#: Bit position of each status flag (for a wrapper's registers and the firmware's header).
STATUS_BITS = {name: Status.as_shape()[name].offset for name in ("busy", "busy_refused", "bad_command")}

#: Cycles INIT keeps the engine busy: none, the state is loaded at the edge that accepts it.
INIT_CYCLES = 0
#: Cycles BLOCK keeps the engine busy: one round per cycle, then one cycle adding the working variables
#: into the state (the addition is not chained behind the last round's adders).  The cycle of the command
#: itself loads the working variables from the state and copies the message buffer into the schedule.
BLOCK_CYCLES = ROUNDS + 1


def cycles(command):
    """Cycles ``command`` keeps the engine busy after the edge that accepts it."""
    return {Command.INIT: INIT_CYCLES, Command.BLOCK: BLOCK_CYCLES}[Command(command)]


def first_primes(count):
    """The first ``count`` primes."""
    primes = []
    candidate = 2
    while len(primes) < count:
        if all(candidate % p for p in primes if p * p <= candidate):
            primes.append(candidate)
        candidate += 1
    return primes


def integer_root(n, k):
    """The largest x with x**k <= n (Newton's iteration from above, exact on integers)."""
    if n < 2:
        return n
    x = 1 << -(-n.bit_length() // k)       # 2^ceil(bits / k) > the root
    while True:
        y = ((k - 1) * x + n // x ** (k - 1)) // k
        if y >= x:
            return x
        x = y


def fractional_bits(n, k, bits=WORD_BITS):
    """The first ``bits`` bits of the fractional part of the k-th root of n: floor(root * 2^bits) mod 2^bits,
    the root of n * 2^(bits * k) taken on integers."""
    return integer_root(n << (bits * k), k) & ((1 << bits) - 1)


#: K[0..63] (FIPS 180-4 4.2.2).
ROUND_CONSTANTS = tuple(fractional_bits(p, 3) for p in first_primes(ROUNDS))
#: H(0) (FIPS 180-4 5.3.3).
INITIAL_HASH = tuple(fractional_bits(p, 2) for p in first_primes(STATE_WORDS))
