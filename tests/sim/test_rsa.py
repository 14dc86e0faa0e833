"""RSA in the simulated SoC: the benchmark's results, user keys and messages against Python, the
`modexp` and `vectors` commands, and every kind of bad input the RSA commands refuse. The tests that
set no key share one booted SoC (shared_console); those that set one boot their own, but for the two
that share one run of `vectors` (vectors_under_a_user_key)."""

import random

import pytest

from soc import console_protocol as protocol
from soc import keys as soc_keys
from soc.console_protocol import COMPARISON, RESULT, Error, error_code, error_lines


def _error(out):
    """The Error of the one error line in `out`."""
    errors = error_lines(out)
    assert len(errors) == 1, out
    return error_code(errors[0])


def _comparison(out):
    [r] = COMPARISON.parse_all(out)
    return r


@pytest.fixture(scope="module")
def bench_results(bench_ours_512_1024):
    return bench_ours_512_1024      # the peer libraries: tests/sim/test_peers.py


@pytest.mark.xdist_group("bench_ours")      # the worker with the run of bench_ours_512_1024 (conftest.py)
def test_bench_results_all_ok(bench_results):
    results = RESULT.parse_all(bench_results)
    assert not error_lines(bench_results)
    combos = [(r["bits"], r["op"], r["impl"]) for r in results]
    assert combos == [(bits, op, impl) for bits in (512, 1024) for op, impl in protocol.bench_rows(peers=False)]
    assert {impl for _, op, impl in combos if op in protocol.PRIVATE_OPS} == set(protocol.IMPLS)
    assert all(r["ok"] == 1 for r in results), [r for r in results if r["ok"] != 1]
    assert all(r["cycles"] > 0 for r in results)
    assert protocol.BENCH_START.parse_all(bench_results) == [{"bits": 512}, {"bits": 1024}]
    assert protocol.BENCH_DONE.parse_all(bench_results) == [{}]


@pytest.mark.xdist_group("bench_ours")
def test_bench_hardware_is_faster_than_software(bench_results):
    results = {(r["bits"], r["op"], r["impl"]): r["cycles"] for r in RESULT.parse_all(bench_results)}
    for bits in (512, 1024):
        for op in ("private", "private_crt"):
            assert results[(bits, op, "hw_seq")] < results[(bits, op, "sw")]


def test_user_key_encrypt_decrypt_agree_with_python(console):
    key = soc_keys.generate_key(768, seed="test-user-key")
    n, e, d, p, q = (key[k] for k in ("n", "e", "d", "p", "q"))
    out = console.command(f"key {n:x} {e:x} {d:x} {p:x} {q:x}")
    assert protocol.KEY_SET.parse_all(out) == [{"bits": 768, "private": "yes"}]
    rng = random.Random(1)
    for _ in range(3):
        m = rng.randrange(n)
        enc = _comparison(console.command(f"encrypt {m:x}"))
        assert enc["sw"] == enc["hw"] == pow(m, e, n)
        assert enc["match"] == "yes"
        dec = _comparison(console.command(f"decrypt {enc['sw']:x}"))
        assert dec["sw"] == dec["hw"] == m


def test_time_every_operation_on_every_implementation(console):
    """`time <op> <impl> <hex>`: each result against Python, ok=1, a cycle count; the constant-time
    private paths give the same count twice for different messages."""
    key = soc_keys.generate_key(512, seed="test-time")
    n, e, d, p, q = (key[k] for k in ("n", "e", "d", "p", "q"))
    console.command(f"key {n:x} {e:x} {d:x} {p:x} {q:x}")
    rng = random.Random(5)
    messages = [rng.randrange(n), 1]
    for op in protocol.OPS:
        if op == "mul":
            continue
        for impl in protocol.IMPLS:
            cycles = []
            for m in messages:
                [r] = protocol.TIMED.parse_all(console.command(f"time {op} {impl} {m:x}"))
                expected = pow(m, e, n) if op == "public" else pow(m, d, n)
                assert (r["op"], r["impl"], r["ok"], r["result"]) == (op, impl, 1, expected)
                assert r["cycles"] > 0
                cycles.append(r["cycles"])
            if op in protocol.PRIVATE_OPS and impl in protocol.CONSTANT_TIME_IMPLS:
                assert cycles[0] == cycles[1], (op, impl, cycles)


