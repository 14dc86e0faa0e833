"""SETMOD alone (with the register file it reads and fills): n', the masked copy of N, N', odd check."""

import random

from amaranth import Elaboratable, Module
from amaranth.lib import wiring
from amaranth.sim import Simulator

from gateware.interface import PeripheralConfig
from gateware.montmul.modulus import ModulusUnit
from gateware.montmul.regfile import RegisterFile
import regfile_access

W = 16     # the configuration's word width
CONFIG = PeripheralConfig(max_bits=512, lanes=8, word_bits=W)      # 32 words, 4 rows per slot


class ModulusBench(Elaboratable):
    def __init__(self, config):
        self.regfile = RegisterFile(config)
        self.unit = ModulusUnit(config)

    def elaborate(self, platform):
        m = Module()
        m.submodules.regfile = self.regfile
        m.submodules.unit = self.unit
        wiring.connect(m, self.unit.read, self.regfile.setmod_read)
        wiring.connect(m, self.unit.write, self.regfile.modulus_write)
        return m


def expected_state(config, n, size):
    """The modulus state after SETMOD of ``n`` at ``size`` words, computed the plain way."""
    n_inv = -pow(n, -1, 1 << W) % (1 << W)
    assert (n * n_inv) % (1 << W) == (1 << W) - 1
    rows = -(-size // config.lanes)
    tail = size % config.lanes
    mask = (1 << config.row_bits) - 1 if tail == 0 else (1 << (W * tail)) - 1
    return {"valid": 1, "size": size, "rows": rows, "n_inv": n_inv, "last_row_mask": mask}


def test_setmod():
    rng = random.Random(5)
    bench = ModulusBench(CONFIG)
    rf, unit = bench.regfile, bench.unit
    log = []

    async def tb(ctx):
        async def write_slot(slot, value):
            await regfile_access.write_slot(ctx, rf, CONFIG, slot, value)

        async def setmod(slot, size):
            ctx.set(unit.slot, slot)
            ctx.set(unit.size, size)
            ctx.set(unit.start, 1)
            await ctx.tick()
            ctx.set(unit.start, 0)
            cycles = 1
            while not (ctx.get(unit.done) or ctx.get(unit.even)):
                assert ctx.get(unit.busy)
                await ctx.tick()
                cycles += 1
            outcome = "done" if ctx.get(unit.done) else "even"
            await ctx.tick()
            assert not ctx.get(unit.busy)
            return outcome, cycles

        def state():
            return {name: ctx.get(getattr(unit.state, name))
                    for name in ("valid", "size", "rows", "n_inv", "last_row_mask")}

        async def modulus_memory(rows, first=0):
            value = 0
            for k in range(rows):
                ctx.set(rf.modulus_read.addr, first + k)
                await ctx.tick()
                value |= ctx.get(rf.modulus_read.data) << (CONFIG.row_bits * k)
            return value

        assert state()["valid"] == 0
        # an even N before any modulus: refused, still no modulus
        await write_slot(4, rng.getrandbits(CONFIG.max_bits) & ~1)
        outcome, cycles = await setmod(4, 8)
        assert (outcome, cycles) == ("even", 2) and state()["valid"] == 0

        for size in (2, 3, 8, 9, 17, 31, 32):
            bits = W * size - rng.choice((0, 1, 7))
            n = rng.getrandbits(bits) | 1 | 1 << (bits - 1)
            junk = rng.getrandbits(CONFIG.max_bits) >> (W * size) << (W * size)
            slot = rng.randrange(32)
            await write_slot(slot, n | junk)
            outcome, cycles = await setmod(slot, size)
            want = expected_state(CONFIG, n, size)
            assert outcome == "done"
            # read, check, W inversion steps, one per row copied, N' (1 + size + 1), the latch
            assert cycles == 2 + W // 2 + want["rows"] + 1 + size + 2 + 1
            assert state() == want, size
            # the copy holds N's words below the size, the words above it cleared; N' after it
            assert await modulus_memory(want["rows"]) == n
            n_prime = (want["n_inv"] * n + 1) >> W
            assert await modulus_memory(want["rows"], CONFIG.n_prime_row) == n_prime, size
            log.append(size)

            # an even modulus leaves the one in force as it was
            await write_slot(5, rng.getrandbits(CONFIG.max_bits) & ~1)
            assert (await setmod(5, 8))[0] == "even"
            assert state() == want
            assert await modulus_memory(want["rows"]) == n

    sim = Simulator(bench)
    sim.add_clock(1e-8)
    sim.add_testbench(tb)
    sim.run()
    assert len(log) == 7
