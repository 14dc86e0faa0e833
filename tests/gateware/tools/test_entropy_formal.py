"""gateware/tools/entropy_formal.py: the entropy source's ready timing proved independent of the raw values
while no health test fails; the assumption leaves runs with words; without it the check finds the
dependence."""

from gateware.tools import entropy_formal as formal
from gateware.entropy.source import EntropySource


def test_ready_timing_proved_independent_of_values(tmp_path):
    assert formal.prove_constant_time(tmp_path / "prove") == "PASS"
    assert formal.cover_ready(tmp_path / "cover", depth=40) == "PASS"
    # a failure in one copy only (its values) stops its words: the same assertions must fail (on a source
    # that fails and gives a word soon: two equal samples fail it, the start-up is two samples)
    quick = EntropySource(rct_cutoff=2, startup_samples=2)
    assert formal.prove_constant_time(tmp_path / "unhealthy", quick, depth=40, healthy=False) == "FAIL"
