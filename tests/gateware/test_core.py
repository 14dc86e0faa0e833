"""The multiplier core alone (with the register file it reads), against a textbook Montgomery product."""

import random

from amaranth import Elaboratable, Module
from amaranth.lib import wiring
from amaranth.sim import Simulator

import pytest

from gateware import model, quotient_pipelining
from gateware.interface import PeripheralConfig
from gateware.montmul import MontMulCore
from gateware.montmul.regfile import RegisterFile
import regfile_access

def mont_textbook(a, b, n, size, W):
    """Word-serial CIOS Montgomery product a*b*2^(-W*size) mod n, one conditional subtraction."""
    MASK = (1 << W) - 1
    n_inv = -pow(n, -1, 1 << W) & MASK
    t = 0
    for i in range(size):
        t += ((a >> (W * i)) & MASK) * b
        q = ((t & MASK) * n_inv) & MASK
        t = (t + q * n) >> W
    return t - n if t >= n else t


def modulus_constants(config, n, size):
    """What SETMOD leaves in the modulus state for ``n`` at ``size`` words."""
    W = config.word_bits
    MASK = (1 << W) - 1
    n_inv = -pow(n, -1, 1 << W) & MASK
    n_prime = (n_inv * n + 1) >> W
    rows = -(-size // config.lanes)
    tail = size % config.lanes
    mask = (1 << config.row_bits) - 1 if tail == 0 else (1 << (W * tail)) - 1
    return n_inv, n_prime, rows, mask


class CoreBench(Elaboratable):
    def __init__(self, config):
        self.regfile = RegisterFile(config)
        self.core = MontMulCore(config)

    def elaborate(self, platform):
        m = Module()
        m.submodules.regfile = self.regfile
        m.submodules.core = self.core
        wiring.connect(m, self.core.operand_read, self.regfile.core_read)
        wiring.connect(m, self.core.operand_write, self.regfile.core_write)
        wiring.connect(m, self.core.modulus_read, self.regfile.modulus_read)
        return m


def rows_of(config, value, count):
    return [(value >> (config.row_bits * k)) & ((1 << config.row_bits) - 1) for k in range(count)]


async def load_modulus(ctx, bench, config, state, bank, n, size):
    """N and N' of ``n`` at ``size`` words into modulus bank ``bank``'s rows, and the modulus state
    ``state`` (the core's ``modulus`` or ``modulus1``) as SETMOD would leave it."""
    rf = bench.regfile
    n_inv, n_prime, rows, mask = modulus_constants(config, n, size)
    first = (0, config.bank1_row)[bank]
    for base, value in ((first, n), (first + config.n_prime_row, n_prime)):
        for k, row in enumerate(rows_of(config, value, rows)):
            ctx.set(rf.modulus_write.addr, base + k)
            ctx.set(rf.modulus_write.data, row & mask if k == rows - 1 else row)
            ctx.set(rf.modulus_write.en, 1)
            await ctx.tick()
    ctx.set(rf.modulus_write.en, 0)
    for name, value in (("size", size), ("rows", rows), ("n_inv", n_inv), ("last_row_mask", mask),
                        ("valid", 1)):
        ctx.set(getattr(state, name), value)
    return rows


async def read_slot(ctx, bench, config, slot):
    """Every row of ``slot``, through the register file's bus read port."""
    rf = bench.regfile
    value = 0
    for k in range(config.rows_per_slot):
        ctx.set(rf.bus_read.addr, slot * config.rows_per_slot + k)
        await ctx.tick()
        value |= ctx.get(rf.bus_read.data) << (config.row_bits * k)
    return value


async def start_and_wait(ctx, core):
    """Starts the product whose slots are set on ``core.ctl`` in this cycle and waits for its done;
    returns its cycles from the accepting one to the done one, both included (the done cycle is the
    current one on return)."""
    ctx.set(core.ctl.start, 1)
    await ctx.tick()
    ctx.set(core.ctl.start, 0)
    cycles = 2
    while not ctx.get(core.ctl.done):
        assert ctx.get(core.ctl.busy)
        await ctx.tick()
        cycles += 1
    return cycles


def run_products(config, cases, seed):
    """cases: (n, size) -> list of (a, b); returns [(got, expected, cycles)] per product."""
    W = config.word_bits
    bench = CoreBench(config)
    rf, core = bench.regfile, bench.core
    rng = random.Random(seed)
    results = []

    async def tb(ctx):
        async def write_slot(slot, value):
            await regfile_access.write_slot(ctx, rf, config, slot, value)

        for (n, size), pairs in cases.items():
            rows = await load_modulus(ctx, bench, config, core.modulus, 0, n, size)
            for a, b in pairs:
                # junk above the size in a's and b's slots must not matter
                junk = rng.getrandbits(config.max_bits) >> (W * size) << (W * size)
                await write_slot(1, a | junk)
                await write_slot(2, b | junk)
                await write_slot(3, rng.getrandbits(config.max_bits))
                ctx.set(core.ctl.a, 1)
                ctx.set(core.ctl.b, 2)
                ctx.set(core.ctl.dst, 3)
                cycles = await start_and_wait(ctx, core) - 1       # without the accepting cycle
                await ctx.tick()
                assert not ctx.get(core.ctl.busy)
                got = await read_slot(ctx, bench, config, 3) & ((1 << (W * size)) - 1)
                results.append((got, mont_textbook(a, b, n, size, W), cycles, size, rows))

    sim = Simulator(bench)
    sim.add_clock(1e-8)
    sim.add_testbench(tb)
    sim.run()
    return results


@pytest.mark.parametrize("word_bits", [16, 8, 32])
def test_core_products_and_cycles(word_bits):
    """Every word width a build may choose (the same RTL)."""
    config = PeripheralConfig(max_bits=256, lanes=4, word_bits=word_bits)
    W = config.word_bits
    rng = random.Random(1)
    cases = {}
    sizes = (2, 3, 4, 5, 9, 16) if W < 32 else (2, 3, 4, 5, 8)
    for size in sizes:
        bits = W * size - (3 if size % 2 else 0)
        n = rng.getrandbits(bits) | 1 | 1 << (bits - 1)
        r = 1 << (W * size)
        cases[(n, size)] = [(rng.randrange(n), rng.randrange(n)), (n - 1, n - 1), (0, rng.randrange(n)),
                            (r - 1, n - 1)]
    results = run_products(config, cases, seed=2)
    assert len(results) == 4 * len(sizes)
    for got, expected, cycles, size, rows in results:
        assert got == expected
        # start .. done: the MUL command's P*(size + gap) + 2*rows + 7 (+ 1 with several rows) without its
        # accepting cycle
        P = max(rows, 2)
        assert cycles == P * (size + (1 if P >= 4 else 2)) + 2 * rows + 6 + (rows > 1), (size, cycles)


def test_core_rows_wider_than_a_carry_segment():
    """64 lanes: a row is two 32-word carry-select segments."""
    config = PeripheralConfig(max_bits=2048, lanes=64, word_bits=16)
    W = config.word_bits
    rng = random.Random(3)
    n = (1 << (W * 65)) - 1 - 2 * rng.getrandbits(W * 60)       # 65 words: two rows, the last one 1 word
    results = run_products(config, {(n, 65): [(rng.randrange(n), rng.randrange(n)), (n - 1, n - 1)]}, seed=4)
    for got, expected, cycles, size, rows in results:
        assert got == expected
        assert cycles == 2 * (65 + 2) + 2 * 2 + 7


@pytest.mark.parametrize("word_bits", [8, 16])
def test_core_final_choice(word_bits):
    """Products whose sum before the final passes is below N, between N and 2N, and at 2N or above
    (``quotient_pipelining.mont_mul`` tells which), with moduli whose top bit is set (2N overflows the
    rows) or not, at sizes that fill the last row or leave words above them."""
    config = PeripheralConfig(max_bits=256, lanes=4, word_bits=word_bits)
    W = config.word_bits
    rng = random.Random(7)
    cases = {}
    for size, top in ((2, True), (4, True), (4, False), (5, True), (8, True)):
        bits = W * size - (0 if top else 2)
        n = rng.getrandbits(bits) | 1 | 1 << (bits - 1)
        modulus = quotient_pipelining.pipelined_modulus(n, size, W)
        found = {}
        while len(found) < 3:
            a, b = rng.getrandbits(W * size), rng.randrange(n)
            found.setdefault(quotient_pipelining.mont_mul(a, b, modulus).subtracted, (a, b))
        cases[(n, size)] = list(found.values())
    for got, expected, cycles, size, rows in run_products(config, cases, seed=8):
        assert got == expected, size


def test_core_products_started_in_the_last_cycle_of_the_one_before():
    """A requester may start the next product in the cycle the core pulses ``done`` (the sequencer's
    EXP_FIXED does).  Chains over one-row and two-row singles and pairs, each product reading the
    result just written: after a pair or a product of several rows the next one costs a cycle less
    than from idle; after a single of one row (whose row 0 is written in that cycle) its first read
    waits a cycle, a pair's too."""
    config = PeripheralConfig(max_bits=128, lanes=4, word_bits=8)
    W = config.word_bits
    assert config.has_pairs
    rng = random.Random(11)
    bench = CoreBench(config)
    rf, core = bench.regfile, bench.core
    row_bits = config.row_bits
    seen = []

    def odd(bits):
        return rng.getrandbits(bits) | 1 | 1 << (bits - 1)

    async def chain(ctx, products):
        """products: (pair, dst, a, b); starts the first from idle and each other in the cycle the one
        before is done; returns the cycles from each accepting cycle to its done, both included (a
        chained product's accepting cycle is the done cycle of the one before)."""
        lengths = []
        for index, (pair, dst, a, b) in enumerate(products):
            for name, value in (("pair", pair), ("dst", dst), ("a", a), ("b", b), ("b1", b), ("a_words", 0)):
                ctx.set(getattr(core.ctl, name), value)
            lengths.append(await start_and_wait(ctx, core))
        await ctx.tick()
        assert not ctx.get(core.ctl.busy)
        return lengths

    async def tb(ctx):
        # one-row singles (3 words), pairs (3 and 2 words), then a pair after a pair and a single after it
        n0, n1 = odd(3 * W), odd(2 * W - 1)
        await load_modulus(ctx, bench, config, core.modulus, 0, n0, 3)
        await load_modulus(ctx, bench, config, core.modulus1, 1, n1, 2)
        a, b = rng.randrange(n0), rng.randrange(n0)
        a1, b1 = rng.randrange(n1), rng.randrange(n1)
        await regfile_access.write_slot(ctx, rf, config, 1, a | a1 << row_bits)
        await regfile_access.write_slot(ctx, rf, config, 2, b | b1 << row_bits)
        await regfile_access.write_slot(ctx, rf, config, 4, a1 << row_bits)    # the singles write its row 0
        lengths = await chain(ctx, [(0, 3, 1, 2), (0, 4, 3, 3), (1, 5, 4, 2), (1, 6, 5, 5), (0, 7, 6, 1)])
        x = mont_textbook(a, b, n0, 3, W)
        y = mont_textbook(x, x, n0, 3, W)
        p0, p1 = mont_textbook(y, b, n0, 3, W), mont_textbook(a1, b1, n1, 2, W)    # slot 4's row 1: a1
        q0, q1 = mont_textbook(p0, p0, n0, 3, W), mont_textbook(p1, p1, n1, 2, W)
        z = mont_textbook(q0, a, n0, 3, W)
        mask = (1 << row_bits) - 1
        got = [await read_slot(ctx, bench, config, slot) for slot in (3, 4, 5, 6, 7)]
        seen.append(("one row", lengths, [got[0] & mask, got[1] & mask, got[2] & mask, got[2] >> row_bits & mask,
                                          got[3] & mask, got[3] >> row_bits & mask, got[4] & mask],
                     [x, y, p0, p1, q0, q1, z]))
        # two-row singles (6 words)
        n0 = odd(6 * W)
        await load_modulus(ctx, bench, config, core.modulus, 0, n0, 6)
        a, b = rng.randrange(n0), rng.randrange(n0)
        await regfile_access.write_slot(ctx, rf, config, 1, a)
        await regfile_access.write_slot(ctx, rf, config, 2, b)
        lengths = await chain(ctx, [(0, 3, 1, 2), (0, 4, 3, 3), (0, 5, 4, 1)])
        x = mont_textbook(a, b, n0, 6, W)
        y = mont_textbook(x, x, n0, 6, W)
        got = [await read_slot(ctx, bench, config, slot) & ((1 << (6 * W)) - 1) for slot in (3, 4, 5)]
        seen.append(("two rows", lengths, got, [x, y, mont_textbook(y, a, n0, 6, W)]))

    sim = Simulator(bench)
    sim.add_clock(1e-8)
    sim.add_testbench(tb)
    sim.run()
    single3, single6 = model.mul_cycles(config, 3 * W), model.mul_cycles(config, 6 * W)
    pair = model.pair_mul_cycles(config, 3 * W, 2 * W)
    (_, lengths, got, expected), (_, lengths2, got2, expected2) = seen
    assert got == expected and got2 == expected2
    # from its accepting cycle a product takes the model's cycles, idle or chained, and one more when it
    # follows a one-row single
    assert lengths == [single3, single3 + 1, pair + 1, pair, single3]
    assert lengths2 == [single6, single6, single6]
