"""The timing-leak test (jobs/leak.py): its statistics and report on made-up numbers, then a small run
in the simulated SoC where every constant-time path must take exactly the same number of cycles."""

import json
import math
import stat
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from common.errors import ProjectError
from sim import build as sim_build
from jobs import leak
from link.console import Timed
from soc import console_protocol as protocol

#: One worker runs the module: the small run below is made once.
pytestmark = pytest.mark.xdist_group("leak")

ROW_FIELDS = {"impl", "op", "case", "n", "min", "max", "spread", "mean", "t", "t_groups", "constant_time",
              "leak_free", "failed", "wrong_results", "cycles"}
REPORT_FIELDS = {"command", "date", "bits", "seed", "soc", "t_limit", "cases", "key_count", "message_count",
                 "measurements", "simulations", "seconds", "rows", "failed_rows", "wrong_results", "passed",
                 "slow_rows", "slow_messages"}


# ---- statistics ----

def test_welch_t_equal_sizes():
    # means 2.5 and 5, variances 5/3 and 20/3: t = -2.5 / sqrt((5/3 + 20/3) / 4) = -sqrt(3)
    assert leak.welch_t([1, 2, 3, 4], [2, 4, 6, 8]) == pytest.approx(-math.sqrt(3), rel=1e-12)


def test_welch_t_unequal_sizes_and_sign():
    # means 11 and 22, variances 2 and 4: t = 11 / sqrt(2/2 + 4/3) = 11 / sqrt(7/3)
    assert leak.welch_t([20, 22, 24], [10, 12]) == pytest.approx(11 / math.sqrt(7 / 3), rel=1e-12)


def test_welch_t_one_group_without_variance():
    # variance 0 and 1: t = (10 - 12) / sqrt(0/3 + 1/3)
    assert leak.welch_t([10, 10, 10], [11, 12, 13]) == pytest.approx(-2 / math.sqrt(1 / 3), rel=1e-12)


def test_welch_t_undefined_without_variance_and_difference():
    assert leak.welch_t([5, 5, 5], [5, 5]) is None
    # counts of a long operation: exact arithmetic, no rounding into a tiny variance
    big = 987_654_321_987
    assert leak.welch_t([big] * 16, [big] * 16) is None


def test_welch_t_infinite_without_variance_but_with_difference():
    assert leak.welch_t([5, 5], [6, 6, 6]) == -math.inf
    assert leak.welch_t([7, 7], [6, 6]) == math.inf


def test_welch_t_undefined_for_a_group_of_one():
    assert leak.welch_t([1], [2, 3]) is None
    assert leak.welch_t([], []) is None


def test_constant_time_claims_follow_the_protocol():
    assert leak.is_constant_time("hw_seq", "private_crt")
    assert not leak.is_constant_time("hw_seq_window", "private")
    assert not leak.is_constant_time("sw", "public")


def test_summarize_verdicts():
    same = [("edge", 1000, True)] * 3 + [("random", 1000, True)] * 5
    row = leak.summarize("one_key", "hw_seq", "private", same)
    assert (row["n"], row["min"], row["max"], row["spread"], row["t"]) == (8, 1000, 1000, 0, None)
    assert row["constant_time"] and row["leak_free"] and not row["failed"]

    varying = [("fixed", 1000, True), ("random", 1001, True), ("fixed", 1000, True), ("random", 1003, True)]
    row = leak.summarize("fixed_vs_random", "sw", "private_crt", varying)
    assert row["spread"] == 3 and row["t"] == pytest.approx(-2 / math.sqrt(2 / 2), rel=1e-12)
    assert not row["leak_free"] and row["failed"]

    row = leak.summarize("keys", "hw_seq_window", "private", [("", 900, True), ("", 1100, True)])
    assert row["t"] is None and row["t_groups"] is None
    assert not row["leak_free"] and not row["failed"]       # reported, not claimed constant-time

    row = leak.summarize("keys", "sw", "private", [("", 900, True), ("", 900, False)])
    assert row["wrong_results"] == 1


def test_edge_messages_are_distinct_and_below_n():
    n = (1 << 511) + 12345 * 2 + 1
    edges = leak.edge_messages(n)
    assert edges[:3] == [0, 1, n - 1]
    assert len(set(edges)) == len(edges) and all(0 <= m < n for m in edges)
    assert leak.edge_messages(7) == [0, 1, 6, 2, 3, 5, 4]


