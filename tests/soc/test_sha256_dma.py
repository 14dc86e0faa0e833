"""soc/sha256.py's DMA (`BlockFetcher`) against the engine's Python model (gateware/sha256/model.py), in
Migen's simulator, reading from LiteX's Wishbone RAM: the blocks it feeds give hashlib's digest; a block
takes BLOCK_CYCLES + 1 cycles whatever the data, so a run's cycles depend on its count only; a misaligned
address, a count of 0, a range not wholly in the region and a start while busy are refused without a read,
a command or a change of state; a CPU command or window store while it runs is dropped and flagged."""

import hashlib
import random
import struct

import pytest
from migen import Module
from migen.sim import run_simulation

from litex.soc.interconnect import wishbone

from gateware.sha256.interface import BLOCK_CYCLES, INITIAL_HASH, Command
from gateware.sha256.model import EngineModel
from soc.sha256 import WINDOW_MESSAGE, BlockFetcher, MessageStateWindow

#: The region the DMA may read (main RAM on the SoC): a small RAM at main RAM's usual base.
ORIGIN = 0x40000000
SIZE = 4096


def padded(message):
    """``message`` padded into whole blocks (FIPS 180-4 5.1.1)."""
    pad = b"\x80" + bytes(-(len(message) + 9) % 64)
    return message + pad + struct.pack(">Q", 8 * len(message))


