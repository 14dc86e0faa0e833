"""`python -m sim leak`: does the time of a private-key operation depend on the message or the key?

Every measurement is one `time <op> <impl> <message>` command on the simulated SoC: the firmware runs
that one operation with the key last set by `key`, with interrupts masked and caches in a defined
state, and prints its cycle count and result. The simulation is cycle-accurate and deterministic,
so a constant-time path gives exactly the same count every time: any spread at all is a leak.

Three cases, each run on every implementation (protocol.IMPLS) for the private operations
(protocol.PRIVATE_OPS) and, for comparison only, the public one, and a fourth for key generation:

- one_key: one key; edge-case messages (0, 1, 2, n-1, n-2, short ones of a few bits, the top bit
  alone, all bits below it) and random messages below n.
- keys: a different random key of the same size for each measurement, one random message each.
- fixed_vs_random: one key; a fixed message and random messages, interleaved.
- candidates (with --candidates N > 0): the constant-time steps of key generation's prime search
  (protocol.KEYGEN_STEPS: a candidate's pre-test, one Miller-Rabin round), each one `keygen_step`
  command, on a fixed candidate (a prime) and N random ones of the same size (bits / 2, top two bits set,
  3 mod 4: numbers the search could make; nearly all composite), interleaved. Whether a candidate passed
  is checked against a primality test in Python (a wrong verdict counts as a wrong result).

Keys are made on the host (soc.keys.generate_key: a seeded prime generator, the key checked by the
`cryptography` package), so every run measures the same keys and messages. Every result is checked
against Python's `pow()`.

t is Welch's t statistic between two groups of one row's cycle counts: edge-case vs random messages
(one_key), fixed vs random message (fixed_vs_random); it is not computed for `keys` (null). It is
undefined (null) when both groups have no variance and the same mean, or a group has fewer than two
counts; infinite ("inf"/"-inf" in the JSON) when neither group varies but their means differ.

A row is leak-free when its spread (max - min) is 0 and t is undefined or |t| < T_LIMIT. A row
whose (impl, op) claims to be constant-time (protocol.CONSTANT_TIME_IMPLS x (protocol.PRIVATE_OPS and the
key-generation steps)) fails when it is not leak-free; the other rows are reported, never failed.

Outputs, under build/leak/: report.json (settings, SoC, one entry per row with its cycle counts),
report.md (the table) and histogram.png (each row's counts above its minimum: a constant-time row is
one bar at 0).
"""

import inspect
import math
import random
import sys
import threading
import time
from dataclasses import dataclass
from fractions import Fraction

from common import cache
from common import report as report_files
from common.errors import ProjectError
from common.paths import BUILD_DIR
from jobs import options, registry
from soc import config
from soc import console_protocol as protocol
from soc import keys as soc_keys

#: |t| at or above this is a leak (the usual threshold of fixed-vs-random timing tests, TVLA).
T_LIMIT = 4.5
CASES = {
    "one_key": "one key, edge-case and random messages",
    "keys": "a different random key for each measurement, one random message each",
    "fixed_vs_random": "one key, a fixed message interleaved with random messages",
    "candidates": "key generation's prime search: a fixed candidate (a prime) interleaved with random ones",
}
#: What t compares in each case (None: not computed).
T_GROUPS = {"one_key": ("edge", "random"), "keys": None, "fixed_vs_random": ("fixed", "random"),
            "candidates": ("fixed", "random")}
#: The operations measured: the private ones, and the public one for comparison.
OPS = (*protocol.PRIVATE_OPS, "public")
#: The key-generation steps measured in the case `candidates` (each a row's `op`).
KEYGEN_STEPS = tuple(protocol.KEYGEN_STEPS)
#: Every row's op, in the report's order.
ALL_OPS = (*OPS, *KEYGEN_STEPS)
DEFAULT_SEED = "leak"
#: The slowest (impl, op): software without CRT, about 3x software with CRT and over 100x the
#: peripheral (29.6 M cycles at 1024 bits: 40 s or more of simulation). --slow-messages limits it.
SLOW = (("sw", "private"),)


