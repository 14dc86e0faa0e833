"""Python reference of the entropy source: the two health tests as SP 800-90B words them, and the source
cycle by cycle (start-up, word assembly, read, failure, restart), for comparing with the gateware."""

from dataclasses import dataclass

from .interface import APT_CUTOFF, APT_WINDOW, RCT_CUTOFF, STARTUP_SAMPLES, WORD_BITS

__all__ = ["RepetitionCount", "AdaptiveProportion", "SourceOutputs", "EntropySourceModel"]


class RepetitionCount:
    """4.4.1: A = the current sample, B = 1; a next sample equal to A adds one to B, and B >= C is an error;
    a different one becomes A with B = 1."""

    def __init__(self, cutoff=RCT_CUTOFF):
        self.cutoff = cutoff
        self.clear()

    def clear(self):
        self.value, self.run, self.failed = None, 0, False

    def feed(self, sample):
        if sample == self.value:
            self.run += 1
        else:
            self.value, self.run = sample, 1
        self.failed |= self.run >= self.cutoff
        return self.failed


class AdaptiveProportion:
    """4.4.2: windows of W samples; A = the window's first sample, B counts the samples equal to A (A
    included), and B >= C is an error."""

    def __init__(self, cutoff=APT_CUTOFF, window=APT_WINDOW):
        self.cutoff, self.window = cutoff, window
        self.clear()

    def clear(self):
        self.seen, self.value, self.count, self.failed = 0, None, 0, False

    def feed(self, sample):
        if self.seen % self.window == 0:
            self.value, self.count = sample, 0
        self.seen += 1
        self.count += sample == self.value
        self.failed |= self.count >= self.cutoff
        return self.failed


@dataclass(frozen=True)
class SourceOutputs:
    ready: bool
    failed: bool
    rct_failed: bool
    apt_failed: bool
    startup: bool
    data: int


class EntropySourceModel:
    """``EntropySource`` cycle by cycle: ``outputs()`` are what the gateware shows in a cycle, ``step()``
    applies that cycle's inputs (the registers' update at the clock edge)."""

    def __init__(self, rct_cutoff=RCT_CUTOFF, apt_cutoff=APT_CUTOFF, apt_window=APT_WINDOW,
                 startup_samples=STARTUP_SAMPLES):
        self.rct = RepetitionCount(rct_cutoff)
        self.apt = AdaptiveProportion(apt_cutoff, apt_window)
        self.startup_samples = startup_samples
        self.restart()

    def restart(self):
        self.rct.clear()
        self.apt.clear()
        self.startup_left = self.startup_samples
        self.bits = []        # the word being filled, first sample first

    def outputs(self):
        failed = self.rct.failed or self.apt.failed
        ready = len(self.bits) == WORD_BITS and not failed
        word = sum(bit << i for i, bit in enumerate(self.bits)) if ready else 0
        return SourceOutputs(ready, failed, self.rct.failed, self.apt.failed, self.startup_left != 0, word)

    def step(self, raw=0, raw_valid=False, data_stb=False, restart=False):
        """One clock cycle's inputs; returns the outputs seen before the edge."""
        seen = self.outputs()
        if restart:
            self.restart()
            return seen
        if raw_valid:
            self.rct.feed(raw)
            self.apt.feed(raw)
        if data_stb and seen.ready:
            self.bits = []
        elif raw_valid:
            if self.startup_left:
                self.startup_left -= 1
            elif len(self.bits) < WORD_BITS:
                self.bits.append(raw)
        return seen
