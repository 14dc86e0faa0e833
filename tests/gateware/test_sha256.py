"""The SHA-256 engine: its computed constants, its model against hashlib, and the gateware in lock step with
the model (every status word and state read, cycle by cycle), hashing, interleaving, taking the next
block's words while a block runs, and refusing."""

import hashlib
import random
import struct

import pytest
from amaranth.sim import Simulator

from gateware.sha256.engine import SHA256Engine
from gateware.sha256.interface import (BLOCK_CYCLES, BLOCK_WORDS, COMMAND_BITS, INIT_CYCLES, INITIAL_HASH,
                                       ROUND_CONSTANTS, ROUNDS, STATE_WORDS, STATUS_BITS, Command, Status, cycles,
                                       first_primes, integer_root)
from gateware.sha256.model import EngineModel, compress

NIST_TWO_BLOCKS = b"abcdbcdecdefdefgefghfghighijhijkijkljklmjklmnklmnomnopnopq"
MESSAGES = {
    "empty": b"",
    "abc": b"abc",
    "nist_448_bits": NIST_TWO_BLOCKS,
    # a random message of each length: the padding's edges (55 and 56 bytes: one block or two) and more blocks
    **{f"random_{n}": random.Random(n).randbytes(n) for n in (1, 55, 56, 64, 119, 200)},
}


def pad(message):
    """FIPS 180-4 5.1.1, as the firmware pads: a 1 bit, zeros to 448 mod 512 bits, the bit length in 64 bits."""
    zeros = -(len(message) + 1 + 8) % 64
    return message + b"\x80" + bytes(zeros) + struct.pack(">Q", 8 * len(message))


def blocks(message):
    """The padded message as blocks of 16 big-endian words (5.2.1)."""
    padded = pad(message)
    return [struct.unpack(">16I", padded[i:i + 64]) for i in range(0, len(padded), 64)]


def digest(state):
    return struct.pack(">8I", *state)


def flag(status, name):
    return bool(status >> STATUS_BITS[name] & 1)


# ---- the contract's constants ---------------------------------------------------------------------------

def test_constants_are_fips_180_4s():
    assert first_primes(8) == [2, 3, 5, 7, 11, 13, 17, 19] and first_primes(ROUNDS)[-1] == 311
    assert len(ROUND_CONSTANTS) == ROUNDS and len(INITIAL_HASH) == STATE_WORDS
    assert ROUND_CONSTANTS[0] == 0x428a2f98 and ROUND_CONSTANTS[63] == 0xc67178f2
    assert INITIAL_HASH[0] == 0x6a09e667 and INITIAL_HASH[7] == 0x5be0cd19
    # the rest is checked by hashing: one wrong bit of any of them and the model disagrees with hashlib


def test_integer_root_is_exact():
    rng = random.Random(1)
    for k in (2, 3):
        for n in [0, 1, 7, 8, 9, 2 ** 96 - 1, 2 ** 96] + [rng.getrandbits(130) for _ in range(50)]:
            x = integer_root(n, k)
            assert x ** k <= n < (x + 1) ** k


def test_status_and_timing_contract():
    assert STATUS_BITS == {"busy": 0, "busy_refused": 1, "bad_command": 2}
    assert Status.as_shape().size == 32
    assert (INIT_CYCLES, BLOCK_CYCLES) == (0, ROUNDS + 1)
    assert cycles(Command.INIT) == INIT_CYCLES and cycles(2) == BLOCK_CYCLES


# ---- the model against hashlib --------------------------------------------------------------------------

@pytest.mark.parametrize("name", MESSAGES)
def test_compress_matches_hashlib(name):
    state = INITIAL_HASH
    for block in blocks(MESSAGES[name]):
        state = compress(state, block)
    assert digest(state) == hashlib.sha256(MESSAGES[name]).digest()


def model_hash(message):
    """The engine model driven as the firmware will: INIT, then each block's words and BLOCK, waiting out busy."""
    model = EngineModel()

    def issue(command):
        model.edge(command=command)
        waited = 0
        while model.busy:
            model.edge()
            waited += 1
        assert waited == cycles(command)

    issue(Command.INIT)
    for block in blocks(message):
        for index, word in enumerate(block):
            model.edge(message=(index, word))
        issue(Command.BLOCK)
    assert model.status == 0
    return digest(model.read(i) for i in range(STATE_WORDS))


