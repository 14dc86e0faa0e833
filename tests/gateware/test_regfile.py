"""The register file's port arbitration: who the read port serves, bus word writes, whole-row core
writes, and the separate modulus memory."""

from amaranth.sim import Simulator

from gateware.interface import PeripheralConfig
from gateware.montmul.regfile import RegisterFile
import regfile_access

W = 16     # the configuration's word width
CONFIG = PeripheralConfig(max_bits=256, lanes=4, word_bits=W)       # rows of 4 words, 4 rows per slot
ROW = CONFIG.row_bits


def word(value, j):
    return (value >> (W * j)) & ((1 << W) - 1)


def test_ports():
    dut = RegisterFile(CONFIG)
    rows = {5: 0x1111_2222_3333_4444, 6: 0x5555_6666_7777_8888, 9: 0x9999_aaaa_bbbb_cccc, 12: 0xdddd_eeee_ffff_0101}

    async def tb(ctx):
        # bus writes: whole rows a word pair at a time, then one 32-bit word into the upper pair of row 6
        for addr, value in rows.items():
            await regfile_access.write_row(ctx, dut, CONFIG, addr, value)
        ctx.set(dut.bus_write.addr, 6)
        ctx.set(dut.bus_write.data, 0xaaaa_bbbb)
        ctx.set(dut.bus_write.en, 0b1100)
        await ctx.tick()
        ctx.set(dut.bus_write.en, 0)
        rows[6] = 0xaaaa_bbbb_7777_8888

        async def read(port=None, addr=None):
            ctx.set(dut.bus_read.addr, 5)
            if port is not None:
                ctx.set(port.addr, addr)
                ctx.set(port.en, 1)
            await ctx.tick()
            if port is not None:
                ctx.set(port.en, 0)
            return ctx.get(dut.bus_read.data)

        # without a claim the port follows the bus read address; a claim takes it for its cycle
        assert await read() == rows[5]
        assert await read(dut.exp_read, 6) == rows[6]
        assert ctx.get(dut.exp_read.data) == rows[6]
        assert await read(dut.setmod_read, 9) == rows[9]
        assert await read(dut.core_read, 12) == rows[12]
        assert await read() == rows[5]
        # the core's claim wins over the others
        ctx.set(dut.setmod_read.addr, 9)
        ctx.set(dut.setmod_read.en, 1)
        assert await read(dut.core_read, 6) == rows[6]
        ctx.set(dut.setmod_read.en, 0)

        # a core write replaces the whole row, and wins over a bus write in the same cycle
        ctx.set(dut.core_write.addr, 9)
        ctx.set(dut.core_write.data, 0x0123_4567_89ab_cdef)
        ctx.set(dut.core_write.en, 1)
        ctx.set(dut.bus_write.addr, 12)
        ctx.set(dut.bus_write.data, 0)
        ctx.set(dut.bus_write.en, 0b1111)
        await ctx.tick()
        ctx.set(dut.core_write.en, 0)
        ctx.set(dut.bus_write.en, 0)
        assert await read(dut.exp_read, 9) == 0x0123_4567_89ab_cdef
        assert await read(dut.exp_read, 12) == rows[12]

        # the modulus memory is separate from the operands
        ctx.set(dut.modulus_write.addr, 1)
        ctx.set(dut.modulus_write.data, (1 << ROW) - 3)
        ctx.set(dut.modulus_write.en, 1)
        await ctx.tick()
        ctx.set(dut.modulus_write.en, 0)
        ctx.set(dut.modulus_read.addr, 1)
        await ctx.tick()
        assert ctx.get(dut.modulus_read.data) == (1 << ROW) - 3
        assert word(await read(dut.exp_read, 1), 0) == 0

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(tb)
    sim.run()
