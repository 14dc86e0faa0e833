"""The pair commands (MUL_PAIR, EXP_FIXED_PAIR) and the modulus banks: the RTL in the Amaranth simulator
against pow()/``mont_ref`` and against the model (gateware/model.py)."""

import random

from gateware import model
from gateware.interface import (NUM_SLOTS, MIN_WORDS, FIXED_WINDOW_BITS, Opcode, ErrorCode,
                                PeripheralConfig)
from montmul_harness import W, bus_words, simulate, simulate_verilated, twin, mont_ref, mont_exp_ref

SMALL = PeripheralConfig(max_bits=256, lanes=4, word_bits=W)       # 4 rows per slot, pairs of moduli up to 4 words
MID = PeripheralConfig(max_bits=512, lanes=16, word_bits=W)        # 2 rows per slot, pairs of moduli up to 16 words
NOPAIR = PeripheralConfig(max_bits=64, lanes=4, word_bits=W)       # 1 row per slot: no pair commands
K = FIXED_WINDOW_BITS
E = ErrorCode
OK = {"busy": 0, "done": 1, "error": 0}


def random_modulus(rng, bits):
    return rng.getrandbits(bits) | 1 | (1 << (bits - 1))


def mont_one(n, size):
    return (1 << (W * size)) % n


def with_rows(config, old, rows):
    """Slot value ``old`` with its row k replaced by ``rows[k]``."""
    value = old
    for k, row in enumerate(rows):
        mask = ((1 << config.row_bits) - 1) << (k * config.row_bits)
        value = value & ~mask | row << (k * config.row_bits)
    return value


async def set_bank(d, config, n, size, bank, slot=0):
    """Write N into ``slot`` and make it bank ``bank``'s modulus; the cycles are the model's."""
    await d.write_slot(slot, n, bus_words(size))
    cycles, st = await d.setmod(slot, size, bank)
    assert st == OK, (bank, size, st)
    assert cycles == model.setmod_cycles(config, size * W), (bank, size, cycles)


async def check_mul_pair(d, config, mods, a, b, dst=3, sa=1, sb=2, junk=None):
    """MUL_PAIR dst = a*b in both contexts: results against mont_ref, cycles against the model, rows of
    dst above row 1 kept (``junk``: dst's whole slot beforehand, default random)."""
    (n0, s0), (n1, s1) = mods
    nw = config.bus_words_per_slot
    if sa != dst:
        await d.write_pair(sa, a, config)
    if sb not in (sa, dst):
        await d.write_pair(sb, b, config)
    if junk is None:
        junk = random.Random(a[0] ^ b[1]).getrandbits(config.max_bits)
    if dst not in (sa, sb):
        await d.write_slot(dst, junk, nw)
    else:
        junk = await d.read_slot(dst, nw)
    cycles, st = await d.mul_pair(dst, sa, sb)
    assert st == OK, st
    expected = (mont_ref(a[0], b[0], n0, s0), mont_ref(a[1], b[1], n1, s1))
    got = await d.read_slot(dst, nw)
    assert got == with_rows(config, junk, expected), (hex(n0), hex(n1), a, b, hex(got))
    assert cycles == model.pair_mul_cycles(config, s0 * W, s1 * W), (s0, s1, cycles)
    return expected


def operand_cases(rng, n0, n1):
    """(a, b) pairs per context: random, and the edges 0, 1, n-1 in one context or both."""
    def rnd(n):
        return rng.randrange(n)
    return [
        ((rnd(n0), rnd(n1)), (rnd(n0), rnd(n1))),
        ((0, rnd(n1)), (rnd(n0), 0)),
        ((1, 1), (1, 1)),
        ((n0 - 1, n1 - 1), (n0 - 1, n1 - 1)),
        ((n0 - 1, rnd(n1)), (1, n1 - 1)),
        ((rnd(n0), 0), (n0 - 1, rnd(n1))),
    ]


# ---- MUL_PAIR ------------------------------------------------------------------------------------

def test_mul_pair_sizes_small():
    """Pairs of moduli of equal and different sizes (either larger), full-width or not, at 4 lanes:
    random operands and the edges 0, 1, n-1; every result and every cycle count."""
    rng = random.Random(1)
    config = SMALL
    L = config.lanes
    sizes = [(L, L), (MIN_WORDS, L), (L, MIN_WORDS), (3, 2), (3, 3)]

    async def tb(d):
        for s0, s1 in sizes:
            n0 = random_modulus(rng, s0 * W - (s0 % 2) * 3)
            n1 = random_modulus(rng, s1 * W - (s1 % 3))
            await set_bank(d, config, n0, s0, 0, slot=5)
            await set_bank(d, config, n1, s1, 1, slot=6)
            for a, b in operand_cases(rng, n0, n1):
                await check_mul_pair(d, config, ((n0, s0), (n1, s1)), a, b)

    simulate(config, tb)


