"""SP 800-90B's continuous health tests for a binary noise source, on every raw sample.

Each test takes ``sample`` when ``valid`` is high and raises ``failed`` from the cycle after the sample
that made it fail; ``failed`` stays until ``clear``, which also forgets every sample seen (the next
sample starts a new run, a new window).  Nothing but the sample values reaches ``failed``: the tests'
timing is the samples' timing.
"""

from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .interface import APT_CUTOFF, APT_WINDOW, RCT_CUTOFF

__all__ = ["RepetitionCountTest", "AdaptiveProportionTest"]


class _HealthTest(wiring.Component):
    sample: In(1)
    valid: In(1)
    clear: In(1)      # forget every sample and the failure
    failed: Out(1)    # sticky until clear


class RepetitionCountTest(_HealthTest):
    """4.4.1: fails when ``cutoff`` equal samples arrive in a row."""

    def __init__(self, cutoff=RCT_CUTOFF):
        assert cutoff >= 2
        self.cutoff = cutoff
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        last = Signal()
        run = Signal(range(self.cutoff + 1))      # length of the current run; 0 = no sample yet
        next_run = Signal.like(run)

        m.d.comb += next_run.eq(1)
        with m.If((run != 0) & (self.sample == last) & (run != self.cutoff)):
            m.d.comb += next_run.eq(run + 1)
        with m.If((run == self.cutoff) & (self.sample == last)):
            m.d.comb += next_run.eq(run)          # saturates: the failure is already raised

        with m.If(self.clear):
            m.d.sync += [run.eq(0), self.failed.eq(0)]
        with m.Elif(self.valid):
            m.d.sync += [last.eq(self.sample), run.eq(next_run)]
            with m.If(next_run >= self.cutoff):
                m.d.sync += self.failed.eq(1)
        return m


class AdaptiveProportionTest(_HealthTest):
    """4.4.2 for binary samples: windows of ``window`` samples one after the other; a window fails when
    its first sample's value occurs ``cutoff`` times in it (the first sample counted)."""

    def __init__(self, cutoff=APT_CUTOFF, window=APT_WINDOW):
        assert window & (window - 1) == 0 and 2 <= cutoff
        self.cutoff = cutoff
        self.window = window
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        first = Signal()
        index = Signal(range(self.window))        # position of the next sample in its window; wraps
        count = Signal(range(self.window + 1))    # occurrences of ``first`` so far in the window
        next_count = Signal.like(count)

        m.d.comb += next_count.eq(1)
        with m.If(index != 0):
            m.d.comb += next_count.eq(count + (self.sample == first))

        with m.If(self.clear):
            m.d.sync += [index.eq(0), count.eq(0), self.failed.eq(0)]
        with m.Elif(self.valid):
            m.d.sync += [index.eq(index + 1), count.eq(next_count)]
            with m.If(index == 0):
                m.d.sync += first.eq(self.sample)
            with m.If(next_count >= self.cutoff):
                m.d.sync += self.failed.eq(1)
        return m
