"""Random command sequences against a plain-Python model of the whole peripheral (slots, errors, status)."""

import random

import pytest

from gateware.interface import WORD_BITS, BUS_BITS, NUM_SLOTS, MIN_WORDS, Opcode, ErrorCode, PeripheralConfig
from montmul_harness import simulate, mont_ref, mont_exp_ref

CONFIG = PeripheralConfig(max_bits=256, lanes=4)
E = ErrorCode


class Model:
    def __init__(self, config):
        self.config = config
        self.slots = [0] * NUM_SLOTS
        self.size = None
        self.n = None
        self.error = 0
        self.done = 0
        self.wslot, self.wpos = 0, 0

    def status(self):
        return {"busy": 0, "done": self.done, "error": self.error}

    def refuse(self, code):
        self.error = code.value

    def accept(self, done=1):
        self.error, self.done = 0, done

    def write_result(self, dst, value):
        # results cover whole register-file rows; the words above them are left alone
        words = -(-self.size // self.config.lanes) * self.config.lanes
        mask = (1 << (WORD_BITS * words)) - 1
        self.slots[dst] = (self.slots[dst] & ~mask) | value

    def operand(self, slot):
        return self.slots[slot] & ((1 << (WORD_BITS * self.size)) - 1)


@pytest.mark.parametrize("seed", [1, 2])
def test_random_command_sequences(seed):
    rng = random.Random(seed)
    cfg = CONFIG
    nw = cfg.bus_words_per_slot

    async def tb(d):
        model = Model(cfg)
        executed = {"mul": 0, "exp": 0, "setmod": 0}

        async def run(op, dst=0, a=0, b=0, arg=0):
            _, st = await d.run(op, dst, a, b, arg)
            assert st == model.status(), (op, dst, a, b, arg, st, model.status())

        for step in range(250):
            choice = rng.random()
            slot = rng.randrange(NUM_SLOTS) if rng.random() < 0.9 else rng.randrange(NUM_SLOTS, 32)
            if choice < 0.25:                                        # WRITE + data (sometimes too much)
                count = rng.choice([1, 2, nw, nw + 1]) if rng.random() < 0.5 else nw
                if slot >= NUM_SLOTS:
                    model.refuse(E.BAD_SLOT)
                    await run(Opcode.WRITE, dst=slot)
                    continue
                model.accept()
                await run(Opcode.WRITE, dst=slot)
                n_value = model.n or (1 << cfg.max_bits) - 1
                value = rng.randrange(n_value) if model.n and rng.random() < 0.8 else rng.getrandbits(cfg.max_bits)
                words = [(value >> (BUS_BITS * k)) & 0xffffffff for k in range(count)]
                await d.write_words(words)
                for k, w in enumerate(words):
                    if k >= nw:
                        model.error = E.OVERFLOW.value
                    else:
                        model.slots[slot] = (model.slots[slot] & ~(0xffffffff << (BUS_BITS * k))) | (w << (BUS_BITS * k))
                assert d.status() == model.status()
            elif choice < 0.35:                                      # SETMOD (odd, even, bad sizes)
                size = rng.choice([MIN_WORDS - 1, cfg.max_words + 1] + list(range(MIN_WORDS, cfg.max_words + 1)))
                if slot < NUM_SLOTS and rng.random() < 0.7:
                    value = rng.getrandbits(WORD_BITS * min(size, cfg.max_words) if size > 0 else 1) | 1
                    value |= 1 << (WORD_BITS * min(max(size, 1), cfg.max_words) - 1)
                    model.slots[slot] = value
                    await d.write_slot(slot, value, nw)
                    model.accept()
                if slot >= NUM_SLOTS:
                    model.refuse(E.BAD_SLOT)
                elif not MIN_WORDS <= size <= cfg.max_words:
                    model.refuse(E.BAD_SIZE)
                else:
                    n = model.slots[slot] & ((1 << (WORD_BITS * size)) - 1)
                    if n & 1 == 0:
                        model.accept(done=0)
                        model.refuse(E.EVEN_MODULUS)
                    else:
                        model.accept()
                        model.size, model.n = size, n
                        executed["setmod"] += 1
                await run(Opcode.SETMOD, a=slot, arg=size)
            elif choice < 0.75:                                      # MUL
                a, b = rng.randrange(NUM_SLOTS), rng.randrange(NUM_SLOTS)
                if rng.random() < 0.1:
                    a = rng.randrange(NUM_SLOTS, 32)
                if slot >= NUM_SLOTS or a >= NUM_SLOTS:
                    model.refuse(E.BAD_SLOT)
                elif model.n is None:
                    model.refuse(E.NO_MODULUS)
                elif model.operand(a) >= model.n or model.operand(b) >= model.n:
                    continue                                         # outside the operand contract
                else:
                    model.accept()
                    model.write_result(slot, mont_ref(model.operand(a), model.operand(b), model.n, model.size))
                    executed["mul"] += 1
                await run(Opcode.MUL, slot, a, b)
            elif choice < 0.85:                                      # EXP (both modes)
                op = rng.choice([Opcode.EXP_WINDOW, Opcode.EXP_LADDER])
                a, b = rng.randrange(NUM_SLOTS), rng.randrange(NUM_SLOTS)
                bits = rng.choice([0, 1, 5, 12, 300])
                if slot >= NUM_SLOTS:
                    model.refuse(E.BAD_SLOT)
                elif model.n is None:
                    model.refuse(E.NO_MODULUS)
                elif slot in (a, b):
                    model.refuse(E.ALIAS)
                elif not 1 <= bits <= WORD_BITS * model.size:
                    model.refuse(E.BAD_EXP_BITS)
                elif model.operand(a) >= model.n:
                    continue
                else:
                    r = (1 << (WORD_BITS * model.size)) % model.n
                    model.slots[slot] = r
                    await d.write_slot(slot, r, nw)
                    model.accept()
                    e = model.operand(b) & ((1 << bits) - 1)
                    model.write_result(slot, mont_exp_ref(model.operand(a), e, model.n, model.size))
                    executed["exp"] += 1
                await run(op, slot, a, b, bits)
            elif choice < 0.9:                                       # bad opcodes, NOP
                op = rng.choice([0, 7, 8, 15])
                if op:
                    model.refuse(E.BAD_OPCODE)
                else:
                    model.accept()
                await run(op)
            else:                                                    # READ back a slot and compare
                if slot >= NUM_SLOTS:
                    model.refuse(E.BAD_SLOT)
                    await run(Opcode.READ, a=slot)
                    continue
                model.accept()
                got = await d.read_slot(slot, nw)
                assert got == model.slots[slot], (step, slot, hex(got), hex(model.slots[slot]))
                assert d.status() == model.status()
        for slot in range(NUM_SLOTS):
            assert await d.read_slot(slot, nw) == model.slots[slot], slot
        assert executed["mul"] >= 10 and executed["exp"] >= 2 and executed["setmod"] >= 2, executed

    simulate(cfg, tb)
