"""Cycle counts of the peripheral, measured in the Amaranth simulator.

``mul_cycles(config, bits)`` runs one MUL at the size of a ``bits``-bit modulus and returns the cycles from
the command strobe (the cycle the command is accepted, counted as 1) to the first cycle ``status.busy`` reads
0 with ``done`` set, exclusive; a NOP therefore takes 1 cycle.  ``exp_cycles(config, bits, mode)`` gives
the same figure for an exponentiation with a ``bits``-bit exponent.  A full-size exponentiation takes too
long in the Python simulator, so it is computed from the sequencer's deterministic schedule around a
simulated MUL; ``tests/gateware/test_measure.py`` checks that schedule against complete simulated
exponentiations in small configurations.  ``mul_schedule_cycles(config, bits)`` is the MUL count from
the core's schedule, without simulating (checked against the simulator too).

    python -c "from gateware.measure import *; print(mul_cycles(bits=2048), exp_cycles(bits=1024, mode='window'))"
"""

import random

from amaranth.sim import Simulator

from .interface import (WORD_BITS, BUS_BITS, WINDOW_BITS, SHORT_EXPONENT_BITS, Opcode, PeripheralConfig,
                        pack_cmd, bus_words)
from .montmul import MontgomeryPeripheral

__all__ = ["mul_cycles", "exp_cycles", "simulate_command", "mul_schedule_cycles", "exp_schedule_cycles"]


def _size_words(bits):
    return -(-bits // WORD_BITS)


def simulate_command(config, bits, op, exponent=None, exponent_bits=None, seed=0):
    """Load a random ``bits``-bit modulus and operands, run one MUL/EXP; return (cycles, result, inputs)."""
    rng = random.Random(seed)
    size = _size_words(bits)
    n = rng.getrandbits(bits) | 1 | (1 << (bits - 1))
    a, b = rng.randrange(n), rng.randrange(n)
    if exponent is not None:
        b = exponent
    r_mod_n = (1 << (WORD_BITS * size)) % n
    dut = MontgomeryPeripheral(config)
    sim = Simulator(dut)
    sim.add_clock(1e-8)
    out = {}

    async def tb(ctx):
        async def strobe(port, value_port=None, value=None):
            if value_port is not None:
                ctx.set(value_port, value)
            ctx.set(port, 1)
            await ctx.tick()
            ctx.set(port, 0)

        async def write(slot, value):
            await strobe(dut.cmd_stb, dut.cmd, pack_cmd(Opcode.WRITE, dst=slot))
            for k in range(bus_words(size)):
                await strobe(dut.wdata_stb, dut.wdata, (value >> (BUS_BITS * k)) & 0xffffffff)

        await write(0, n)
        await write(1, a)
        await write(2, b)
        await write(3, r_mod_n)
        await strobe(dut.cmd_stb, dut.cmd, pack_cmd(Opcode.SETMOD, a=0, arg=size))
        while ctx.get(dut.status) & 1:
            await ctx.tick()
        await strobe(dut.cmd_stb, dut.cmd, pack_cmd(op, 3, 1, 2, exponent_bits or 0))
        cycles = 1
        while ctx.get(dut.status) & 1:
            await ctx.tick()
            cycles += 1
        status = ctx.get(dut.status)
        assert status == 0b10, f"status {status:#x}"
        await strobe(dut.cmd_stb, dut.cmd, pack_cmd(Opcode.READ, a=3))
        result = 0
        for k in range(bus_words(size)):
            await ctx.tick()
            result |= ctx.get(dut.rdata) << (BUS_BITS * k)
            await strobe(dut.rdata_stb)
        out.update(cycles=cycles, result=result)

    sim.add_testbench(tb)
    sim.run()
    return out["cycles"], out["result"], {"n": n, "a": a, "b": b, "size": size}


def mul_cycles(config=PeripheralConfig(), bits=1024):
    """Cycles of one MUL at the size of a ``bits``-bit modulus (simulated; independent of the values)."""
    cycles, result, inp = simulate_command(config, bits, Opcode.MUL)
    r = 1 << (WORD_BITS * inp["size"])
    assert result == inp["a"] * inp["b"] * pow(r, -1, inp["n"]) % inp["n"]
    return cycles


def mul_schedule_cycles(config, bits):
    """Cycles of one MUL from the core's schedule (``tests/gateware/test_measure.py`` checks it against
    the simulator): accept 1, prologue 7, size iterations of P = max(rows, 2) cycles, 1, then the two
    row passes (rows + 4 and rows)."""
    size = _size_words(bits)
    rows = -(-size // config.lanes)
    return 1 + 7 + size * max(rows, 2) + 1 + rows + 4 + rows


def _mode(mode):
    if isinstance(mode, str):
        return {"window": Opcode.EXP_WINDOW, "ladder": Opcode.EXP_LADDER}[mode.lower()]
    return Opcode(mode)


def exp_schedule_cycles(mul, exponent, exponent_bits, mode, window_bits=WINDOW_BITS):
    """Cycles of an EXP from the sequencer's schedule, given ``mul`` = cycles of one MUL command.

    Every MUL the sequencer issues costs exactly ``mul`` cycles (the issuing state, the call, the core),
    like a MUL command (the accepting cycle, the call, the core)."""
    mode = _mode(mode)
    exponent &= (1 << exponent_bits) - 1
    if mode is Opcode.EXP_LADDER:
        # accept; R1 = a*R0; per bit: read the bit (3 cycles), two products
        return 1 + mul + exponent_bits * (3 + 2 * mul)
    k = 1 if exponent_bits <= SHORT_EXPONENT_BITS else window_bits
    # accept; table: a^2, then a^3 .. a^(2^k-1) (none for 1-bit windows)
    cycles = 1 + (2 ** (k - 1) * mul if k > 1 else 0)
    e = exponent_bits - 1
    started = False
    while e >= 0:
        if not (exponent >> e) & 1:
            cycles += 2 + mul if started else 3     # read the bit (3 cycles, the last one issues the square)
            e -= 1
            continue
        window = 0
        for j in range(k):                          # bits below 0 read as 0
            window = window << 1 | ((exponent >> (e - j)) & 1 if e - j >= 0 else 0)
        length = k - ((window & -window).bit_length() - 1)
        # read the first bit (3), the other k-1 bits (3 each), the end check and the digit (2),
        # the squarings (none before the first window) and their exit (1), the product
        cycles += 3 + 3 * (k - 1) + 2 + (length * mul if started else 0) + 1 + mul
        started = True
        e -= length
    return cycles + 1                               # the final check


def exp_cycles(config=PeripheralConfig(), bits=1024, mode="ladder", exponent=None):
    """Cycles of an EXP at the size of a ``bits``-bit modulus with a ``bits``-bit exponent.

    ``exponent`` defaults to 2^bits - 1 (the most windows: the worst case of window mode; the ladder's
    count does not depend on the exponent's value)."""
    if exponent is None:
        exponent = (1 << bits) - 1
    return exp_schedule_cycles(mul_cycles(config, bits), exponent, bits, mode, WINDOW_BITS)
