"""Key generation on the softcore (`keygen`): keys made in the simulated SoC are checked by
`cryptography` and Debian's openssl, signatures made with them on the device verify there, one seed
gives one key on every implementation, refused input gives one error line; and the host side of
`python -m sim keygen` (jobs/keygen.py) against a stand-in console (tests/link/fake_console.py)."""

import json
import math
import random
import stat
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

from common.errors import ProjectError
from jobs import keygen
from link.console import CommandRefused
from soc import config
from soc.console_protocol import KEY_EXPORT, KEY_EXPORT_WORD, KEY_PUBLIC, Error, error_code, error_lines
from soc.keys import is_probable_prime

#: One worker, one boot of the SoC for the tests that run it.
pytestmark = pytest.mark.xdist_group("keygen")

#: Seeds chosen for a short search. A key generation's cost is its Miller-Rabin rounds (one exponentiation
#: each), which vary several times between seeds; what these tests check (the key is right, it loads and
#: passes the checks, one seed gives one key on every implementation, two seeds two keys) holds for any
#: seed, so they take seeds near the fewest rounds, and still with a composite or two thrown out by the
#: pre-test on the device. keygen takes seeds of 32 bytes (protocol.KEYGEN_MIN_SEED): these are two bytes
#: sixteen times. Counted with the host build of keygen.c (tests/firmware/test_rsa_keygen.py's harness, the
#: sw backend) over the seeds (0000)x16 to (03ff)x16 at 512 bits: the least is 34 rounds (two pre-tests and
#: 2 x 16 rounds), the median 55; over (0000)x16 to (00ff)x16 at 1024 bits: the least 17, the median 56.
#: Long searches are the host tests' (many seeds) and `make bench`'s (16 seeds).
SEED = bytes.fromhex("0222" * 16)           # 512 bits: 35 rounds, 6 candidates
SEED_1024 = bytes.fromhex("00f1" * 16)      # 1024 bits: 17 rounds on sw, 29 candidates
OTHER_SEED = bytes.fromhex("002b" * 16)     # 512 bits: 35 rounds
SIGNING_SEED = bytes.fromhex("01ad" * 16)   # 512 bits: 34 rounds
MESSAGE = bytes(range(64))


@pytest.fixture(scope="module")
def console(sim_soc):
    from link.console import booted
    with booted(sim_soc, timeout=900) as con:
        yield con


@pytest.fixture(scope="module")
def generated(console):
    """keygen of (bits, seed, impl), each run once for the module."""
    made = {}

    def generate(bits, seed=SEED, impl="hw_seq"):
        if (bits, seed, impl) not in made:
            made[bits, seed, impl] = console.keygen(bits, seed, impl)
        return made[bits, seed, impl]
    return generate


def _openssl_check(pem):
    result = subprocess.run(["openssl", "pkey", "-check", "-noout", "-in", str(pem)], capture_output=True, text=True)
    return result.returncode == 0 and "Key is valid" in result.stdout + result.stderr


def _error(out):
    """The Error of the one line of `out`, which must be an error line."""
    errors = error_lines(out)
    assert len(errors) == 1 and len(out.strip().splitlines()) == 1, out
    return error_code(errors[0])


# ---- the host side (jobs/keygen.py, python -m sim keygen) ----

FAKE_CONSOLE = Path(__file__).parents[1] / "link" / "fake_console.py"
SOC = {"cpu": "vexriscv", "variant": "full", "sys_clk_hz": 100_000_000,
       "peripheral": {"max_bits": 4096, "lanes": 32, "word_bits": 32, "slots": 16}}


def _fake_build(tmp_path, mode="ok"):
    """A stand-in for a SimBuild whose model is the fake console in `mode`."""
    model = tmp_path / f"fake-{mode}"
    model.write_text(f"#!/bin/sh\nexec {sys.executable} {FAKE_CONSOLE} {mode}\n")
    model.chmod(model.stat().st_mode | stat.S_IXUSR)
    from link.transport import SimEntropy
    build = SimpleNamespace(model=model, gateware_dir=tmp_path, soc_info=SOC, entropy=SimEntropy())
    build.with_entropy = lambda entropy: build          # as a SimBuild's: the same build, its source's bits
    return build


