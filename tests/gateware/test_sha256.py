"""The SHA-256 engine: its computed constants and its model against hashlib."""

import hashlib
import random
import struct

import pytest

from gateware.sha256.interface import (BLOCK_CYCLES, INIT_CYCLES, INITIAL_HASH,
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
