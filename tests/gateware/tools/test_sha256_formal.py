"""gateware/tools/sha256_formal.py: the SHA-256 engine's status proved independent of the message and the
state; a block runs to its end within the cover's depth; an engine whose rounds look at the message fails
the same check."""

from gateware.sha256.engine import SHA256Engine
from gateware.sha256.interface import ROUNDS
from gateware.tools import sha256_formal as formal


class EarlyEndEngine(SHA256Engine):
    """The engine, but a round whose message word W[t] is odd jumps to the final addition: a block's length
    then follows the message.  (It overrides the step that shifts the message window, which sees the window
    and the round counter; a later assignment to the counter wins over the engine's own.)"""

    def _schedule(self, m, message, window, kw, round_index, start, running):
        super()._schedule(m, message, window, kw, round_index, start, running)
        with m.If(running & window[0][0]):
            m.d.sync += round_index.eq(ROUNDS)


def test_status_proved_independent_of_data(tmp_path):
    assert formal.prove_constant_time(tmp_path / "prove") == "PASS"
    assert formal.cover_block_end(tmp_path / "cover") == "PASS"
    # the same check, with its default depth, finds the message in the variant's timing
    assert formal.prove_constant_time(tmp_path / "early_end", EarlyEndEngine()) == "FAIL"
    # its round counters part first; with the status alone asserted, the status words must part too
    assert formal.prove_constant_time(tmp_path / "early_end_status", EarlyEndEngine(), strengthen=False) == "FAIL"