@pytest.mark.parametrize("name", MESSAGES)
def test_engine_model_hashes(name):
    assert model_hash(MESSAGES[name]) == hashlib.sha256(MESSAGES[name]).digest()


# ---- the gateware in lock step with the model -----------------------------------------------------------

class LockStep:
    """Drives the gateware and the model with the same strobes, cycle by cycle, and checks that they show
    the same status and state word in every cycle."""

    def __init__(self, ctx, dut):
        self.ctx, self.dut, self.model = ctx, dut, EngineModel()

    async def cycle(self, command=None, message=None, state=None, read=0):
        """One cycle with these strobes (see ``EngineModel.edge``), the state word ``read`` shown (the written
        one on a state write); returns (status, state word) seen in it."""
        ctx, dut = self.ctx, self.dut
        message_index, message_word = message or (0, 0)
        state_index, state_word = state or (read, 0)
        for port, value in ((dut.command, command or 0), (dut.command_stb, command is not None),
                            (dut.message_addr, message_index), (dut.message_data, message_word),
                            (dut.message_we, message is not None), (dut.state_addr, state_index),
                            (dut.state_data, state_word), (dut.state_we, state is not None)):
            ctx.set(port, value)
        seen = (ctx.get(dut.status.as_value()), ctx.get(dut.state_rdata))
        assert seen == (self.model.status, self.model.read(state_index)), f"gateware {seen}"
        assert seen[0] >> len(STATUS_BITS) == 0           # the reserved bits read 0
        await ctx.tick()
        self.model.edge(command, message, state)
        return seen

    async def issue(self, command):
        """Strobes ``command`` and waits while busy; returns the busy cycles after the strobe."""
        await self.cycle(command=command)
        busy = 0
        while flag((await self.cycle())[0], "busy"):
            busy += 1
        return busy

    async def write_block(self, words):
        for index, word in enumerate(words):
            await self.cycle(message=(index, word))

    async def read_state(self):
        return [(await self.cycle(read=index))[1] for index in range(STATE_WORDS)]

    async def load_state(self, words):
        for index, word in enumerate(words):
            await self.cycle(state=(index, word))

    async def block(self, words):
        await self.write_block(words)
        assert await self.issue(Command.BLOCK) == BLOCK_CYCLES

    async def hash(self, message):
        assert await self.issue(Command.INIT) == INIT_CYCLES
        for words in blocks(message):
            await self.block(words)
        return digest(await self.read_state())


def run(body):
    """Simulates a fresh engine under ``body(lock_step)``, an async function."""
    dut = SHA256Engine()

    async def testbench(ctx):
        await body(LockStep(ctx, dut))

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()


@pytest.mark.parametrize("name", ["abc", "nist_448_bits"])
def test_gateware_hashes(name):
    async def body(engine):
        assert await engine.hash(MESSAGES[name]) == hashlib.sha256(MESSAGES[name]).digest()
    run(body)


def test_gateware_interleaves_two_hashes():
    """Two two-block messages, block by block in turn: each one's state saved after its block and loaded
    back before its next, through the state's reads and writes."""
    first, second = NIST_TWO_BLOCKS, random.Random(2).randbytes(100)

    async def body(engine):
        saved = {}
        for turn in range(2):
            for name, message in (("first", first), ("second", second)):
                if turn == 0:
                    await engine.issue(Command.INIT)
                else:
                    await engine.load_state(saved[name])
                await engine.block(blocks(message)[turn])
                saved[name] = await engine.read_state()
        assert digest(saved["first"]) == hashlib.sha256(first).digest()
        assert digest(saved["second"]) == hashlib.sha256(second).digest()
    run(body)


@pytest.mark.parametrize("name", ["nist_448_bits", "random_200"])
def test_next_block_written_while_a_block_runs(name):
    """As the driver streams: each block's words go into the buffer while the block before runs (the
    first word in the cycle of the BLOCK command itself, which takes the buffer as it was), then BLOCK
    as soon as busy falls; the digest is hashlib's, every block BLOCK_CYCLES cycles."""
    message = MESSAGES[name]
    words = blocks(message)

    async def body(engine):
        assert await engine.issue(Command.INIT) == INIT_CYCLES
        await engine.write_block(words[0])
        for current, following in zip(words, words[1:] + [None]):
            pending = list(enumerate(following or []))
            busy = 0
            status, _ = await engine.cycle(command=Command.BLOCK, message=pending.pop(0) if pending else None)
            while True:
                status, _ = await engine.cycle(message=pending.pop(0) if pending else None)
                if not flag(status, "busy"):
                    break
                busy += 1
            assert busy == BLOCK_CYCLES and not pending and status == 0
        assert digest(await engine.read_state()) == hashlib.sha256(message).digest()
    run(body)