def _key(impl, bits, index, cycles, mr_rounds=10, candidates=100, passed=True):
    checks = {name: True for name in keygen.CHECKS}
    if not passed:
        checks["openssl_check"] = False
    return {"impl": impl, "bits": bits, "index": index, "seed": f"{index:02x}", "cycles": cycles,
            "candidates": candidates, "mr_rounds": mr_rounds, "ok": True, "n": f"{index + 7:x}", "e": "10001",
            "d": "5", "p": "3", "q": "5", "pem": None, "checks": checks, "passed": passed}


def test_seeds_repeat_and_differ_per_key():
    assert keygen.seeds("x", 3) == keygen.seeds("x", 3)
    assert len(set(keygen.seeds("x", 16))) == 16 and keygen.seeds("x", 1) != keygen.seeds("y", 1)
    assert all(len(seed) == keygen.SEED_BYTES for seed in keygen.seeds("x", 4))


def test_the_report_summarizes_each_implementation_and_size(tmp_path):
    cycles = [3_000_000, 5_000_000, 4_000_000, 9_000_000]          # median 4.5 M: over the 1024-bit target
    keys = ([_key("hw_seq", 1024, i, c, mr_rounds=10 * (i + 1), candidates=100 + i) for i, c in enumerate(cycles)]
            + [_key("sw", 512, i, 60_000_000 + i, mr_rounds=30) for i in range(3)])
    report = keygen.make_report(keys, command="python -m sim keygen test", seed="t", soc=SOC)
    sw, hw = report["rows"]                                  # our implementations' order: sw first
    assert (sw["impl"], sw["bits"], sw["keys"], hw["impl"], hw["bits"], hw["keys"]) == ("sw", 512, 3, "hw_seq", 1024, 4)
    assert hw["cycles"] == {"median": 4_500_000, "min": 3_000_000, "max": 9_000_000}
    assert hw["seconds"] == {"median": 0.045, "min": 0.03, "max": 0.09}
    assert hw["candidates"] == {"median": 101.5, "min": 100, "max": 103}
    assert hw["mr_rounds"] == {"median": 25, "min": 10, "max": 40}
    # per key: 3 M / 10, 5 M / 20, 4 M / 30, 9 M / 40 = 300,000, 250,000, 133,333.3, 225,000
    assert hw["cycles_per_mr_round"] == {"median": 237_500, "min": 4_000_000 / 30, "max": 300_000}
    assert sw["cycles"] == {"median": 60_000_001, "min": 60_000_000, "max": 60_000_002}
    assert report["passed"] and hw["keys_passed"] == 4
    assert report["targets"] == [
        {"bits": 1024, "impl": "hw_seq", "limit_cycles": 4_000_000, "seeds_asked": 16, "median_cycles": 4_500_000,
         "seeds": 4, "met": False},
        {"bits": 2048, "impl": "hw_seq", "limit_cycles": 20_000_000, "seeds_asked": 16, "median_cycles": None,
         "seeds": 0, "met": None}]
    keygen.check(report)
    text = keygen.markdown(report)
    assert "| hw_seq | 1024 | 4 | 4,500,000 | 3,000,000 | 9,000,000 | 45.0 | 30.0 | 90.0 |" in text
    assert "median 4,500,000 cycles, **not met** (over 4 seeds here, not 16" in text
    assert "RSA-2048 key generation on hw_seq, median over 16 seeds: <= 20,000,000 cycles: not measured" in text
    assert "upper bound" in text and "python -m sim keygen test" in text and "4/4 (100 %)" in text
    keygen.write(report, tmp_path)
    assert json.loads((tmp_path / "report.json").read_text())["rows"] == report["rows"]
    assert (tmp_path / "report.md").read_text() == text and (tmp_path / "report.png").stat().st_size > 0
    met = keygen.make_report([_key("hw_seq", 1024, i, 3_000_000) for i in range(16)], command="c", seed="t", soc=SOC)
    assert met["targets"][0]["met"] is True and "median 3,000,000 cycles, **met**." in keygen.markdown(met)


