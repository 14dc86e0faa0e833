"""The noise source: free-running ring oscillators on the board, an LFSR where a build asks for determinism.

``RingOscillatorBits`` builds ``len(lengths)`` rings, each an odd number of inverters (Xilinx LUT1
primitives) in a loop, so each oscillates at its own frequency, set by its length and its routing, with
jitter from the silicon's noise.  Their outputs are XORed and sampled by two flip-flops in the system
clock (the first may go metastable; the second gives the logic a settled bit).  Every ``divider``
cycles the sampled bit is one raw sample: ``raw`` with a one-cycle ``raw_valid``, the inputs of
``EntropySource``.  The divider lets the oscillators' jitter accumulate between samples: the longer it is,
the less one sample predicts the next.

The rings are combinational loops that synthesis and implementation would otherwise reject or optimise
away: their LUTs and nets carry KEEP and DONT_TOUCH, and the board's constraints must allow the loops.
``ring_xdc()`` gives those constraints as XDC text; a LiteX board target adds it with
``platform.add_platform_command(ring_xdc())`` (the text has no braces, so LiteX's ``str.format`` of
platform commands leaves it unchanged).

``LFSRBits`` has the same outputs and timing from a 32-bit maximal-length LFSR: a deterministic stand-in
for builds that ask for reproducible runs.  It is not a source of entropy.
"""

import operator
from functools import reduce

from amaranth import Const, Instance, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import Out

__all__ = ["RingOscillatorBits", "LFSRBits", "ring_xdc", "RING_NAME_PREFIX", "RING_LENGTHS", "SAMPLE_DIVIDER"]

#: Every ring LUT and ring net is named with this prefix: the constraints find them by it.
RING_NAME_PREFIX = "entropy_ro"
#: Inverters per ring: distinct primes, so that no two rings run at simple ratios of each other.
RING_LENGTHS = (3, 5, 7, 11, 13, 17, 19, 23)
#: System clock cycles per raw sample (at 100 MHz, 1.56 million raw bits per second).
SAMPLE_DIVIDER = 64
#: Attributes that keep a ring's cells and nets through Yosys and Vivado.
KEEP = {"KEEP": "TRUE", "DONT_TOUCH": "TRUE"}


class _RawBits(wiring.Component):
    raw: Out(1)          # the sample, valid with raw_valid
    raw_valid: Out(1)    # one cycle in ``divider``

    def __init__(self, divider=SAMPLE_DIVIDER):
        assert divider >= 2
        self.divider = divider
        super().__init__()

    def _strobe(self, m):
        """A one-cycle pulse every ``divider`` cycles, into ``raw_valid``."""
        count = Signal(range(self.divider))
        with m.If(count == self.divider - 1):
            m.d.sync += count.eq(0)
        with m.Else():
            m.d.sync += count.eq(count + 1)
        m.d.sync += self.raw_valid.eq(count == self.divider - 1)
        return count == self.divider - 1


class RingOscillatorBits(_RawBits):
    """Raw bits from free-running ring oscillators (Xilinx 7-series primitives: a board build only)."""

    def __init__(self, lengths=RING_LENGTHS, divider=SAMPLE_DIVIDER):
        assert lengths and all(n % 2 == 1 for n in lengths), "a ring needs an odd number of inverters"
        self.lengths = tuple(lengths)
        super().__init__(divider)

    def elaborate(self, platform):
        m = Module()
        taps = []
        for ring, length in enumerate(self.lengths):
            nets = [Signal(name=f"{RING_NAME_PREFIX}{ring}_n{stage}", attrs=KEEP) for stage in range(length)]
            for stage in range(length):
                # LUT1 with INIT = 2'b01: O = ~I0
                m.submodules[f"{RING_NAME_PREFIX}{ring}_lut{stage}"] = Instance(
                    "LUT1", p_INIT=Const(0b01, 2), i_I0=nets[stage - 1], o_O=nets[stage],
                    a_KEEP="TRUE", a_DONT_TOUCH="TRUE")
            taps.append(nets[-1])

        mixed = Signal(name=f"{RING_NAME_PREFIX}_xor", attrs=KEEP)
        m.d.comb += mixed.eq(reduce(operator.xor, taps))
        # two flip-flops in the clock domain: the first may go metastable, the second settles
        capture = Signal(name="entropy_capture", reset_less=True, attrs={"ASYNC_REG": "TRUE"})
        settled = Signal(name="entropy_settled", reset_less=True, attrs={"ASYNC_REG": "TRUE"})
        m.d.sync += [capture.eq(mixed), settled.eq(capture)]
        with m.If(self._strobe(m)):
            m.d.sync += self.raw.eq(settled)
        return m


class LFSRBits(_RawBits):
    """Deterministic raw bits: a 32-bit Galois LFSR (x^32 + x^22 + x^2 + x + 1), one step per sample."""

    TAPS = 0x8020_0003

    def __init__(self, seed=0x1234_5678, divider=SAMPLE_DIVIDER):
        assert 0 < seed < 2 ** 32
        self.seed = seed
        super().__init__(divider)

    def elaborate(self, platform):
        m = Module()
        state = Signal(32, init=self.seed)
        with m.If(self._strobe(m)):
            m.d.sync += [state.eq((state >> 1) ^ Mux(state[0], self.TAPS, 0)), self.raw.eq(state[0])]
        return m


def ring_xdc(prefix=RING_NAME_PREFIX):
    """XDC constraints for ``RingOscillatorBits``'s rings (Vivado): the deliberate combinational loops
    allowed (DRC LUTLP-1 otherwise stops the bitstream), their LUTs and nets kept, and no timing path
    through the rings, whose outputs have no clock."""
    nets = f"[get_nets -hierarchical {prefix}*]"
    cells = f"[get_cells -hierarchical {prefix}*]"
    return "\n".join([
        "# entropy source: ring oscillators (deliberate combinational loops)",
        f"set_property ALLOW_COMBINATORIAL_LOOPS TRUE {nets}",
        f"set_property DONT_TOUCH TRUE {nets}",
        f"set_property DONT_TOUCH TRUE {cells}",
        f"set_false_path -through {nets}",
    ]) + "\n"
