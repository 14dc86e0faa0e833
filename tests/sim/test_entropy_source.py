"""The device's entropy source in the simulated SoC (soc/entropy.py, firmware/rand/): `info` names where its
randomness comes from and the source's health; `entropy raw` gives the harness's bits, the same for one seed
and others for another; a source stuck at one bit fails its health tests, and then every command that
draws randomness gives one `error=` line, the console answering on, until `entropy restart` reruns the
start-up tests (which the stuck source fails again)."""

import pytest

from link.console import SimConsole
from link.transport import SimEntropy
from soc import keys as soc_keys
from soc.console_protocol import ENTROPY_RAW, ENTROPY_RESTARTED, INFO_ENTROPY, SIGNATURE, Error, error_code, error_lines

#: One worker: the boots of this module follow one another.
pytestmark = pytest.mark.xdist_group("entropy_source")

WORDS = 12


def _raw(sim_soc, entropy):
    """`info`'s entropy line and `entropy raw WORDS` on a fresh boot with `entropy`."""
    con = SimConsole(sim_soc.model, sim_soc.gateware_dir, timeout=300, entropy=entropy)
    try:
        con.wait_prompt()
        state = INFO_ENTROPY.parse_all(con.command("info"))
        words = [w for line in ENTROPY_RAW.parse_all(con.command(f"entropy raw {WORDS}")) for w in line["raw"]]
        return state, words
    finally:
        con.close()


def test_info_names_the_simulated_source_and_its_words_follow_the_seed(sim_soc):
    state, first = _raw(sim_soc, SimEntropy(seed=5))
    assert state == [{"entropy": "simulated", "entropy_health": "ok"}]
    assert len(first) == WORDS and len(set(first)) == WORDS
    assert _raw(sim_soc, SimEntropy(seed=5))[1] == first
    assert _raw(sim_soc, SimEntropy(seed=6))[1] != first


def _one_error(out):
    errors = error_lines(out)
    assert len(errors) == 1 and len(out.strip().splitlines()) == 1, out
    return error_code(errors[0])


def test_a_stuck_source_stops_every_draw_with_one_error_line(sim_soc):
    key = soc_keys.bench_keys((512,))[0]
    con = SimConsole(sim_soc.model, sim_soc.gateware_dir, timeout=300, entropy=SimEntropy(mode="stuck"))
    try:
        con.wait_prompt()
        assert INFO_ENTROPY.parse_all(con.command("info")) == [{"entropy": "simulated",
                                                                "entropy_health": "rct_failed"}]
        con.set_key(key)
        assert _one_error(con.command("sign pss 616263")) == Error.ENTROPY_FAILED
        assert _one_error(con.command("oaep_encrypt 616263")) == Error.ENTROPY_FAILED
        assert _one_error(con.command("entropy raw 2")) == Error.ENTROPY_FAILED
        assert _one_error(con.command("keygen 512")) == Error.ENTROPY_FAILED      # no seed: the device's
        # what needs no randomness still works: a PKCS#1 v1.5 signature
        assert len(SIGNATURE.parse_all(con.command("sign pkcs1 616263"))) == 1
        assert ENTROPY_RESTARTED.parse_all(con.command("entropy restart")) != []
        assert _one_error(con.command("sign pss 616263")) == Error.ENTROPY_FAILED
    finally:
        con.close()
