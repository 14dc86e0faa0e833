"""CLEAR, the peripheral's wipe: every memory and every register that held operand words reads 0 after it,
in the contract's cycles (``PeripheralConfig.clear_cycles``), and the model agrees with the RTL."""

import random
import re

from amaranth.sim import Simulator

from gateware import driver, header, model
from gateware.interface import NUM_SLOTS, FIXED_WINDOW_BITS, Opcode, ErrorCode, PeripheralConfig
from gateware.montmul import MontgomeryPeripheral
from gateware.simulation import simulation_fragment
from montmul_harness import W, bus_words, twin

SMALL = PeripheralConfig(max_bits=256, lanes=4, word_bits=W)       # 4 rows per slot, pairs
TINY = PeripheralConfig(max_bits=128, lanes=4, word_bits=W)        # 2 rows per slot, pairs
OK = {"busy": 0, "done": 1, "error": 0}

#: Registers that may be nonzero after CLEAR: they hold no operand bits (commands' slot numbers and
#: lengths, counters and state, the bus pointers, the sizes a SETMOD loaded, status), or a constant
#: (the resolve pass's "equal" bits of 0 against 0, the select pass's top bit of N's last row).
CONTROL = re.compile(r"(fsm_state|irq|done|error|wipe_row|\w*_slot|slot|period|cycle|final_row|iteration"
                     r"|schedule__\d+__\w+|f4_p2?\d+|top|\w+_g|new_\w+|cnt|bit_index|started|window_width"
                     r"|table_digit|window_read|window_index|exponent_bits|remaining|squarings|low|context"
                     r"|context_low|pair|seek|write_pos|read_pos|\w+_v|\w+_k|s\d_\w+|on|phase|rows|a_words|size"
                     r"|own\d?|iterations\d|subtract|compare|copy_bank|count|\w+_valid|last_pair|s1_low|s1_high)")


def _walk(fragment, path=()):
    yield fragment, path
    for subfragment, name, _src_loc in fragment.subfragments:
        yield from _walk(subfragment, path + (str(name),))


def _state(fragment):
    """Every memory ({path: MemoryData}) and every register ([(path, signal)]) of the elaborated design."""
    memories, registers, seen = {}, [], set()
    for part, path in _walk(fragment):
        if hasattr(part, "_data"):
            memories[".".join(path)] = part._data
        for statement in getattr(part, "statements", {}).get("sync", ()):
            for signal in statement._lhs_signals():
                if id(signal) not in seen:
                    seen.add(id(signal))
                    registers.append((".".join(path), signal))
    return memories, registers


def _run(config, testbench):
    """``testbench(driver, ctx, memories, registers)`` on the RTL in the Amaranth simulator."""
    dut = MontgomeryPeripheral(config)
    fragment = simulation_fragment(dut)
    memories, registers = _state(fragment)
    sim = Simulator(fragment)
    sim.add_clock(1e-8)
    result = {}

    async def bench(ctx):
        result["value"] = await testbench(driver.Driver(driver.SimulationTransport(ctx, dut)), ctx, memories,
                                          registers)

    sim.add_testbench(bench)
    sim.run()
    return result["value"]


def _nonzero_rows(ctx, memories):
    return {path: sum(1 for row in range(data.depth) if ctx.get(data[row])) for path, data in memories.items()}


def test_clear_wipes_every_memory_and_register():
    """Every user slot written with random words, both banks set, a MUL_PAIR and an EXP_FIXED (whose table
    fills the hidden slots): every memory holds words. After CLEAR (the contract's cycles) every row of
    every memory is 0, every slot reads 0 through the bus, every register is 0 but the control ones, and
    a product is refused (no modulus in force); the word-serial unit's registers held words before it
    (a SUB and an EQUAL ran), and the equal bit reads 0."""
    config = TINY
    nw = config.bus_words_per_slot

    async def testbench(d, ctx, memories, registers):
        rng = random.Random(49)
        for slot in range(NUM_SLOTS):
            await d.write_slot(slot, rng.getrandbits(config.max_bits), nw)
        n0, n1 = rng.getrandbits(4 * W) | 1 | 1 << (4 * W - 1), rng.getrandbits(3 * W) | 1 | 1 << (3 * W - 1)
        await d.load_modulus(n0, 4, slot=0, word_bits=W)
        await d.load_modulus(n1, 3, slot=1, bank=1, word_bits=W)
        assert (await d.mul_pair(3, 4, 5))[1] == OK
        await d.write_slot(6, model.to_mont(1, n0, 4, W), nw)
        assert (await d.exp(6, 7, 8, 2 * FIXED_WINDOW_BITS + 1, Opcode.EXP_FIXED))[1] == OK
        # the word-serial unit's selected words, pairs and carries hold words of 9 and 10
        for slot in (9, 10):
            await d.write_slot(slot, rng.randrange(n0), nw)
        assert (await d.run(Opcode.SUB, 11, 9, 10))[1] == OK
        assert (await d.run(Opcode.EQUAL, 0, 9, 9))[1] == {**OK, "equal": 1}
        serial = {f"{path}.{signal.name}" for path, signal in registers
                  if path.startswith("serial") and ctx.get(signal) and not CONTROL.fullmatch(signal.name)}
        before = _nonzero_rows(ctx, memories)
        cleared = await d.clear()
        after = _nonzero_rows(ctx, memories)
        left = sorted(f"{path}.{signal.name}" for path, signal in registers
                      if ctx.get(signal) and not CONTROL.fullmatch(signal.name))
        slots = [await d.read_slot(slot, nw) for slot in range(NUM_SLOTS)]
        refused = await d.mul(3, 4, 5)
        return before, cleared, after, left, slots, refused, serial

    before, cleared, after, left, slots, refused, serial = _run(config, testbench)
    assert {"serial.a_in", "serial.b_in", "serial.s_pair", "serial.t_pair"} <= serial, serial
    assert set(before) >= {"regfile.operands", "regfile.modulus", "core.lanes.b_rows", "core.accumulator.column0"}
    assert all(before.values()), before
    assert before["regfile.operands"] > NUM_SLOTS * config.rows_per_slot       # hidden slots too
    assert cleared == (config.clear_cycles, OK) and config.clear_cycles == 1 + 80 * 2
    assert not any(after.values()), after
    assert left == []
    assert slots == [0] * NUM_SLOTS
    assert refused[1]["error"] == ErrorCode.NO_MODULUS.value