def test_a_failed_check_or_a_disagreement_fails_the_report():
    keys = [_key("hw_seq", 512, 0, 1000), _key("hw_seq", 512, 1, 1000, passed=False)]
    report = keygen.make_report(keys, command="c", seed="t", soc=SOC)
    assert not report["passed"] and report["failed_keys"] == ["hw_seq-512-1: openssl_check"]
    assert report["rows"][0]["keys_passed"] == 1 and "1/2 (50 %)" in keygen.markdown(report)
    with pytest.raises(ProjectError, match="1 of 2 keys failed their checks: hw_seq-512-1: openssl_check"):
        keygen.check(report)
    other = {**_key("sw", 512, 0, 9000), "d": "7"}               # seed 0 made another key on sw
    report = keygen.make_report([keys[0], other], command="c", seed="t", soc=SOC)
    assert not report["passed"] and report["implementations_disagree"] == [{"bits": 512, "index": 0}]
    with pytest.raises(ProjectError, match="different keys from one seed: 512 bits, seed 0"):
        keygen.check(report)
    with pytest.raises(ProjectError, match="no key"):
        keygen.check(keygen.make_report([], command="c", seed="t", soc=SOC))


def test_a_key_that_is_not_one_fails_its_checks(tmp_path):
    good = SimpleNamespace(n=3233, e=17, d=413, p=61, q=53, ok=True)     # a toy key: only some checks hold
    checks = keygen.check_key(good, 12, tmp_path / "toy.pem")
    assert checks["n_is_pq"] and checks["d_inverse"] and checks["p_prime"] and not checks["e"]
    bad = SimpleNamespace(n=3233, e=17, d=415, p=61, q=53, ok=False)
    checks = keygen.check_key(bad, 12, tmp_path / "bad.pem")
    assert not (checks["device"] or checks["d_inverse"] or checks["cryptography_loads"] or checks["openssl_check"])


@pytest.mark.parametrize("mode, status", [("ok", 0), ("wrong", 1)])
def test_python_m_sim_keygen_writes_the_report_and_exits_1_on_a_failed_check(tmp_path, monkeypatch, capsys, mode,
                                                                               status):
    """The whole command on the stand-in console: in mode `wrong`, its keys made on hw_cpu have a wrong d."""
    from jobs import cli as sim_main
    from sim import build as sim_build
    fake = _fake_build(tmp_path, mode)
    monkeypatch.setattr(sim_build, "build", lambda **kwargs: fake)
    out_dir = tmp_path / "out"
    assert sim_main.main(["keygen", "--sizes", "512", "--seeds", "2", "--impls", "hw_seq,hw_cpu", "--seed", "s",
                          "--out", str(out_dir), "--quiet"]) == status
    report = json.loads((out_dir / "report.json").read_text())
    assert report["command"] == "python -m sim keygen --sizes 512 --seeds 2 --impls hw_seq,hw_cpu --seed s"
    assert [(k["impl"], k["index"]) for k in report["keys"]] == [("hw_cpu", 0), ("hw_cpu", 1), ("hw_seq", 0),
                                                                 ("hw_seq", 1)]
    assert [k["seed"] for k in report["keys"]] == [s.hex() for s in keygen.seeds("s", 2)] * 2
    assert all((out_dir / "keys" / f"{k['impl']}-512-{k['index']}.pem").exists() for k in report["keys"])
    assert report["passed"] == (mode == "ok") and report["keys_passed"] == (4 if mode == "ok" else 2)
    if mode == "wrong":
        assert [f.split(":")[0] for f in report["failed_keys"]] == ["hw_cpu-512-0", "hw_cpu-512-1"]
        assert "error: 2 of 4 keys failed their checks" in capsys.readouterr().err
    assert sim_main.main(["keygen", "--sizes", "500", "--out", str(out_dir)]) == 2
    assert config.KEY_SIZES[-1] == keygen.MAX_BITS


# ---- the benchmark's key-generation and padding rows (jobs/bench.py) ----

def test_the_bench_plans_keygen_and_signature_rows_beside_the_raw_ones():
    from jobs import bench
    plan = [(job.kind, job.impl, job.sizes, job.sha256) for job in bench.extra_jobs((512, 1024, 2048))]
    assert plan == [("keygen", "hw_seq", (512,), "hw"), ("keygen", "hw_seq", (1024,), "hw"),
                    ("keygen", "hw_seq", (2048,), "hw"),
                    ("sign", "hw_seq", (512, 1024, 2048), "hw"), ("sign", "hw_seq", (512, 1024, 2048), "sw"),
                    ("hash", "sw", (), "hw")]
    assert ("keygen", "sw", (512,)) in [(j.kind, j.impl, j.sizes) for j in bench.extra_jobs((512,), full=True)]
    assert [(j.kind, j.sizes) for j in bench.extra_jobs((1024, 3072))] == [("keygen", (1024,)), ("sign", (1024, 3072)),
                                                                          ("sign", (1024, 3072)), ("hash", ())]
    # the hashes on the SoC without the peripheral, the rest on the one with it
    assert [job.peripheral for job in bench.extra_jobs((512,))] == [True, True, True, False]
    assert not bench.ExtraJob("keygen", "sw", (512,)).peripheral


