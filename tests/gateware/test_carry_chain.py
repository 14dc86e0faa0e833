"""The row carry chain of the final passes (carry-select across segments) against a bit-serial model."""

import random

from amaranth import Elaboratable, Module, Signal
from amaranth.sim import Simulator

from gateware.montmul.resolve import carry_chain


class _Chain(Elaboratable):
    def __init__(self, width, segment):
        self.segment = segment
        self.gen = Signal(width)
        self.prop = Signal(width)
        self.cin = Signal()
        self.carries = Signal(width)
        self.cout = Signal()

    def elaborate(self, platform):
        m = Module()
        carries, cout = carry_chain(m, self.gen, self.prop, self.cin, segment=self.segment)
        m.d.comb += [self.carries.eq(carries), self.cout.eq(cout)]
        return m


def test_carry_chain_segments():
    for width, segment in [(12, 5), (64, 32), (9, 9)]:
        dut = _Chain(width, segment)
        sim = Simulator(dut)

        async def tb(ctx):
            rng = random.Random(width)
            for _ in range(500):
                gen = rng.getrandbits(width)
                prop = rng.getrandbits(width) & ~gen if rng.random() < 0.5 else ((1 << width) - 1) & ~gen
                cin = rng.getrandbits(1)
                ctx.set(dut.gen, gen)
                ctx.set(dut.prop, prop)
                ctx.set(dut.cin, cin)
                carry, expected = cin, 0
                for j in range(width):
                    expected |= carry << j
                    carry = (gen >> j) & 1 | ((prop >> j) & 1 & carry)
                assert ctx.get(dut.carries) == expected and ctx.get(dut.cout) == carry

        sim.add_testbench(tb)
        sim.run()
