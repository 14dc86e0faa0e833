"""ADD, SUB, COPY and EQUAL (the word-serial unit, gateware/montmul/wordserial.py): the RTL against the
model (gateware/model.py) in lock step, statuses, irqs, cycles and every word of every slot read back,
and both against plain Python ((a +/- b) mod n, ==, the context's row)."""

import random

import pytest

from gateware import model
from gateware.interface import NUM_SLOTS, Opcode, ErrorCode, PeripheralConfig
from montmul_harness import W, bus_words, simulate, twin, twin_verilated

SMALL = PeripheralConfig(max_bits=256, lanes=4, word_bits=W)        # 4 rows per slot, pairs
NOPAIR = PeripheralConfig(max_bits=64, lanes=4, word_bits=W)        # 1 row per slot, no pairs
BYTES = PeripheralConfig(max_bits=128, lanes=4, word_bits=8)        # 8-bit words, 4 rows per slot, pairs
E = ErrorCode
OK = {"busy": 0, "done": 1, "error": 0}
OK_EQUAL = {**OK, "equal": 1}


def random_modulus(rng, bits):
    return rng.getrandbits(bits) | 1 | (1 << (bits - 1))


def result_slot(config, old, value, size):
    """dst after a result of ``size`` words over ``old``: its rows up to the size's last written whole,
    the words above the size 0, the rows above kept."""
    words = -(-size // config.lanes) * config.lanes
    shift = config.word_bits * words
    return old >> shift << shift | value


async def add_sub_cases(d, config, size, rng):
    """ADD and SUB at one size: random operands with words above the size, the edges, every aliasing of
    dst with a and b; each result read back whole, with its cycles."""
    nw = config.bus_words_per_slot
    w = config.word_bits
    n = random_modulus(rng, size * w - rng.randrange(2))
    await d.load_modulus(n, size, word_bits=w)
    above = config.max_bits - size * w

    def junk():
        return rng.getrandbits(above) << (size * w) if above else 0

    seen = []
    pairs = [(rng.randrange(n), rng.randrange(n)), (n - 1, n - 1), (0, n - 1), (1, 0)]
    for case, (a, b) in enumerate(pairs):
        for op in (Opcode.ADD, Opcode.SUB):
            for dst, sa, sb in ((3, 1, 2), (1, 1, 2), (2, 1, 2), (1, 1, 1))[:4 if case == 0 else 1]:
                old = rng.getrandbits(config.max_bits)
                await d.write_slot(3, old, nw)
                await d.write_slot(1, a | junk(), nw)
                if sb != sa:
                    await d.write_slot(2, b | junk(), nw)
                before = await d.read_slot(dst, nw)
                cycles, status = await d.run(op, dst, sa, sb)
                x, y = a, (a if sb == sa else b)
                expected = (x + y) % n if op is Opcode.ADD else (x - y) % n
                got = await d.read_slot(dst, nw)
                seen.append((size, op.name, dst, sa, sb, cycles, status, got))
                assert status == OK and cycles == model.add_cycles(config, size * w), (size, op, cycles, status)
                assert got == result_slot(config, before, expected, size), (size, op.name, dst, sa, sb, a, b)
    return seen


#: (configuration, sizes, how the RTL runs): the configuration of test_fuzz and test_model runs in
#: Verilator (its build is theirs), the others in the Amaranth simulator.
ADD_SUB_CASES = [(SMALL, (1, 2, 3, 4, 5, 8, 9, 16), twin_verilated), (NOPAIR, (1, 3, 4), twin),
                 (BYTES, (3, 4, 7, 16), twin)]


@pytest.mark.parametrize("config, sizes, run", ADD_SUB_CASES, ids=["256-L4", "64-L4", "128-L4-W8"])
def test_add_sub(config, sizes, run):
    """Single- and multi-row sizes, odd and even, with and without pairs, 16- and 8-bit words: results,
    cycles and every slot word, RTL and model in lock step."""
    async def scenario(d):
        rng = random.Random(config.max_bits + config.word_bits)
        seen = []
        for size in sizes:
            seen += await add_sub_cases(d, config, size, rng)
        return seen

    rtl, expected = run(config, scenario)
    assert rtl == expected


def test_add_sub_outside_the_contract():
    """Operands at or above N (outside the contract): the RTL and the model still agree word for word
    (model.add_sub: the unit's exact function), for every slot."""
    config = SMALL

    async def scenario(d):
        rng = random.Random(11)
        seen = []
        for size in (3, 6):
            n = random_modulus(rng, size * W)
            await d.load_modulus(n, size, word_bits=W)
            top = (1 << (size * W)) - 1
            for a, b in ((top, top), (n, n), (top, 0), (0, top), (n + 5, 3), (rng.getrandbits(size * W), top)):
                await d.write_slot(1, a, bus_words(size))
                await d.write_slot(2, b, bus_words(size))
                for op in (Opcode.ADD, Opcode.SUB):
                    seen.append((await d.run(op, 3, 1, 2), await d.read_slot(3, bus_words(size))))
                    assert seen[-1][1] == model.add_sub(op, a, b, n, size, W)
        return seen

    rtl, expected = twin(config, scenario)
    assert rtl == expected


@pytest.mark.parametrize("config", [SMALL, NOPAIR], ids=["256-L4", "64-L4"])
def test_equal(config):
    """EQUAL below the size: equal operands (words above the size differing too), one differing word at
    the bottom, the top and in between, a slot with itself; the bit follows the last EQUAL."""
    nw = config.bus_words_per_slot

    async def scenario(d):
        rng = random.Random(21)
        seen = []
        for size in sorted({1, 2, 5, config.max_words // 2 + 1, config.max_words} & set(range(1, config.max_words + 1))):
            n = random_modulus(rng, size * W)
            await d.load_modulus(n, size, word_bits=W)
            value = rng.getrandbits(size * W)
            above = config.max_bits - size * W
            await d.write_slot(1, value | (rng.getrandbits(above) << (size * W) if above else 0), nw)
            cases = [(value, True)] + [(value ^ (1 << (W * word + rng.randrange(W))), False)
                                       for word in sorted({0, size - 1, size // 2})]
            for other, same in cases:
                await d.write_slot(2, other | (rng.getrandbits(above) << (size * W) if above else 0), nw)
                cycles, status, equal = await d.equal(1, 2)
                seen.append((size, cycles, status, equal))
                assert (cycles, status["error"], equal) == (model.equal_cycles(config, size * W), 0, same)
            seen.append(await d.equal(2, 2))
        return seen

    rtl, expected = twin(config, scenario)
    assert rtl == expected


@pytest.mark.parametrize("config", [SMALL, BYTES, NOPAIR], ids=["256-L4", "128-L4-W8", "64-L4"])
def test_copy(config):
    """COPY of context 0 and (with pairs) context 1 at several bank sizes, dst another slot or a
    itself: dst's row 0 is the context's row below its bank's size, every other row 0."""
    nw = config.bus_words_per_slot
    w = config.word_bits
    row = (1 << config.row_bits) - 1

    async def scenario(d):
        rng = random.Random(31)
        seen = []
        banks = (0, 1) if config.has_pairs else (0,)
        for size0, size1 in ((config.lanes, 1), (1, config.lanes - 1), (config.max_words, 3)):
            for bank, size in zip(banks, (size0, size1)):
                await d.load_modulus(random_modulus(rng, size * w), size, slot=0, bank=bank, word_bits=w)
            for bank, size in zip(banks, (size0, size1)):
                for dst in (4, 5):
                    value = rng.getrandbits(config.max_bits)
                    await d.write_slot(5, value, nw)
                    await d.write_slot(4, rng.getrandbits(config.max_bits), nw)
                    cycles, status = await d.copy(dst, 5, bank)
                    got = await d.read_slot(dst, nw)
                    seen.append((size0, size1, bank, dst, cycles, status, got))
                    expected = value >> (bank * config.row_bits) & row & ((1 << (size * w)) - 1)
                    assert (cycles, status, got) == (model.copy_cycles(config), OK, expected)
        return seen

    rtl, expected = twin(config, scenario)
    assert rtl == expected


def test_refusals_change_nothing():
    """Every refusal of the four commands with its code: no slot, no done, no equal bit changes, irq
    pulses; the fields a command ignores are not checked (EQUAL's dst, COPY's b); accesses while one
    runs are refused with BUSY."""
    config = SMALL
    nw = config.bus_words_per_slot

    async def scenario(d):
        rng = random.Random(41)
        answers = []

        async def note(op, dst=0, a=0, b=0, arg=0):
            answers.append((op, dst, a, b, arg, await d.run(op, dst, a, b, arg), d.irqs))

        values = [rng.getrandbits(config.max_bits) for _ in range(NUM_SLOTS)]
        for slot, value in enumerate(values):
            await d.write_slot(slot, value, nw)
        for op in (Opcode.ADD, Opcode.SUB, Opcode.EQUAL):
            await note(op, 3, 1, 2)                                     # NO_MODULUS
        await note(Opcode.COPY, 3, 1, 0, 0)
        n = random_modulus(rng, 5 * W)
        values[0] = values[1] = n
        for slot in (0, 1):
            await d.write_slot(slot, n, nw)
        assert (await d.setmod(0, 5))[1] == OK
        await note(Opcode.EQUAL, 0, 0, 1)                               # equal
        await note(Opcode.COPY, 3, 1, 0, 1)                             # NO_MODULUS (bank 1)
        for arg in (2, 3, 8191):
            await note(Opcode.COPY, 3, 1, 0, arg)                       # BAD_BANK
        for field, (dst, a, b) in enumerate(((NUM_SLOTS, 1, 2), (3, NUM_SLOTS + 2, 2), (3, 1, 31))):
            for op in (Opcode.ADD, Opcode.SUB, Opcode.EQUAL, Opcode.COPY):
                if (op, field) not in ((Opcode.EQUAL, 0), (Opcode.COPY, 2)):
                    await note(op, dst, a, b)                           # BAD_SLOT
        await note(Opcode.NOP)
        slots = [await d.read_slot(slot, nw) for slot in range(NUM_SLOTS)]
        # the ignored fields: EQUAL with dst 31 (equal again), COPY with b 31
        await note(Opcode.EQUAL, 31, 0, 1)
        await note(Opcode.COPY, 3, 1, 31)
        # while an ADD runs: a command, a data word; then an EQUAL that finds them different
        await d.strobe_cmd(Opcode.ADD, 4, 1, 2)
        await d.strobe_cmd(Opcode.EQUAL, 0, 1, 1)
        busy = await d.read_status()
        await d.write_words([0x12345678])
        waited = (await d.wait(), await d.read_status(), d.irqs)
        await note(Opcode.EQUAL, 0, 1, 2)
        return values, answers, slots, busy, waited

    (values, answers, slots, busy, waited), expected = twin(config, scenario)
    assert (answers, slots, busy, waited) == expected[1:]
    refused = [entry for entry in answers if entry[5][1]["error"]]
    assert {E(entry[5][1]["error"]) for entry in refused} == {E.NO_MODULUS, E.BAD_BANK, E.BAD_SLOT}
    assert len(refused) == 4 + 1 + 3 + 10
    assert all(entry[5][0] == 1 and entry[5][1]["done"] == 1 for entry in refused)
    assert [entry[6] for entry in refused] == sorted({entry[6] for entry in refused})     # an irq each
    # the equal bit of the first accepted EQUAL stays through every refusal after it
    assert all(entry[5][1].get("equal") == 1 for entry in refused[4:])
    assert slots == values
    assert answers[-3][5] == (model.equal_cycles(SMALL, 5 * W), OK_EQUAL)
    assert busy == {"busy": 1, "done": 0, "equal": 1, "error": E.BUSY.value}
    assert waited[1] == {"busy": 0, "done": 1, "equal": 1, "error": E.BUSY.value}
    assert answers[-1][5][1] == OK                                      # different: equal reads 0


def test_equal_bit_lifetime():
    """The equal bit reads 0 from reset, follows each EQUAL that completes, stays through MUL, ADD, COPY,
    SETMOD, NOP and refusals, and reads 0 from the cycle after CLEAR is accepted."""
    config = SMALL
    nw = config.bus_words_per_slot

    async def scenario(d):
        rng = random.Random(51)
        seen = [await d.read_status()]
        n = random_modulus(rng, 6 * W)
        await d.load_modulus(n, 6, slot=0, word_bits=W)
        seen.append(await d.read_status())
        a = rng.randrange(n)
        await d.write_slot(1, a, nw)
        await d.write_slot(2, a, nw)
        seen.append(await d.equal(1, 2))
        for op, fields in ((Opcode.MUL, (3, 1, 2)), (Opcode.ADD, (4, 1, 2)), (Opcode.COPY, (5, 1, 0)),
                           (Opcode.SETMOD, (0, 0, 0, 6)), (Opcode.NOP, ()), (Opcode.EQUAL, (0, 31, 1))):
            seen.append(await d.run(op, *fields))
        await d.strobe_cmd(Opcode.CLEAR)
        seen.append(await d.read_status())
        seen.append((await d.wait(), await d.read_status()))
        return seen

    rtl, expected = twin(config, scenario)
    assert rtl == expected
    assert (rtl[0], rtl[1]) == ({"busy": 0, "done": 0, "error": 0}, OK)
    assert rtl[2] == (model.equal_cycles(config, 6 * W), OK_EQUAL, True)
    assert all(status.get("equal") == 1 for _cycles, status in rtl[3:9])
    assert rtl[9] == {"busy": 1, "done": 0, "error": 0}
    assert rtl[10] == (config.clear_cycles - 1, OK)


def test_pair_results_as_single_operands():
    """The CRT's tail on a pair: MUL_PAIR in both contexts, COPY of each context out of the pair slot,
    then over bank 0 an ADD, a SUB and an EQUAL of context 0's result."""
    config = SMALL

    async def scenario(d):
        rng = random.Random(61)
        n0, n1 = random_modulus(rng, 4 * W), random_modulus(rng, 3 * W - 2)
        await d.load_modulus(n0, 4, slot=0, bank=0, word_bits=W)
        await d.load_modulus(n1, 3, slot=0, bank=1, word_bits=W)
        a, b = (rng.randrange(n0), rng.randrange(n1)), (rng.randrange(n0), rng.randrange(n1))
        await d.write_pair(1, a, config)
        await d.write_pair(2, b, config)
        assert (await d.mul_pair(3, 1, 2))[1] == OK
        seen = [await d.copy(4, 3, 0), await d.copy(5, 3, 1), await d.copy(3, 3, 1)]
        results = [await d.read_slot(slot, config.bus_words_per_slot) for slot in (4, 5, 3)]
        seen += [await d.add(6, 4, 4), await d.sub(7, 6, 4), await d.equal(7, 4)]
        results += [await d.read_slot(slot, bus_words(4)) for slot in (6, 7)]
        return seen, results, (a, b, n0, n1)

    (seen, results, (a, b, n0, n1)), expected = twin(config, scenario)
    assert (seen, results) == expected[:2]
    r0, r1 = model.mont_mul(a[0], b[0], n0, 4, W), model.mont_mul(a[1], b[1], n1, 3, W)
    assert results == [r0, r1, r1, 2 * r0 % n0, r0]
    assert seen[-1] == (model.equal_cycles(config, 4 * W), OK_EQUAL, True)


def test_default_configuration_cycles():
    """The SoC's configuration (32 lanes of 32-bit words): ADD, SUB and EQUAL at 1024 and 2048 bits and
    COPY, on the RTL, take the model's cycles and give the right values."""
    config = PeripheralConfig()
    w = config.word_bits

    async def bench(d):
        rng = random.Random(71)
        seen = {}
        for bits in (1024, 2048):
            size = bits // w
            n = random_modulus(rng, bits)
            await d.load_modulus(n, size, slot=0, word_bits=w)
            a, b = rng.randrange(n), rng.randrange(n)
            await d.write_slot(1, a, bits // 32)
            await d.write_slot(2, b, bits // 32)
            add = await d.add(3, 1, 2)
            sub = await d.sub(4, 1, 2)
            equal = await d.equal(3, 3)
            assert await d.read_slot(3, bits // 32) == (a + b) % n and await d.read_slot(4, bits // 32) == (a - b) % n
            seen[bits] = (add[0], sub[0], equal[0], add[1]["error"], sub[1]["error"], equal[1:])
        seen["copy"] = await d.copy(5, 1, 0)
        return seen

    seen = simulate(config, bench)
    for bits in (1024, 2048):
        cycles = model.add_cycles(config, bits)
        assert seen[bits] == (cycles, cycles, model.equal_cycles(config, bits), 0, 0, (OK_EQUAL, True))
    assert seen["copy"] == (model.copy_cycles(config), OK_EQUAL)
    assert (model.add_cycles(config, 1024), model.add_cycles(config, 2048)) == (39, 71)
    assert 2 * model.add_cycles(config, 2048) < model.mul_cycles(config, 2048)