def test_the_bench_writes_the_padding_and_keygen_rows_in_a_section_of_their_own(tmp_path):
    from jobs import bench
    raw = [{"bits": 512, "op": op, "impl": impl, "cycles": 100_000, "ok": True} for op, impl in
           (("public", "hw_seq"), ("private_crt", "hw_seq"))]
    extra = [{"bits": 512, "op": "keygen", "impl": "hw_seq", "seeds": 3, "cycles": [2_000_000, 3_000_000, 2_500_000],
              "median_cycles": 2_500_000, "min_cycles": 2_000_000, "max_cycles": 3_000_000, "candidates": [1, 2, 3],
              "mr_rounds": [4, 5, 6], "ok": True},
             {"bits": 512, "op": "sign_pkcs1", "impl": "hw_seq", "sha256": "hw", "cycles": 110_000, "ok": True},
             {"bits": 512, "op": "sign_pkcs1", "impl": "hw_seq", "sha256": "sw", "cycles": 125_000, "ok": True},
             {"bits": 512, "op": "sign_pss", "impl": "hw_seq", "cycles": 150_000, "ok": False},
             {"bits": 512, "op": "verify", "impl": "hw_seq", "cycles": 30_000, "ok": True},
             {"bits": 512, "op": "oaep_decrypt", "impl": "hw_seq", "cycles": 120_000, "ok": True},
             {"op": "sha256", "impl": "hw", "bytes": 16384, "message_bytes": 1024, "repeat": 16, "blocks": 257,
              "cycles": 25_700, "ok": True}]
    soc = {**SOC}
    data = bench.write(raw, [], tmp_path, soc, {"transport": "simulation"}, "python -m sim bench", extra=extra)
    written = json.loads((tmp_path / "results.json").read_text())
    assert written["results"] == raw and written["padding_and_keygen"]["rows"] == extra
    text = (tmp_path / "results.md").read_text()
    assert text == bench.markdown(data)
    # a row without a hash (a results.json older than the choice) was the firmware's default's
    assert "| 512 | key generation (3 seeds) | hw_seq | hw | 2,500,000 | 2,000,000 | 3,000,000 | 25.00 |  | yes |" \
        in text
    assert "| 512 | sign pkcs1 | hw_seq | hw | 110,000 |  |  | 1.10 | 1.10 | yes |" in text
    assert "| 512 | sign pkcs1 | hw_seq | sw | 125,000 |  |  | 1.25 | 1.25 | yes |" in text
    assert "| 512 | sign pss | hw_seq | hw | 150,000 |  |  | 1.50 | 1.50 | **no** |" in text
    assert "| 512 | verify | hw_seq | hw | 30,000 |  |  | 0.30 | 0.30 | yes |" in text        # x the raw public op
    assert "| 512 | oaep decrypt | hw_seq | hw | 120,000 |  |  | 1.20 | 1.20 | yes |" in text
    assert "| 16,384 | hw | 25,700 | 100 | yes |" in text            # the SHA-256 rows' table, per block
    without = bench.write(raw, [], tmp_path / "plain", soc, {"transport": "simulation"}, "c")
    assert "padding_and_keygen" not in without and "Key generation and signatures" not in bench.markdown(without)


# ---- on the simulated SoC (after the host side: the module's console, booted by the first of these, is
# closed at the module's end) ----