# ---- the report, on made-up measurements ----

def _synthetic_samples(leaking=()):
    """Constant counts for every row except those in `leaking` ((case, impl, op)), and the
    sliding-window sequencer, which varies with the key."""
    samples = {}
    for case, groups in leak.T_GROUPS.items():
        groups = groups or ("",)
        for impl in protocol.IMPLS:
            for op in leak.OPS:
                base = 10_000 + 100 * len(impl) + len(op)
                vary = (case, impl, op) in leaking or (impl == "hw_seq_window" and case == "keys")
                samples[(case, impl, op)] = [(groups[i % len(groups)], base + (i % 2) * (7 + i) * vary, True)
                                             for i in range(8)]
    return samples


def _report(samples, wrong=()):
    return leak.make_report(samples, list(wrong), bits=512, messages=8, keys=8, pairs=4, edges=4, seed="test",
                            soc={"cpu": "vexriscv", "variant": "full", "sys_clk_hz": 100_000_000,
                                 "peripheral": {"max_bits": 4096, "lanes": 4, "word_bits": 16, "slots": 16}},
                            command="python -m sim leak --size 512", simulations=2, seconds=1.0)


def test_report_without_leaks(tmp_path):
    report = _report(_synthetic_samples())
    leak.write(report, tmp_path)
    data = json.loads((tmp_path / "report.json").read_text())
    assert set(data) >= REPORT_FIELDS
    assert len(data["rows"]) == len(leak.CASES) * len(protocol.IMPLS) * len(leak.OPS)
    assert all(set(row) >= ROW_FIELDS for row in data["rows"])
    assert data["passed"] and data["failed_rows"] == [] and data["wrong_results"] == []
    window = [r for r in data["rows"] if r["impl"] == "hw_seq_window" and r["case"] == "keys"]
    assert all(r["spread"] > 0 and not r["leak_free"] and not r["failed"] for r in window)
    md = (tmp_path / "report.md").read_text()
    assert "| one_key | private | hw_seq | 8 | " in md and "undefined" in md and "nan" not in md.lower()
    assert "Every constant-time row passes" in md
    assert (tmp_path / "histogram.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    leak.check(data)


def test_histogram_shows_a_leak_as_bars_away_from_zero():
    report = _report(_synthetic_samples(leaking={("fixed_vs_random", "hw_cpu", "private_crt")}))
    bins = leak.histogram_bins(report)
    assert set(bins) == {(op, case) for op in leak.OPS for case in leak.CASES}
    assert bins[("private", "one_key")]["hw_seq"] == ([-0.5, 0.5], [8])        # nothing varies: one bar at 0
    edges, counts = bins[("private_crt", "fixed_vs_random")]["hw_cpu"]
    assert sum(counts) == 8 and counts[0] == 4 and sum(n > 0 for n in counts) == 5
    assert edges[0] == 0 and edges[-1] == 14                                  # offsets 0, 8, 10, 12, 14
    same_panel = bins[("private_crt", "fixed_vs_random")]["hw_seq"]
    assert same_panel == (edges, [8] + [0] * (len(edges) - 2))               # the panel's bins, all at 0


def test_report_names_a_leaking_row_and_check_fails(tmp_path):
    report = _report(_synthetic_samples(leaking={("fixed_vs_random", "hw_cpu", "private_crt")}))
    leak.write(report, tmp_path)
    data = json.loads((tmp_path / "report.json").read_text())
    assert not data["passed"]
    assert data["failed_rows"] == ["fixed_vs_random private_crt hw_cpu"]
    md = (tmp_path / "report.md").read_text()
    assert "Leaking constant-time rows: fixed_vs_random private_crt hw_cpu." in md
    with pytest.raises(ProjectError, match="1 constant-time rows leak: fixed_vs_random private_crt hw_cpu"):
        leak.check(data)


def test_infinite_t_is_valid_json(tmp_path):
    samples = _synthetic_samples()
    samples[("fixed_vs_random", "sw", "private")] = [("fixed", 5, True), ("random", 9, True)] * 4
    report = _report(samples)
    leak.write(report, tmp_path)
    [row] = [r for r in json.loads((tmp_path / "report.json").read_text())["rows"]
             if (r["case"], r["impl"], r["op"]) == ("fixed_vs_random", "sw", "private")]
    assert row["t"] == "-inf" and row["failed"]
    assert "| -inf |" in (tmp_path / "report.md").read_text()


def test_a_wrong_result_is_an_error_naming_the_row():
    samples = _synthetic_samples()
    samples[("keys", "hw_seq", "private")][3] = ("", 10_000, False)
    wrong = [(leak.Measurement("keys", 2, 0x1234, "", "hw_seq", "private"),
              Timed(op="private", impl="hw_seq", cycles=10_000, ok=True, result=0x99))]
    report = _report(samples, wrong)
    assert not report["passed"]
    assert "**WRONG RESULT**" in leak.markdown(report)
    with pytest.raises(ProjectError, match="1 wrong results, the first in row keys private hw_seq"):
        leak.check(report)


def test_plan_is_reproducible_and_complete():
    keys, jobs = leak.plan(512, messages=8, keys=3, pairs=2, seed="test-plan")
    again_keys, again_jobs = leak.plan(512, messages=8, keys=3, pairs=2, seed="test-plan")
    assert keys == again_keys and jobs == again_jobs
    assert len(keys) == 4 and len({k["n"] for k in keys}) == 4 and all(k["bits"] == 512 for k in keys)
    cases = [job[0].case for job in jobs]
    assert cases.count("one_key") == 8 and cases.count("keys") == 3 and cases.count("fixed_vs_random") == 4
    assert [job[0].group for job in jobs if job[0].case == "fixed_vs_random"] == ["fixed", "random"] * 2
    fixed = {job[0].message for job in jobs if job[0].group == "fixed"}
    assert len(fixed) == 1
    for job in jobs:
        assert {(m.impl, m.op) for m in job} == {(i, o) for i in protocol.IMPLS for o in leak.OPS}
        assert all(m.key == job[0].key and m.message == job[0].message < keys[m.key]["n"] for m in job)


def test_plan_runs_the_slow_row_on_fewer_messages_first():
    _, jobs = leak.plan(512, messages=8, keys=3, pairs=4, seed="test-plan", slow_messages=2)
    has_slow = [any((m.impl, m.op) in leak.SLOW for m in job) for job in jobs]
    slow = [job[0] for job, with_slow in zip(jobs, has_slow) if with_slow]
    assert [(m.case, m.group) for m in slow] == [("one_key", "edge"), ("one_key", "random"),
                                                 ("fixed_vs_random", "fixed"), ("fixed_vs_random", "random"),
                                                 ("keys", ""), ("keys", "")]
    assert has_slow == [True] * len(slow) + [False] * (len(jobs) - len(slow))      # the slow jobs first
    assert sum(len(job) for job in jobs) == 19 * len(protocol.IMPLS) * len(leak.OPS) - (19 - 6) * len(leak.SLOW)
    both = (("sw", "private"), ("sw", "private_crt"))           # the slow rows named by the caller
    _, jobs = leak.plan(512, messages=8, keys=3, pairs=4, seed="test-plan", slow_messages=2, slow=both)
    assert sum(len(job) for job in jobs) == 19 * len(protocol.IMPLS) * len(leak.OPS) - (19 - 6) * len(both)
    assert all(any((m.impl, m.op) == row for m in job) for job in jobs[:6] for row in both)


# ---- the runner, against a stand-in console ----

#: The stand-in console, tests/link's.
FAKE_CONSOLE = Path(__file__).parents[1] / "link" / "fake_console.py"


def _fake_build(tmp_path, mode):
    """A build whose `model` is tests/link/fake_console.py in `mode`."""
    model = tmp_path / f"fake-{mode}"
    model.write_text(f"#!/bin/sh\nexec {sys.executable} {FAKE_CONSOLE} {mode}\n")
    model.chmod(model.stat().st_mode | stat.S_IXUSR)
    from link.transport import SimEntropy
    return SimpleNamespace(model=model, gateware_dir=tmp_path, entropy=SimEntropy(),
                           soc_info={"cpu": "vexriscv", "variant": "fake", "sys_clk_hz": 100_000_000,
                                     "peripheral": sim_build.peripheral_info()})


def _fake_run(tmp_path, mode, **kwargs):
    progress = tmp_path / "progress.txt"
    with open(progress, "w") as out:
        report = leak.run(_fake_build(tmp_path, mode), 512, tmp_path / "leak", messages=6, keys=3, pairs=3,
                          seed="test-fake", timeout=60, progress=out, **kwargs)
    return report, progress.read_text()


def test_run_on_two_consoles(tmp_path):
    report, progress = _fake_run(tmp_path, "ok", slow_messages=2)
    assert report["passed"] and report["simulations"] == 2
    assert report["measurements"] == 15 * len(protocol.IMPLS) * len(leak.OPS) - (15 - 6) * len(leak.SLOW)
    assert progress.count("\n") == report["measurements"] and "WRONG" not in progress
    rows = {(r["case"], r["impl"], r["op"]): r for r in report["rows"]}
    assert rows[("one_key", "sw", "private")]["n"] == 2 and rows[("one_key", "sw", "private_crt")]["n"] == 6
    assert rows[("keys", "hw_seq_window", "private")]["spread"] > 0        # the fake's window follows d
    assert rows[("fixed_vs_random", "hw_seq", "private")]["spread"] == 0
    assert json.loads((tmp_path / "leak" / "report.json").read_text()) == report
    leak.check(report)


def test_run_finds_a_message_dependent_leak(tmp_path):
    report, _ = _fake_run(tmp_path, "leak", simulations=1)
    assert set(report["failed_rows"]) == {f"{case} private hw_seq" for case in leak.CASES if case != "candidates"}
    with pytest.raises(ProjectError, match="constant-time rows leak"):
        leak.check(report)


def test_run_reports_a_wrong_result(tmp_path):
    report, progress = _fake_run(tmp_path, "wrong")
    assert [(w["case"], w["op"], w["impl"], w["message"]) for w in report["wrong_results"]] == [
        ("one_key", "private_crt", "hw_cpu", "0x1")]
    assert "WRONG RESULT" in progress
    with pytest.raises(ProjectError, match="wrong results, the first in row one_key private_crt hw_cpu"):
        leak.check(report)


def test_run_stops_when_the_firmware_refuses(tmp_path):
    # two consoles run at once: whichever job the fake refuses first (message 0 or 1) stops the run
    with pytest.raises(ProjectError, match=r"refused `time private sw [01]`: error=unknown_command"):
        _fake_run(tmp_path, "refuse")


@pytest.mark.parametrize("args, named", [(["--messages", "1"], "--messages"), (["--size", "1000"], "--size"),
                                         (["--slow-messages", "x"], "--slow-messages"),
                                         (["--simulations", "0"], "--simulations")])
def test_bad_leak_options_are_refused(args, named):
    result = subprocess.run([sys.executable, "-m", "sim", "leak", *args], cwd=Path(__file__).parents[2],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert named in result.stderr and "Traceback" not in result.stderr


# ---- in the simulated SoC ----

#: The small run's plan: one_key's messages (half of them edge cases: 0, 1, n - 1), keys, fixed/random
#: pairs, and the messages of each case the slow rows run on. Every other row keeps at least two counts
#: in each t-test group; a constant-time row fails on any spread, whatever the number of counts.
SMALL_MESSAGES, SMALL_KEYS, SMALL_PAIRS, SMALL_SLOW_MESSAGES = 6, 3, 3, 2
SMALL_MESSAGE_COUNT = SMALL_MESSAGES + SMALL_KEYS + 2 * SMALL_PAIRS
#: Key generation's steps on 256-bit candidates (the prime factors' size of a 512-bit key): the fixed one
#: twice and two random ones, on every implementation (the software's 1.2 M cycles a step at most).
SMALL_CANDIDATES = 2
#: The slow rows: software private without CRT (leak.SLOW) and with it, 30.5 M and 35.6 M of the 73.5 M
#: cycles the run took with the second on every message. Both are constant-time rows: such a row fails
#: exactly when its counts spread (with no spread both t-test groups hold one value and t is undefined),
#: so two messages of each case (edge and random, fixed and random, two keys) put the same verdict to
#: the test as more messages would, the peripheral's rows keeping every message.
SMALL_SLOW_ROWS = (("sw", "private"), ("sw", "private_crt"))


@pytest.fixture(scope="module")
def small_run(sim_soc, tmp_path_factory):
    """A 512-bit run (the SMALL_* plan above): the software private rows on 2 messages of each case;
    the software rows on the SoC without the peripheral, as `python -m sim leak` runs them."""
    out_dir = tmp_path_factory.mktemp("leak")
    bare = sim_build.build_bare(sim_soc, log=lambda message: None)
    report = leak.run(sim_soc, 512, out_dir, messages=SMALL_MESSAGES, keys=SMALL_KEYS, pairs=SMALL_PAIRS,
                      slow_messages=SMALL_SLOW_MESSAGES, seed="test-leak", timeout=1200, bare=bare,
                      slow=SMALL_SLOW_ROWS, candidates=SMALL_CANDIDATES)
    return report, out_dir


def test_every_result_is_right(small_run):
    report, _ = small_run
    assert report["wrong_results"] == []
    assert all(row["wrong_results"] == 0 for row in report["rows"])


def test_constant_time_paths_take_exactly_the_same_cycles(small_run):
    report, _ = small_run
    constant = [row for row in report["rows"] if row["constant_time"]]
    assert {(r["impl"], r["op"]) for r in constant} == {
        (impl, op) for impl in protocol.CONSTANT_TIME_IMPLS for op in (*protocol.PRIVATE_OPS, *protocol.KEYGEN_STEPS)}
    leaking = [(r["case"], r["op"], r["impl"], r["min"], r["max"]) for r in constant if r["spread"] != 0]
    assert leaking == []
    assert all(r["leak_free"] and r["t"] is None for r in constant)
    assert report["passed"] and report["failed_rows"] == []
    leak.check(report)


def test_key_generation_steps_take_the_same_cycles_on_any_candidate(small_run):
    """A candidate's pre-test and a Miller-Rabin round, on a prime and on random (composite) candidates of one
    size: one count per (step, implementation), and every verdict right."""
    report, _ = small_run
    rows = {(r["op"], r["impl"]): r for r in report["rows"] if r["case"] == "candidates"}
    assert set(rows) == {(step, impl) for step in protocol.KEYGEN_STEPS for impl in protocol.IMPLS}
    for (step, impl), row in rows.items():
        assert row["n"] == 2 * SMALL_CANDIDATES and row["wrong_results"] == 0
        if impl in protocol.CONSTANT_TIME_IMPLS:
            assert row["spread"] == 0 and row["leak_free"], (step, impl, row["cycles"])


def test_the_sliding_window_is_seen_to_leak(small_run):
    """The test can see a leak: the window sequencer's time follows the key's exponent."""
    report, _ = small_run
    window = [r for r in report["rows"] if r["impl"] == "hw_seq_window" and r["case"] == "keys"
              and r["op"] in protocol.PRIVATE_OPS]
    assert len(window) == 2 and all(r["spread"] > 0 and not r["leak_free"] for r in window)


def test_report_files(small_run):
    report, out_dir = small_run
    data = json.loads((out_dir / "report.json").read_text())
    assert data == report
    assert set(data) >= REPORT_FIELDS and all(set(row) >= ROW_FIELDS for row in data["rows"])
    assert (data["bits"], data["key_count"], data["message_count"]) == (512, 1 + SMALL_KEYS, SMALL_MESSAGE_COUNT)
    assert data["measurements"] == data["message_count"] * len(protocol.IMPLS) * len(leak.OPS) \
        - (SMALL_MESSAGE_COUNT - 3 * SMALL_SLOW_MESSAGES) * len(SMALL_SLOW_ROWS) \
        + 2 * SMALL_CANDIDATES * len(protocol.IMPLS) * len(protocol.KEYGEN_STEPS)
    assert {(r["case"], r["n"]) for r in data["rows"] if (r["impl"], r["op"]) not in SMALL_SLOW_ROWS} == {
        ("one_key", SMALL_MESSAGES), ("keys", SMALL_KEYS), ("fixed_vs_random", 2 * SMALL_PAIRS),
        ("candidates", 2 * SMALL_CANDIDATES)}
    assert data["cases"]["candidates"]["candidate_bits"] == 256
    assert {r["n"] for r in data["rows"] if (r["impl"], r["op"]) in SMALL_SLOW_ROWS} == {SMALL_SLOW_MESSAGES}
    assert data["slow_rows"] == ["private sw", "private_crt sw"] and data["slow_messages"] == SMALL_SLOW_MESSAGES
    assert data["soc"]["cpu"] == "vexriscv" and data["soc"]["peripheral"]["lanes"] > 0
    assert all(len(row["cycles"]) == row["n"] and min(row["cycles"]) == row["min"] for row in data["rows"])
    assert (out_dir / "histogram.png").stat().st_size > 0
    md = (out_dir / "report.md").read_text()
    assert md == leak.markdown(data)
    assert md.count("\n| ") == 1 + len(data["rows"])      # header and one line per row
