"""Random bus activity on the RTL and on the model (gateware/model.py) in lockstep: every status, irq
count, cycle count and word read back must agree."""

import random
from collections import Counter

import pytest

from gateware.driver import complete
from gateware.interface import NUM_SLOTS, MIN_WORDS, Opcode, PeripheralConfig
from montmul_harness import W, bus_words, simulate, simulate_verilated, model_driver

CONFIG = PeripheralConfig(max_bits=256, lanes=4, word_bits=W)
NW = CONFIG.bus_words_per_slot


# Actions run the same way on both drivers; what they return is compared.

async def command(d, op, dst=0, a=0, b=0, arg=0):
    return await d.run(op, dst, a, b, arg), d.irqs


async def write(d, slot, words):
    accepted = await d.run(Opcode.WRITE, dst=slot)
    await d.write_words(words)
    return accepted, await d.read_status()


async def read(d, slot, count, extra):
    """``count`` words, then ``extra`` more advances of the read pointer (past the end: OVERFLOW)."""
    accepted = await d.run(Opcode.READ, a=slot)
    if accepted[1]["error"]:
        return accepted
    words = await d.read_words(count)
    statuses = []
    for _ in range(extra):
        await d.transport.strobe("rdata")
        statuses.append(await d.read_status())
    return accepted, words, statuses


async def while_busy(d, op, dst, a, b, arg, pokes):
    """A command, then strobes at chosen cycles while it may still run."""
    await d.strobe_cmd(op, dst, a, b, arg)
    seen = []
    for delay, port in pokes:
        await d.tick(delay)
        await d.transport.strobe(port, 0x5a5a5a5a)
        seen.append(await d.read_status())
    return seen, await d.wait(), await d.read_status(), d.irqs


#: (seed, simulator, serial): one seed in the Amaranth simulator, more in Verilator (the same RTL's
#: Verilog, montmul_harness.simulate_verilated), where a seed's STEPS steps take about a second instead of
#: 5-13 s; the Amaranth simulator's seed runs the first AMARANTH_STEPS of them.  ``serial``: the share of
#: steps that also run a word-serial command (ADD, SUB, EQUAL, COPY) first, drawn from a stream of their
#: own, so that the other actions are drawn as in the runs without them.
RUNS = [(1, simulate, 0)] + [(seed, simulate_verilated, 0) for seed in range(2, 6)] + \
       [(seed, simulate_verilated, 0.15) for seed in range(6, 8)]
STEPS, AMARANTH_STEPS = 250, 80


@pytest.mark.parametrize("seed, run, serial", RUNS,
                         ids=[f"{seed}-{run.__name__}" + ("-serial" if serial else "") for seed, run, serial in RUNS])