def test_block_time_does_not_depend_on_the_data():
    """BLOCK over zeros, ones and random words, from states of the same kinds: busy for BLOCK_CYCLES cycles
    every time (``LockStep.block`` counts them; the lock step sees busy in every cycle)."""
    rng = random.Random(3)
    kinds = {"zeros": lambda: 0, "ones": lambda: 2 ** 32 - 1, "random": lambda: rng.getrandbits(32)}

    async def body(engine):
        for word in kinds.values():
            await engine.load_state([word() for _ in range(STATE_WORDS)])
            await engine.block([word() for _ in range(BLOCK_WORDS)])
    run(body)


# ---- refusals -------------------------------------------------------------------------------------------

async def status_after(engine, **strobes):
    """The status in the cycle after one with ``strobes``."""
    await engine.cycle(**strobes)
    return (await engine.cycle())[0]


def test_refusals_change_nothing_and_say_why():
    abc = blocks(b"abc")[0]

    async def body(engine):
        await engine.issue(Command.INIT)
        # unknown codes while idle: refused, the state as it was
        for code in (0, 3, 2 ** COMMAND_BITS - 1):
            status = await status_after(engine, command=code)
            assert flag(status, "bad_command") and not flag(status, "busy") and not flag(status, "busy_refused")
        assert await engine.read_state() == list(INITIAL_HASH)

        # an accepted command clears the refusals; while it runs, a message write is taken (the buffer's)
        # and every other strobe is refused
        await engine.write_block(abc)
        status = await status_after(engine, command=Command.BLOCK)
        assert flag(status, "busy") and not flag(status, "bad_command")
        status = await status_after(engine, message=(0, 0xdeadbeef))
        assert flag(status, "busy") and not flag(status, "busy_refused")
        strobes = [{"state": (1, 0x12345678)}, {"command": Command.INIT}, {"command": Command.BLOCK},
                   {"command": 0}]
        for strobe in strobes:
            await engine.cycle(**strobe)
        status = (await engine.cycle())[0]
        assert flag(status, "busy_refused") and not flag(status, "bad_command")
        busy = 1 + 2 + len(strobes) + 1
        while flag((await engine.cycle())[0], "busy"):
            busy += 1
        assert busy == BLOCK_CYCLES
        assert digest(await engine.read_state()) == hashlib.sha256(b"abc").digest()

        # sticky through accepted writes, until the next accepted command
        await engine.write_block(abc)
        await engine.load_state(INITIAL_HASH)
        assert flag((await engine.cycle())[0], "busy_refused")
        # a write in the cycle of an accepted command is refused: the command took the state as it was
        status = await status_after(engine, command=Command.INIT, state=(0, 0x0badf00d))
        assert flag(status, "busy_refused") and not flag(status, "busy")
        assert await engine.read_state() == list(INITIAL_HASH)
        assert await status_after(engine, command=Command.INIT) == 0
        # the buffer keeps its words: a BLOCK without writes compresses them again, as the model says
        assert await engine.issue(Command.BLOCK) == BLOCK_CYCLES
        await engine.read_state()
    run(body)


def test_random_strobes_in_lock_step():
    """Commands of any code, writes and reads at random, many of them refused: the gateware and the model
    agree in every cycle."""
    rng = random.Random(4)

    async def body(engine):
        for _ in range(700):
            command = None
            if rng.random() < 0.06:
                command = rng.choice([Command.INIT, Command.BLOCK, Command.BLOCK, rng.getrandbits(COMMAND_BITS)])
            message = (rng.randrange(BLOCK_WORDS), rng.getrandbits(32)) if rng.random() < 0.4 else None
            state = (rng.randrange(STATE_WORDS), rng.getrandbits(32)) if rng.random() < 0.2 else None
            await engine.cycle(command, message, state, read=rng.randrange(STATE_WORDS))
    run(body)
