"""The noise sources: the ring oscillators' netlist (kept inverter loops, the names the constraints use) and
the deterministic stand-in, alone and feeding the entropy source."""

import re

from amaranth import Module
from amaranth.back import rtlil
from amaranth.sim import Simulator

from gateware.entropy.interface import STARTUP_SAMPLES, STATUS_BITS
from gateware.entropy.ring import RING_NAME_PREFIX, LFSRBits, RingOscillatorBits, ring_xdc
from gateware.entropy.source import EntropySource

LUT1_CELL = re.compile(r"((?:\s*attribute .*\n)*)\s*cell \\LUT1 \\(\S+)\n\s*parameter \\INIT 2'01\n"
                       r"\s*connect \\I0 \\(\S+)(?: \[0\])?\n\s*connect \\O \\(\S+)\n")


def test_rings_are_kept_inverter_loops():
    lengths = (3, 5, 7)
    text = rtlil.convert(RingOscillatorBits(lengths=lengths), name="ring")
    cells = LUT1_CELL.findall(text)
    assert len(cells) == sum(lengths) == text.count("cell \\LUT1")
    for attributes, name, _, output in cells:
        assert '\\KEEP "TRUE"' in attributes and '\\DONT_TOUCH "TRUE"' in attributes
        assert name.startswith(RING_NAME_PREFIX) and output.startswith(RING_NAME_PREFIX)
    # each inverter's output drives the next one's input, and each chain closes on itself: odd loops
    driver = {output: source for _, _, source, output in cells}
    loops = []
    for start in driver:
        net, steps = driver[start], 1
        while net != start and steps <= len(driver):
            net, steps = driver[net], steps + 1
        loops.append(steps)
    assert sorted(loops) == sorted(n for n in lengths for _ in range(n))


def test_ring_constraints():
    xdc = ring_xdc()
    assert "{" not in xdc and "}" not in xdc          # LiteX formats platform commands with str.format
    assert f"set_property ALLOW_COMBINATORIAL_LOOPS TRUE [get_nets -hierarchical {RING_NAME_PREFIX}*]" in xdc
    assert f"set_property DONT_TOUCH TRUE [get_cells -hierarchical {RING_NAME_PREFIX}*]" in xdc


def lfsr_bits(seed, count):
    state, bits = seed, []
    for _ in range(count):
        bits.append(state & 1)
        state = (state >> 1) ^ (LFSRBits.TAPS if state & 1 else 0)
    return bits


def test_lfsr_stand_in_feeds_the_source():
    divider, words = 3, 4
    top = LFSRBits(seed=0xACE1, divider=divider)
    source = EntropySource()
    samples, got = [], []

    async def tb(ctx):
        cycles = 0
        while len(got) < words:
            raw, valid = ctx.get(top.raw), ctx.get(top.raw_valid)
            ctx.set(source.raw, raw)
            ctx.set(source.raw_valid, valid)
            if valid:
                samples.append((cycles, raw))
            ready = ctx.get(source.status) >> STATUS_BITS["ready"] & 1
            ctx.set(source.data_stb, ready)
            if ready:
                got.append(ctx.get(source.data))
            assert not ctx.get(source.status) >> STATUS_BITS["failed"] & 1
            await ctx.tick()
            cycles += 1

    m = Module()
    m.submodules.top, m.submodules.source = top, source
    sim = Simulator(m)
    sim.add_clock(1e-8)
    sim.add_testbench(tb)
    sim.run()
    # one sample every `divider` cycles, the LFSR's sequence; the words are its bits after the start-up
    assert {b[0] - a[0] for a, b in zip(samples, samples[1:])} == {divider}
    bits = lfsr_bits(0xACE1, len(samples))
    assert [raw for _, raw in samples] == bits
    # ready rises in the cycle after a sample and is read at once, never in a sample's cycle: no sample is
    # dropped, the words are the bits that follow the start-up, in order
    words_bits = bits[STARTUP_SAMPLES:STARTUP_SAMPLES + 32 * words]
    assert got == [sum(bit << i for i, bit in enumerate(words_bits[32 * w:32 * w + 32])) for w in range(words)]
