"""The peer libraries (mbedTLS, BearSSL) on the softcore: each built into the firmware from its own
sources and run through its own RSA API in the simulated SoC, one RSA-512 private operation each,
checked against Python, and each library's key generation at 512 bits (`keygen 512 <seed> <impl>`),
its key checked by `cryptography`. (Their full benchmark rows are `make bench`'s: minutes of
simulation.)

The libraries run on the CPU alone, so all of this runs on the SoC without the peripheral
(sim.build.build_bare: the same firmware image and the same cycle counts, which
tests/jobs/test_bench_split.py checks; its simulation takes less CPU time: for mbedTLS's key generation
17.9 s against 28.3 s)."""

import contextlib
import math
import random

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from soc import console_protocol as protocol
from soc import keys as soc_keys
from soc import peer_libs


#: A console's time limit is for its whole session (wall clock): a key generation takes minutes of it when
#: the machine is busy.
SESSION_SECONDS = 1800


@contextlib.contextmanager
def _booted(build):
    """A console on `build` (a SimBuild), freshly booted, closed on leaving."""
    from link.console import booted
    with booted(build, timeout=SESSION_SECONDS) as con:
        yield con


@pytest.fixture(scope="module")
def bare_soc(sim_soc):
    from sim import build as sim_build
    return sim_build.build_bare(sim_soc, log=lambda msg: None)


@pytest.fixture
def bare_console(bare_soc):
    """The SoC without the peripheral, freshly booted."""
    with _booted(bare_soc) as con:
        yield con


def _require(impl):
    if peer_libs.cached(peer_libs.PEERS[impl]) is None:    # a missing library is a failure, not a skip
        pytest.fail(f"{impl} was not fetched into build/peers/ (run `make test`, which fetches it)")


@pytest.mark.parametrize("impl", protocol.PEER_IMPLS)
def test_peer_private_crt_512(bare_console, impl):
    _require(impl)
    key = soc_keys.generate_key(512, seed="test-peers")
    n, e, d, p, q = (key[k] for k in ("n", "e", "d", "p", "q"))
    assert protocol.KEY_SET.parse_all(bare_console.command(f"key {n:x} {e:x} {d:x} {p:x} {q:x}")) == \
        [{"bits": 512, "private": "yes"}]
    c = pow(random.Random(impl).randrange(n), e, n)
    [r] = protocol.TIMED.parse_all(bare_console.command(f"time private_crt {impl} {c:x}"))
    assert (r["op"], r["impl"], r["ok"], r["result"]) == ("private_crt", impl, 1, pow(c, d, n))
    assert r["cycles"] > 0


def test_bench_rows_name_every_peer():
    rows = protocol.bench_rows()
    for impl in protocol.PEER_IMPLS:
        ops = [op for op, i in rows if i == impl]
        assert ops == ["public", "private", "private_crt"] + (["mul"] if impl in protocol.PEER_MUL_IMPLS else [])
    assert [r for r in rows if r[1] in protocol.IMPLS] == protocol.bench_rows(peers=False)


def _peer_keygen(console, impl, seed):
    """The KEYGEN line of `keygen 512 <seed> <impl>`, and the key it made as `key export` gives it after."""
    out = console.command(f"keygen 512 {seed} {impl}")
    [line] = protocol.KEYGEN.parse_all(out)
    [public] = protocol.KEY_PUBLIC.parse_all(out)
    [key] = protocol.KEY_EXPORT.parse_all(console.command(f"key {protocol.KEY_EXPORT_WORD}"))
    assert (key["n"], key["e"]) == (public["n"], public["e"])
    return line, key


