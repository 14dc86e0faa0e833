"""The entropy source against its Python model and SP 800-90B: cutoffs, health tests, start-up, words."""

import random
from decimal import Decimal, localcontext

import pytest
from amaranth.sim import Simulator

from gateware.entropy import interface
from gateware.entropy.interface import (APT_CUTOFF, APT_WINDOW, RCT_CUTOFF, SEED_RAW_WORDS, STARTUP_SAMPLES,
                                        WORD_BITS, Status, apt_cutoff, binomial_tail, rct_cutoff, seed_raw_words)
from gateware.entropy.model import AdaptiveProportion, EntropySourceModel, RepetitionCount
from gateware.entropy.source import EntropySource


# ---- the parameters -------------------------------------------------------------------------------------

def test_cutoffs_match_the_standard():
    # 4.4.1's example (H = 2 bits per sample) and the binary full-entropy case, alpha = 2^-20
    assert rct_cutoff(2) == 11
    assert rct_cutoff(1) == 21
    # Table 2 of 4.4.2: binary samples, W = 1024, H = 1
    assert apt_cutoff(1) == 589
    # our figures at the assessed H, from the definitions: C - 1 equal samples are at least as likely as alpha
    h = interface.MIN_ENTROPY_PER_BIT
    assert (RCT_CUTOFF, APT_CUTOFF) == (41, 793) and h == 0.5
    assert 2 ** (-h * (RCT_CUTOFF - 1)) <= 2 ** -20 < 2 ** (-h * (RCT_CUTOFF - 2))
    with localcontext() as ctx:
        ctx.prec = 60
        p, alpha = Decimal(2).sqrt() / 2, Decimal(2) ** -20
        assert binomial_tail(APT_WINDOW, p, APT_CUTOFF) <= alpha < binomial_tail(APT_WINDOW, p, APT_CUTOFF - 1)


def test_seed_and_status_contract():
    assert SEED_RAW_WORDS == 20 and seed_raw_words(1) == 10
    assert SEED_RAW_WORDS * WORD_BITS * interface.MIN_ENTROPY_PER_BIT >= 256 + 64
    assert (SEED_RAW_WORDS - 1) * WORD_BITS * interface.MIN_ENTROPY_PER_BIT < 256 + 64
    assert interface.STATUS_BITS == {"ready": 0, "failed": 1, "rct_failed": 2, "apt_failed": 3, "startup": 4}
    assert Status.as_shape().size == 32
    assert STARTUP_SAMPLES >= 1024


def test_model_tests_on_their_definitions():
    rct = RepetitionCount(cutoff=4)
    assert [rct.feed(b) for b in (1, 1, 1, 0, 0, 0, 1)] == [False] * 7
    assert rct.feed(1) is False and rct.feed(1) is False and rct.feed(1) is True
    rct.clear()
    assert rct.feed(1) is False
    apt = AdaptiveProportion(cutoff=5, window=8)
    # window 1: first value 0 occurs 4 times; window 2: first value 1 occurs 5 times
    assert not any(apt.feed(b) for b in (0, 1, 0, 1, 0, 1, 0, 1))
    assert [apt.feed(b) for b in (1, 0, 1, 1, 0, 1, 1, 0)] == [False] * 6 + [True] * 2


# ---- the gateware in lock step with the model -----------------------------------------------------------

FLAGS = ("ready", "failed", "rct_failed", "apt_failed", "startup")


def simulate(dut, inputs):
    """Runs ``inputs`` (per cycle: raw, raw_valid, data_stb, restart) through ``dut``; returns the outputs
    (ready, failed, rct_failed, apt_failed, startup, data) seen in each cycle."""
    seen = []

    async def tb(ctx):
        for raw, valid, stb, restart in inputs:
            for port, value in ((dut.raw, raw), (dut.raw_valid, valid), (dut.data_stb, stb), (dut.restart, restart)):
                ctx.set(port, value)
            status = ctx.get(dut.status)
            assert status >> len(FLAGS) == 0            # the reserved bits read 0
            seen.append(tuple(bool(status >> interface.STATUS_BITS[f] & 1) for f in FLAGS) + (ctx.get(dut.data),))
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(tb)
    sim.run()
    return seen


def model_outputs(model, inputs):
    out = []
    for raw, valid, stb, restart in inputs:
        o = model.step(raw, valid, stb, restart)
        out.append((o.ready, o.failed, o.rct_failed, o.apt_failed, o.startup, o.data))
    return out


def schedule(bits, cycles, seed, restarts=()):
    """Per-cycle inputs: a sample in about 3 cycles of 4 (the next of ``bits``), a read of ``data`` in about
    1 of 5 (ready or not), ``restart`` in the cycles listed."""
    rng = random.Random(seed)
    inputs = []
    for cycle in range(cycles):
        valid = rng.random() < 0.75
        inputs.append((next(bits) if valid else 0, int(valid), int(rng.random() < 0.2), int(cycle in restarts)))
    return inputs