def test_mul_pair_sizes_mid():
    """The same at 16 lanes (moduli up to 16 words, the whole row), including the same modulus in both
    banks: the same operands then give the same result in both rows."""
    rng = random.Random(2)
    config = MID
    L = config.lanes

    async def tb(d):
        for s0, s1 in [(L, L), (5, L), (L, 9), (2, 7)]:
            n0 = random_modulus(rng, s0 * W - 1)
            n1 = random_modulus(rng, s1 * W)
            await set_bank(d, config, n0, s0, 0, slot=0)
            await set_bank(d, config, n1, s1, 1, slot=0)
            for a, b in operand_cases(rng, n0, n1)[:4]:
                await check_mul_pair(d, config, ((n0, s0), (n1, s1)), a, b)
        n = random_modulus(rng, L * W)
        await set_bank(d, config, n, L, 0, slot=7)
        await set_bank(d, config, n, L, 1, slot=7)
        a, b = rng.randrange(n), rng.randrange(n)
        r0, r1 = await check_mul_pair(d, config, ((n, L), (n, L)), (a, a), (b, b))
        assert r0 == r1
        await check_mul_pair(d, config, ((n, L), (n, L)), (a, rng.randrange(n)), (n - 1, b))

    simulate(config, tb)


def test_mul_pair_same_modulus_small():
    """The same modulus in both banks at 4 lanes, full row and short."""
    rng = random.Random(3)
    config = SMALL

    async def tb(d):
        for size, bits in ((4, 64), (3, 45)):
            n = random_modulus(rng, bits)
            await set_bank(d, config, n, size, 0, slot=4)
            await set_bank(d, config, n, size, 1, slot=4)
            for a, b in operand_cases(rng, n, n)[:4]:
                await check_mul_pair(d, config, ((n, size), (n, size)), a, b)
            a, b = rng.randrange(n), rng.randrange(n)
            r0, r1 = await check_mul_pair(d, config, ((n, size), (n, size)), (a, a), (b, b))
            assert r0 == r1

    simulate(config, tb)


def test_mul_pair_chained_and_aliased():
    """Back-to-back pair products, each from the previous results (dst = a, dst = b, squaring in place
    dst = a = b): no state leaks from one product to the next."""
    rng = random.Random(4)
    config = SMALL

    async def tb(d):
        s0, s1 = 4, 3
        n0, n1 = random_modulus(rng, s0 * W), random_modulus(rng, s1 * W - 2)
        mods = ((n0, s0), (n1, s1))
        await set_bank(d, config, n0, s0, 0, slot=0)
        await set_bank(d, config, n1, s1, 1, slot=0)
        ref = {1: (rng.randrange(n0), rng.randrange(n1)), 2: (rng.randrange(n0), rng.randrange(n1))}
        await d.write_pair(1, ref[1], config)
        await d.write_pair(2, ref[2], config)
        for dst, sa, sb in [(3, 1, 2), (4, 3, 3), (5, 4, 1), (3, 5, 4), (1, 1, 2), (2, 1, 2), (2, 2, 2),
                            (6, 2, 3), (6, 6, 6), (7, 6, 5)]:
            cycles, st = await d.mul_pair(dst, sa, sb)
            assert st == OK and cycles == model.pair_mul_cycles(config, s0 * W, s1 * W), (cycles, st)
            ref[dst] = tuple(mont_ref(ref[sa][c], ref[sb][c], *mods[c]) for c in (0, 1))
        for slot, expected in ref.items():
            assert await d.read_pair(slot, config) == expected, slot

    simulate(config, tb)


