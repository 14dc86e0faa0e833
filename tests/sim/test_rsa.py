"""RSA in the simulated SoC: the benchmark's results, user keys and messages against Python, the
`modexp` and `vectors` commands, and every kind of bad input the RSA commands refuse."""

import random

import pytest

from sim.console import error_lines, parse_kv
from soc import keys as soc_keys


def _kv_lines(out, prefix):
    return [parse_kv(line) for line in out.splitlines() if line.startswith(prefix)]


@pytest.fixture(scope="module")
def bench_results(sim_soc):
    from sim.console import SimConsole
    con = SimConsole(sim_soc.model, sim_soc.gateware_dir, timeout=1800)
    try:
        con.wait_prompt()
        out = con.command("bench 512 1024")
    finally:
        con.close()
    return out


def test_bench_results_all_ok(bench_results):
    results = _kv_lines(bench_results, "result ")
    assert not error_lines(bench_results)
    combos = {(int(r["bits"]), r["op"], r["impl"]) for r in results}
    for bits in (512, 1024):
        for op in ("public", "private", "private_crt", "mul"):
            for impl in ("sw", "hw_cpu", "hw_seq"):
                assert (bits, op, impl) in combos
    assert all(r["ok"] == "1" for r in results), [r for r in results if r["ok"] != "1"]
    assert all(int(r["cycles"]) > 0 for r in results)
    assert "bench done" in bench_results


def test_bench_hardware_is_faster_than_software(bench_results):
    results = {(int(r["bits"]), r["op"], r["impl"]): int(r["cycles"])
               for r in _kv_lines(bench_results, "result ")}
    for bits in (512, 1024):
        for op in ("private", "private_crt"):
            assert results[(bits, op, "hw_seq")] < results[(bits, op, "sw")]


def test_user_key_encrypt_decrypt_agree_with_python(console):
    key = soc_keys.generate_key(768, seed="test-user-key")
    n, e, d, p, q = (key[k] for k in ("n", "e", "d", "p", "q"))
    out = console.command(f"key {n:x} {e:x} {d:x} {p:x} {q:x}")
    assert "key bits=768 private=yes" in out
    rng = random.Random(1)
    for _ in range(3):
        m = rng.randrange(n)
        enc = parse_kv(console.command(f"encrypt {m:x}"))
        assert int(enc["sw"], 16) == int(enc["hw"], 16) == pow(m, e, n)
        assert enc["match"] == "yes"
        dec = parse_kv(console.command(f"decrypt {int(enc['sw'], 16):x}"))
        assert int(dec["sw"], 16) == int(dec["hw"], 16) == m


def test_public_only_key_refuses_decrypt(console):
    key = soc_keys.generate_key(512, seed="test-public-key")
    assert "private=no" in console.command(f"key {key['n']:x} {key['e']:x}")
    assert error_lines(console.command("decrypt 1234"))[0].startswith("error=no_key")
    enc = parse_kv(console.command("encrypt 1234"))
    assert int(enc["hw"], 16) == pow(0x1234, key["e"], key["n"])


@pytest.mark.parametrize("mod_bits", [33, 100, 512, 1025, 1030])
def test_modexp_random_operands(console, mod_bits):
    rng = random.Random(mod_bits)
    mod = rng.getrandbits(mod_bits) | (1 << (mod_bits - 1)) | 1
    base, exp = rng.randrange(mod), rng.getrandbits(mod_bits)
    r = parse_kv(console.command(f"modexp {base:x} {exp:x} {mod:x}"))
    assert int(r["sw"], 16) == int(r["hw"], 16) == pow(base, exp, mod)
    assert r["match"] == "yes" and int(r["hw_cycles"]) > 0 and int(r["sw_cycles"]) > 0


def test_modexp_edge_exponents(console):
    mod = (1 << 127) - 1
    for base, exp in ((5, 0), (5, 1), (0, 7), (mod - 1, 2), (3, (1 << 127) - 1)):
        r = parse_kv(console.command(f"modexp {base:x} {exp:x} {mod:x}"))
        assert int(r["hw"], 16) == int(r["sw"], 16) == pow(base, exp, mod), (base, exp)


def test_modexp_on_pkcs1_vectors(console):
    key, cases = soc_keys.oaep_vectors()[1]          # the 1025-bit key
    c, em = cases[0]
    r = parse_kv(console.command(f"modexp {c:x} {key['d']:x} {key['n']:x}"))
    assert int(r["hw"], 16) == int(r["sw"], 16) == em


def test_vectors_command_passes(console):
    # Two of the ten keys (1024 and 1025 bits) keep the test short; `vectors` alone runs them all.
    out = console.command("vectors 0 1")
    lines = _kv_lines(out, "vector=")
    assert [(int(v["vector"]), int(v["bits"])) for v in lines] == [(0, 1024), (1, 1025)]
    assert all(v["ok"] == "1" for v in lines)
    assert parse_kv(out.splitlines()[-1]) == {"vectors": "2", "passed": "2"}


BAD_INPUTS = [
    ("modexp 12 34", "error=usage"),
    ("modexp 1g 3 7", "error=bad_hex"),
    ("modexp 0x12 3 7", "error=bad_hex"),
    ("modexp 9 3 7", "error=base_not_below_modulus"),
    ("modexp 3 3 8", "error=even_modulus"),
    ("modexp 0 3 0", "error=zero_modulus"),
    ("modexp 3 3 " + "f" * 1025, "error=too_large"),
    ("modexp 3 " + "f" * 40 + " 7", "error=exponent_too_long"),
    ("bench 1000", "error=unknown_size"),
    ("bench abc", "error=unknown_size"),
    ("key 10", "error=usage"),
    ("key 10 3", "error=bad_key"),
    ("key 21 3 7 3 9", "error=bad_key"),
    ("encrypt", "error=usage"),
    ("vectors extra", "error=usage"),
    ("vectors 99", "error=usage"),
]


@pytest.mark.parametrize("line,error", BAD_INPUTS, ids=[b[1] + ":" + b[0][:20] for b in BAD_INPUTS])
def test_bad_input_is_refused_and_console_stays_usable(console, line, error):
    out = console.command(line)
    errors = error_lines(out)
    assert len(errors) == 1 and errors[0].startswith(error), out
    r = parse_kv(console.command("modexp 3 5 7"))
    assert r["hw"] == r["sw"] == f"{pow(3, 5, 7):x}"


def test_encrypt_without_key_is_refused(console):
    assert error_lines(console.command("encrypt 12"))[0].startswith("error=no_key")


def test_message_not_below_modulus_is_refused(console):
    key = soc_keys.generate_key(512, seed="test-range")
    assert "private=no" in console.command(f"key {key['n']:x} {key['e']:x}")
    for m in (key["n"], key["n"] + 1, 1 << 512):
        assert error_lines(console.command(f"encrypt {m:x}"))[0].startswith("error=message_not_below_modulus")


def test_too_small_modulus_is_refused(console):
    assert error_lines(console.command("key 8f 3"))[0].startswith("error=bad_key")   # 143 = 11 * 13