class Bench:
    """The window and the DMA over a RAM holding ``memory`` (bytes from ORIGIN), the engine's model behind
    their outputs (its state INIT's). ``run(events, cycles)``: ``events`` {cycle: {input: value}} sets the
    DMA's and the CPU's inputs in that cycle only; returns a row a cycle: (active, engine busy, bus cyc,
    refused)."""

    def __init__(self, memory):
        memory = memory + bytes(-len(memory) % 4)
        words = list(struct.unpack(f"<{len(memory) // 4}I", memory))
        self.window = MessageStateWindow()
        self.fetcher = BlockFetcher(self.window, ORIGIN, SIZE)
        self.module = Module()
        self.module.submodules += self.window, self.fetcher
        self.module.submodules.ram = wishbone.SRAM(SIZE, init=words + [0] * (SIZE // 4 - len(words)),
                                                   bus=self.fetcher.bus)
        self.model = EngineModel()
        self.model.edge(Command.INIT)
        self.commands = []

    def run(self, events, cycles):
        f, model, rows = self.fetcher, self.model, []

        def bench():
            pending = {}
            for cycle in range(cycles):
                for signal, value in pending.items():         # one cycle's inputs back to rest
                    yield signal.eq(0)
                pending = dict(events.get(cycle + 1, {}))
                for signal, value in pending.items():         # seen in the next cycle
                    yield signal.eq(value)
                if cycle == 0:
                    continue
                rows.append(((yield f.active), model.busy, (yield f.bus.cyc), (yield f.refused)))
                message = state = command = None
                if (yield f.message_we):
                    message = ((yield f.message_addr), (yield f.message_data))
                if (yield f.state_we):
                    state = ((yield self.window.state_addr), (yield self.window.state_data))
                if (yield f.command_stb):
                    command = (yield f.command)
                    self.commands.append((cycle, command))
                model.edge(command, message, state)
                yield f.engine_busy.eq(model.busy)
                yield

        run_simulation(self.module, bench())
        return rows

    def start(self, address, blocks):
        f = self.fetcher
        return {f.start: 1, f.address: address, f.blocks: blocks}


def busy_cycles(rows):
    """Cycles from the first busy one (DMA or engine) to the last."""
    busy = [i for i, (active, engine, _, _) in enumerate(rows) if active or engine]
    return busy[-1] - busy[0] + 1 if busy else 0


def dma_hash(memory, offset, blocks, cycles=None):
    bench = Bench(memory)
    rows = bench.run({2: bench.start(ORIGIN + offset, blocks)}, cycles or 60 + (BLOCK_CYCLES + 2) * blocks)
    return bench, rows


@pytest.mark.parametrize("length, offset", [(0, 0), (3, 64), (200, 4), (1000, 1020)])
def test_blocks_fed_give_hashlibs_digest(length, offset):
    message = random.Random(length).randbytes(length)
    data = padded(message)
    bench, rows = dma_hash(bytes(offset) + data, offset, len(data) // 64)
    assert not rows[-1][0] and not rows[-1][1] and not bench.model.busy_refused
    assert [command for _, command in bench.commands] == [Command.BLOCK] * (len(data) // 64)
    assert struct.pack(">8I", *bench.model.state) == hashlib.sha256(message).digest()


def test_a_block_takes_block_cycles_plus_one_whatever_the_data():
    counts = {}
    for blocks in (1, 2, 5):
        for seed in range(2):
            data = bytes(64 * blocks) if seed == 0 else random.Random(blocks).randbytes(64 * blocks)
            bench, rows = dma_hash(data, 0, blocks)
            counts.setdefault(blocks, set()).add(busy_cycles(rows))
            issued = [cycle for cycle, _ in bench.commands]
            assert [b - a for a, b in zip(issued, issued[1:])] == [BLOCK_CYCLES + 1] * (blocks - 1)
    assert all(len(cycles) == 1 for cycles in counts.values()), counts        # the data changes nothing
    (one,), (two,), (five,) = counts.values()
    assert two - one == BLOCK_CYCLES + 1 and five - one == 4 * (BLOCK_CYCLES + 1)
    assert one - BLOCK_CYCLES < 40           # the first block's 16 loads, two cycles each, and the start


@pytest.mark.parametrize("address, blocks", [
    pytest.param(ORIGIN + 2, 1, id="misaligned"),
    pytest.param(ORIGIN, 0, id="no_block"),
    pytest.param(ORIGIN - 64, 1, id="below_the_region"),
    pytest.param(ORIGIN + SIZE - 64, 2, id="past_the_region"),
    pytest.param(ORIGIN, 1 << 26, id="count_past_the_region"),
    pytest.param(ORIGIN + SIZE, 1, id="after_the_region"),
])
def test_bad_start_is_refused_and_changes_nothing(address, blocks):
    bench = Bench(random.Random(1).randbytes(SIZE))
    rows = bench.run({2: bench.start(address, blocks)}, 40)
    assert not any(active or cyc for active, _, cyc, _ in rows)     # no read, never busy
    assert rows[-1][3] and bench.commands == [] and bench.model.state == list(INITIAL_HASH)
    # the next good start clears it
    bench = Bench(padded(b"abc"))
    f = bench.fetcher
    rows = bench.run({2: bench.start(address, blocks), 5: bench.start(ORIGIN, 1)}, 120)
    assert rows[4][3] and not rows[-1][3]
    assert struct.pack(">8I", *bench.model.state) == hashlib.sha256(b"abc").digest()


def test_a_start_while_busy_is_refused():
    """A start while the DMA reads (cycle 30) or the engine runs its last block (cycle 140) is refused:
    the running one carries on as if it had not come."""
    message = random.Random(2).randbytes(100)
    data = padded(message)
    bench = Bench(data)
    rows = bench.run({2: bench.start(ORIGIN, 2), 30: bench.start(ORIGIN, 1), 140: bench.start(ORIGIN, 1)}, 240)
    assert rows[-1][3] and len(bench.commands) == 2
    assert struct.pack(">8I", *bench.model.state) == hashlib.sha256(message).digest()


def test_cpu_command_and_window_store_while_running_are_dropped():
    message = random.Random(3).randbytes(150)
    data = padded(message)
    bench = Bench(data)
    f, bus = bench.fetcher, bench.window.bus
    store = {bus.cyc: 1, bus.stb: 1, bus.we: 1, bus.adr: WINDOW_MESSAGE, bus.dat_w: 0xffffffff, bus.sel: 0xf}
    rows = bench.run({2: bench.start(ORIGIN, len(data) // 64), 10: {f.cpu_command: int(Command.INIT),
                      f.cpu_command_stb: 1}, 90: store}, 60 + (BLOCK_CYCLES + 2) * 3)
    assert rows[-1][3] and not bench.model.busy_refused
    assert [command for _, command in bench.commands] == [Command.BLOCK] * 3
    assert struct.pack(">8I", *bench.model.state) == hashlib.sha256(message).digest()