def test_singles_interleaved_with_pairs():
    """MUL (bank 0, row 0) between pair products: each keeps its results right; a MUL leaves dst's row 1
    (context 1's) as it was; SETMOD of one bank leaves the other bank's modulus in force, also while
    bank 0 is wider than a row (singles work, pairs are refused) and after it is a row again."""
    rng = random.Random(5)
    config = SMALL
    nw = config.bus_words_per_slot

    async def tb(d):
        s0, s1 = 4, 2
        n0, n1 = random_modulus(rng, s0 * W), random_modulus(rng, s1 * W - 5)
        mods = ((n0, s0), (n1, s1))
        await set_bank(d, config, n0, s0, 0, slot=0)
        await set_bank(d, config, n1, s1, 1, slot=9)
        for _ in range(3):
            a = (rng.randrange(n0), rng.randrange(n1))
            b = (rng.randrange(n0), rng.randrange(n1))
            await check_mul_pair(d, config, mods, a, b, dst=3, sa=1, sb=2)
            # a single on bank 0 over the same slots: row 0 only
            junk = rng.getrandbits(config.max_bits)
            await d.write_slot(4, junk, nw)
            cycles, st = await d.mul(4, 1, 2)
            assert st == OK and cycles == model.mul_cycles(config, s0 * W)
            assert await d.read_slot(4, nw) == with_rows(config, junk, [mont_ref(a[0], b[0], n0, s0)])
            # a single into the pair's dst: its row 1 keeps context 1's result
            r1 = mont_ref(a[1], b[1], n1, s1)
            cycles, st = await d.mul(3, 3, 2)
            assert st == OK
            r0 = mont_ref(mont_ref(a[0], b[0], n0, s0), b[0], n0, s0)
            assert await d.read_pair(3, config) == (r0, r1)
            # and a pair straight after the single
            await check_mul_pair(d, config, mods, (r0, r1), b, dst=5, sa=3, sb=2)
        # bank 0 wider than a row: singles at that size, pairs refused, bank 1 untouched
        big = random_modulus(rng, 10 * W)
        await set_bank(d, config, big, 10, 0, slot=10)
        x, y = rng.randrange(big), rng.randrange(big)
        await d.write_slot(11, x, bus_words(10))
        await d.write_slot(12, y, bus_words(10))
        _, st = await d.mul(13, 11, 12)
        assert st == OK and await d.read_slot(13, bus_words(10)) == mont_ref(x, y, big, 10)
        before = await d.read_slot(3, nw)
        _, st = await d.mul_pair(3, 1, 2)
        assert st["error"] == E.BAD_SIZE.value
        assert await d.read_slot(3, nw) == before
        # bank 0 a row again (another modulus): pairs over it and the untouched bank 1
        n0 = random_modulus(rng, 3 * W)
        await set_bank(d, config, n0, 3, 0, slot=10)
        await check_mul_pair(d, config, ((n0, 3), (n1, s1)), (rng.randrange(n0), n1 - 1),
                             (rng.randrange(n0), rng.randrange(n1)))

    simulate(config, tb)


def test_contexts_do_not_disturb_each_other():
    """Context 0's result does not depend on context 1's operands and vice versa; the rows of dst above
    row 1 keep their words."""
    rng = random.Random(6)
    config = SMALL

    async def tb(d):
        s0, s1 = 4, 4
        n0, n1 = random_modulus(rng, s0 * W), random_modulus(rng, s1 * W)
        mods = ((n0, s0), (n1, s1))
        await set_bank(d, config, n0, s0, 0)
        await set_bank(d, config, n1, s1, 1)
        a0, b0 = rng.randrange(n0), rng.randrange(n0)
        a1, b1 = rng.randrange(n1), rng.randrange(n1)
        r0 = mont_ref(a0, b0, n0, s0)
        r1 = mont_ref(a1, b1, n1, s1)
        for x, y in [(0, 0), (n1 - 1, n1 - 1), (rng.randrange(n1), rng.randrange(n1)), (1, n1 - 1)]:
            got = await check_mul_pair(d, config, mods, (a0, x), (b0, y), junk=rng.getrandbits(config.max_bits))
            assert got[0] == r0
        for x, y in [(0, 0), (n0 - 1, n0 - 1), (rng.randrange(n0), rng.randrange(n0)), (n0 - 1, 1)]:
            got = await check_mul_pair(d, config, mods, (x, a1), (y, b1), junk=(1 << config.max_bits) - 1)
            assert got[1] == r1

    simulate(config, tb)


def test_mul_pair_w16_l64_1024():
    """The 16-bit configuration a 1024-bit row wide (64 lanes, one DSP48E1 a product): MUL_PAIR with two 1024-bit
    moduli, and a 1024-bit with a 1000-bit one, against mont_ref; cycles the model's."""
    rng = random.Random(7)
    config = PeripheralConfig(word_bits=W, lanes=64)
    assert config.pair_max_words == 1024 // W

    async def tb(d):
        n0, n1 = random_modulus(rng, 1024), random_modulus(rng, 1024)
        await set_bank(d, config, n0, 64, 0, slot=0)
        await set_bank(d, config, n1, 64, 1, slot=1)
        mods = ((n0, 64), (n1, 64))
        await check_mul_pair(d, config, mods, (rng.randrange(n0), rng.randrange(n1)),
                             (rng.randrange(n0), rng.randrange(n1)), dst=4, sa=2, sb=3)
        await check_mul_pair(d, config, mods, (n0 - 1, 1), (n0 - 1, n1 - 1), dst=4, sa=2, sb=3)
        n1 = random_modulus(rng, 1000)
        await set_bank(d, config, n1, 63, 1, slot=1)
        await check_mul_pair(d, config, ((n0, 64), (n1, 63)), (rng.randrange(n0), rng.randrange(n1)),
                             (rng.randrange(n0), rng.randrange(n1)), dst=4, sa=2, sb=3)

    simulate(config, tb)