def test_clear_default_configuration():
    """The SoC's configuration (32 lanes of 32-bit words, 4096 bits): words in a user slot, the last
    hidden slot and bank 0, then CLEAR takes 321 cycles (the header's MONTMUL_CLEAR_CYCLES) and leaves
    every memory row 0."""
    config = PeripheralConfig()
    assert "#define MONTMUL_CLEAR_CYCLES 321u" in header.c_header(config)
    assert f"#define MONTMUL_OP_CLEAR {Opcode.CLEAR.value}\n" in header.c_header(config)

    async def testbench(d, ctx, memories, _registers):
        n = (1 << 1023) | 0x1234567
        await d.load_modulus(n, 32, slot=2, word_bits=config.word_bits)
        await d.write_slot(NUM_SLOTS - 1, (1 << config.max_bits) - 1, config.bus_words_per_slot)
        before = _nonzero_rows(ctx, memories)
        cleared = await d.clear()
        return before, cleared, _nonzero_rows(ctx, memories), await d.read_slot(2, 32)

    before, cleared, after, slot = _run(config, testbench)
    assert before["regfile.operands"] == 1 + config.rows_per_slot and before["regfile.modulus"] == 2
    assert cleared == (model.clear_cycles(config), OK) == (321, OK)
    assert not any(after.values()) and slot == 0


def test_clear_model_twin():
    """CLEAR on the RTL and on the model: refused with BUSY while a product runs (nothing wiped), then its
    cycles, status and irqs, slots reading 0, products refused until a SETMOD, and the pointers kept (a
    write after CLEAR without a new WRITE goes on where the last one stopped)."""
    config = SMALL
    nw = config.bus_words_per_slot

    async def scenario(d):
        rng = random.Random(7)
        seen = []
        n = rng.getrandbits(6 * W) | 1 | 1 << (6 * W - 1)
        for slot in (1, 2):
            await d.write_slot(slot, rng.randrange(n), bus_words(6))
        await d.load_modulus(n, 6, slot=0, word_bits=W)
        await d.strobe_cmd(Opcode.MUL, 3, 1, 2)
        await d.tick(2)
        await d.strobe_cmd(Opcode.CLEAR)                         # BUSY
        seen.append((await d.wait(), await d.read_status(), d.irqs, await d.read_slot(3, nw) != 0))
        await d.write_slot(4, 0x1234, 1)                         # the write pointer: word 1 of slot 4
        seen.append((await d.run(Opcode.CLEAR, 5, 6, 7, 99), d.irqs))
        await d.write_words([0xabcd])
        seen.append([await d.read_slot(slot, nw) for slot in range(NUM_SLOTS)])
        seen.append((await d.mul(3, 1, 2), await d.run(Opcode.EXP_FIXED, 3, 1, 2, 8), d.irqs))
        await d.write_slot(0, n, bus_words(6))
        seen.append((await d.setmod(0, 6), await d.mul(3, 1, 2), await d.read_slot(3, nw)))
        return seen

    rtl, expected = twin(config, scenario)
    assert rtl == expected
    busy, cleared, slots, refused, again = rtl
    assert busy[1]["error"] == ErrorCode.BUSY.value and busy[3]
    assert cleared[0] == (config.clear_cycles, OK)
    assert slots == [0] * 4 + [0xabcd << 32] + [0] * (NUM_SLOTS - 5)
    assert refused[0][1]["error"] == refused[1][1]["error"] == ErrorCode.NO_MODULUS.value
    assert again[0][1] == again[1][1] == OK and again[2] == 0       # 0 * 0: slots 1 and 2 were wiped
