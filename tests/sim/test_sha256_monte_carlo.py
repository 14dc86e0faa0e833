"""NIST's SHA-256 Monte Carlo test on the simulated SoC (firmware/console/hash_mct.c): its first checkpoint
through the engine's hash class, checked against SHA256Monte.rsp, and bad arguments refused with one
`error=` line. The first checkpoint alone: a checkpoint is 1,000 hashes, about 5 s of simulation on the
engine and 15 s in software (BearSSL's class, left to `python -m sim sha256-vectors --impls sw,hw`, which
runs all 100 on each)."""

import hashlib

import pytest

from jobs import sha256_vectors
from soc.console_protocol import HASH, Error, error_code, error_lines

#: One worker: the module's tests share one boot.
pytestmark = pytest.mark.xdist_group("sha256_monte_carlo")

NIST_SEED = sha256_vectors.monte_carlo_vectors()[0]


def test_the_first_checkpoint_on_the_engine_is_nists(shared_console):
    row = sha256_vectors.run_monte_carlo(shared_console, "hw", 1)
    assert row["ok"] and row["passed"] == 1 and row["error"] is None, row
    assert row["cycles"][0] > sha256_vectors.MONTE_CARLO_ITERATIONS


@pytest.mark.parametrize("line, code", [
    pytest.param(f"hash_mct md5 {NIST_SEED.hex()}", Error.UNKNOWN_IMPL, id="unknown_impl"),
    pytest.param(f"hash_mct hw {NIST_SEED[:31].hex()}", Error.USAGE, id="short_seed"),
    pytest.param(f"hash_mct hw {NIST_SEED.hex()}00", Error.TOO_LARGE, id="long_seed"),
    pytest.param(f"hash_mct hw {NIST_SEED.hex()[:-1]}", Error.BAD_HEX, id="odd_digits"),
    pytest.param(f"hash_mct hw {NIST_SEED.hex()} 100", Error.USAGE, id="index_past_the_test"),
    pytest.param(f"hash_mct hw {NIST_SEED.hex()} -1", Error.USAGE, id="negative_index"),
    pytest.param("hash_mct hw", Error.USAGE, id="no_seed"),
])
def test_bad_arguments_give_one_error_line_and_the_console_carries_on(shared_console, line, code):
    out = shared_console.command(line)
    errors = error_lines(out)
    assert len(errors) == 1 and len(out.strip().splitlines()) == 1, out
    assert error_code(errors[0]) == code
    [hashed] = HASH.parse_all(shared_console.command("hash hw 616263"))
    assert hashed["digest"] == hashlib.sha256(b"abc").digest()
