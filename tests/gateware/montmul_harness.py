"""Simulation harness shared by the gateware tests: a bus driver and the plain-Python reference."""

from amaranth.sim import Simulator

from gateware.interface import WORD_BITS, BUS_BITS, Opcode, ErrorCode, pack_cmd, bus_words
from gateware.montmul import MontgomeryPeripheral


# ---- reference model -------------------------------------------------------------------------

def mont_ref(a, b, n, size):
    """a*b*R^-1 mod n with R = 2^(W*size), via pow()."""
    r = 1 << (WORD_BITS * size)
    return a * b * pow(r, -1, n) % n


def mont_textbook(a, b, n, size):
    """Word-serial CIOS Montgomery product, as a cross-check of ``mont_ref``."""
    w = WORD_BITS
    mask = (1 << w) - 1
    n_inv = (-pow(n, -1, 1 << w)) & mask
    t = 0
    for i in range(size):
        t += ((a >> (w * i)) & mask) * b
        q = ((t & mask) * n_inv) & mask
        t = (t + q * n) >> w
    return t - n if t >= n else t


def mont_exp_ref(a, e, n, size):
    """a^e in the Montgomery domain: a^e * R^(1-e) mod n."""
    r = 1 << (WORD_BITS * size)
    return pow(a, e, n) * pow(r, 1 - e, n) % n if e else r % n


def to_mont(x, n, size):
    return x * (1 << (WORD_BITS * size)) % n


def from_mont(x, n, size):
    return x * pow(1 << (WORD_BITS * size), -1, n) % n


# ---- bus driver ------------------------------------------------------------------------------

class Driver:
    """Drives the peripheral's ports from an async testbench."""

    def __init__(self, ctx, dut):
        self.ctx = ctx
        self.dut = dut
        self.irqs = 0

    async def tick(self):
        await self.ctx.tick()
        if self.ctx.get(self.dut.irq):
            self.irqs += 1

    def status(self):
        s = self.ctx.get(self.dut.status)
        return {"busy": s & 1, "done": (s >> 1) & 1, "error": (s >> 8) & 0xff}

    async def strobe_cmd(self, op, dst=0, a=0, b=0, arg=0):
        self.ctx.set(self.dut.cmd, pack_cmd(op, dst, a, b, arg))
        self.ctx.set(self.dut.cmd_stb, 1)
        await self.tick()
        self.ctx.set(self.dut.cmd_stb, 0)

    async def run(self, op, dst=0, a=0, b=0, arg=0, limit=10_000_000):
        """Issue a command, wait until not busy; return (cycles from strobe to done visible, status)."""
        await self.strobe_cmd(op, dst, a, b, arg)
        cycles = 1
        while self.ctx.get(self.dut.status) & 1:
            await self.tick()
            cycles += 1
            assert cycles < limit, "peripheral hangs"
        return cycles, self.status()

    async def write_words(self, words):
        for word in words:
            self.ctx.set(self.dut.wdata, word)
            self.ctx.set(self.dut.wdata_stb, 1)
            await self.tick()
        self.ctx.set(self.dut.wdata_stb, 0)

    async def write_slot(self, slot, value, nwords):
        _, st = await self.run(Opcode.WRITE, dst=slot)
        assert st["error"] == 0, st
        await self.write_words([(value >> (BUS_BITS * k)) & 0xffffffff for k in range(nwords)])

    async def read_slot(self, slot, nwords):
        _, st = await self.run(Opcode.READ, a=slot)
        assert st["error"] == 0, st
        value = 0
        for k in range(nwords):
            await self.tick()                       # rdata valid 2 cycles after READ / rdata_stb
            value |= self.ctx.get(self.dut.rdata) << (BUS_BITS * k)
            if k != nwords - 1:
                self.ctx.set(self.dut.rdata_stb, 1)
                await self.tick()
                self.ctx.set(self.dut.rdata_stb, 0)
        return value

    async def setmod(self, slot, size):
        return await self.run(Opcode.SETMOD, a=slot, arg=size)


def simulate(config, testbench, vcd=None):
    """Run ``testbench(driver)`` (an async function) against a fresh peripheral."""
    dut = MontgomeryPeripheral(config)
    sim = Simulator(dut)
    sim.add_clock(1e-8)
    result = {}

    async def tb(ctx):
        result["value"] = await testbench(Driver(ctx, dut))

    sim.add_testbench(tb)
    if vcd:
        with sim.write_vcd(vcd):
            sim.run()
    else:
        sim.run()
    return result.get("value")