# ---- MUL_PAIR with a shared a (arg = its words) --------------------------------------------------

async def check_shared(d, config, mods, x, words, dst=4, sa=2, sb=3):
    """MUL_PAIR with arg = ``words``: both contexts multiply slot sa's low ``words`` words by their
    b = 2^(W*(words + size)) mod n, which gives x mod n in Montgomery form; cycles the model's."""
    (n0, s0), (n1, s1) = mods
    await d.write_slot(sa, x, config.bus_words_per_slot)
    await d.write_pair(sb, (pow(2, W * (words + s0), n0), pow(2, W * (words + s1), n1)), config)
    cycles, st = await d.mul_pair(dst, sa, sb, words)
    assert st == OK, st
    shared = x & ((1 << (W * words)) - 1)
    assert await d.read_pair(dst, config) == (shared * pow(2, W * s0, n0) % n0, shared * pow(2, W * s1, n1) % n1)
    assert cycles == model.pair_mul_cycles(config, s0 * W, s1 * W, a_words=words)
    return cycles


def test_mul_pair_shared_a():
    """An input wider than the moduli (up to the whole slot), and narrower, reduced modulo both and
    converted in one MUL_PAIR: different sizes, the same modulus twice, junk above arg ignored; an arg
    past the slot is refused (BAD_SIZE) and leaves dst as it was."""
    rng = random.Random(21)

    async def tb(d):
        for s0, s1 in ((4, 4), (4, 3), (2, 4)):
            n0, n1 = random_modulus(rng, s0 * W), random_modulus(rng, s1 * W - 1)
            await set_bank(d, SMALL, n0, s0, 0, slot=0)
            await set_bank(d, SMALL, n1, s1, 1, slot=1)
            for words in (1, s0, 2 * max(s0, s1), SMALL.max_words):
                await check_shared(d, SMALL, ((n0, s0), (n1, s1)), rng.getrandbits(SMALL.max_bits), words)
        await set_bank(d, SMALL, n0, s0, 1, slot=1)
        await check_shared(d, SMALL, ((n0, s0), (n0, s0)), (1 << (W * 2 * s0)) - 1, 2 * s0)
        before = await d.read_slot(4, SMALL.bus_words_per_slot)
        _, st = await d.mul_pair(4, 2, 3, SMALL.max_words + 1)
        assert st["error"] == E.BAD_SIZE.value
        assert await d.read_slot(4, SMALL.bus_words_per_slot) == before

    simulate(SMALL, tb)


def test_mul_pair_shared_a_w16_l64():
    """The 16-bit configuration a 1024-bit row wide (64 lanes, one DSP48E1 a product): a 2048-bit input reduced modulo
    two 1024-bit factors at once (the firmware's first CRT command)."""
    rng = random.Random(22)
    config = PeripheralConfig(word_bits=W, lanes=64)

    async def tb(d):
        n0, n1 = random_modulus(rng, 1024), random_modulus(rng, 1023)
        await set_bank(d, config, n0, 64, 0, slot=0)
        await set_bank(d, config, n1, 64, 1, slot=1)
        await check_shared(d, config, ((n0, 64), (n1, 64)), rng.getrandbits(2048), 128)

    simulate(config, tb)


# ---- EXP_FIXED_PAIR ------------------------------------------------------------------------------

#: The EXP_FIXED_PAIR tests below run in the Amaranth simulator (montmul_harness.simulate) but for the
#: three after test_exp_pair_lengths_small, whose full-length exponents run in Verilator
#: (simulate_verilated: the same driver and counts; 33 CPU-seconds of the Amaranth simulator).