def stream(seed, p_one=0.5):
    rng = random.Random(seed)
    while True:
        yield int(rng.random() < p_one)


def periodic(pattern):
    while True:
        yield from pattern


STREAMS = {
    # name: (bits, cycles, restarts, which test should fail: None, "rct" or "apt")
    "random": (lambda: stream(1), 3600, (1900,), None),
    "stuck_at_0": (lambda: stream(2, 0.0), 1500, (), "rct"),
    "stuck_at_1": (lambda: stream(3, 1.0), 1500, (900, 1000), "rct"),
    "biased_90_percent_ones": (lambda: stream(4, 0.9), 1600, (), "apt"),
    "alternating": (lambda: periodic((0, 1)), 2200, (), None),
    "runs_of_48": (lambda: periodic((1,) * 48 + (0,) * 48), 400, (), "rct"),
}


@pytest.mark.parametrize("name", STREAMS)
def test_lock_step_with_model(name):
    bits, cycles, restarts, failing = STREAMS[name]
    inputs = schedule(bits(), cycles, seed=len(name), restarts=restarts)
    seen = simulate(EntropySource(), inputs)
    expected = model_outputs(EntropySourceModel(), inputs)
    for cycle, (got, want) in enumerate(zip(seen, expected)):
        assert got == want, f"cycle {cycle}: gateware {got}, model {want}"
    # the stream did what it was chosen for: words given, or the named test failed and no word since
    words = sum(1 for (ready, *_), (_, _, stb, _) in zip(seen, inputs) if ready and stb)
    if failing is None:
        assert words >= 10 and not any(s[1] for s in seen)
    else:
        first = next(i for i, s in enumerate(seen) if s[1])
        assert seen[-1][2 if failing == "rct" else 3] and not any(s[0] for s in seen[first:])


# ---- directed: what the firmware relies on, independently of the model -----------------------------------

def every_cycle(bits, stb=(), restarts=()):
    return [(bit, 1, int(i in stb), int(i in restarts)) for i, bit in enumerate(bits)]


def test_words_pop_and_restart():
    rng = random.Random(7)
    words = [rng.getrandbits(32) for _ in range(2)]
    warm = [rng.getrandbits(1) for _ in range(STARTUP_SAMPLES)]
    first = [w >> i & 1 for w in words for i in range(32)]
    start = STARTUP_SAMPLES
    # a sample every cycle; read the first word 3 cycles after it is ready (3 samples tested and dropped)
    read = start + 32 + 3
    bits = warm + first[:32] + [0, 1, 0] + [0] + first[32:] + [1] * 4
    seen = simulate(EntropySource(), every_cycle(bits, stb=(read,), restarts=(len(bits) - 2,)))
    ready = [s[0] for s in seen]
    startup = [s[4] for s in seen]
    assert startup.index(False) == start
    assert ready.index(True) == start + 32 and seen[start + 32][5] == words[0]
    assert all(ready[start + 32:read + 1]) and seen[read][5] == words[0]
    # the read takes the word (the sample of its cycle is dropped); 32 new samples make the next one
    assert not any(ready[read + 1:read + 33]) and all(s[5] == 0 for s in seen[read + 1:read + 33])
    assert ready[read + 33] and seen[read + 33][5] == words[1]
    # restart: the waiting word is forgotten and the start-up runs again
    assert seen[-1][4] and not seen[-1][0] and seen[-1][5] == 0


def test_failure_is_sticky_until_restart():
    rng = random.Random(8)
    healthy = [rng.getrandbits(1) for _ in range(STARTUP_SAMPLES + 200)]
    stuck = [1] * RCT_CUTOFF
    after = [rng.getrandbits(1) for _ in range(3000)]
    bits = healthy + stuck + after
    restart = len(bits) - STARTUP_SAMPLES - 40
    seen = simulate(EntropySource(), every_cycle(bits + [0] * 40, stb=range(0, len(bits), 7), restarts=(restart,)))
    # the run of RCT_CUTOFF ones (perhaps longer with the healthy tail's last ones) fails the test on its
    # RCT_CUTOFF-th one at the latest; from then on no word, whatever the samples, until restart
    failed_at = next(i for i, s in enumerate(seen) if s[1])
    assert len(healthy) < failed_at <= len(healthy) + RCT_CUTOFF
    assert all(s[1] and s[2] and not s[0] and s[5] == 0 for s in seen[failed_at:restart + 1])
    assert not seen[restart + 1][1] and seen[restart + 1][4]
    assert seen[-1][0] and not seen[-1][4]


def test_ready_timing_does_not_depend_on_sample_values():
    """Two healthy streams under one schedule of samples, reads and restarts: the same ready and start-up
    traces, cycle for cycle."""
    traces = []
    for seed in (11, 12):
        inputs = schedule(stream(seed), 3000, seed=5, restarts=(1700,))
        seen = simulate(EntropySource(), inputs)
        assert not any(s[1] for s in seen)
        traces.append([(s[0], s[4]) for s in seen])
    assert traces[0] == traces[1] and sum(r for r, _ in traces[0]) > 20