def test_time_refuses_bad_input(console):
    key = soc_keys.generate_key(512, seed="test-time-bad")
    console.command(f"key {key['n']:x} {key['e']:x}")
    assert _error(console.command("time private_crt sw 12")) is Error.NO_KEY
    for line, error in (("time public sw", Error.USAGE), ("time decrypt sw 12", Error.UNKNOWN_OP),
                        ("time public fpga 12", Error.UNKNOWN_IMPL), ("time public sw 1x", Error.BAD_HEX),
                        (f"time public sw {key['n']:x}", Error.MESSAGE_NOT_BELOW_MODULUS)):
        out = console.command(line)
        assert _error(out) is error, line
    assert "choices=public,private,private_crt" in console.command("time decrypt sw 12")
    [r] = protocol.TIMED.parse_all(console.command("time public hw_seq 12"))
    assert r["result"] == pow(0x12, key["e"], key["n"])
    # A private key whose d is off by two: every private result fails its check with e (ok=0), and
    # none is printed, wrong or left from the command before (result=0).
    console.command(f"key {key['n']:x} {key['e']:x} {key['d'] + 2:x} {key['p']:x} {key['q']:x}")
    for op in protocol.PRIVATE_OPS:
        [r] = protocol.TIMED.parse_all(console.command(f"time {op} hw_seq 12"))
        assert (r["op"], r["ok"], r["result"]) == (op, 0, 0)


@pytest.fixture(scope="module")
def vectors_under_a_user_key(sim_soc):
    """`vectors 0 1` on a console where the user has set a key of their own, then that key used:
    (the user's key, the vectors' output, encrypt 1234's and decrypt's output), for the two tests
    below (one worker runs them: xdist_group), one run of the vectors (20 s of simulation) instead
    of one each."""
    from link.console import SimConsole
    key = soc_keys.generate_key(512, seed="test-user-key-kept")
    n, e, d, p, q = (key[k] for k in ("n", "e", "d", "p", "q"))
    con = SimConsole(sim_soc.model, sim_soc.gateware_dir, timeout=1800)
    try:
        con.wait_prompt()
        con.command(f"key {n:x} {e:x} {d:x} {p:x} {q:x}")
        vectors = con.command("vectors 0 1")
        encrypted = con.command("encrypt 1234")
        decrypted = con.command(f"decrypt {_comparison(encrypted)['sw']:x}")
    finally:
        con.close()
    return key, vectors, encrypted, decrypted


@pytest.mark.xdist_group("rsa_vectors")
def test_user_key_outlives_the_built_in_commands(vectors_under_a_user_key):
    """`vectors` and `bench` set up keys of their own; the user's key stays usable."""
    key, vectors, encrypted, decrypted = vectors_under_a_user_key
    assert protocol.VECTORS_DONE.parse_all(vectors) == [{"vectors": 2, "passed": 2}]
    enc = _comparison(encrypted)
    assert enc["sw"] == enc["hw"] == pow(0x1234, key["e"], key["n"])
    assert _comparison(decrypted)["hw"] == 0x1234


def test_public_only_key_refuses_decrypt(console):
    key = soc_keys.generate_key(512, seed="test-public-key")
    assert protocol.KEY_SET.parse_all(console.command(f"key {key['n']:x} {key['e']:x}"))[0]["private"] == "no"
    assert _error(console.command("decrypt 1234")) is Error.NO_KEY
    enc = _comparison(console.command("encrypt 1234"))
    assert enc["hw"] == pow(0x1234, key["e"], key["n"])


#: The random exponents' length at most: three 32-bit limbs (six of the peripheral's 16-bit words), so
#: the exponent's scan crosses limb and word boundaries. A full-length exponent only repeats the same
#: products (at 1025 and 1030 bits, 35 M cycles of software each); `vectors 1` (test_vectors_command_passes)
#: runs the 1025-bit PKCS#1 key's d on the peripheral's CPU loop against the vector's answer.
RANDOM_EXPONENT_BITS = 96