async def check_exp_pair(d, config, mods, base, exponents, bits, dst=3, sa=1, sb=2):
    """EXP_FIXED_PAIR with dst holding each context's R mod n: results against pow(), cycles against the
    model; returns the cycles."""
    (n0, s0), (n1, s1) = mods
    await d.write_pair(sa, base, config)
    await d.write_pair(sb, exponents, config)
    await d.write_pair(dst, (mont_one(n0, s0), mont_one(n1, s1)), config)
    cycles, st = await d.exp_pair(dst, sa, sb, bits)
    assert st == OK, st
    mask = (1 << bits) - 1
    expected = (mont_exp_ref(base[0], exponents[0] & mask, n0, s0), mont_exp_ref(base[1], exponents[1] & mask, n1, s1))
    got = await d.read_pair(dst, config)
    assert got == expected, (bits, hex(exponents[0]), hex(exponents[1]))
    assert cycles == model.pair_exp_cycles(config, s0 * W, s1 * W, bits), (bits, cycles)
    return cycles


def test_exp_pair_lengths_small():
    """Declared lengths 1, k, k + 1, lengths k does not divide and the full size, with moduli of different
    sizes (either larger); each context's exponent below its own modulus' size. In Verilator (7 s in the
    Amaranth simulator)."""
    rng = random.Random(8)
    config = SMALL

    async def tb(d):
        for (s0, s1), lengths in (((4, 3), (1, K, K + 1, 2 * K + 5, 4 * W)), ((2, 4), (K + 3, 4 * W))):
            n0, n1 = random_modulus(rng, s0 * W - 1), random_modulus(rng, s1 * W - 3)
            await set_bank(d, config, n0, s0, 0, slot=0)
            await set_bank(d, config, n1, s1, 1, slot=0)
            for bits in lengths:
                e0 = rng.getrandbits(s0 * W) | 1 << (min(bits, s0 * W) - 1)
                e1 = rng.getrandbits(s1 * W) | 1 << (min(bits, s1 * W) - 1)
                await check_exp_pair(d, config, ((n0, s0), (n1, s1)), (rng.randrange(n0), rng.randrange(n1)),
                                     (e0, e1), bits)

    simulate_verilated(config, tb)


def test_exp_pair_same_modulus_mid():
    """16 lanes: the same 256-bit modulus in both banks, a full-length exponent (as in an RSA CRT half);
    the same base and exponent in both contexts give the same result, different ones their own."""
    rng = random.Random(9)
    config = MID
    L = config.lanes

    async def tb(d):
        n = random_modulus(rng, L * W)
        mods = ((n, L), (n, L))
        await set_bank(d, config, n, L, 0, slot=0)
        await set_bank(d, config, n, L, 1, slot=0)
        a, e = rng.randrange(n), rng.getrandbits(L * W)
        await check_exp_pair(d, config, mods, (a, rng.randrange(n)), (e, rng.getrandbits(L * W)), L * W)
        await check_exp_pair(d, config, mods, (a, a), (e, e), 2 * K + 1)
        r0, r1 = await d.read_pair(3, config)
        assert r0 == r1

    simulate_verilated(config, tb)


def test_exp_pair_different_sizes_mid():
    """16 lanes: moduli of 16 and 5 words, a declared length above the smaller one's size.  (The length
    sets the number of windows, 7 products each; 6W + 3 bits, past 5 words and short of the row, reads the
    same words of both rows as any longer one would below its top.)"""
    rng = random.Random(10)
    config = MID

    async def tb(d):
        s0, s1 = 5, 16
        n0, n1 = random_modulus(rng, s0 * W - 7), random_modulus(rng, s1 * W)
        mods = ((n0, s0), (n1, s1))
        await set_bank(d, config, n0, s0, 0, slot=0)
        await set_bank(d, config, n1, s1, 1, slot=1)
        bits = 6 * W + 3
        await check_exp_pair(d, config, mods, (rng.randrange(n0), rng.randrange(n1)),
                             (rng.getrandbits(s0 * W - 7), rng.getrandbits(bits)), bits)

    simulate_verilated(config, tb)


def test_exp_pair_constant_time():
    """EXP_FIXED_PAIR takes the model's cycles, whatever the exponents of one declared length: all zeros,
    all ones, one bit (top or bottom), random, junk above the declared length, with different patterns in
    the two contexts."""
    rng = random.Random(11)
    config = SMALL

    async def tb(d):
        s0, s1 = 4, 3
        n0, n1 = random_modulus(rng, s0 * W), random_modulus(rng, s1 * W - 1)
        mods = ((n0, s0), (n1, s1))
        await set_bank(d, config, n0, s0, 0, slot=0)
        await set_bank(d, config, n1, s1, 1, slot=0)
        base = (rng.randrange(n0), rng.randrange(n1))
        seen = {}
        for bits in (2 * K + 1, 3 * W):
            ones, top = (1 << bits) - 1, 1 << (bits - 1)
            junk0 = rng.getrandbits(s0 * W) >> bits << bits
            junk1 = rng.getrandbits(s1 * W) >> bits << bits
            patterns = [(0, 0), (ones, ones), (0, ones), (ones, 0), (top, 1), (1, top),
                        (rng.getrandbits(bits), rng.getrandbits(bits)),
                        (junk0 | rng.getrandbits(bits), junk1), (junk0, junk1 | ones)]
            seen[bits] = {await check_exp_pair(d, config, mods, base, e, bits) for e in patterns}
        return seen

    seen = simulate_verilated(config, tb)
    for bits, cycles in seen.items():
        assert cycles == {model.pair_exp_cycles(config, 4 * W, 3 * W, bits)}, bits


