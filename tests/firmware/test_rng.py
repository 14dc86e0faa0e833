"""firmware/rand/rng.c and entropy.c on the host, over a model of the entropy source's CSRs (entropy_model.c):
the raw words each seed takes (the contract's SEED_RAW_WORDS), the reseed policy, additional input, and a
health-test failure that stops the generator until a restart."""
import ctypes

import pytest

from bnlib import FIRMWARE, RNG_SOURCES, SHA256_HW_SOURCES, compile_with_bearssl
from gateware.entropy.interface import SEED_RAW_WORDS

RNG_OK, RNG_ERR_HEALTH = 0, -1
RESEED_INTERVAL = 1024          # firmware/rand/rng.h
BEARSSL_SOURCES = ["hash/sha2small.c", "mac/hmac.c", "rand/hmac_drbg.c", "codec/dec32be.c", "codec/enc32be.c"]


@pytest.fixture(scope="module")
def built():
    path = compile_with_bearssl("rng", BEARSSL_SOURCES, [*RNG_SOURCES, FIRMWARE / "hash" / "sha256_select.c",
                                                         *SHA256_HW_SOURCES])
    yield path
    path.unlink(missing_ok=True)


@pytest.fixture
def rng(built):
    """A fresh copy of the library (the generator's state is static)."""
    import shutil
    copy = built.with_name(f"rng-{id(object())}.so")
    shutil.copyfile(built, copy)
    lib = ctypes.CDLL(str(copy))
    lib.entropy_model_set.argtypes = [ctypes.c_uint64, ctypes.c_int]
    lib.entropy_model_set(7, 0)
    yield lib
    copy.unlink()


def generate(lib, n=32):
    out = ctypes.create_string_buffer(n)
    return lib.rng_generate(out, ctypes.c_size_t(n)), out.raw


def test_instantiate_takes_two_seeds_and_reseed_one(rng):
    assert generate(rng)[0] == RNG_OK
    assert rng.entropy_model_words() == 2 * SEED_RAW_WORDS          # entropy input and nonce
    assert rng.rng_reseed() == RNG_OK
    assert rng.entropy_model_words() == 3 * SEED_RAW_WORDS


def test_reseeds_after_the_interval(rng):
    for _ in range(RESEED_INTERVAL):
        assert generate(rng, 4)[0] == RNG_OK
    assert rng.entropy_model_words() == 2 * SEED_RAW_WORDS
    assert generate(rng, 4)[0] == RNG_OK
    assert rng.entropy_model_words() == 3 * SEED_RAW_WORDS


def test_output_follows_the_source_and_additional_input(built, rng):
    first = generate(rng)[1]
    assert first != generate(rng)[1] and first != bytes(32)
    other = ctypes.CDLL(str(built))         # the shared one: its own state
    other.entropy_model_set.argtypes = [ctypes.c_uint64, ctypes.c_int]
    other.entropy_model_set(7, 0)
    assert generate(other)[1] == first       # the same raw words, the same output
    other.entropy_model_set(7, 0)
    assert other.rng_add_input(b"host bytes", ctypes.c_size_t(10)) == RNG_OK
    assert generate(other)[1] != generate(rng)[1]


def test_a_health_failure_stops_the_generator_until_restart(rng):
    assert generate(rng)[0] == RNG_OK
    rng.entropy_model_set(7, 1)
    rc, out = generate(rng)
    assert (rc, out) == (RNG_ERR_HEALTH, bytes(32)) and rng.rng_stopped() == 1
    rng.entropy_model_set(7, 0)             # the source healthy again: the generator stays stopped
    assert generate(rng)[0] == RNG_ERR_HEALTH
    assert rng.rng_add_input(b"x", ctypes.c_size_t(1)) == RNG_ERR_HEALTH
    assert rng.entropy_model_words() == 0
    rng.rng_restart()
    assert rng.entropy_model_restarts() == 1 and rng.rng_stopped() == 0
    assert generate(rng)[0] == RNG_OK and rng.entropy_model_words() == 2 * SEED_RAW_WORDS
