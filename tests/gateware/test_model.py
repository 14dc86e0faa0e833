"""The model (gateware/model.py) against the RTL: the same bus accesses give the same statuses, irqs,
slot contents and cycle counts, in small configurations."""

import random

import pytest

from gateware import driver, model
from gateware.interface import (NUM_SLOTS, MIN_WORDS, FIXED_WINDOW_BITS, EXPONENT_SCHEMES, Opcode,
                                ErrorCode, PeripheralConfig)
from montmul_harness import W, bus_words, twin, twin_verilated, mont_ref, mont_exp_ref

SMALL = PeripheralConfig(max_bits=256, lanes=4, word_bits=W)
E = ErrorCode
OK = {"busy": 0, "done": 1, "error": 0}


def random_modulus(rng, bits):
    return rng.getrandbits(bits) | 1 | (1 << (bits - 1))


def assert_twins(config, scenario, twin=twin):
    rtl, expected = twin(config, scenario)
    assert rtl == expected
    return rtl


# ---- cycles of MUL and SETMOD --------------------------------------------------------------------

@pytest.mark.parametrize("config", [SMALL, PeripheralConfig(max_bits=1024, lanes=8, word_bits=W)],
                         ids=["256-L4", "1024-L8"])
def test_mul_cycles(config):
    for bits in sorted({32, 48, 100, 128, config.max_bits // 2, config.max_bits - 16, config.max_bits}):
        assert driver.mul_cycles(config, bits) == model.mul_cycles(config, bits), bits


def test_mul_cycles_depend_only_on_size():
    assert len({model.mul_cycles(SMALL, bits) for bits in (193, 200, 208)}) == 1
    assert model.mul_cycles(SMALL, 256) > model.mul_cycles(SMALL, 64)
    with pytest.raises(ValueError):
        driver.mul_cycles(SMALL, 272)
    with pytest.raises(ValueError):
        model.mul_cycles(SMALL, 0)


def test_setmod():
    """Odd and even moduli at several sizes: cycles, status, irq; the even one leaves the old modulus."""
    async def scenario(d):
        rng = random.Random(3)
        seen = []
        for size in (MIN_WORDS, 3, 4, 5, 9, SMALL.max_words):
            n = random_modulus(rng, size * W)
            await d.write_slot(0, n, bus_words(size))
            await d.write_slot(1, n - 1, bus_words(size))
            seen.append((size, await d.setmod(0, size), d.irqs))
            seen.append((size, await d.setmod(1, size), d.irqs))
            # the modulus of slot 0 is still in force
            a, b = rng.randrange(n), rng.randrange(n)
            await d.write_slot(2, a, bus_words(size))
            await d.write_slot(3, b, bus_words(size))
            seen.append((await d.mul(4, 2, 3), await d.read_slot(4, bus_words(size)) == mont_ref(a, b, n, size)))
        return seen

    seen = assert_twins(SMALL, scenario)
    assert [s[1] for s in seen[0::3]] == [(model.setmod_cycles(SMALL, size * W), OK)
                                         for size in (MIN_WORDS, 3, 4, 5, 9, SMALL.max_words)]
    assert all(s[1] == (3, {"busy": 0, "done": 0, "error": E.EVEN_MODULUS.value}) for s in seen[1::3])
    assert all(s[1] for s in seen[2::3])


# ---- exponentiation ------------------------------------------------------------------------------

def exponents(rng, bits):
    """Patterns that exercise the windows: ones, a lone top bit, runs of zeros, alternating bits,
    window ends below bit 0, random."""
    top = 1 << (bits - 1)
    patterns = {1, top, (1 << bits) - 1, top | 1, top | 0b10011, int("10" * bits, 2) >> bits,
                int("110" * bits, 2) & ((1 << bits) - 1), top | (1 << max(bits - 7, 0)), 5 & ((1 << bits) - 1),
                rng.getrandbits(bits) | top, rng.getrandbits(bits)}
    return sorted(patterns)


#: The single exponentiations, one per scheme of the table.
EXP_OPS = [scheme.opcode for scheme in EXPONENT_SCHEMES]


@pytest.mark.parametrize("op", EXP_OPS, ids=[scheme.name for scheme in EXPONENT_SCHEMES])
def test_exp(op):
    """Results and cycles of each EXP with short and long exponents (EXP_WINDOW: 1-bit and 5-bit windows;
    EXP_FIXED: lengths that are and are not multiples of its window), at sizes that fill whole rows or
    not, every pattern of `exponents` at every size. The RTL runs in Verilator (montmul_harness's
    twin_verilated): the Amaranth simulator took 14-15 s for each op with EXP_FIXED on two of these
    sizes and EXP_LADDER's long exponents on three patterns; the three take 8 s here with all of them,
    the Verilator build included. (test_montmul.py runs each EXP in the Amaranth simulator.)"""
    cases = [(64, 9), (100, 24), (128, 25), (64, 41), (48, 48)]

    def patterns(rng, ebits):
        return exponents(rng, ebits)

    async def scenario(d):
        rng = random.Random(int(op.value))
        seen, expected = [], []
        for bits, ebits in cases:
            size = model.size_words(bits, W)
            nw = bus_words(size)
            n = random_modulus(rng, bits)
            await d.load_modulus(n, size, word_bits=W)
            a = rng.randrange(n)
            await d.write_slot(1, a, nw)
            for e in patterns(rng, ebits):
                # junk above the exponent's bits must be ignored
                await d.write_slot(2, e | rng.getrandbits(size * W) >> ebits << ebits, nw)
                await d.write_slot(3, (1 << (W * size)) % n, nw)
                cycles, status = await d.exp(3, 1, 2, ebits, op)
                seen.append((bits, ebits, e, cycles, status, await d.read_slot(3, nw)))
                expected.append((model.exp_cycles(SMALL, bits, op, e, ebits), mont_exp_ref(a, e, n, size)))
        return seen, expected

    seen, expected = assert_twins(SMALL, scenario, twin_verilated)
    assert len(seen) > 7 * len(cases)
    for (bits, ebits, e, cycles, status, result), (cycles_expected, result_expected) in zip(seen, expected):
        assert status == OK
        assert (cycles, result) == (cycles_expected, result_expected), (bits, ebits, hex(e))


def test_exp_from_other_accumulator():
    """EXP multiplies into what dst holds when it starts (the contract puts R mod N there): the model runs
    the sequencer's own products, so it agrees whatever dst holds, even with no product at all (e = 0)."""
    size = 4

    async def scenario(d):
        rng = random.Random(5)
        n = random_modulus(rng, size * W)
        await d.load_modulus(n, size, word_bits=W)
        seen = []
        for op in EXP_OPS:
            for e, ebits in ((0, 8), (0b1011, 4), (rng.getrandbits(40), 40)):
                await d.write_slot(5, rng.randrange(n), bus_words(size))
                await d.write_slot(6, e, bus_words(size))
                await d.write_slot(7, rng.randrange(n), bus_words(size))
                seen.append((await d.exp(7, 5, 6, ebits, op), await d.read_slot(7, bus_words(size))))
        return seen

    assert_twins(SMALL, scenario)


def test_exp_cycles_api():
    ladder = model.exp_cycles(SMALL, 64, "ladder")
    assert ladder == 1 + model.mul_cycles(SMALL, 64) * (1 + 2 * 64) + 3 * 64
    assert ladder == model.exp_cycles(SMALL, 64, Opcode.EXP_LADDER, exponent=0)
    assert model.exp_cycles(SMALL, 64, "window") > model.exp_cycles(SMALL, 64, "window", exponent=1)
    k = FIXED_WINDOW_BITS
    # every product but the table's first and each window's first starts in its predecessor's last
    # cycle, a cycle less, but after a product of one row (64 bits here; 128 bits are two rows)
    for bits, overlap in ((64, 0), (128, 1)):
        for ebits in (1, k, k + 1, 64):
            patterns = (0, 1, 1 << (ebits - 1), (1 << ebits) - 1)
            fixed = {model.exp_cycles(SMALL, bits, "fixed", e, ebits) for e in patterns}
            windows = -(-ebits // k)
            products = 2 ** k - 1 + windows + k * (windows - 1)
            chained = 2 ** k - 2 + k * (windows - 1)
            assert fixed == {model.exp_cycles(SMALL, bits, Opcode.EXP_FIXED, exponent_bits=ebits)} \
                   == {1 + model.mul_cycles(SMALL, bits) * products - overlap * chained + 3 * windows + 1}, ebits
    # the window width is a parameter, to compare widths: wider windows, a longer table
    assert model.exp_cycles(SMALL, 64, "fixed", exponent_bits=5, fixed_window_bits=5) \
           < model.exp_cycles(SMALL, 64, "fixed", exponent_bits=5, fixed_window_bits=6)
    with pytest.raises(ValueError):
        model.exp_cycles(SMALL, 64, "fixed", exponent_bits=65)


def test_fixed_windows_spell_the_exponent():
    rng = random.Random(4)
    for width in (4, 5, 6):
        for bits in (1, width - 1, width, width + 1, 64, 100):
            for e in {0, 1, (1 << bits) - 1, 1 << (bits - 1), rng.getrandbits(bits)}:
                digits = list(model.fixed_windows(e | 1 << bits, bits, width))   # the bit above is ignored
                assert len(digits) == -(-bits // width) and all(0 <= d < 1 << width for d in digits)
                assert digits[0] < 1 << (bits - width * (len(digits) - 1))
                assert sum(d << (width * j) for j, d in enumerate(reversed(digits))) == e


@pytest.mark.parametrize("width", [1, 5])
def test_exponent_windows_rebuild_the_exponent(width):
    rng = random.Random(width)
    for bits in (1, 2, 7, 24, 25, 64):
        for e in {0, 1, (1 << bits) - 1, 1 << (bits - 1), rng.getrandbits(bits)}:
            value = 0
            for length, digit in model.exponent_windows(e, bits, width):
                assert digit == 0 and length == 1 or digit & 1 and digit < 1 << width and 1 <= length <= width
                value = value << length | digit
            assert value == e


# ---- the slots and the refusals ------------------------------------------------------------------

def test_results_cover_whole_rows():
    """A size-5 result in 4-word rows: words 5..7 of dst become 0, words 8.. keep their value."""
    size = 5

    async def scenario(d):
        rng = random.Random(8)
        n = random_modulus(rng, size * W)
        await d.load_modulus(n, size, word_bits=W)
        junk = rng.getrandbits(SMALL.max_bits)
        await d.write_slot(1, junk | 3, SMALL.bus_words_per_slot)       # a: the words above the size ignored
        await d.write_slot(2, 5, SMALL.bus_words_per_slot)
        await d.write_slot(3, junk, SMALL.bus_words_per_slot)
        await d.mul(3, 1, 2)
        return junk, n, await d.read_slot(3, SMALL.bus_words_per_slot)

    junk, n, got = assert_twins(SMALL, scenario)
    a = (junk | 3) & ((1 << (W * size)) - 1)
    assert got == junk >> (8 * W) << (8 * W) | mont_ref(a, 5, n, size)


def test_refusals():
    """Every refusal with its code; a refused command changes no slot, pointer or modulus, keeps done,
    pulses irq; accesses while busy, including in a command's last cycle."""
    size = 6
    nw = SMALL.bus_words_per_slot

    async def scenario(d):
        rng = random.Random(13)
        answers, seen = [], []

        async def note(op, dst=0, a=0, b=0, arg=0):
            answers.append((op, dst, a, b, arg, await d.run(op, dst, a, b, arg), d.irqs))

        values = [rng.getrandbits(SMALL.max_bits) for _ in range(NUM_SLOTS)]
        n = random_modulus(rng, size * W)
        values[0] = n
        values[9] &= ~1
        for slot, value in enumerate(values):
            await d.write_slot(slot, value, nw)
        for op in (Opcode.MUL, *EXP_OPS):
            await note(op, 3, 1, 2, 4)                                  # NO_MODULUS
        for op in (len(Opcode), 15):           # unused opcodes
            await note(op)
        await note(Opcode.SETMOD, a=9, arg=size)                        # EVEN_MODULUS
        await note(Opcode.MUL, 3, 1, 2)                                 # still NO_MODULUS
        for arg in (0, MIN_WORDS - 1, SMALL.max_words + 1, 8191):
            await note(Opcode.SETMOD, a=0, arg=arg)                     # BAD_SIZE
        await note(Opcode.SETMOD, a=NUM_SLOTS, arg=size)
        await note(Opcode.SETMOD, dst=2, a=0, arg=size)                 # BAD_BANK
        await note(Opcode.WRITE, dst=NUM_SLOTS + 5)
        await note(Opcode.READ, a=31)
        await note(Opcode.SETMOD, a=0, arg=size)
        await note(Opcode.NOP)
        for dst, a, b in ((NUM_SLOTS, 1, 2), (3, NUM_SLOTS + 3, 2), (3, 1, 31)):
            for op in (Opcode.MUL, *EXP_OPS):
                await note(op, dst, a, b, 3)                            # BAD_SLOT
        for op in EXP_OPS:
            for dst, a, b, arg in ((3, 3, 2, 4), (3, 1, 3, 4), (3, 1, 2, 0), (3, 1, 2, size * W + 1)):
                await note(op, dst, a, b, arg)                          # ALIAS, BAD_EXP_BITS
        await note(Opcode.SETMOD, a=9, arg=size)                        # even after a good one: kept
        # data past the end of a slot
        await note(Opcode.WRITE, dst=5)
        await d.write_words([rng.getrandbits(32) for _ in range(nw + 2)])
        seen.append(await d.read_status())
        await note(Opcode.READ, a=5)
        for _ in range(nw + 1):
            await d.transport.strobe("rdata")
            seen.append(await d.read_status())
        # strobes while busy: a command, a data word, a read advance, then one in the last cycle
        await d.strobe_cmd(Opcode.MUL, 4, 1, 2)
        await d.strobe_cmd(Opcode.WRITE, dst=4)
        seen.append(await d.read_status())
        await d.write_words([0x12345678])
        await d.transport.strobe("rdata")
        seen.append((await d.wait(), await d.read_status(), d.irqs))
        await note(Opcode.NOP)
        await d.strobe_cmd(Opcode.MUL, 4, 1, 2)
        await d.tick(model.mul_cycles(SMALL, size * W) - 2)
        await d.strobe_cmd(Opcode.NOP)
        seen.append((await d.read_status(), d.irqs))
        # an even SETMOD with a refusal in its second and in its last cycle
        for delay in (0, 1):
            await d.strobe_cmd(Opcode.SETMOD, a=9, arg=size)
            await d.tick(delay)
            await d.strobe_cmd(Opcode.NOP)
            seen.append((await d.wait(), await d.read_status(), d.irqs))
        seen.append([await d.read_slot(slot, nw) for slot in range(NUM_SLOTS)])
        return values, n, answers, seen

    values, n, answers, seen = assert_twins(SMALL, scenario)
    assert {E(status["error"]) for *_, (cycles, status), irqs in answers} == set(E) - {E.BUSY, E.OVERFLOW}
    assert E.OVERFLOW.value in [entry["error"] for entry in seen if isinstance(entry, dict)]
    assert {"busy": 1, "done": 0, "error": E.BUSY.value} in seen
    *_, last_cycle, even_second, even_last, final = seen
    assert last_cycle[0] == {"busy": 0, "done": 1, "error": E.BUSY.value}
    assert even_second[1] == {"busy": 0, "done": 0, "error": E.EVEN_MODULUS.value}
    assert even_last[1] == {"busy": 0, "done": 0, "error": E.BUSY.value}
    r = mont_ref(values[1] % (1 << (W * size)), values[2] % (1 << (W * size)), n, size)
    assert final[4] & ((1 << (W * 8)) - 1) == r
    assert [v for slot, v in enumerate(final) if slot not in (4, 5)] == \
           [v for slot, v in enumerate(values) if slot not in (4, 5)]


@pytest.mark.slow
def test_w16_l64_cycles():
    """The 16-bit configuration a 1024-bit row wide (64 lanes, one DSP48E1 a product): a product's cycles measured by
    ``driver.mul_cycles`` equal the model's; the 2048/4096-bit targets.  The Amaranth simulator measures 1024 bits (a
    whole row); the model's counts at 2048 and 4096 bits are the RTL's as measured in Verilator (test_verilator.py's
    test_default_config_rsa_2048), where a 4096-bit product costs milliseconds rather than seconds."""
    config = PeripheralConfig(word_bits=W, lanes=64)
    assert driver.mul_cycles(config, 1024) == model.mul_cycles(config, 1024)
    cycles = {bits: model.mul_cycles(config, bits) for bits in (2048, 4096)}
    assert cycles[2048] <= 300 and cycles[4096] <= 1100, cycles


# ---- the pair commands (model only; the RTL against them: test_pair.py) ---------------------------

def test_pair_cycles_api():
    """pair_mul_cycles: the documented schedule (both rows through the final passes together), a function
    of the larger size only, refused outside a row or without pairs; pair_exp_cycles: EXP_FIXED's program
    with pair products and two windows read per step, whatever the exponents."""
    L = SMALL.lanes
    for bits0, bits1 in ((32, 64), (64, 32), (64, 64), (33, 48)):
        size = max(model.size_words(bits0, W), model.size_words(bits1, W))
        # the larger size's iterations and two more for the classic second pass
        assert model.pair_mul_cycles(SMALL, bits0, bits1) == 1 + 4 + 2 * (size + 2) + (2 + 2) + 2
    assert model.pair_mul_cycles(SMALL, 64, 32) == model.pair_mul_cycles(SMALL, 32, 64) \
           == model.pair_mul_cycles(SMALL, 64, 64)
    for bits0, bits1 in ((L * W + 1, 32), (32, L * W + 1), (0, 32)):
        with pytest.raises(ValueError):
            model.pair_mul_cycles(SMALL, bits0, bits1)
    with pytest.raises(ValueError):
        model.pair_mul_cycles(PeripheralConfig(max_bits=64, lanes=4, word_bits=W), 32, 32)
    k = FIXED_WINDOW_BITS
    mul = model.pair_mul_cycles(SMALL, 64, 48)
    for ebits in (1, k, k + 1, 64):
        windows = -(-ebits // k)
        products = 2 ** k - 1 + windows + k * (windows - 1)
        chained = 2 ** k - 2 + k * (windows - 1)
        assert model.pair_exp_cycles(SMALL, 64, 48, ebits) == 1 + mul * products - chained + 6 * windows + 1, ebits
        programs = [model.pair_program((e0, e1), ebits, dst=3, base=1)
                    for e0, e1 in ((0, 0), ((1 << ebits) - 1, 0), (1, 1 << (ebits - 1)))]
        assert len({tuple((s.overhead, len(s.products)) for s in p) for p in programs}) == 1


def test_pair_program_products():
    """Every product of pair_program is context 0's EXP_FIXED product with context 1's b: the digit
    products name each context's own table entry (the base for digit 1), the rest are the same."""
    k = FIXED_WINDOW_BITS
    e0, e1, ebits = 0b000001_101010_111111, 0b101010_000001_000000, 3 * k
    pair = model.pair_program((e0 | 1 << 40, e1), ebits, dst=3, base=1)     # bits above ebits ignored
    single0 = model.exp_program(SMALL, Opcode.EXP_FIXED, e0, ebits, 3, 1)
    single1 = model.exp_program(SMALL, Opcode.EXP_FIXED, e1, ebits, 3, 1)
    # two contexts' words read per window (3 cycles each), the top window's last digit in a cycle of its own
    assert [s.overhead for s in pair] == [0, 7, 6, 6] and [s.overhead for s in single0] == [0, 4, 3, 3]
    flat = [p for s in pair for p in s.products]
    assert [p[:3] for p in flat] == [p for s in single0 for p in s.products]
    assert [p[3] for p in flat] == [p[2] for s in single1 for p in s.products]
    table = model.fixed_table_slot
    assert [s.products[-1][2:] for s in pair[1:]] == [(1, table(42)), (table(42), 1), (table(63), table(0))]


def test_pair_model_crt_w16_l64():
    """The model at the 16-bit configuration a 1024-bit row wide (64 lanes): an RSA-1024-style CRT pair (two 512-bit
    halves, and a 1024-bit pair) of EXP_FIXED_PAIR against pow(), and a MUL_PAIR, with the model's cycles; bank 0 wider
    than a row refuses pairs; bank 1 refuses more than a row."""
    config = PeripheralConfig(word_bits=W, lanes=64)
    nw = config.bus_words_per_slot

    async def scenario(d):
        rng = random.Random(21)
        seen = []
        for bits, ebits in ((512, 512), (1024, 1024), (1024, 100)):
            size = model.size_words(bits, W)
            n0, n1 = random_modulus(rng, bits), random_modulus(rng, bits - 5)
            await d.load_modulus(n0, size, slot=0, bank=0, word_bits=W)
            await d.load_modulus(n1, size, slot=1, bank=1, word_bits=W)
            a = (rng.randrange(n0), rng.randrange(n1))
            e = (rng.getrandbits(ebits), rng.getrandbits(ebits - 5))
            await d.write_pair(2, a, config)
            await d.write_pair(3, e, config)
            await d.write_pair(4, ((1 << (W * size)) % n0, (1 << (W * size)) % n1), config)
            cycles, status = await d.exp_pair(4, 2, 3, ebits)
            assert status == OK
            assert cycles == model.pair_exp_cycles(config, bits, bits - 5, ebits)
            assert await d.read_pair(4, config) == (mont_exp_ref(a[0], e[0], n0, size),
                                                    mont_exp_ref(a[1], e[1], n1, size))
            cycles, status = await d.mul_pair(5, 2, 4)
            assert (cycles, status) == (model.pair_mul_cycles(config, bits, bits - 5), OK)
            seen.append(await d.read_pair(5, config))
        _, status = await d.setmod(0, config.lanes + 1, 1)
        assert status["error"] == E.BAD_SIZE.value
        await d.write_slot(6, random_modulus(rng, 2048), nw)
        _, status = await d.setmod(6, 2048 // W, 0)
        assert status == OK
        _, status = await d.mul_pair(5, 2, 4)
        assert status["error"] == E.BAD_SIZE.value
        return seen

    from montmul_harness import model_driver
    assert len(driver.complete(scenario(model_driver(config)))) == 3


# ---- the driver's wait bounds ----------------------------------------------------------------------

@pytest.mark.parametrize("config", [PeripheralConfig(word_bits=W, lanes=64), PeripheralConfig(),
                                    PeripheralConfig(max_bits=2048, lanes=16, word_bits=W),
                                    PeripheralConfig(word_bits=W, lanes=256)],
                         ids=["W16-L64", "default", "2048-L16", "L256"])
def test_wait_bounds_cover_every_command(config):
    """header.c_header's cycle bounds (model.wait_bounds, exp_cycles_bound), which bound the
    firmware driver's waits, are at least every command's cycles: a product at every size by its rows,
    SETMOD, MUL_PAIR with any shared a, and every exponentiation (each scheme, the worst exponent)."""
    bounds = model.wait_bounds(config)
    word_bits, row_bits = config.word_bits, config.row_bits
    sizes = sorted({MIN_WORDS, 2, config.lanes - 1, config.lanes, config.lanes + 1, config.max_words // 2,
                    config.max_words - 1, config.max_words} & set(range(MIN_WORDS, config.max_words + 1)))
    for size in sizes:
        bits = size * word_bits
        rows = -(-bits // row_bits)
        mul = bounds["mul_by_rows"][rows]
        assert model.mul_cycles(config, bits) <= mul <= bounds["command"]
        assert model.setmod_cycles(config, bits) <= bounds["command"]
        assert model.add_cycles(config, bits) <= bounds["command"]
        assert model.equal_cycles(config, bits) <= bounds["command"]
        for exponent_bits in sorted({1, min(17, bits), bits // 2, bits}):
            for mode in ("window", "ladder", "fixed"):
                assert model.exp_cycles(config, bits, mode, exponent_bits=exponent_bits) \
                    <= model.exp_cycles_bound(mul, exponent_bits), (size, exponent_bits, mode)
        if config.has_pairs and size <= config.pair_max_words:
            assert model.pair_mul_cycles(config, bits, bits) <= bounds["pair_mul"]
            assert model.pair_mul_cycles(config, bits, bits, a_words=config.max_words) <= bounds["command"]
            assert model.pair_exp_cycles(config, bits, bits, bits) <= model.exp_cycles_bound(bounds["pair_mul"], bits)
    assert model.copy_cycles(config) <= bounds["command"]
    # not vacuous: the bounds are within a small factor of the largest command
    assert bounds["command"] < 2 * max(model.mul_cycles(config, config.max_bits),
                                       model.setmod_cycles(config, config.max_bits),
                                       model.pair_mul_cycles(config, row_bits, row_bits, a_words=config.max_words)
                                       if config.has_pairs else 0)
    top = config.max_bits
    assert model.exp_cycles_bound(bounds["mul_by_rows"][-1], top) < 3 * model.exp_cycles(config, top, "ladder")
