"""The lanes' multiply stage (``word_product``) against Python's x*y, one pair per cycle, at the word
widths a build may choose.  (Its DSP48E1 count, three per 32-bit product, is in the figures of
``python -m gateware --sweep --montmul-word-bits 32``: six per lane; a Yosys run here would cost the suite
seconds it does not have.)"""

import itertools
import random

import pytest
from amaranth import Elaboratable, Module, Signal
from amaranth.sim import Simulator

from gateware.interface import WORD_BITS_CHOICES
from gateware.montmul.lanes import word_product


class ProductStage(Elaboratable):
    """x and y into registers, then ``word_product`` of them: the product two cycles after the ports."""

    def __init__(self, width):
        self.x, self.y = Signal(width), Signal(width)
        self.product = Signal(2 * width)

    def elaborate(self, platform):
        m = Module()
        x, y = Signal.like(self.x, name="x_reg"), Signal.like(self.y, name="y_reg")
        m.d.sync += [x.eq(self.x), y.eq(self.y)]
        m.d.comb += self.product.eq(word_product(m, "p", x, y))
        return m


def edge_operands(width):
    """Zero, one, all ones and the values at the halves' borders (where the half sums carry)."""
    h = width // 2
    ones, half_ones = (1 << width) - 1, (1 << h) - 1
    return sorted({0, 1, ones, half_ones, 1 << h, half_ones << h, 1 << (width - 1), ones - 1})


@pytest.mark.parametrize("width", WORD_BITS_CHOICES)
def test_products(width):
    rng = random.Random(width)
    pairs = list(itertools.product(edge_operands(width), repeat=2))
    pairs += [(rng.getrandbits(width), rng.getrandbits(width)) for _ in range(150)]
    dut = ProductStage(width)
    seen = []

    async def tb(ctx):
        for cycle in range(len(pairs) + 2):
            if cycle >= 2:
                seen.append(ctx.get(dut.product))
            x, y = pairs[cycle] if cycle < len(pairs) else (0, 0)
            ctx.set(dut.x, x)
            ctx.set(dut.y, y)
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(tb)
    sim.run()
    assert seen == [x * y for x, y in pairs]