def test_random_bus_activity(seed, run, serial):
    async def bench(rtl):
        rng = random.Random(seed)
        serial_rng = random.Random(-seed)
        twin = model_driver(CONFIG)
        peripheral = twin.transport.model
        ran = Counter()

        async def both(action, *args):
            got = await action(rtl, *args)
            expected = complete(action(twin, *args))
            assert got == expected, (step, action.__name__, args)
            return got

        def in_contract(*slots):
            return all(peripheral.operand(slot) < peripheral.modulus.n for slot in slots)

        def any_slot():
            return rng.randrange(NUM_SLOTS) if rng.random() < 0.9 else rng.randrange(NUM_SLOTS, 32)

        for step in range(STEPS if run is simulate_verilated else AMARANTH_STEPS):
            if serial_rng.random() < serial:
                # the model gives the word-serial commands' words for any operands; dst often a or b,
                # COPY's bank 1 without a modulus (NO_MODULUS) or past the banks (BAD_BANK)
                op = serial_rng.choice([Opcode.ADD, Opcode.SUB, Opcode.EQUAL, Opcode.COPY])
                a, b = (serial_rng.randrange(NUM_SLOTS) if serial_rng.random() < 0.95 else 31 for _ in range(2))
                dst = serial_rng.choice([serial_rng.randrange(NUM_SLOTS), a, b])
                (_, status), _ = await both(command, op, dst, a, b, serial_rng.choice([0, 0, 0, 1, 2]))
                ran["serial"] += status["error"] == 0
                ran[op.name] += status["error"] == 0
            choice = rng.random()
            slot = any_slot()
            n = peripheral.modulus.n if peripheral.modulus else None
            if choice < 0.25:
                count = rng.choice([1, 2, NW, NW + 1]) if rng.random() < 0.5 else NW
                value = rng.randrange(n) if n and rng.random() < 0.8 else rng.getrandbits(CONFIG.max_bits)
                words = [value >> (32 * k) & 0xffffffff for k in range(count)]
                await both(write, slot, words)
            elif choice < 0.35:
                size = rng.choice([MIN_WORDS - 1, CONFIG.max_words + 1, *range(MIN_WORDS, CONFIG.max_words + 1)])
                if slot < NUM_SLOTS and rng.random() < 0.7:
                    bits = W * min(max(size, 1), CONFIG.max_words)
                    value = rng.getrandbits(bits) | 1 << (bits - 1) | (rng.random() < 0.8)
                    await both(write, slot, [value >> (32 * k) & 0xffffffff for k in range(NW)])
                (_, status), _ = await both(command, Opcode.SETMOD, 0, slot, 0, size)
                ran["setmod"] += status["error"] == 0
            elif choice < 0.7:
                a, b = rng.randrange(NUM_SLOTS), rng.randrange(NUM_SLOTS)
                if rng.random() < 0.1:
                    a = rng.randrange(NUM_SLOTS, 32)
                if n is not None and a < NUM_SLOTS and not in_contract(b):
                    continue
                (_, status), _ = await both(command, Opcode.MUL, slot, a, b)
                ran["mul"] += status["error"] == 0
            elif choice < 0.8:
                op = rng.choice([Opcode.EXP_WINDOW, Opcode.EXP_LADDER, Opcode.EXP_FIXED])
                a, b = rng.randrange(NUM_SLOTS), rng.randrange(NUM_SLOTS)
                bits = rng.choice([0, 1, 5, 12, 30, 300])
                if n is not None and slot < NUM_SLOTS and slot not in (a, b):
                    await both(write, slot, [(1 << (W * peripheral.modulus.size)) % n >> (32 * k) & 0xffffffff
                                             for k in range(NW)])
                    if not in_contract(a):
                        continue
                (_, status), _ = await both(command, op, slot, a, b, bits)
                ran["exp"] += status["error"] == 0
                ran[op.name] += status["error"] == 0
            elif choice < 0.85 and n is not None:
                a, b = rng.randrange(NUM_SLOTS), rng.randrange(NUM_SLOTS)
                if not in_contract(b):
                    continue
                pokes = [(rng.randrange(40), rng.choice(["cmd", "wdata", "rdata"])) for _ in range(rng.randrange(1, 4))]
                op = serial_rng.choice([Opcode.MUL, Opcode.ADD, Opcode.EQUAL]) if serial else Opcode.MUL
                await both(while_busy, op, rng.randrange(NUM_SLOTS), a, b, 0, pokes)
                ran["busy"] += 1
            elif choice < 0.9:
                await both(command, rng.choice([0, 8, 9, 15]))
            else:
                await both(read, slot, rng.randrange(1, NW + 1), rng.randrange(3))
        for slot in range(NUM_SLOTS):
            await both(read, slot, NW, 0)
        return ran

    ran = run(CONFIG, bench)
    assert ran["mul"] >= 10 and ran["exp"] >= 2 and ran["setmod"] >= 2 and ran["busy"] >= 3, ran
    if serial:
        assert ran["serial"] >= 15 and all(ran[op] for op in ("ADD", "SUB", "EQUAL", "COPY")), ran
    else:
        assert ran["EXP_FIXED"] >= 1, ran
