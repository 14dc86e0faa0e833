"""The console's fuzz target (console_fuzz.py) in `make test`: built with AddressSanitizer and
UndefinedBehaviorSanitizer, it replays the committed regression inputs (fuzz/regressions/: every input
that once found a bug) and the seed corpus's inputs with a private key, then fuzzes for a few seconds.
Any sanitizer report, crash, hang or protocol violation the target checks (a second `error=` line in
one answer) fails the test. Longer runs: `make fuzz` (FUZZ_SECONDS=...)."""
import shutil

import pytest

import console_fuzz
from soc import console_protocol as protocol

#: One worker builds the target and runs these (a second would link the same file meanwhile).
pytestmark = pytest.mark.xdist_group("console_fuzz")

#: Seconds of fuzzing in `make test`, from the regressions.
SHORT_RUN_SECONDS = 4


@pytest.fixture(scope="module")
def target():
    if shutil.which(console_fuzz.CLANG) is None:
        pytest.fail("clang not found: run tools/setup.sh")
    return console_fuzz.build()


def _findings(stderr):
    """libFuzzer's and the sanitizers' report lines."""
    marks = ("ERROR: AddressSanitizer", "ERROR: libFuzzer", "runtime error:", "protocol violation", "SUMMARY:")
    return [line for line in stderr.splitlines() if any(mark in line for mark in marks)]


def test_every_command_of_the_protocol_has_seeds():
    lines = console_fuzz.seed_lines(console_fuzz.FUZZ_MAX_BITS)
    assert {line.split()[0] for line in lines if line.strip()} >= set(protocol.COMMANDS)
    words = console_fuzz.dictionary_words()
    assert set(protocol.COMMANDS) <= set(words) and set(protocol.ALL_IMPLS) <= set(words)


def test_the_fuzz_build_takes_the_peer_modules_firmware_makefile_names():
    from soc import peer_libs
    bearssl = peer_libs.cached(peer_libs.PEERS["bearssl"])
    if bearssl is None:
        pytest.skip("BearSSL is not in build/peers")
    names = {path.name for path in console_fuzz.bearssl_sources(bearssl)}
    assert {"i31_modpow2.c", "sha2small.c", "rsa_oaep_pad.c", "rsa_i31_keygen.c", "ccopy.c"} <= names
    assert "i31_moddiv.c" in names          # key generation's, though filtered out of the timed archive


def test_regressions_and_seeds_replay_clean(target, tmp_path):
    seeds = console_fuzz.write_seeds(tmp_path / "seeds")
    inputs = sorted(console_fuzz.REGRESSIONS.iterdir()) + sorted(seeds.glob("*-1"))
    result = console_fuzz.replay(target, inputs, timeout=600)
    assert result.returncode == 0 and not _findings(result.stderr), "\n".join(_findings(result.stderr)[:20])


def test_a_short_fuzz_run_finds_nothing(target, tmp_path):
    code, stats = console_fuzz.fuzz(target, SHORT_RUN_SECONDS, work_dir=tmp_path, seeds=False,
                                    log=lambda msg: None)
    assert code == 0, f"libFuzzer exited {code}: see {tmp_path / 'findings'}"
    assert stats.get("number_of_executed_units", 0) > 0


def test_the_hardware_paths_reach_their_results_over_the_host_model(target, tmp_path):
    """The host model of the peripheral answers as the peripheral does, so the fuzzer gets past the hardware
    paths' checks: a vector on hw_seq and hw_cpu, bench rows on both, a PKCS#1 signature on hw_seq equal
    to `cryptography`'s (deterministic), a key generated on hw_seq."""
    text = "\n".join(["vectors 0", "bench hw 512 rows=512:private_crt:hw_seq,512:private:hw_cpu,512:mul:hw_seq",
                      "sign pkcs1 00 hw_seq", f"keygen 512 {'02' * protocol.KEYGEN_MIN_SEED} hw_seq"])
    (tmp_path / "input").write_bytes(b"1" + text.encode())
    result = console_fuzz.replay(target, [tmp_path / "input"], echo=True)
    out = result.stderr
    assert result.returncode == 0, out[-2000:]
    [vector] = protocol.VECTOR.parse_all(out)
    assert vector["ok"] == 1
    rows = protocol.RESULT.parse_all(out)
    assert [(r["op"], r["impl"], r["ok"]) for r in rows] == [("private", "hw_cpu", 1), ("private_crt", "hw_seq", 1),
                                                              ("mul", "hw_seq", 1)]
    [signature] = protocol.SIGNATURE.parse_all(out)
    assert signature["signature"].hex() == console_fuzz.signatures(console_fuzz.seed_key(), bytes(1))["pkcs1"]
    [generated] = protocol.KEYGEN.parse_all(out)
    assert generated["ok"] == 1