def is_constant_time(impl, op):
    """Whether (impl, op) claims to be constant-time, so that a leak in it fails the run."""
    return impl in protocol.CONSTANT_TIME_IMPLS and (op in protocol.PRIVATE_OPS or op in KEYGEN_STEPS)


# ---- statistics ----

def welch_t(a, b):
    """Welch's t of samples `a` and `b` (sample variances), computed exactly in rationals.

    None when it is undefined: a group with fewer than two values, or no variance in either group
    and equal means. +-math.inf when neither group varies but the means differ."""
    if len(a) < 2 or len(b) < 2:
        return None
    mean_a, mean_b = Fraction(sum(a), len(a)), Fraction(sum(b), len(b))
    var_a = sum((x - mean_a) ** 2 for x in a) / (len(a) - 1)
    var_b = sum((x - mean_b) ** 2 for x in b) / (len(b) - 1)
    squared_error = var_a / len(a) + var_b / len(b)
    if squared_error == 0:
        return None if mean_a == mean_b else math.copysign(math.inf, mean_a - mean_b)
    return float(mean_a - mean_b) / math.sqrt(squared_error)


def summarize(case, impl, op, samples):
    """One row of the report from `samples`: [(group, cycles, result_ok)] of one (case, impl, op)."""
    cycles = [c for _, c, _ in samples]
    groups = T_GROUPS[case]
    t = welch_t(*([c for g, c, _ in samples if g == name] for name in groups)) if groups else None
    spread = max(cycles) - min(cycles)
    leak_free = spread == 0 and (t is None or abs(t) < T_LIMIT)
    constant_time = is_constant_time(impl, op)
    return {
        "case": case, "impl": impl, "op": op, "n": len(cycles),
        "min": min(cycles), "max": max(cycles), "spread": spread,
        "mean": sum(cycles) / len(cycles),
        "t": t, "t_groups": "{} vs {}".format(*groups) if groups else None,
        "constant_time": constant_time,
        "leak_free": leak_free,
        "failed": constant_time and not leak_free,
        "wrong_results": sum(not ok for _, _, ok in samples),
        "cycles": cycles,
    }


def _json_t(t):
    return t if t is None or math.isfinite(t) else ("inf" if t > 0 else "-inf")


def _md_t(t):
    if t is None:
        return "undefined"
    if isinstance(t, str) or not math.isfinite(t):
        return f"{'-' if str(t).startswith('-') else ''}inf"
    return f"{t:.2f}"


# ---- what to measure ----

@dataclass(frozen=True)
class Measurement:
    case: str
    key: int            # index into the plan's keys (None for a key-generation step: no key)
    message: int        # or the candidate of a key-generation step
    group: str          # the t-test group the message belongs to ("" when none)
    impl: str
    op: str


def make_key(bits, seed):
    """A reproducible key of `bits` bits (cached: a 4096-bit key takes seconds to find)."""
    generator = "".join(inspect.getsource(f) for f in
                        (soc_keys.is_probable_prime, soc_keys.random_prime, soc_keys.generate_key))
    stored = cache.cached_json(soc_keys.KEYS_CACHE, f"leak-{bits}", (seed, config.PUBLIC_EXPONENT, generator),
                               lambda: {k: hex(v) for k, v in soc_keys.generate_key(bits, seed=seed).items()})
    return {k: int(v, 16) for k, v in stored.items()}


def edge_messages(n):
    """Messages that a data-dependent shortcut would treat differently, most telling first."""
    bits = n.bit_length()
    candidates = [0, 1, n - 1, 2, 3, 0xff, n - 2, 1 << (bits - 1), 5, 0xffff, (1 << (bits - 1)) - 1]
    return list(dict.fromkeys(m for m in candidates if 0 <= m < n))


