"""The exponent sequencers alone: the products they request, served by a stand-in for the core that
multiplies in Python, give a^e (Montgomery domain) as pow() does, in the expected sequence."""

import random

import pytest
from amaranth import Elaboratable, Module
from amaranth.lib import wiring
from amaranth.sim import Simulator

from gateware.interface import (WINDOW_BITS, SHORT_EXPONENT_BITS, FIXED_WINDOW_BITS, SQUARE_SLOT,
                                LADDER_SLOT, table_slot, fixed_table_slot, Opcode, PeripheralConfig)
from gateware.montmul.regfile import RegisterFile
from gateware.montmul.sequencer import ExponentSequencer
import regfile_access

W = 16     # the configuration's word width
CONFIG = PeripheralConfig(max_bits=256, lanes=4, word_bits=W)
SIZE = 16
DST, BASE, EXPONENT = 3, 1, 2


def mont(a, b, n):
    return a * b * pow(1 << (W * SIZE), -1, n) % n


def window_products(e, bits):
    """The products of EXP_WINDOW, planned the plain way (dst, a, b)."""
    k = 1 if bits <= SHORT_EXPONENT_BITS else WINDOW_BITS
    products = []
    if k > 1:
        products.append((SQUARE_SLOT, BASE, BASE))
        for digit in range(3, 1 << k, 2):
            products.append((table_slot(digit), BASE if digit == 3 else table_slot(digit - 2), SQUARE_SLOT))
    started = False
    i = bits - 1
    while i >= 0:
        if not (e >> i) & 1:
            if started:
                products.append((DST, DST, DST))
            i -= 1
            continue
        window = [(e >> (i - j)) & 1 if i - j >= 0 else 0 for j in range(k)]
        length = max(j for j in range(k) if window[j]) + 1
        digit = int("".join(map(str, window[:length])), 2)
        if started:
            products += [(DST, DST, DST)] * length
        products.append((DST, DST, BASE if digit == 1 else table_slot(digit)))
        started = True
        i -= length
    return products


def ladder_products(e, bits):
    products = [(LADDER_SLOT, BASE, DST)]
    for i in reversed(range(bits)):
        bit = (e >> i) & 1
        r_bit, r_other = (LADDER_SLOT, DST) if bit else (DST, LADDER_SLOT)
        products += [(r_other, DST, LADDER_SLOT), (r_bit, r_bit, r_bit)]
    return products