# ---- refusals ------------------------------------------------------------------------------------

def test_pair_refusals():
    """Every refusal of the banks and the pair commands, with its code and one irq pulse; no operand is
    changed, a refused SETMOD leaves that bank's modulus in force, and both moduli work afterwards."""
    rng = random.Random(12)
    config = SMALL
    L = config.lanes
    nw = config.bus_words_per_slot

    async def tb(d):
        values = {slot: rng.getrandbits(config.max_bits) for slot in range(NUM_SLOTS)}
        s0, s1 = 4, 3
        n0, n1 = random_modulus(rng, s0 * W), random_modulus(rng, s1 * W)
        values[0] = values[0] >> (L * W) << (L * W) | n0
        values[1] = values[1] >> (L * W) << (L * W) | n1
        values[9] &= ~1                                  # even in every size
        values[10] = values[10] >> (10 * W) << (10 * W) | random_modulus(rng, 10 * W)
        for slot, value in values.items():
            await d.write_slot(slot, value, nw)

        async def refused(op, dst=0, a=0, b=0, arg=0, code=None, done=None):
            irqs = d.irqs
            cycles, st = await d.run(op, dst, a, b, arg)
            assert st["error"] == code.value and st["busy"] == 0, (op, dst, a, b, arg, st)
            if done is not None:
                assert st["done"] == done, (op, st)
            await d.tick()
            assert d.irqs == irqs + 1, (op, "a refused command pulses irq once")

        pair_ops = ((Opcode.MUL_PAIR, 0), (Opcode.EXP_FIXED_PAIR, 4))
        # no modulus in either bank
        for op, arg in pair_ops:
            await refused(op, 3, 4, 5, arg, code=E.NO_MODULUS)
        # bank numbers 2..31
        for bank in range(2, 32):
            await refused(Opcode.SETMOD, dst=bank, a=0, arg=s0, code=E.BAD_BANK)
        # bank 1: sizes outside MIN_WORDS..a row
        for size in (0, MIN_WORDS - 1, L + 1, config.max_words, 8191):
            await refused(Opcode.SETMOD, dst=1, a=1, arg=size, code=E.BAD_SIZE)
        # an even modulus in a bank never set sets none
        await refused(Opcode.SETMOD, dst=1, a=9, arg=s1, code=E.EVEN_MODULUS, done=0)
        # bank 0 only: bank 1 never set
        _, st = await d.setmod(0, s0, 0)
        assert st == OK
        for op, arg in pair_ops:
            await refused(op, 3, 4, 5, arg, code=E.NO_MODULUS)
        _, st = await d.setmod(1, s1, 1)
        assert st == OK
        # an even modulus in bank 1 keeps the previous one (checked by the product at the end)
        await refused(Opcode.SETMOD, dst=1, a=9, arg=s1, code=E.EVEN_MODULUS, done=0)
        await refused(Opcode.SETMOD, dst=1, a=9, arg=2, code=E.EVEN_MODULUS, done=0)
        # slot numbers past the user slots
        for op, arg in pair_ops:
            for dst, a, b in ((NUM_SLOTS, 4, 5), (3, NUM_SLOTS, 5), (3, 4, NUM_SLOTS), (31, 31, 31), (3, 4, 17)):
                await refused(op, dst, a, b, arg, code=E.BAD_SLOT)
        # EXP_FIXED_PAIR: aliases, declared lengths 0 and past the larger size (both orders of the sizes)
        for dst, a, b in ((3, 3, 5), (3, 4, 3), (3, 3, 3)):
            await refused(Opcode.EXP_FIXED_PAIR, dst, a, b, 4, code=E.ALIAS)
        for arg in (0, max(s0, s1) * W + 1, (1 << 13) - 1):
            await refused(Opcode.EXP_FIXED_PAIR, 3, 4, 5, arg, code=E.BAD_EXP_BITS)
        # bank 0 wider than a row: both pair commands refused
        _, st = await d.setmod(10, 10, 0)
        assert st == OK
        for op, arg in pair_ops:
            await refused(op, 3, 4, 5, arg, code=E.BAD_SIZE)
        # bank 0 smaller than bank 1: lengths past bank 1's size refused, not past bank 0's
        _, st = await d.setmod(0, 2, 0)
        assert st == OK
        await refused(Opcode.EXP_FIXED_PAIR, 3, 4, 5, s1 * W + 1, code=E.BAD_EXP_BITS)
        # a refused command changed no slot
        for slot, value in values.items():
            assert await d.read_slot(slot, nw) == value, slot
        # both banks still work: bank 0 as loaded last (n0 at 2 words), bank 1 the first n1
        m0 = n0 & ((1 << (2 * W)) - 1)
        await check_mul_pair(d, config, ((m0, 2), (n1, s1)), (rng.randrange(m0), rng.randrange(n1)),
                             (m0 - 1, n1 - 1), dst=3, sa=4, sb=5)
        _, st = await d.setmod(0, s0, 0)
        assert st == OK
        await check_mul_pair(d, config, ((n0, s0), (n1, s1)), (rng.randrange(n0), rng.randrange(n1)),
                             (rng.randrange(n0), rng.randrange(n1)), dst=6, sa=7, sb=8)

    simulate(config, tb)


