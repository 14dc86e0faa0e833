"""soc/sha256.py's bus window against the engine's Python model (gateware/sha256/model.py), in Migen's
simulator: a bus master as fast as Wishbone allows stores a block's words as a little-endian CPU loads them
from the message's bytes, and the engine's buffer gets them in FIPS order (the digest is hashlib's);
message words go in while the engine is busy; state words are written and read back as they are; a store
is acknowledged in its own cycle, a load in the next; nothing but a state word reads other than 0."""

import hashlib
import struct

from migen import Array, Module, Signal
from migen.sim import run_simulation

from gateware.sha256.interface import BLOCK_WORDS, INITIAL_HASH, STATE_WORDS, Command
from gateware.sha256.model import EngineModel
from soc.sha256 import WINDOW_BYTES, WINDOW_MESSAGE, WINDOW_STATE, MessageStateWindow

#: The window's base as a word address (the bus decodes the region; the window sees the low bits).
BASE = 0x20004000


class Engine:
    """The engine's ports as the window drives them, with ``EngineModel`` behind them: each cycle's
    strobes go to the model's edge, and ``state_rdata`` shows the model's state word at ``state_addr``.
    ``commands`` {cycle: code} strobes commands, as the command CSR would."""

    def __init__(self, window, commands=None):
        self.window, self.commands, self.model = window, dict(commands or {}), EngineModel()
        self.state = [Signal(32) for _ in range(STATE_WORDS)]
        self.module = Module()
        self.module.submodules.window = window
        self.module.comb += window.state_rdata.eq(Array(self.state)[window.state_addr])

    def run(self, cycles):
        w, model = self.window, self.model
        for cycle in range(cycles):
            message = state = None
            if (yield w.message_we):
                message = ((yield w.message_addr), (yield w.message_data))
            if (yield w.state_we):
                state = ((yield w.state_addr), (yield w.state_data))
            model.edge(self.commands.get(cycle), message, state)
            for signal, word in zip(self.state, model.state):
                yield signal.eq(word)
            yield


def master(window, accesses, log, start):
    """From cycle ``start`` on, makes ``accesses`` [(word offset, word to store or None to load)] one after
    another, each as soon as the last is acknowledged (cyc and stb held); appends (first cycle, cycles to
    its ack, word loaded) to ``log``."""
    bus, cycle = window.bus, start
    for _ in range(start):
        yield
    for offset, word in accesses:
        yield bus.cyc.eq(1)
        yield bus.stb.eq(1)
        yield bus.we.eq(word is not None)
        yield bus.adr.eq(BASE + offset)
        yield bus.sel.eq(0xf)
        yield bus.dat_w.eq(word or 0)
        yield
        first = cycle
        while True:
            cycle += 1
            if (yield bus.ack):
                log.append((first, cycle - first, None if word is not None else (yield bus.dat_r)))
                break
            yield
        yield bus.cyc.eq(0)
        yield bus.stb.eq(0)
        yield
        cycle += 1


def simulate(accesses, cycles, commands=None, start=2):
    window = MessageStateWindow()
    engine = Engine(window, commands)
    log = []
    run_simulation(engine.module, [master(window, accesses, log, start), engine.run(cycles)])
    return log, engine.model


def padded_block(message):
    """``message`` (at most 55 bytes) padded into one block (FIPS 180-4 5.1.1)."""
    return message + b"\x80" + bytes(55 - len(message)) + struct.pack(">Q", 8 * len(message))


def test_layout_fits_its_region():
    assert WINDOW_MESSAGE + BLOCK_WORDS <= WINDOW_STATE
    assert 4 * (WINDOW_STATE + STATE_WORDS) <= WINDOW_BYTES and WINDOW_BYTES & (WINDOW_BYTES - 1) == 0


def test_block_in_memory_order_hashes_as_hashlib():
    """The block's words as a little-endian CPU loads them, the state INIT's: BLOCK gives hashlib's digest."""
    block = padded_block(b"abc")
    stores = [(WINDOW_MESSAGE + i, word) for i, word in enumerate(struct.unpack("<16I", block))]
    log, model = simulate(stores, 60, commands={0: Command.INIT, 55: Command.BLOCK})
    assert [cycles for _, cycles, _ in log] == [1] * BLOCK_WORDS         # each store acknowledged at once
    assert model.message == list(struct.unpack(">16I", block))
    model.edge()
    while model.busy:
        model.edge()
    assert struct.pack(">8I", *model.state) == hashlib.sha256(b"abc").digest()


def test_message_words_go_in_while_busy():
    words = [0x01020304 * (i + 1) & 0xffffffff for i in range(BLOCK_WORDS)]
    stores = [(WINDOW_MESSAGE + i, word) for i, word in enumerate(words)]
    log, model = simulate(stores, 60, commands={0: Command.INIT, 1: Command.BLOCK})
    assert model.busy_refused is False
    assert model.message == [int.from_bytes(word.to_bytes(4, "little"), "big") for word in words]


def test_state_words_written_and_read_back_as_they_are():
    words = [0x11111111 * (i + 1) for i in range(STATE_WORDS)]
    accesses = [*((WINDOW_STATE + i, word) for i, word in enumerate(words)),
                *((WINDOW_STATE + i, None) for i in range(STATE_WORDS))]
    log, model = simulate(accesses, 60)
    assert model.state == words
    loads = log[STATE_WORDS:]
    assert [word for _, _, word in loads] == words
    assert {cycles for _, cycles, _ in loads} == {2}                   # a load answered in the next cycle


def test_a_load_while_busy_gives_the_state_before_the_command():
    log, model = simulate([(WINDOW_STATE + i, None) for i in range(STATE_WORDS)], 40,
                          commands={0: Command.INIT, 1: Command.BLOCK}, start=4)
    assert model.busy and [word for _, _, word in log] == list(INITIAL_HASH)


def test_message_words_and_the_rest_of_the_region_read_0():
    offsets = [WINDOW_MESSAGE, WINDOW_MESSAGE + BLOCK_WORDS - 1, *range(WINDOW_STATE + STATE_WORDS,
                                                                      WINDOW_BYTES // 4)]
    accesses = [(WINDOW_MESSAGE, 0xffffffff), (WINDOW_MESSAGE + BLOCK_WORDS - 1, 0xffffffff),
                *((offset, 0xffffffff) for offset in offsets[2:]), *((offset, None) for offset in offsets)]
    log, model = simulate(accesses, 80, commands={0: Command.INIT})
    assert [word for _, _, word in log[len(offsets):]] == [0] * len(offsets)
    assert model.state == list(INITIAL_HASH) and model.status == 0    # the stores past the state: no effect