@pytest.mark.parametrize("mod_bits", [33, 100, 512, 1025, 1030])
def test_modexp_random_operands(shared_console, mod_bits):
    rng = random.Random(mod_bits)
    mod = rng.getrandbits(mod_bits) | (1 << (mod_bits - 1)) | 1
    base, exp = rng.randrange(mod), rng.getrandbits(min(mod_bits, RANDOM_EXPONENT_BITS))
    r = _comparison(shared_console.command(f"modexp {base:x} {exp:x} {mod:x}"))
    assert r["sw"] == r["hw"] == pow(base, exp, mod)
    assert r["match"] == "yes" and r["hw_cycles"] > 0 and r["sw_cycles"] > 0


def test_modexp_edge_exponents(shared_console):
    mod = (1 << 127) - 1
    for base, exp in ((5, 0), (5, 1), (0, 7), (mod - 1, 2), (3, (1 << 127) - 1)):
        r = _comparison(shared_console.command(f"modexp {base:x} {exp:x} {mod:x}"))
        assert r["hw"] == r["sw"] == pow(base, exp, mod), (base, exp)


@pytest.mark.xdist_group("rsa_vectors")
def test_vectors_command_passes(vectors_under_a_user_key):
    # Two of the ten keys (1024 and 1025 bits) keep the test short; `vectors` alone runs them all. The
    # user's key set before them changes nothing of theirs (they set up their own).
    out = vectors_under_a_user_key[1]
    lines = protocol.VECTOR.parse_all(out)
    assert [(v["vector"], v["bits"]) for v in lines] == [(0, 1024), (1, 1025)]
    assert all(v["ok"] == 1 for v in lines)
    assert protocol.VECTORS_DONE.parse_all(out) == [{"vectors": 2, "passed": 2}]


BAD_INPUTS = [
    ("modexp 12 34", Error.USAGE),
    ("modexp 1g 3 7", Error.BAD_HEX),
    ("modexp 0x12 3 7", Error.BAD_HEX),
    ("modexp 9 3 7", Error.BASE_NOT_BELOW_MODULUS),
    ("modexp 3 3 8", Error.EVEN_MODULUS),
    ("modexp 0 3 0", Error.ZERO_MODULUS),
    ("modexp 3 3 " + "f" * 1025, Error.TOO_LARGE),
    ("modexp 3 " + "f" * 40 + " 7", Error.EXPONENT_TOO_LONG),
    ("bench 1000", Error.UNKNOWN_SIZE),
    ("bench abc", Error.UNKNOWN_SIZE),
    ("key 10", Error.USAGE),
    ("key 10 3", Error.BAD_KEY),
    ("key 21 3 7 3 9", Error.BAD_KEY),
    ("encrypt", Error.USAGE),
    ("vectors extra", Error.USAGE),
    ("vectors 99", Error.USAGE),
]


@pytest.mark.parametrize("line,error", BAD_INPUTS, ids=[b[1].value + ":" + b[0][:20] for b in BAD_INPUTS])
def test_bad_input_is_refused_and_console_stays_usable(shared_console, line, error):
    out = shared_console.command(line)
    assert _error(out) is error
    if error is Error.USAGE:        # the usage shown is the one `help` lists
        command = line.split()[0]
        assert f'usage="{command} {protocol.COMMANDS[command][0]}"' in out
    r = _comparison(shared_console.command("modexp 3 5 7"))
    assert r["hw"] == r["sw"] == pow(3, 5, 7)


def test_encrypt_without_key_is_refused(shared_console):
    assert _error(shared_console.command("encrypt 12")) is Error.NO_KEY


def test_message_not_below_modulus_is_refused(console):
    key = soc_keys.generate_key(512, seed="test-range")
    assert protocol.KEY_SET.parse_all(console.command(f"key {key['n']:x} {key['e']:x}"))[0]["private"] == "no"
    for m in (key["n"], key["n"] + 1, 1 << 512):
        assert _error(console.command(f"encrypt {m:x}")) is Error.MESSAGE_NOT_BELOW_MODULUS


def test_too_small_modulus_is_refused(shared_console):
    assert _error(shared_console.command("key 8f 3")) is Error.BAD_KEY     # 143 = 11 * 13