def plan(bits, messages=32, keys=8, pairs=16, seed=DEFAULT_SEED, slow_messages=None,
         impls=tuple(protocol.IMPLS), ops=OPS, slow=SLOW):
    """(keys, jobs): the keys to set and the measurements, grouped into jobs of one key and one
    message each (the (impl, op) pairs measured on that message). keys[0] serves one_key and
    fixed_vs_random. With `slow_messages`, the `slow` rows ((impl, op) pairs, SLOW unless told)
    run on that many messages of each case only, shared evenly between the case's t-test groups;
    the jobs holding them come first, so that the simulations finish together."""
    rng = random.Random(f"{seed}-{bits}-messages")
    key_list = [make_key(bits, f"{seed}-one-key")] + [make_key(bits, f"{seed}-key-{i}") for i in range(keys)]
    n = key_list[0]["n"]
    messages_of = []            # (case, key, message, group)
    edges = edge_messages(n)[:messages // 2]
    messages_of += [("one_key", 0, m, "edge") for m in edges]
    messages_of += [("one_key", 0, rng.randrange(n), "random") for _ in range(messages - len(edges))]
    fixed = rng.randrange(n)
    for _ in range(pairs):
        messages_of += [("fixed_vs_random", 0, fixed, "fixed"), ("fixed_vs_random", 0, rng.randrange(n), "random")]
    messages_of += [("keys", i, rng.randrange(key_list[i]["n"]), "") for i in range(1, keys + 1)]

    with_slow_rows = [True] * len(messages_of)
    if slow_messages is not None:
        for case, groups in T_GROUPS.items():
            groups = groups or ("",)
            for rank, group in enumerate(groups):
                quota = slow_messages // len(groups) + (rank < slow_messages % len(groups))
                indices = [i for i, (c, _, _, g) in enumerate(messages_of) if (c, g) == (case, group)]
                for i in indices[quota:]:
                    with_slow_rows[i] = False
    jobs = []
    for (case, key, message, group), with_slow in zip(messages_of, with_slow_rows):
        jobs.append([Measurement(case, key, message, group, impl, op) for impl in impls for op in ops
                     if with_slow or (impl, op) not in slow])
    jobs.sort(key=lambda job: not any((m.impl, m.op) in slow for m in job))        # stable
    return key_list, jobs


def candidate_jobs(bits, candidates, seed=DEFAULT_SEED, impls=tuple(protocol.IMPLS)):
    """The jobs of the case `candidates`: a fixed candidate of bits / 2 bits (a prime) and `candidates` random
    ones, interleaved, one job each (every key-generation step on every implementation of `impls`)."""
    half = bits // 2
    rng = random.Random(f"{seed}-{bits}-candidates")
    form = 3 << (half - 2) | 3                      # what the search makes: top two bits set, 3 mod 4
    fixed = next(c for c in iter(lambda: rng.getrandbits(half) | form, None) if soc_keys.is_probable_prime(c, rng))
    pairs = [(group, c) for _ in range(candidates) for group, c in (("fixed", fixed),
                                                                     ("random", rng.getrandbits(half) | form))]
    return [[Measurement("candidates", None, c, group, impl, step) for impl in impls for step in KEYGEN_STEPS]
            for group, c in pairs]


def expected(key, op, message):
    return pow(message, key["e"] if op == "public" else key["d"], key["n"])


def step_verdict(candidate):
    """What a key-generation step must say of `candidate`: 1 when it is (probably) prime."""
    return int(soc_keys.is_probable_prime(candidate, random.Random(candidate)))


# ---- running it ----

def by_soc(job_list):
    """The jobs as (peripheral, measurements): each job's rows that never touch the peripheral
    (software) first, in the planned order, for the SoC without the peripheral, which simulates
    them about twice as fast with the same counts (sim/build.py's build_bare); then the rows on the
    peripheral. A simulation switches SoC at most once."""
    software = [[m for m in job if m.impl not in protocol.PERIPHERAL_IMPLS] for job in job_list]
    hardware = [[m for m in job if m.impl in protocol.PERIPHERAL_IMPLS] for job in job_list]
    return [(False, job) for job in software if job] + [(True, job) for job in hardware if job]


@dataclass(frozen=True)
class _Job:
    """A job of the simulations (sim.pool): measurements of one key on one SoC."""
    peripheral: bool
    measurements: list


def measure(build, key_list, job_list, simulations=2, timeout=4 * 3600, progress=sys.stderr, bare=None):
    """Runs the jobs on `simulations` simulations in parallel, each taking the next job when it is
    free; the software rows on `bare` (the SoC without the peripheral) when given. Returns
    (samples, wrong): {(case, impl, op): [(group, cycles, result_ok)]} and the measurements whose
    result was wrong, [(measurement, link.console.Timed)]. Raises a ConsoleError (a ProjectError) when
    the firmware refuses a command or does not answer as it should."""
    started = time.monotonic()
    total = sum(len(job) for job in job_list)
    samples, wrong = {}, []
    lock = threading.Lock()
    keys_set = {}                   # simulation (its console's id) -> the key it holds

    def record(m, timed):
        if m.op in KEYGEN_STEPS:
            ok = int(timed.passed) == step_verdict(m.message)
        else:
            ok = timed.ok and timed.result == expected(key_list[m.key], m.op, m.message)
        with lock:
            samples.setdefault((m.case, m.impl, m.op), []).append((m.group, timed.cycles, ok))
            if not ok:
                wrong.append((m, timed))
            done = sum(len(s) for s in samples.values())
            progress.write(f"[leak {time.monotonic() - started:6.0f} s] {done:>4}/{total} {m.case:<15} "
                           f"{m.op:<11} {m.impl:<13} {timed.cycles:>13,} cycles "
                           f"{'ok' if ok else 'WRONG RESULT'}\n")
            progress.flush()

    def run_job(console, job):
        key = job.measurements[0].key
        if key is not None and keys_set.get(id(console)) != (console, key):
            console.set_key(key_list[key])
            keys_set[id(console)] = (console, key)
        for m in job.measurements:
            if m.op in KEYGEN_STEPS:
                record(m, console.keygen_step(m.op, m.message, m.impl))
            else:
                record(m, console.time(m.op, m.impl, m.message))
        return [f"{m.case} {m.op} {m.impl}" for m in job.measurements]

    from sim import pool
    jobs = [_Job(peripheral, job) for peripheral, job in by_soc(job_list)]
    pool.run_jobs({True: build, False: bare or build}, jobs, run_job, "measurements", simulations, timeout)
    return samples, wrong


def soc_info(build):
    """The CPU and the peripheral configuration, as the benchmark records them."""
    return dict(build.soc_info)


def make_report(samples, wrong, *, bits, messages, keys, pairs, edges, seed, soc, command, simulations,
                seconds, slow_messages=None, slow=SLOW, candidates=0):
    """The report (a JSON-ready dict) of measured `samples` and `wrong` results (see `measure`)."""
    rows = [summarize(case, impl, op, samples[(case, impl, op)])
            for case in CASES for op in ALL_OPS for impl in protocol.IMPLS if (case, impl, op) in samples]
    for row in rows:
        row["t"] = _json_t(row["t"])
    report = {
        "command": command,
        "date": time.strftime("%Y-%m-%d"),
        "bits": bits,
        "seed": seed,
        "soc": soc,
        "t_limit": T_LIMIT,
        "cases": {
            "one_key": {"what": CASES["one_key"], "keys": 1, "messages": messages, "edge_messages": edges,
                        "t": "edge-case vs random messages"},
            "keys": {"what": CASES["keys"], "keys": keys, "messages": keys, "t": None},
            "fixed_vs_random": {"what": CASES["fixed_vs_random"], "keys": 1, "messages": 2 * pairs,
                                "t": "fixed vs random message"},
            "candidates": {"what": CASES["candidates"], "candidate_bits": bits // 2, "candidates": 2 * candidates,
                           "steps": list(KEYGEN_STEPS), "t": "fixed vs random candidate"},
        },
        "slow_rows": [f"{op} {impl}" for impl, op in slow] if slow_messages is not None else [],
        "slow_messages": slow_messages,
        "key_count": 1 + keys,
        "message_count": messages + 2 * pairs + keys,
        "measurements": sum(len(s) for s in samples.values()),
        "simulations": simulations,
        "seconds": round(seconds, 1),
        "rows": rows,
        "failed_rows": [_row_name(r) for r in rows if r["failed"]],
        "wrong_results": [_wrong(m, timed) for m, timed in wrong],
    }
    report["passed"] = not report["failed_rows"] and not report["wrong_results"]
    return report


def _wrong(m, timed):
    if m.op in KEYGEN_STEPS:
        return {"case": m.case, "impl": m.impl, "op": m.op, "message": hex(m.message), "key": None,
                "ok": int(timed.passed), "result": f"passed={int(timed.passed)}"}
    return {"case": m.case, "impl": m.impl, "op": m.op, "message": hex(m.message), "key": m.key,
            "ok": int(timed.ok), "result": hex(timed.result)}


def write(report, out_dir):
    report_files.write(out_dir, "report", report, markdown, allow_nan=False)
    histogram(report, out_dir / "histogram.png")


#: Bins of a panel whose counts vary; a panel where nothing varies has one bin, at 0.
HISTOGRAM_BINS = 24


def histogram_bins(report):
    """The histogram's data: {(op, case): {impl: (bin edges, counts)}} of each row's cycle counts
    above that row's minimum, the bins shared by a panel (one bin at 0 when no row in it varies)."""
    panels = {}
    for row in report["rows"]:
        panels.setdefault((row["op"], row["case"]), {})[row["impl"]] = [c - row["min"] for c in row["cycles"]]
    bins = {}
    for key, offsets in panels.items():
        top = max(max(o) for o in offsets.values())
        edges = ([-0.5, 0.5] if top == 0 else
                 [top * i / HISTOGRAM_BINS for i in range(HISTOGRAM_BINS + 1)])
        bins[key] = {}
        for impl, values in offsets.items():
            counts = [0] * (len(edges) - 1)
            for v in values:
                counts[next(i for i, upper in enumerate(edges[1:]) if v <= upper)] += 1
            bins[key][impl] = (edges, counts)
    return bins


def histogram(report, path):
    """histogram.png: one panel per (operation, case), one row of bars per implementation (its
    counts above its own minimum, heights scaled to the row's largest bin)."""
    plt = report_files.pyplot()
    bins = histogram_bins(report)
    ops = [op for op in ALL_OPS if any(key[0] == op for key in bins)]
    cases = [case for case in CASES if any(key[1] == case for key in bins)]
    fig, axes = plt.subplots(len(ops), len(cases), figsize=(5 * len(cases), 2.2 + 1.6 * len(ops)),
                             squeeze=False)
    for r, op in enumerate(ops):
        for c, case in enumerate(cases):
            ax = axes[r][c]
            panel = bins.get((op, case), {})
            impls = [impl for impl in protocol.IMPLS if impl in panel]
            for y, impl in enumerate(impls):
                edges, counts = panel[impl]
                color = "tab:blue" if is_constant_time(impl, op) else "tab:orange"
                width = (edges[1] - edges[0]) / (3 if len(counts) == 1 else 1)     # a lone bin drawn narrow
                for i, n in enumerate(counts):
                    if n:
                        ax.bar((edges[i] + edges[i + 1]) / 2, 0.8 * n / max(counts), width=width,
                               bottom=y - 0.4, color=color, edgecolor="black", linewidth=0.4)
            ax.set_yticks(range(len(impls)))
            ax.set_yticklabels([f"{impl}{'' if is_constant_time(impl, op) else ' (not CT)'}, "
                                f"n={sum(panel[impl][1])}" for impl in impls], fontsize=7)
            ax.set_ylim(-0.6, len(impls) - 0.4)
            if all(len(panel[impl][1]) == 1 for impl in impls):      # nothing varies: the one bin, at 0
                ax.set_xlim(-1, 1)
                ax.set_xticks([0])
            ax.set_title(f"{protocol.OPS.get(op, op)}: {case}", fontsize=9)
            ax.set_xlabel("cycles above the row's minimum", fontsize=8)
            ax.tick_params(axis="x", labelsize=7)
            ax.grid(True, axis="x", alpha=0.3)
    fig.suptitle(f"Timing-leak test, RSA-{report['bits']} ({report['date']}): a constant-time row (blue) "
                 "must be one bar at 0")
    fig.tight_layout()
    report_files.save_figure(fig, path, dpi=100)


def run(build, bits, out_dir, messages=32, keys=8, pairs=16, seed=DEFAULT_SEED, slow_messages=None,
        simulations=2, timeout=4 * 3600, progress=sys.stderr, command=None, bare=None, slow=SLOW, candidates=0,
        candidate_impls=tuple(protocol.IMPLS)):
    """Plans, measures and writes report.{json,md} and histogram.png to `out_dir`; returns the
    report. `bare`: the SoC without the peripheral (sim.build.build_bare) for the software rows;
    `slow`: the rows `slow_messages` limits (see `plan`); `candidates`: random candidates (and as many
    times the fixed one) for the key-generation steps on `candidate_impls` (0: none). A wrong result or
    a leak is in the report, not raised: `check(report)` raises for them."""
    started = time.monotonic()
    key_list, job_list = plan(bits, messages, keys, pairs, seed, slow_messages, slow=slow)
    job_list += candidate_jobs(bits, candidates, seed, candidate_impls)
    samples, wrong = measure(build, key_list, job_list, simulations, timeout, progress, bare)
    report = make_report(
        samples, wrong, bits=bits, messages=messages, keys=keys, pairs=pairs, slow_messages=slow_messages,
        slow=slow, candidates=candidates,
        edges=sum(job[0].group == "edge" for job in job_list), seed=seed, soc=soc_info(build),
        command=command or (f"python -m sim leak --size {bits} --messages {messages} --keys {keys} "
                            f"--pairs {pairs} --candidates {candidates}"),
        simulations=simulations, seconds=time.monotonic() - started)
    write(report, out_dir)
    return report


def _row_name(row):
    return f"{row['case']} {row['op']} {row['impl']}"


def check(report):
    """Raises ProjectError naming the rows when a result was wrong or a constant-time row leaks."""
    if report["wrong_results"]:
        first = report["wrong_results"][0]
        raise ProjectError(f"{len(report['wrong_results'])} wrong results, the first in row "
                           f"{first['case']} {first['op']} {first['impl']} (message {first['message'][:20]}, "
                           f"ok={first['ok']})")
    if report["failed_rows"]:
        raise ProjectError(f"{len(report['failed_rows'])} constant-time rows leak: "
                           + ", ".join(report["failed_rows"]))


def _verdict(row):
    if row["wrong_results"]:
        return "**WRONG RESULT**"
    if row["constant_time"]:
        return "pass" if row["leak_free"] else "**LEAK**"
    return "no leak seen" if row["leak_free"] else "leaks (not claimed constant-time)"


def markdown(report):
    soc = report["soc"]
    cases = report["cases"]
    lines = [f"Timing-leak test, RSA-{report['bits']}: cycles of one operation as counted by the firmware's "
             f"`time` command (interrupts masked, caches in a defined state); {report_files.soc_text(soc)}. "
             f"`{report['command']}`, {report['date']}, {report['key_count']} keys, "
             f"{report['message_count']} messages, {report['measurements']} measurements "
             f"in {report['seconds']:.0f} s on {report['simulations']} simulations.", "",
             f"- one_key: {cases['one_key']['messages']} messages with one key "
             f"({cases['one_key']['edge_messages']} edge cases: 0, 1, n-1, 2, short ones, ...; the rest random);",
             f"- keys: {cases['keys']['keys']} random keys, one random message each;",
             "- fixed_vs_random: one key, a fixed message and random ones, "
             f"{cases['fixed_vs_random']['messages'] // 2} of each, interleaved.", ""]
    if cases["candidates"]["candidates"]:
        lines[-1:] = [f"- candidates: key generation's {' and '.join(cases['candidates']['steps'])} "
                      "(`keygen_step`: a candidate's pre-test, one Miller-Rabin round) on a fixed "
                      f"{cases['candidates']['candidate_bits']}-bit candidate, a prime, and random ones of that size "
                      f"(top two bits set, 3 mod 4), {cases['candidates']['candidates'] // 2} of each, interleaved; "
                      "each verdict checked against a primality test in Python.", ""]
    if report["slow_rows"]:
        lines[-1:] = ["", f"The slowest rows ({', '.join(report['slow_rows'])}) ran on {report['slow_messages']} "
                      "messages of each case only (--slow-messages; their n says so).", ""]
    lines += ["spread = max - min cycles: on a constant-time path it must be 0 (the simulation is cycle-exact). "
              "t = Welch's t between edge-case and random messages (one_key) or fixed and random message or "
              "candidate (fixed_vs_random, candidates), not computed for keys; undefined when neither group varies "
              "and their means "
              f"agree. A constant-time row passes when spread = 0 and |t| < {report['t_limit']} (or undefined); "
              "public rows and the sliding-window sequencer are shown for comparison and not checked.", "",
              "| case | operation | implementation | n | min cycles | max cycles | spread | t | constant-time "
              "| verdict |",
              "|---|---|---|---:|---:|---:|---:|---:|:-:|---|"]
    for row in report["rows"]:
        lines.append(f"| {row['case']} | {row['op']} | {row['impl']} | {row['n']} | {row['min']:,} | "
                     f"{row['max']:,} | {row['spread']:,} | {_md_t(row['t'])} | "
                     f"{'yes' if row['constant_time'] else 'no'} | {_verdict(row)} |")
    lines.append("")
    if report["passed"]:
        lines.append("Every constant-time row passes; every result agreed with Python's pow().")
    else:
        if report["failed_rows"]:
            lines.append("Leaking constant-time rows: " + ", ".join(report["failed_rows"]) + ".")
        if report["wrong_results"]:
            lines.append("Rows with wrong results: " + ", ".join(sorted(
                {f"{w['case']} {w['op']} {w['impl']}" for w in report["wrong_results"]})) + ".")
    lines.append("")
    return "\n".join(lines)


# ---- the job: `python -m sim leak` ----

def _count_or_all(text):
    if text == "all":
        return None
    return options.at_least(0)(text)


def add_arguments(parser):
    options.add_size(parser, default=1024)
    parser.add_argument("--messages", type=options.at_least(2), default=32, metavar="N",
                        help="messages with one key, edge cases and random (default: %(default)s)")
    parser.add_argument("--keys", type=options.at_least(0), default=8, metavar="N",
                        help="random keys, one random message each (default: %(default)s)")
    parser.add_argument("--pairs", type=options.at_least(0), default=16, metavar="N",
                        help="fixed and random messages each, interleaved (default: %(default)s)")
    parser.add_argument("--candidates", type=options.at_least(0), default=8, metavar="N",
                        help="key generation's constant-time steps (a candidate's pre-test, a Miller-Rabin round) on "
                             "N random candidates of --size / 2 bits and N times a fixed one, interleaved, on every "
                             "implementation; 0: none (default: %(default)s)")
    parser.add_argument("--slow-messages", type=_count_or_all, default=8, metavar="N|all",
                        help="messages of each case the slowest row (software private without CRT, 40 s or more "
                             "of simulation per 1024-bit operation) runs on (default: %(default)s)")
    options.add_seed(parser, DEFAULT_SEED, "the keys and messages")
    options.add_out(parser, BUILD_DIR / "leak")
    options.add_simulations(parser)


def main(args, log):
    """The test over parallel simulations (software rows on the SoC without the peripheral); exits 1
    (a ProjectError) on a wrong result or a leaking constant-time row."""
    from sim import build as sim_build
    build = options.simulation(args, log)
    bare = sim_build.build_bare(build, log=log)
    slow = "all" if args.slow_messages is None else args.slow_messages
    command = (f"python -m sim leak --size {args.size} --messages {args.messages} --keys {args.keys} "
               f"--pairs {args.pairs} --candidates {args.candidates} --slow-messages {slow}"
               + (f" --seed {args.seed}" if args.seed != DEFAULT_SEED else ""))
    report = run(build, args.size, args.out, messages=args.messages, keys=args.keys, pairs=args.pairs,
                 slow_messages=args.slow_messages, seed=args.seed, simulations=args.simulations,
                 candidates=args.candidates,
                 timeout=args.timeout, progress=options.progress(args), command=command, bare=bare)
    print(markdown(report))
    print(f"report: {args.out}/report.{{json,md}}")
    check(report)
    return 0


registry.register(registry.Job(
    "leak", "the timing-leak test, build/leak/", main, add_arguments=add_arguments,
    groups=(options.BUILD,), timeout=14400,
    description="Time private-key operations on every implementation with many messages and keys, and key "
                "generation's constant-time steps on many candidates; writes report.{json,md} and histogram.png, "
                "and exits 1 if a constant-time path leaks."))