#: A seed per library whose search is short (keygen takes seeds of protocol.KEYGEN_MIN_SEED = 32 bytes: a
#: 4-byte pattern eight times). The cost of a key generation depends on how many candidates the seed's
#: draws take before two primes come (with 8-byte seed 0123456789abcdef, 197 M cycles for mbedTLS and 96 M
#: for BearSSL at 512 bits: minutes of simulation). Each was picked among the 4096 seeds (5eedXXXX)x8, XXXX
#: from 0000 to 0fff, with a host build of the same library code and generator (the draws do not depend on
#: the CPU; the host gives the same moduli as the firmware). BearSSL's is the cheapest by host CPU time, a
#: quarter of the mean. mbedTLS's (built with 32-bit limbs, as on the softcore) is the cheapest by the
#: firmware's own code run in an rv32im instruction counter: 35 M instructions, against a mean of 109 M,
#: 24 exponentiations (12 Miller-Rabin rounds per prime, the least there can be) and 18 prime candidates.
#: What the test checks does not depend on the seed.
KEYGEN_SEEDS = {"mbedtls": "5eed0abc" * 8, "bearssl": "5eed01f4" * 8}


@pytest.mark.parametrize("impl", protocol.PEER_IMPLS)
def test_peer_keygen_512_is_deterministic_loads_in_cryptography_and_becomes_the_users_key(bare_soc, impl):
    """The key made on one boot of the SoC without the peripheral (the library runs on the CPU alone),
    which then runs our CRT operation with it; the same seed again on a second boot: the same key in
    the same cycles."""
    _require(impl)
    with _booted(bare_soc) as console:
        line, key = _peer_keygen(console, impl, KEYGEN_SEEDS[impl])
        # The libraries do not tell how many candidates or rounds they spent: 0 for both.
        assert {k: line[k] for k in ("bits", "impl", "candidates", "mr_rounds", "ok")} == \
            {"bits": 512, "impl": impl, "candidates": 0, "mr_rounds": 0, "ok": 1}
        assert line["cycles"] > 0
        n, e, d, p, q = (key[k] for k in ("n", "e", "d", "p", "q"))
        assert e == 65537 and p * q == n and n.bit_length() == 512
        assert d * e % math.lcm(p - 1, q - 1) == 1
        numbers = rsa.RSAPrivateNumbers(p, q, d, rsa.rsa_crt_dmp1(d, p), rsa.rsa_crt_dmq1(d, q), rsa.rsa_crt_iqmp(p, q),
                                        rsa.RSAPublicNumbers(e, n))
        assert numbers.private_key().key_size == 512     # cryptography (OpenSSL) checks the key as it loads it
        # The key is the console's now: our CRT private operation runs on it (in software here: what the
        # peripheral's implementations do with a key is tests/sim/test_rsa.py's).
        c = pow(random.Random(impl).randrange(n), e, n)
        [r] = protocol.TIMED.parse_all(console.command(f"time private_crt sw {c:x}"))
        assert (r["op"], r["impl"], r["ok"], r["result"]) == ("private_crt", "sw", 1, pow(c, d, n))
    with _booted(bare_soc) as again_console:
        # The same seed: the same key, in the same cycles (the generator is the only source of randomness).
        again, again_key = _peer_keygen(again_console, impl, KEYGEN_SEEDS[impl])
        assert again_key == key and again["cycles"] == line["cycles"]


def test_peer_keygen_refuses_input_as_ours(bare_console):
    """Refused input, before any generation: one error line each, as for our implementations, and the
    console carries on."""
    err = protocol.Error
    cases = [("keygen 500 ab {}", err.UNKNOWN_SIZE), ("keygen 512 xyz {}", err.BAD_HEX),
             ("keygen 512 " + "ab" * 65 + " {}", err.TOO_LARGE),
             ("keygen 512 " + "ab" * (protocol.KEYGEN_MIN_SEED - 1) + " {}", err.SHORT_SEED)]
    for impl in protocol.PEER_IMPLS:
        _require(impl)
        for command, code in cases:
            out = bare_console.command(command.format(impl))
            assert [protocol.error_code(line) for line in out.splitlines()] == [code]
    assert [protocol.error_code(line) for line in bare_console.command("keygen 512 ab nope").splitlines()] == \
        [err.UNKNOWN_IMPL]