def test_one_seed_gives_the_same_key_on_every_implementation(generated):
    """hw_seq (the peripheral's pair commands in the search's pre-test) and hw_cpu (its products issued by
    the CPU) make the same key from SEED. The software backend's key for a seed is the same as a pair
    backend's in the host build of keygen.c (tests/firmware/test_rsa_keygen.py); on the device it takes
    42.4 M cycles at 512 bits from SEED (hw_seq 2.4 M, hw_cpu 2.8 M), which `python -m sim keygen --sizes
    512 --impls sw` and `make bench`'s full rows (`--full`) run and check."""
    made = {impl: generated(512, SEED, impl) for impl in ("hw_seq", "hw_cpu")}
    assert all(m.ok and m.impl == impl for impl, m in made.items())
    assert made["hw_cpu"].key == made["hw_seq"].key


@pytest.mark.parametrize("bits", [512, 1024])
def test_keys_made_on_the_device_load_in_cryptography_and_pass_the_checks(generated, bits, tmp_path):
    made = generated(bits, SEED if bits == 512 else SEED_1024)
    assert (made.bits, made.impl, made.ok, made.e) == (bits, "hw_seq", True, 65537)
    assert made.cycles > 0 and made.candidates >= 2 and made.mr_rounds >= 2
    n, d, p, q = made.n, made.d, made.p, made.q
    assert n == p * q and (n.bit_length(), p.bit_length(), q.bit_length()) == (bits, bits // 2, bits // 2)
    rng = random.Random(n)
    assert is_probable_prime(p, rng) and is_probable_prime(q, rng)
    lcm = math.lcm(p - 1, q - 1)
    assert made.e * d % lcm == 1 and (1 << bits // 2) < d < lcm
    assert abs(p - q) > 1 << (bits // 2 - 100)
    key = keygen.private_key(made)                      # cryptography's own validation
    assert key.private_numbers().public_numbers.n == n and key.key_size == bits
    signature = key.sign(MESSAGE, padding.PKCS1v15(), hashes.SHA256())
    key.public_key().verify(signature, MESSAGE, padding.PKCS1v15(), hashes.SHA256())
    pem = tmp_path / "key.pem"
    pem.write_bytes(keygen.pem_bytes(key))
    assert _openssl_check(pem)
    # jobs/keygen.py's checks agree
    assert keygen.check_key(made, bits, tmp_path / "checked.pem") == {name: True for name in keygen.CHECKS}


def test_a_signature_made_on_the_device_with_its_new_key_verifies(console, tmp_path):
    made = console.keygen(512, SIGNING_SEED)
    key = keygen.private_key(made)
    signed = console.sign("pkcs1", MESSAGE)                         # with the key keygen left
    signature = signed.signature
    assert f"sign pkcs1 {MESSAGE.hex()} hw_seq\n" in console.output and signed.cycles > 0
    key.public_key().verify(signature, MESSAGE, padding.PKCS1v15(), hashes.SHA256())
    assert signature == key.sign(MESSAGE, padding.PKCS1v15(), hashes.SHA256())      # PKCS#1 v1.5: deterministic
    public = tmp_path / "public.pem"
    public.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                     serialization.PublicFormat.SubjectPublicKeyInfo))
    (tmp_path / "message").write_bytes(MESSAGE)
    for name, data in (("good", signature), ("flipped", signature[:-1] + bytes([signature[-1] ^ 1]))):
        (tmp_path / name).write_bytes(data)
        result = subprocess.run(["openssl", "dgst", "-sha256", "-verify", str(public), "-signature",
                                 str(tmp_path / name), str(tmp_path / "message")], capture_output=True, text=True)
        assert (result.returncode == 0) == (name == "good"), (name, result.stdout, result.stderr)
        assert ("Verified OK" in result.stdout) == (name == "good")


def test_different_seeds_give_different_keys_and_one_seed_the_same_key(console, generated):
    first, other = generated(512, SEED), generated(512, OTHER_SEED)
    assert other.ok and {first.p, first.q}.isdisjoint({other.p, other.q}) and first.d != other.d
    again = console.keygen(512, SEED)
    assert again.key == first.key
    assert (again.candidates, again.mr_rounds) == (first.candidates, first.mr_rounds)


def test_without_a_seed_the_key_comes_from_the_device_s_generator(console):
    """No seed typed: each key is drawn from the device's generator (reseeded from its entropy source),
    so two differ; both are whole keys."""
    first, other = console.keygen(512, None), console.keygen(512, None)
    assert first.ok and other.ok and first.p * first.q == first.n and other.p * other.q == other.n
    assert {first.p, first.q}.isdisjoint({other.p, other.q})


def test_refused_input_gives_one_error_line_and_the_console_carries_on(console, generated):
    made = generated(512, SEED)
    console.set_key(made.key)                               # the key the console has
    seed = SEED.hex()
    refused = {
        "keygen 512 " + "01" * 31: Error.SHORT_SEED,       # the seed is the key's only secret
        "keygen 512 01": Error.SHORT_SEED,
        f"keygen 512 {seed[:-2]}": Error.SHORT_SEED,
        "keygen 500 01": Error.UNKNOWN_SIZE,
        "keygen 8192 01": Error.UNKNOWN_SIZE,
        "keygen 448 01": Error.UNKNOWN_SIZE,
        "keygen abc 01": Error.UNKNOWN_SIZE,
        "keygen -4294966784 01": Error.UNKNOWN_SIZE,       # strtoul would wrap it to 512
        "keygen 512x 01": Error.UNKNOWN_SIZE,
        "keygen 512 xyz": Error.BAD_HEX,
        "keygen 512 abc": Error.BAD_HEX,                     # an odd number of digits
        "keygen 512 0x01": Error.BAD_HEX,
        "keygen 512 " + "00" * 65: Error.TOO_LARGE,
        "keygen 512 01 nope": Error.UNKNOWN_IMPL,
        "keygen": Error.USAGE,
        "keygen 512 hw_seq extra": Error.USAGE,             # no seed (an implementation's name), then too much
        "keygen 512 01 hw_seq extra": Error.USAGE,
    }
    for line, expected in refused.items():
        assert _error(console.command(line)) == expected, line
    with pytest.raises(CommandRefused) as raised:
        console.keygen(512, bytes(65))
    assert raised.value.code is Error.TOO_LARGE
    with pytest.raises(ValueError):
        console.keygen(512, SEED[1:])
    message = 0x1234567
    assert console.time("public", "hw_seq", message).result == pow(message, made.e, made.n)
    timed = console.time("private_crt", "hw_seq", message)
    assert timed.ok and timed.result == pow(message, made.d, made.n)


def test_keygen_prints_the_public_key_only_and_key_export_the_rest(console):
    out = console.command(f"keygen 512 {SEED.hex()}")
    [public] = KEY_PUBLIC.parse_all(out)
    [key] = KEY_EXPORT.parse_all(console.command(f"key {KEY_EXPORT_WORD}"))
    n, e, d, p, q = (key[name] for name in ("n", "e", "d", "p", "q"))
    assert (n, e) == (public["n"], public["e"]) and n == p * q and e * d % math.lcm(p - 1, q - 1) == 1
    assert (key["dp"], key["dq"], key["qinv"]) == (d % (p - 1), d % (q - 1), pow(q, -1, p))
    assert [name for name in ("d", "p", "q", "dp", "dq", "qinv") if f"{key[name]:x}" in out] == []


def test_a_refused_key_leaves_no_key_and_a_public_key_nothing_to_export(console, generated):
    """A `key` refused half-way (its CRT values made, then the key found inconsistent) or at its first check
    leaves the console with no key at all: the previous one is dropped as the command starts."""
    made = generated(512, SEED)
    n, e, d, p, q = (made.key[name] for name in ("n", "e", "d", "p", "q"))
    for wrong in (f"{n:x} {e:x} {d:x} {p:x} {q + 4:x}",          # p q != n: refused after its CRT values
                  f"{n:x} {e:x} {d:x} {p + 1:x} {q:x}"):          # p even
        console.set_key(made.key)
        assert _error(console.command(f"key {wrong}")) == Error.BAD_KEY
        assert _error(console.command(f"key {KEY_EXPORT_WORD}")) == Error.NO_KEY
        assert _error(console.command("time public hw_seq 2")) == Error.NO_KEY
    console.set_key({"n": n, "e": e})
    assert _error(console.command(f"key {KEY_EXPORT_WORD}")) == Error.NO_KEY
    assert _error(console.command(f"key {KEY_EXPORT_WORD} extra")) == Error.BAD_HEX      # as `key <n> <e>`
    console.set_key(made.key)
    [key] = KEY_EXPORT.parse_all(console.command(f"key {KEY_EXPORT_WORD}"))
    assert (key["n"], key["d"], key["qinv"]) == (n, d, pow(q, -1, p))