def test_refusals_bank0_never_set():
    """Bank 1 set, bank 0 never: both pair commands refused (NO_MODULUS), and singles too; nothing
    changes; after bank 0 is set the pair works with the bank-1 modulus loaded first."""
    rng = random.Random(13)
    config = SMALL
    nw = config.bus_words_per_slot

    async def tb(d):
        n0, n1 = random_modulus(rng, 4 * W), random_modulus(rng, 2 * W)
        values = {slot: rng.getrandbits(config.max_bits) for slot in range(2, 8)}
        for slot, value in values.items():
            await d.write_slot(slot, value, nw)
        await set_bank(d, config, n1, 2, 1, slot=0)
        for op, arg in ((Opcode.MUL_PAIR, 0), (Opcode.EXP_FIXED_PAIR, 4), (Opcode.MUL, 0)):
            irqs = d.irqs
            _, st = await d.run(op, 3, 4, 5, arg)
            assert st["error"] == E.NO_MODULUS.value, (op, st)
            await d.tick()
            assert d.irqs == irqs + 1
        for slot, value in values.items():
            assert await d.read_slot(slot, nw) == value
        await set_bank(d, config, n0, 4, 0, slot=1)
        await check_mul_pair(d, config, ((n0, 4), (n1, 2)), (n0 - 1, n1 - 1), (rng.randrange(n0), 1))

    simulate(config, tb)


def test_no_pairs_configuration():
    """One row per slot: no pair commands.  SETMOD of bank 1 is BAD_BANK, the pair opcodes BAD_OPCODE
    (with a modulus set and good fields too); bank 0 and MUL keep working and no operand changes."""
    rng = random.Random(14)
    config = NOPAIR
    assert config.rows_per_slot == 1 and not config.has_pairs and config.pair_max_words == 0
    nw = config.bus_words_per_slot

    async def tb(d):
        n = random_modulus(rng, config.max_bits)
        size = config.max_words
        values = {slot: rng.getrandbits(config.max_bits) for slot in range(NUM_SLOTS)}
        values[0] = n
        for slot, value in values.items():
            await d.write_slot(slot, value, nw)
        answers = []
        for bank in (1, 2, 31):
            answers.append(await d.run(Opcode.SETMOD, bank, 0, 0, size))
        for op in (Opcode.MUL_PAIR, Opcode.EXP_FIXED_PAIR):
            answers.append(await d.run(op, 3, 1, 2, 4))
        _, st = await d.setmod(0, size, 0)
        assert st == OK
        answers.append(await d.run(Opcode.SETMOD, 1, 0, 0, size))
        for op in (Opcode.MUL_PAIR, Opcode.EXP_FIXED_PAIR):
            answers.append(await d.run(op, 3, 1, 2, 4))
        for slot, value in values.items():
            assert await d.read_slot(slot, nw) == value
        a, b = rng.randrange(n), rng.randrange(n)
        await d.write_slot(1, a, nw)
        await d.write_slot(2, b, nw)
        _, st = await d.mul(3, 1, 2)
        assert st == OK and await d.read_slot(3, nw) == mont_ref(a, b, n, size)
        return answers

    answers = simulate(config, tb)
    codes = [status["error"] for cycles, status in answers]
    assert codes == [E.BAD_BANK.value] * 3 + [E.BAD_OPCODE.value] * 2 + [E.BAD_BANK.value] \
        + [E.BAD_OPCODE.value] * 2
    assert all(cycles == 1 and status["busy"] == 0 for cycles, status in answers)


