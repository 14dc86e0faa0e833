"""``EntropySource``: raw bits in, health-tested 32-bit words out, with a status word.

Raw samples (``raw`` when ``raw_valid``) go to both health tests, always.  After reset or ``restart``
the first ``STARTUP_SAMPLES`` samples only feed the tests (start-up); after that, samples fill a word,
the first in bit 0.  When WORD_BITS samples are in, ``status.ready`` rises and ``data`` shows the word;
``data_stb`` (the bus read of ``data``) takes it, clears it, and the next WORD_BITS samples make the
next word.  Samples that arrive while a word waits, or in the cycle of its read, are tested and dropped.

A failed test stops everything the reader sees: ``status.failed`` and the test's own flag rise, ``ready``
stays low and ``data`` reads 0 until ``restart``, which clears the failure, forgets the partial word and
the tests' state, and reruns the start-up.

Constant time: the cycle a word becomes ready depends only on when samples arrive, when they are read
and on restarts, never on the samples' values; only the failure flags do.
"""

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from .health import AdaptiveProportionTest, RepetitionCountTest
from .interface import APT_CUTOFF, APT_WINDOW, RCT_CUTOFF, STARTUP_SAMPLES, WORD_BITS, Status

__all__ = ["EntropySource"]


class EntropySource(wiring.Component):
    raw: In(1)             # a raw sample of the noise source
    raw_valid: In(1)       # ``raw`` holds a new sample this cycle
    data: Out(WORD_BITS)   # WORD_BITS raw bits, the first sample in bit 0; valid while status.ready, else 0
    data_stb: In(1)        # the bus read of ``data``: takes the word
    restart: In(1)         # clears the failure and reruns the start-up tests
    status: Out(32)        # a ``Status``

    def __init__(self, rct_cutoff=RCT_CUTOFF, apt_cutoff=APT_CUTOFF, apt_window=APT_WINDOW,
                 startup_samples=STARTUP_SAMPLES):
        self.rct_cutoff = rct_cutoff
        self.apt_cutoff = apt_cutoff
        self.apt_window = apt_window
        self.startup_samples = startup_samples
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        m.submodules.rct = rct = RepetitionCountTest(self.rct_cutoff)
        m.submodules.apt = apt = AdaptiveProportionTest(self.apt_cutoff, self.apt_window)
        for test in (rct, apt):
            m.d.comb += [test.sample.eq(self.raw), test.valid.eq(self.raw_valid), test.clear.eq(self.restart)]

        startup_left = Signal(range(self.startup_samples + 1), init=self.startup_samples)
        shift = Signal(WORD_BITS)
        filled = Signal(range(WORD_BITS + 1))       # samples in ``shift``
        failed = Signal()
        ready = Signal()
        m.d.comb += [
            failed.eq(rct.failed | apt.failed),
            ready.eq((filled == WORD_BITS) & ~failed),
            self.data.eq(Mux(ready, shift, 0)),
        ]

        status = data.View(Status, self.status)
        m.d.comb += [
            status.ready.eq(ready),
            status.failed.eq(failed),
            status.rct_failed.eq(rct.failed),
            status.apt_failed.eq(apt.failed),
            status.startup.eq(startup_left != 0),
        ]

        with m.If(self.restart):
            m.d.sync += [startup_left.eq(self.startup_samples), filled.eq(0), shift.eq(0)]
        with m.Elif(self.data_stb & ready):
            m.d.sync += [filled.eq(0), shift.eq(0)]
        with m.Elif(self.raw_valid):
            with m.If(startup_left != 0):
                m.d.sync += startup_left.eq(startup_left - 1)
            with m.Elif(filled != WORD_BITS):
                m.d.sync += [shift.eq(Cat(shift[1:], self.raw)), filled.eq(filled + 1)]
        return m
