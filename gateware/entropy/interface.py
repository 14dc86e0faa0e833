"""The entropy source's contract: the status word and the health tests' parameters, the one source of truth.

The gateware (``gateware.entropy.source``), its Python model (``gateware.entropy.model``), the SoC's
wrapper and the firmware's generated header all take their figures from here.  The parameters are those
of NIST SP 800-90B, computed from their inputs rather than copied, so that a new entropy assessment
changes one number (``MIN_ENTROPY_PER_BIT``) and everything follows:

* the repetition count test (4.4.1) fails on ``RCT_CUTOFF`` equal samples in a row;
* the adaptive proportion test (4.4.2, binary samples) fails when, within a window of ``APT_WINDOW``
  samples, the window's first value occurs ``APT_CUTOFF`` times;
* start-up (4.3): both tests run over the first ``STARTUP_SAMPLES`` samples after reset or restart
  before the first word is given;
* the firmware conditions ``SEED_RAW_WORDS`` raw words into each 256-bit seed: enough raw bits to carry
  ``SEED_ENTROPY_BITS`` (256 + 64) bits of min-entropy at ``MIN_ENTROPY_PER_BIT`` (3.1.5.1.2).
"""

import math
from decimal import Decimal, localcontext
from fractions import Fraction

from amaranth.lib import data

__all__ = [
    "WORD_BITS", "Status", "STATUS_BITS", "MIN_ENTROPY_PER_BIT", "FALSE_POSITIVE_LOG2", "RCT_CUTOFF", "APT_WINDOW",
    "APT_CUTOFF", "STARTUP_SAMPLES", "SEED_BITS", "SEED_ENTROPY_BITS", "SEED_RAW_WORDS",
    "rct_cutoff", "apt_cutoff", "binomial_tail", "seed_raw_words",
]

#: Raw bits per word read by the firmware (the bus word).
WORD_BITS = 32


class Status(data.Struct):
    """The status register, one bus word."""
    ready: 1        # a word of WORD_BITS fresh raw bits waits in ``data``
    failed: 1       # a health test failed (either); sticky until ``restart``: no word is given
    rct_failed: 1   # the repetition count test failed (sticky)
    apt_failed: 1   # the adaptive proportion test failed (sticky)
    startup: 1      # the start-up tests are still running: no word given yet
    reserved: 27    # reads 0


#: Bit position of each status flag (for the firmware's header).
STATUS_BITS = {name: Status.as_shape()[name].offset for name in ("ready", "failed", "rct_failed", "apt_failed",
                                                                  "startup")}

#: Assessed min-entropy H per raw bit.  Nobody has yet run SP 800-90B's estimators on this board's ring
#: oscillators (the board's dump command gives the bits for that), so we claim a cautious half bit, less than
#: published assessments of jitter-sampled ring oscillators usually credit: each seed then gets twice the raw
#: bits a full-entropy claim would take, and the tests' cutoffs stay loose enough that a healthy but imperfect
#: source does not trip them.  If an assessment of the board finds less, lower this figure: the cutoffs and
#: SEED_RAW_WORDS follow.
MIN_ENTROPY_PER_BIT = Fraction(1, 2)
#: The health tests' false-positive probability alpha = 2^-20 (SP 800-90B recommends 2^-20 to 2^-40).
FALSE_POSITIVE_LOG2 = 20
#: Window of the adaptive proportion test for binary samples (SP 800-90B 4.4.2).
APT_WINDOW = 1024
#: Samples the start-up tests run over before the first word (SP 800-90B 4.3: at least 1024).
STARTUP_SAMPLES = 1024
#: Output of the firmware's conditioner, and the min-entropy it must be fed (SP 800-90B 3.1.5.1.2 asks for
#: the output length plus 64 bits for full entropy at the output).
SEED_BITS = 256
SEED_ENTROPY_BITS = SEED_BITS + 64


def rct_cutoff(h=MIN_ENTROPY_PER_BIT, alpha_log2=FALSE_POSITIVE_LOG2):
    """SP 800-90B 4.4.1: C = 1 + ceil(-log2(alpha) / H); exact for a rational H."""
    return 1 + math.ceil(Fraction(alpha_log2) / Fraction(h))


def binomial_tail(n, p, c):
    """P[Binom(n, p) >= c], p a Decimal, in the current decimal context."""
    q = 1 - p
    return sum((math.comb(n, k) * p ** k * q ** (n - k) for k in range(c, n + 1)), Decimal(0))


def apt_cutoff(h=MIN_ENTROPY_PER_BIT, window=APT_WINDOW, alpha_log2=FALSE_POSITIVE_LOG2):
    """SP 800-90B 4.4.2: C = 1 + CRITBINOM(W, 2^-H, 1 - alpha), i.e. the smallest c with
    P[Binom(W, 2^-H) >= c] <= alpha.

    Computed with 60 significant digits (the tail near the cutoff is ~1e-6, the terms far smaller than
    the precision matter for nothing).  The standard's formula counts the window's first sample among the
    W trials although it always matches itself; its published tables use it, and so do we."""
    with localcontext() as ctx:
        ctx.prec = 60
        h = Fraction(h)
        p = Decimal(2) ** (-Decimal(h.numerator) / Decimal(h.denominator))
        alpha = Decimal(2) ** -alpha_log2
        # the tail grows as c falls: walk down from W until it exceeds alpha
        tail, c = Decimal(0), window + 1
        while c > 0:
            term = math.comb(window, c - 1) * p ** (c - 1) * (1 - p) ** (window - c + 1)
            if tail + term > alpha:
                return c
            tail += term
            c -= 1
        return c


def seed_raw_words(h=MIN_ENTROPY_PER_BIT, entropy_bits=SEED_ENTROPY_BITS):
    """Raw words holding at least ``entropy_bits`` of min-entropy at H per raw bit."""
    return math.ceil(Fraction(entropy_bits) / Fraction(h) / WORD_BITS)


#: Repetition count test cutoff (41 at H = 1/2, alpha = 2^-20).
RCT_CUTOFF = rct_cutoff()
#: Adaptive proportion test cutoff (793 at H = 1/2, W = 1024, alpha = 2^-20).
APT_CUTOFF = apt_cutoff()
#: Raw words the firmware conditions into one 256-bit seed (20 at H = 1/2).
SEED_RAW_WORDS = seed_raw_words()