# ---- the model's twin ----------------------------------------------------------------------------

def test_pair_twin():
    """A short scenario on the RTL and on the model: SETMODs of both banks (good, even, bad bank, bad
    size), pair products, singles, an EXP_FIXED_PAIR, refusals and strobes while a pair runs; every
    status, cycle count, irq count and slot word is the same."""
    config = SMALL
    nw = config.bus_words_per_slot

    async def scenario(d):
        rng = random.Random(15)
        seen = []

        async def note(op, dst=0, a=0, b=0, arg=0):
            seen.append((getattr(op, "value", op), dst, a, b, arg, await d.run(op, dst, a, b, arg), d.irqs))

        n0, n1 = random_modulus(rng, 4 * W), random_modulus(rng, 3 * W - 2)
        for slot in range(NUM_SLOTS):
            await d.write_slot(slot, rng.getrandbits(config.max_bits), nw)
        await d.write_slot(0, n0, bus_words(4))
        await d.write_slot(1, n1, bus_words(3))
        await d.write_slot(2, n1 - 1, bus_words(3))
        await note(Opcode.MUL_PAIR, 3, 4, 5)                     # NO_MODULUS
        await note(Opcode.SETMOD, 1, 1, 0, 3)
        await note(Opcode.SETMOD, 2, 1, 0, 3)                    # BAD_BANK
        await note(Opcode.SETMOD, 1, 1, 0, 5)                    # BAD_SIZE
        await note(Opcode.SETMOD, 1, 2, 0, 3)                    # EVEN_MODULUS
        await note(Opcode.EXP_FIXED_PAIR, 3, 4, 5, 4)            # NO_MODULUS (bank 0)
        await note(Opcode.SETMOD, 0, 0, 0, 4)
        await d.write_pair(4, (rng.randrange(n0), rng.randrange(n1)), config)
        await d.write_pair(5, (rng.randrange(n0), rng.randrange(n1)), config)
        await note(Opcode.MUL_PAIR, 3, 4, 5)
        await note(Opcode.MUL, 6, 3, 5)
        await note(Opcode.MUL_PAIR, 7, 6, 3)
        await note(Opcode.MUL_PAIR, 7, 7, 4)
        await d.write_pair(8, (mont_one(n0, 4), mont_one(n1, 3)), config)
        await d.write_pair(9, (rng.getrandbits(64), rng.getrandbits(48)), config)
        await note(Opcode.EXP_FIXED_PAIR, 8, 4, 9, K + 3)
        await note(Opcode.EXP_FIXED_PAIR, 8, 8, 9, 4)            # ALIAS
        await note(Opcode.EXP_FIXED_PAIR, 8, 4, 9, 4 * W + 1)    # BAD_EXP_BITS
        await note(Opcode.MUL_PAIR, 3, 4, NUM_SLOTS)             # BAD_SLOT
        # strobes while a pair product runs
        await d.strobe_cmd(Opcode.MUL_PAIR, 10, 4, 5)
        await d.tick(3)
        await d.strobe_cmd(Opcode.NOP)
        await d.write_words([0x5a5a5a5a])
        seen.append((await d.wait(), await d.read_status(), d.irqs))
        await note(Opcode.SETMOD, 0, 0, 0, 6)                    # wider than a row
        await note(Opcode.MUL_PAIR, 3, 4, 5)                     # BAD_SIZE
        await d.write_slot(12, 12345, nw)
        await note(Opcode.MUL, 11, 4, 12)
        seen.append([await d.read_slot(slot, nw) for slot in range(NUM_SLOTS)])
        return n0, n1, seen

    rtl, expected = twin(config, scenario)
    assert rtl == expected
    n0, n1, seen = rtl
    codes = [entry[5][1]["error"] for entry in seen if len(entry) == 7]
    assert codes == [code.value for code in (
        E.NO_MODULUS, E.NONE, E.BAD_BANK, E.BAD_SIZE, E.EVEN_MODULUS, E.NO_MODULUS, E.NONE, E.NONE, E.NONE,
        E.NONE, E.NONE, E.NONE, E.ALIAS, E.BAD_EXP_BITS, E.BAD_SLOT, E.NONE, E.BAD_SIZE, E.NONE)]
    assert seen[15][1]["error"] == E.BUSY.value
    pair_cycles = [entry[5][0] for entry in seen if len(entry) == 7 and entry[0] == Opcode.MUL_PAIR.value
                   and entry[5][1]["error"] == 0]
    assert pair_cycles == [model.pair_mul_cycles(config, 4 * W, 3 * W)] * 3