def fixed_products(e, bits):
    """The products of EXP_FIXED: the whole table, then per window (the top one first) k squarings
    (none for the top one) and the product by the table entry of its digit."""
    k = FIXED_WINDOW_BITS
    entry = {0: fixed_table_slot(0), 1: BASE}
    products = [(fixed_table_slot(0), DST, DST), (fixed_table_slot(2), BASE, BASE)]
    for digit in range(2, 1 << k):
        entry[digit] = fixed_table_slot(digit)
        if digit > 2:
            products.append((entry[digit], entry[digit - 1], BASE))
    windows = -(-bits // k)
    for j in reversed(range(windows)):
        digit = (e & ((1 << bits) - 1)) >> (j * k) & ((1 << k) - 1)
        if j != windows - 1:
            products += [(DST, DST, DST)] * k
        products.append((DST, DST, entry[digit]))
    return products


PRODUCTS = {Opcode.EXP_WINDOW: window_products, Opcode.EXP_LADDER: ladder_products,
            Opcode.EXP_FIXED: fixed_products}


class SequencerBench(Elaboratable):
    def __init__(self, config):
        self.regfile = RegisterFile(config)
        self.sequencer = ExponentSequencer(config)

    def elaborate(self, platform):
        m = Module()
        m.submodules.regfile = self.regfile
        m.submodules.sequencer = self.sequencer
        wiring.connect(m, self.sequencer.read, self.regfile.exp_read)
        return m


def run_exponentiations(cases, latency):
    """cases: [(op, e, bits)]; each runs with dst = R mod n, base = a.  A stand-in core answers every
    product request ``latency`` cycles later.  Returns [(slots[DST], products, cycles)]."""
    bench = SequencerBench(CONFIG)
    rf, seq = bench.regfile, bench.sequencer
    rng = random.Random(7)
    n = rng.getrandbits(W * SIZE - 1) | 1 | 1 << (W * SIZE - 2)
    a = rng.randrange(n)
    results = []

    async def tb(ctx):
        for op, e, bits in cases:
            # only the exponent's slot lives in the register file: the products act on Python values
            junk = rng.getrandbits(CONFIG.max_bits) >> bits << bits
            await regfile_access.write_slot(ctx, rf, CONFIG, EXPONENT, e | junk)
            slots = {BASE: a, DST: (1 << (W * SIZE)) % n}
            products = []
            ctx.set(seq.op, op)
            ctx.set(seq.dst, DST)
            ctx.set(seq.base, BASE)
            ctx.set(seq.exponent, EXPONENT)
            ctx.set(seq.bits, bits)
            ctx.set(seq.start, 1)
            await ctx.tick()
            ctx.set(seq.start, 0)
            cycles, countdown = 2, None         # the cycles from start to done, both included
            while True:
                assert ctx.get(seq.busy)
                if countdown is not None:
                    countdown -= 1
                    if countdown == 0:
                        ctx.set(seq.mul.done, 1)
                started = None
                if ctx.get(seq.mul.start):      # while the stand-in is idle, or in the cycle it is done
                    assert countdown in (None, 0), "a product requested while one is in flight"
                    dst, sa, sb = (ctx.get(seq.mul.dst), ctx.get(seq.mul.a), ctx.get(seq.mul.b))
                    products.append((dst, sa, sb))
                    slots[dst] = mont(slots[sa], slots[sb], n)
                    started = latency
                    ctx.set(seq.mul.busy, 1)
                finished = ctx.get(seq.done)
                await ctx.tick()
                if countdown == 0:
                    ctx.set(seq.mul.done, 0)
                    if started is None:
                        ctx.set(seq.mul.busy, 0)
                    countdown = None
                if started is not None:
                    countdown = started
                if finished:
                    break
                cycles += 1
                assert cycles < 100_000
            assert not ctx.get(seq.busy) and not ctx.get(seq.done)
            results.append((slots[DST], products, cycles))

    sim = Simulator(bench)
    sim.add_clock(1e-8)
    sim.add_testbench(tb)
    sim.run()
    return n, a, results


def exponents(rng, bits):
    top = 1 << (bits - 1)
    every = (1 << bits) - 1
    return {every, top, top | 1, (top | 0b1000001) & every, rng.getrandbits(bits) | top, rng.getrandbits(bits)}


@pytest.mark.parametrize("op", [Opcode.EXP_WINDOW, Opcode.EXP_LADDER, Opcode.EXP_FIXED],
                         ids=["window", "ladder", "fixed"])
def test_exponentiation_products(op):
    rng = random.Random(11)
    k = FIXED_WINDOW_BITS
    lengths = (1, 2, 17, 24, 25, 40) if op is not Opcode.EXP_FIXED else (1, 2, k - 1, k, k + 1, 2 * k + 1, 40)
    cases = [(op, e, bits) for bits in lengths for e in sorted(exponents(rng, bits))]
    cases += [(op, 0, 9), (op, 65537, 17), (op, rng.getrandbits(256), 256)]
    n, a, results = run_exponentiations(cases, latency=3)
    r = 1 << (W * SIZE)
    for (_, e, bits), (value, products, cycles) in zip(cases, results, strict=True):
        assert value == pow(a, e, n) * pow(r, 1 - e, n) % n, (e, bits)
        assert products == PRODUCTS[op](e, bits), (e, bits)


def test_ladder_time_does_not_depend_on_the_exponent():
    rng = random.Random(12)
    bits = 30
    cases = [(Opcode.EXP_LADDER, e, bits)
             for e in (0, (1 << bits) - 1, 1 << (bits - 1), 0x15555555, rng.getrandbits(bits))]
    _, _, results = run_exponentiations(cases, latency=5)
    # per bit: read it (3 cycles), two products (issue cycle + latency + wait); plus the R1 product
    assert {cycles for _, _, cycles in results} == {1 + (5 + 1) + bits * (3 + 2 * (5 + 1))}


@pytest.mark.parametrize("bits", [1, FIXED_WINDOW_BITS, 3 * FIXED_WINDOW_BITS + 2])
def test_fixed_time_does_not_depend_on_the_exponent(bits):
    """Whatever the bits (junk above the declared length included), the same cycles: the table, then
    per window its reading (3 cycles, 4 for the top window, whose digit is not taken as a squaring
    starts), k squarings but for the top window, the product by its entry."""
    rng = random.Random(13 + bits)
    top, every = 1 << (bits - 1), (1 << bits) - 1
    cases = [(Opcode.EXP_FIXED, e, bits) for e in (0, every, top, 1, rng.getrandbits(bits))]
    _, _, results = run_exponentiations(cases, latency=5)
    k = FIXED_WINDOW_BITS
    windows = -(-bits // k)
    products = (2 ** k - 1) + windows + k * (windows - 1)
    # all but the table's first product and each window's first are requested in the cycle the one
    # before is done: the stand-in's latency alone
    chained = (2 ** k - 2) + k * (windows - 1)
    assert {cycles for _, _, cycles in results} == {1 + products * (5 + 1) - chained + 3 * windows + 1}
