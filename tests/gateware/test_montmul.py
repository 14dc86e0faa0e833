"""Montgomery peripheral against the plain-Python reference (Amaranth simulator)."""

import random

import pytest

from gateware import model
from gateware.interface import (NUM_SLOTS, MIN_WORDS, FIXED_WINDOW_BITS, Opcode, ErrorCode,
                                PeripheralConfig)
from montmul_harness import W, bus_words, simulate, simulate_verilated, mont_ref, mont_textbook, mont_exp_ref

SMALL = PeripheralConfig(max_bits=256, lanes=4, word_bits=W)       # 16 words, 4 rows per slot
TINY = PeripheralConfig(max_bits=128, lanes=4, word_bits=W)        # 8 words, 2 rows per slot
ODD = PeripheralConfig(max_bits=1056, lanes=16, word_bits=W)       # room for 1025..1030-bit moduli (65 words)

E = ErrorCode


def random_modulus(rng, bits):
    return rng.getrandbits(bits) | 1 | (1 << (bits - 1))


def size_of(n):
    return -(-n.bit_length() // W)


def test_reference_models_agree():
    rng = random.Random(0)
    for bits in (17, 64, 255, 1025):
        n = random_modulus(rng, bits)
        s = size_of(n)
        for _ in range(5):
            a, b = rng.randrange(n), rng.randrange(n)
            assert mont_textbook(a, b, n, s) == mont_ref(a, b, n, s)


async def load_modulus(d, n, size, slot=0):
    await d.write_slot(slot, n, bus_words(size))
    cycles, st = await d.setmod(slot, size)
    assert st == {"busy": 0, "done": 1, "error": 0}, st
    return cycles


async def check_mul(d, n, size, a, b, dst=3, sa=1, sb=2):
    nw = bus_words(size)
    await d.write_slot(sa, a, nw)
    if sb != sa:
        await d.write_slot(sb, b, nw)
    cycles, st = await d.run(Opcode.MUL, dst, sa, sb)
    assert st == {"busy": 0, "done": 1, "error": 0}, st
    got = await d.read_slot(dst, nw)
    assert got == mont_ref(a, b, n, size), (hex(n), hex(a), hex(b), hex(got))
    return cycles


@pytest.mark.parametrize("config", [SMALL, TINY], ids=["256b-L4", "128b-L4"])
def test_mul_random_all_sizes(config):
    rng = random.Random(config.lanes)

    async def tb(d):
        for size in range(MIN_WORDS, config.max_words + 1):
            # full-width, and one bit short of the word boundary
            for bits in {size * W, size * W - 5}:
                n = random_modulus(rng, bits)
                await load_modulus(d, n, size)
                for _ in range(2):
                    await check_mul(d, n, size, rng.randrange(n), rng.randrange(n))

    simulate(config, tb)


def test_mul_odd_sizes():
    """1025..1030-bit moduli use ceil(bits/16) = 65 words; N's slot may hold junk above the size."""
    rng = random.Random(1025)

    async def tb(d):
        for bits in range(1025, 1031):
            n = random_modulus(rng, bits)
            size = size_of(n)
            # junk above the size in N's slot must be ignored
            junk = rng.getrandbits(ODD.max_bits) >> (size * W) << (size * W)
            await d.write_slot(0, n | junk, ODD.bus_words_per_slot)
            _, st = await d.setmod(0, size)
            assert st["error"] == 0
            await check_mul(d, n, size, rng.randrange(n), rng.randrange(n))

    simulate(ODD, tb)


def test_mul_edge_cases():
    rng = random.Random(7)
    config = SMALL

    async def tb(d):
        for size in (MIN_WORDS, 5, config.max_words):
            bits = size * W
            moduli = [
                (1 << bits) - 1,                     # N = 2^k - 1
                (1 << (bits - 1)) | 1,               # only the top and bottom bits set
                random_modulus(rng, bits),
                (1 << (bits - 3)) + 3,               # small against R
            ]
            for n in moduli:
                await load_modulus(d, n, size)
                for a, b in [(0, rng.randrange(n)), (rng.randrange(n), 1), (n - 1, n - 1), (1, 1), (n - 1, 1)]:
                    await check_mul(d, n, size, a, b)

    simulate(config, tb)


def test_mul_first_operand_above_modulus():
    """a in [N, R) with b < N still gives a*b*R^-1 mod N fully reduced (ab/R + N < 2N for a < R): the
    firmware reduces a 2048-bit value modulo a 1024-bit prime this way, at the 2048-bit size."""
    rng = random.Random(11)
    config = SMALL

    async def tb(d):
        for size in (MIN_WORDS, 5, 8, config.max_words):
            r = 1 << (size * W)
            for bits in (size * W, size * W - 5, size * W // 2):
                n = random_modulus(rng, bits)
                await load_modulus(d, n, size)
                cases = [(r - 1, n - 1), (r - 1, r * r % n), (n, n - 1), (rng.randrange(n, r), rng.randrange(n)),
                         (rng.randrange(max(n, r - (r >> 4)), r), rng.randrange(n)), (rng.randrange(n, r), 1)]
                for a, b in cases:
                    assert n <= a < r and b < n
                    await check_mul(d, n, size, a, b)

    simulate(config, tb)


def test_mul_aliasing_and_back_to_back():
    rng = random.Random(3)
    size = 12

    async def tb(d):
        n = random_modulus(rng, size * W)
        nw = bus_words(size)
        await load_modulus(d, n, size)
        a, b = rng.randrange(n), rng.randrange(n)
        await d.write_slot(1, a, nw)
        await d.write_slot(2, b, nw)
        # dst = a
        await d.run(Opcode.MUL, 1, 1, 2)
        a = mont_ref(a, b, n, size)
        assert await d.read_slot(1, nw) == a
        # dst = b
        await d.run(Opcode.MUL, 2, 1, 2)
        b = mont_ref(a, b, n, size)
        assert await d.read_slot(2, nw) == b
        # dst = a = b (squaring in place)
        await d.run(Opcode.MUL, 2, 2, 2)
        b = mont_ref(b, b, n, size)
        assert await d.read_slot(2, nw) == b
        # back to back: the next command strobed in the first cycle done is visible
        ref = {1: a, 2: b}
        for dst, sa, sb in [(4, 1, 2), (5, 4, 4), (6, 5, 1), (4, 6, 5)]:
            await d.run(Opcode.MUL, dst, sa, sb)
            ref[dst] = mont_ref(ref[sa], ref[sb], n, size)
        for slot in (4, 5, 6):
            assert await d.read_slot(slot, nw) == ref[slot]

    simulate(SMALL, tb)


def test_size_change_between_commands():
    rng = random.Random(4)

    async def tb(d):
        n1 = random_modulus(rng, 16 * W)
        n2 = random_modulus(rng, 3 * W)
        await d.write_slot(7, n1, bus_words(16))
        await d.write_slot(8, n2, bus_words(3))
        for n, slot, size in [(n1, 7, 16), (n2, 8, 3), (n1, 7, 16), (n2, 8, 3)]:
            _, st = await d.setmod(slot, size)
            assert st["error"] == 0
            await check_mul(d, n, size, rng.randrange(n), rng.randrange(n))
        # the modulus is latched: its slot may be overwritten afterwards
        await d.write_slot(8, 0, bus_words(16))
        await check_mul(d, n2, 3, rng.randrange(n2), rng.randrange(n2))

    simulate(SMALL, tb)


def test_errors_leave_operands_intact():
    rng = random.Random(5)
    config = SMALL
    size = 8
    nw = config.bus_words_per_slot

    async def tb(d):
        values = {slot: rng.getrandbits(config.max_bits) for slot in range(NUM_SLOTS)}
        n = random_modulus(rng, size * W)
        values[0] = n
        for slot, v in values.items():
            await d.write_slot(slot, v, nw)

        async def refused(op, dst=0, a=0, b=0, arg=0, code=None):
            irqs = d.irqs
            cycles, st = await d.run(op, dst, a, b, arg)
            assert st["error"] == code.value, (op, st)
            await d.tick()
            assert d.irqs == irqs + 1, "a refused command pulses irq once"

        # before any SETMOD
        await refused(Opcode.MUL, 3, 1, 2, code=E.NO_MODULUS)
        await refused(Opcode.EXP_WINDOW, 3, 1, 2, 4, code=E.NO_MODULUS)
        await refused(Opcode.EXP_LADDER, 3, 1, 2, 4, code=E.NO_MODULUS)
        await refused(Opcode.EXP_FIXED, 3, 1, 2, 4, code=E.NO_MODULUS)
        await refused(len(Opcode), code=E.BAD_OPCODE)       # the first unused opcode
        await refused(15, code=E.BAD_OPCODE)
        values[9] = values[9] & ~1
        await d.write_slot(9, values[9], nw)
        await refused(Opcode.SETMOD, a=9, arg=size, code=E.EVEN_MODULUS)
        await refused(Opcode.MUL, 3, 1, 2, code=E.NO_MODULUS)      # a refused SETMOD sets no modulus
        await refused(Opcode.SETMOD, a=0, arg=MIN_WORDS - 1, code=E.BAD_SIZE)
        await refused(Opcode.SETMOD, a=0, arg=config.max_words + 1, code=E.BAD_SIZE)
        await refused(Opcode.SETMOD, a=NUM_SLOTS, arg=size, code=E.BAD_SLOT)
        await refused(Opcode.WRITE, dst=NUM_SLOTS, code=E.BAD_SLOT)
        await refused(Opcode.READ, a=31, code=E.BAD_SLOT)

        _, st = await d.setmod(0, size)
        assert st == {"busy": 0, "done": 1, "error": 0}
        for dst, a, b in [(NUM_SLOTS, 1, 2), (3, NUM_SLOTS + 3, 2), (3, 1, 31)]:
            await refused(Opcode.MUL, dst, a, b, code=E.BAD_SLOT)
            await refused(Opcode.EXP_WINDOW, dst, a, b, 3, code=E.BAD_SLOT)
            await refused(Opcode.EXP_FIXED, dst, a, b, 3, code=E.BAD_SLOT)
        for op in (Opcode.EXP_WINDOW, Opcode.EXP_LADDER, Opcode.EXP_FIXED):
            await refused(op, 3, 3, 2, 4, code=E.ALIAS)
            await refused(op, 3, 1, 3, 4, code=E.ALIAS)
            await refused(op, 3, 1, 2, 0, code=E.BAD_EXP_BITS)
            await refused(op, 3, 1, 2, size * W + 1, code=E.BAD_EXP_BITS)
        # an even modulus refused after a good one keeps the good one
        await refused(Opcode.SETMOD, a=9, arg=size, code=E.EVEN_MODULUS)

        # data accesses past the end of the slot
        _, st = await d.run(Opcode.WRITE, dst=5)
        await d.write_words([rng.getrandbits(32) for _ in range(nw)])
        assert d.status()["error"] == 0
        await d.write_words([0xdeadbeef])
        assert d.status()["error"] == E.OVERFLOW.value
        values[5] = await d.read_slot(5, nw)
        _, st = await d.run(Opcode.READ, a=5)
        # read-then-advance over the whole slot is fine; one more advance is past the end
        for _ in range(nw):
            d.ctx.set(d.dut.rdata_stb, 1)
            await d.tick()
        assert d.status()["error"] == 0
        await d.tick()
        assert d.status()["error"] == E.OVERFLOW.value
        d.ctx.set(d.dut.rdata_stb, 0)
        await d.tick()

        # NOP clears the error and reports done
        cycles, st = await d.run(Opcode.NOP)
        assert st == {"busy": 0, "done": 1, "error": 0} and cycles == 1

        for slot, v in values.items():
            assert await d.read_slot(slot, nw) == v, slot
        # and the modulus still works
        await check_mul(d, n, size, values[1] % n, values[2] % n, dst=10, sa=11, sb=12)

    simulate(config, tb)


def test_busy_refusals():
    rng = random.Random(6)
    size = 16
    nw = bus_words(size)

    async def tb(d):
        n = random_modulus(rng, size * W)
        await load_modulus(d, n, size)
        a, b, c = rng.randrange(n), rng.randrange(n), rng.randrange(n)
        await d.write_slot(1, a, nw)
        await d.write_slot(2, b, nw)
        await d.write_slot(4, c, nw)
        await d.strobe_cmd(Opcode.MUL, 3, 1, 2)
        assert d.status()["busy"] == 1
        irqs = d.irqs
        # a command, a data write and a read-pointer advance while busy: all refused
        await d.strobe_cmd(Opcode.WRITE, dst=4)
        assert d.status()["error"] == E.BUSY.value
        d.ctx.set(d.dut.wdata, 0x12345678)
        d.ctx.set(d.dut.wdata_stb, 1)
        await d.tick()
        d.ctx.set(d.dut.wdata_stb, 0)
        d.ctx.set(d.dut.rdata_stb, 1)
        await d.tick()
        d.ctx.set(d.dut.rdata_stb, 0)
        await d.strobe_cmd(Opcode.MUL, 4, 1, 2)
        assert d.status()["error"] == E.BUSY.value
        while d.status()["busy"]:
            await d.tick()
        st = d.status()
        assert st["done"] == 1 and st["error"] == E.BUSY.value
        await d.tick()
        assert d.irqs == irqs + 3, "two refused commands and one completion"
        assert await d.read_slot(3, nw) == mont_ref(a, b, n, size)
        assert await d.read_slot(4, nw) == c

    simulate(SMALL, tb)


def test_irq_and_done_semantics():
    async def tb(d):
        irqs = d.irqs
        cycles, st = await d.run(Opcode.WRITE, dst=1)
        assert cycles == 1 and st == {"busy": 0, "done": 1, "error": 0}
        await d.tick()
        assert d.irqs == irqs, "single-cycle commands raise no irq"
        n = (1 << 64) - 59
        await d.write_slot(0, n, bus_words(4))
        irqs = d.irqs
        cycles, st = await d.setmod(0, 4)
        await d.tick()
        assert cycles > 1 and d.irqs == irqs + 1
        # rdata follows the read pointer within 2 cycles
        await d.write_slot(1, 0x1111111122222222_3333333344444444, 4)
        await d.strobe_cmd(Opcode.READ, a=1)
        await d.tick()
        assert d.ctx.get(d.dut.rdata) == 0x44444444
        d.ctx.set(d.dut.rdata_stb, 1)
        await d.tick()
        d.ctx.set(d.dut.rdata_stb, 0)
        await d.tick()
        assert d.ctx.get(d.dut.rdata) == 0x33333333

    simulate(SMALL, tb)


# ---- exponentiation ---------------------------------------------------------------------------

async def check_exp(d, n, size, a, e, bits, mode, dst=3, sa=1, sb=2):
    nw = bus_words(size)
    await d.write_slot(sa, a, nw)
    await d.write_slot(sb, e, nw)
    await d.write_slot(dst, (1 << (W * size)) % n, nw)
    cycles, st = await d.run(mode, dst, sa, sb, bits)
    assert st == {"busy": 0, "done": 1, "error": 0}, st
    got = await d.read_slot(dst, nw)
    assert got == mont_exp_ref(a, e & ((1 << bits) - 1), n, size), (mode, hex(e), bits)
    return cycles


@pytest.mark.parametrize("mode", [Opcode.EXP_WINDOW, Opcode.EXP_LADDER, Opcode.EXP_FIXED],
                         ids=["window", "ladder", "fixed"])
def test_exp_small_exponents(mode):
    """Exponents from 0 to the whole size, declared lengths from 1 bit up: results against pow(), in
    Verilator (montmul_harness.simulate_verilated: the same RTL's Verilog; EXP_FIXED alone took 12 s in
    the Amaranth simulator)."""
    rng = random.Random(8)
    size = 6

    async def tb(d):
        n = random_modulus(rng, size * W - 3)
        await load_modulus(d, n, size)
        a = rng.randrange(n)
        for e, bits in [(0, 1), (0, 9), (1, 1), (1, 5), (2, 2), (3, 2), (0xff, 8), ((1 << 13) - 1, 13),
                        (65537, 17), (rng.getrandbits(30), 30), (0xabcdef, 4),
                        (rng.getrandbits(size * W), size * W)]:
            await check_exp(d, n, size, a, e, bits, mode)

    simulate_verilated(SMALL, tb)


def test_ladder_is_constant_time():
    rng = random.Random(9)
    size = 4
    bits = 12

    async def tb(d):
        n = random_modulus(rng, size * W)
        await load_modulus(d, n, size)
        a = rng.randrange(n)
        ladder = set()
        window = set()
        for e in [0, (1 << bits) - 1, 1 << (bits - 1), 0x555, 0xaaa, rng.getrandbits(bits)]:
            ladder.add(await check_exp(d, n, size, a, e, bits, Opcode.EXP_LADDER))
            window.add(await check_exp(d, n, size, a, e, bits, Opcode.EXP_WINDOW))
        assert len(ladder) == 1, ladder
        assert len(window) > 1, "window mode skips zero digits (documented)"

    simulate(SMALL, tb)


def test_exp_fixed_against_pow():
    """EXP_FIXED at sizes that fill whole rows or not, with declared lengths of 1, k and k + 1 bits, lengths
    that k does not divide and the whole size; the slot's bits above the declared length are ignored. In
    Verilator (9 s in the Amaranth simulator)."""
    rng = random.Random(10)
    k = FIXED_WINDOW_BITS

    async def tb(d):
        for size, lengths in ((5, (1, k, k + 1, 2 * k + 5, 5 * W)), (8, (3 * k, 8 * W - 3))):
            n = random_modulus(rng, size * W - 2)
            await load_modulus(d, n, size)
            for bits in lengths:
                e = rng.getrandbits(size * W) | 1 << (bits - 1)
                await check_exp(d, n, size, rng.randrange(n), e, bits, Opcode.EXP_FIXED)

    simulate_verilated(SMALL, tb)


@pytest.mark.parametrize("bits, run", [(2 * FIXED_WINDOW_BITS + 1, simulate), (5 * W, simulate_verilated)],
                         ids=["13-simulate", "80-simulate_verilated"])
def test_fixed_is_constant_time(bits, run):
    """EXP_FIXED takes the same cycles, the model's, for every exponent of one declared length: no bit set,
    all set, only the top or the bottom one, random ones, and junk above the declared length. The full
    80-bit length in Verilator (the same RTL's Verilog: montmul_harness.simulate_verilated), 7.6 s in the
    Amaranth simulator."""
    rng = random.Random(bits)
    size = 5

    async def tb(d):
        n = random_modulus(rng, size * W)
        await load_modulus(d, n, size)
        a = rng.randrange(n)
        junk = rng.getrandbits(size * W) >> bits << bits
        exponents = [0, (1 << bits) - 1, 1 << (bits - 1), 1, rng.getrandbits(bits), junk | rng.getrandbits(bits)]
        return {await check_exp(d, n, size, a, e, bits, Opcode.EXP_FIXED) for e in exponents}

    cycles = run(SMALL, tb)
    assert cycles == {model.exp_cycles(SMALL, size * W, Opcode.EXP_FIXED, exponent_bits=bits)}


@pytest.mark.slow
def test_w16_l64_full_sizes():
    """The 16-bit configuration a 1024-bit row wide (64 lanes, one DSP48E1 a product) in the Amaranth simulator:
    products at 512 and 1536 bits (half a row of 64 words, a row and a half), random and (n-1)^2, and e = 65537 at 512
    bits.  The whole-row sizes 1024..4096 and 3072 are checked the same way in Verilator at the default configuration
    (test_verilator.py's test_default_config_rsa_2048, on the Verilog of the same RTL), with the 2048-bit EXPs: here a
    4096-bit product took as long as all the other sizes together."""
    config = PeripheralConfig(word_bits=W, lanes=64)
    rng = random.Random(12)

    async def tb(d):
        for bits in (512, 1536):
            size = bits // W
            n = random_modulus(rng, bits)
            await load_modulus(d, n, size)
            await check_mul(d, n, size, rng.randrange(n), rng.randrange(n))
            await check_mul(d, n, size, n - 1, n - 1)
        n = random_modulus(rng, 512)
        await load_modulus(d, n, 32)
        await check_exp(d, n, 32, rng.randrange(n), 65537, 17, Opcode.EXP_WINDOW)

    simulate(config, tb)
