"""`python -m sim keygen --sizes BITS[,BITS...]`: RSA key generation on the softcore (the firmware's `keygen`), checked
on the host.

Each key comes from a seed of its own, drawn from a seed text (`--seed`), so a run repeats and no two
keys of a run share a seed; every implementation asked for gets the same seeds, and must make the same
key of each (the firmware's generator is written once over the backends, which differ in time only).
The generations are independent, so they are dealt to parallel simulations as jobs/bench.py deals its
rows: the software ones to the SoC without the peripheral (sim.build.build_bare, about three times as
fast to simulate), longest first, each simulation taking the next when it is free.

Every key is written as PEM (`cryptography`, with the CRT values computed from the device's d, p and q,
which `key export` prints after each `keygen`: keygen itself prints n and e only)
and checked: by our own arithmetic (sizes, n = p q, p and q probable primes, e d = 1 mod lcm(p-1, q-1),
the FIPS 186-5 bounds on d and on |p - q|), by `cryptography` (it loads the key, which validates it,
and a signature round trip) and by Debian's `openssl pkey -check`. A key that fails any check, or
implementations that disagree on a seed's key, fail the run (`check`, exit 1).

Outputs, under build/keygen/: keys/<impl>-<bits>-<index>.pem, report.json (every key, its counts and
checks, and the summary rows), report.md (the summary and the targets) and report.png
(cycles per key against key size, one column of points per implementation).
"""

import dataclasses
import hashlib
import math
import random
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from common import report as report_files
from common.errors import ProjectError
from common.paths import BUILD_DIR
from jobs import options, registry
from sim import pool
from soc import config
from soc import console_protocol as protocol
from soc import keys

DEFAULT_SEED = "keygen"
#: The sizes the firmware's keygen takes: multiples of 64 from 512 to the largest operand it is built for
#: (BN_MAX_BITS: the largest key size).
MIN_BITS, MAX_BITS = 512, max(config.KEY_SIZES)
DEFAULT_IMPLS = ("hw_seq",)
#: Bytes of each key's seed (the fewest the firmware takes; at most 64).
SEED_BYTES = protocol.KEYGEN_MIN_SEED
#: The key-generation targets: the median over TARGET_SEEDS seeds of a key generation on TARGET_IMPL, in
#: cycles, at most this.
TARGET_IMPL = "hw_seq"
TARGET_SEEDS = 16
TARGETS = {2048: 20_000_000, 1024: 4_000_000}
PUBLIC_EXPONENT = 65537
#: Miller-Rabin rounds of the host's own primality check (random bases: error below 4^-64).
HOST_MR_ROUNDS = 64
#: The message of the signature round trip.
ROUND_TRIP_MESSAGE = b"key generated on the softcore"
#: The checks of a key, with what each asserts, in the order the report lists them.
CHECKS = {
    "device": "the device's own check passed (ok=1: x^e^d = x with CRT)",
    "sizes": "n has the bits asked for, p and q half of them each",
    "n_is_pq": "n = p q",
    "p_prime": "p is a probable prime (64 Miller-Rabin rounds on the host)",
    "q_prime": "q is a probable prime (64 Miller-Rabin rounds on the host)",
    "e": f"e = {PUBLIC_EXPONENT}",
    "d_inverse": "e d = 1 mod lcm(p-1, q-1), d < lcm(p-1, q-1)",
    "d_large": "d > 2^(bits/2)",
    "p_q_apart": "|p - q| > 2^(bits/2 - 100)",
    "cryptography_loads": "cryptography loads the key (its own validation)",
    "sign_verify": "a PKCS#1 v1.5 SHA-256 signature made with the key verifies with its public key",
    "openssl_check": "openssl pkey -check passes",
}


def seeds(text, count):
    """`count` seeds of SEED_BYTES bytes from `text`: the same text gives the same seeds."""
    return [hashlib.sha256(f"{text}-{index}".encode()).digest()[:SEED_BYTES] for index in range(count)]


@dataclasses.dataclass(frozen=True)
class Job:
    impl: str
    bits: int
    index: int
    seed: bytes

    @property
    def peripheral(self):
        return self.impl in protocol.PERIPHERAL_IMPLS

    @property
    def name(self):
        return f"{self.impl}-{self.bits}-{self.index}"


def plan(sizes, impls, seed_list):
    """Every (impl, size, seed), the slowest first: software, then the larger sizes."""
    jobs = [Job(impl, bits, index, seed) for impl in impls for bits in sizes for index, seed in enumerate(seed_list)]
    return sorted(jobs, key=lambda job: (job.peripheral, -job.bits, list(protocol.IMPLS).index(job.impl), job.index))


def is_probable_prime(x, rounds=HOST_MR_ROUNDS):
    """Miller-Rabin with random bases (soc.keys'), the generator seeded by x (a check repeats)."""
    return x > 1 and keys.is_probable_prime(x, random.Random(x), rounds)


def private_key(made, validate=True):
    """The `cryptography` private key of `made` (anything with n, e, d, p, q), the CRT values computed
    from d, p and q. validate=False: without cryptography's validation (to write out a key that fails
    it); raises ValueError when even that cannot be built."""
    from cryptography.hazmat.primitives.asymmetric import rsa
    numbers = rsa.RSAPrivateNumbers(made.p, made.q, made.d, rsa.rsa_crt_dmp1(made.d, made.p),
                                    rsa.rsa_crt_dmq1(made.d, made.q), rsa.rsa_crt_iqmp(made.p, made.q),
                                    rsa.RSAPublicNumbers(made.e, made.n))
    return numbers.private_key(unsafe_skip_rsa_key_validation=not validate)


def pem_bytes(key):
    from cryptography.hazmat.primitives import serialization
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                             serialization.NoEncryption())


def openssl_check(pem_path):
    """(passed, what openssl said) of `openssl pkey -check -noout -in pem_path`."""
    try:
        result = subprocess.run(["openssl", "pkey", "-check", "-noout", "-in", str(pem_path)], capture_output=True,
                                text=True, timeout=60)
    except FileNotFoundError:
        raise ProjectError("openssl is not installed (tools/setup.sh installs Debian's)") from None
    said = (result.stdout + result.stderr).strip()
    return result.returncode == 0 and "Key is valid" in said, said


def check_key(made, bits, pem_path):
    """The checks of CHECKS on `made` (a link.console.GeneratedKey), {name: passed}; writes the key as PEM
    to `pem_path` when it can be built at all."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding
    n, e, d, p, q = made.n, made.e, made.d, made.p, made.q
    half = bits // 2
    lcm = math.lcm(p - 1, q - 1) if p > 1 and q > 1 else 0
    checks = {
        "device": bool(made.ok),
        "sizes": (n.bit_length(), p.bit_length(), q.bit_length()) == (bits, half, bits - half),
        "n_is_pq": n == p * q,
        "p_prime": is_probable_prime(p),
        "q_prime": is_probable_prime(q),
        "e": e == PUBLIC_EXPONENT,
        "d_inverse": lcm > 0 and 0 < d < lcm and e * d % lcm == 1,
        "d_large": d > 1 << half,
        "p_q_apart": abs(p - q) > 2 ** (half - 100),
    }
    try:
        key = private_key(made)
        checks["cryptography_loads"] = True
    except ValueError:
        checks["cryptography_loads"] = False
        try:
            key = private_key(made, validate=False)
        except ValueError:
            key = None
    checks["sign_verify"] = False
    checks["openssl_check"] = False
    pem_path.unlink(missing_ok=True)           # not an earlier run's key
    if key is not None:
        pem_path.parent.mkdir(parents=True, exist_ok=True)
        pem_path.write_bytes(pem_bytes(key))
        try:
            signature = key.sign(ROUND_TRIP_MESSAGE, padding.PKCS1v15(), hashes.SHA256())
            key.public_key().verify(signature, ROUND_TRIP_MESSAGE, padding.PKCS1v15(), hashes.SHA256())
            checks["sign_verify"] = True
        except (InvalidSignature, ValueError):
            pass
        checks["openssl_check"] = openssl_check(pem_path)[0]
    return checks


def key_record(job, made, checks, pem_path):
    """One key of the report: its job, the device's counts, the key in hex and its checks."""
    return {"impl": job.impl, "bits": job.bits, "index": job.index, "seed": job.seed.hex(),
            "cycles": made.cycles, "candidates": made.candidates, "mr_rounds": made.mr_rounds, "ok": made.ok,
            **{name: f"{getattr(made, name):x}" for name in ("n", "e", "d", "p", "q")},
            "pem": str(pem_path) if pem_path is not None else None, "checks": checks,
            "passed": all(checks.values())}


def run_simulations(builds, jobs, out_dir, simulations=2, timeout=7200, progress=sys.stderr):
    """Runs `jobs` on `simulations` parallel simulations (`builds`: {True: the SoC with the peripheral,
    False: the one for software}, sim.build.SimBuild or anything with `model` and `gateware_dir`), checks
    each key as it comes. Returns (key records in the jobs' order, simulation records)."""
    done = {}
    lock = threading.Lock()
    started = time.monotonic()

    def run_job(console, job):
        made = console.keygen(job.bits, job.seed, job.impl)
        pem_path = out_dir / "keys" / f"{job.name}.pem"
        checks = check_key(made, job.bits, pem_path)
        entry = key_record(job, made, checks, pem_path if pem_path.exists() else None)
        with lock:
            done[job] = entry
            failed = [name for name, passed in checks.items() if not passed]
            progress.write(f"[keygen {time.monotonic() - started:6.0f} s] {len(done):>3}/{len(jobs)} "
                           f"{job.impl:<13} {job.bits:>5} bits seed {job.index:<3} {made.cycles:>13,} "
                           f"cycles {made.candidates:>5} candidates {made.mr_rounds:>4} rounds "
                           f"{'checks passed' if not failed else 'FAILED: ' + ', '.join(failed)}\n")
            progress.flush()
        return [job.name]

    records = pool.run_jobs(builds, jobs, run_job, "keys", simulations, timeout)
    return [done[job] for job in jobs], records


def spread(values):
    """median, min and max of `values` (the median of an even count: the mean of the middle two)."""
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def summarize(keys, clk_hz):
    """The report's rows: one per (impl, bits) in the order of our implementations, then size."""
    rows = []
    for impl in protocol.IMPLS:
        for bits in sorted({k["bits"] for k in keys}):
            group = [k for k in keys if (k["impl"], k["bits"]) == (impl, bits)]
            if not group:
                continue
            cycles = [k["cycles"] for k in group]
            rows.append({
                "impl": impl, "bits": bits, "keys": len(group),
                "cycles": spread(cycles),
                "seconds": {name: value / clk_hz for name, value in spread(cycles).items()},
                "candidates": spread([k["candidates"] for k in group]),
                "mr_rounds": spread([k["mr_rounds"] for k in group]),
                # an upper bound of one round's cost: the cycles include the sieve and the key arithmetic
                "cycles_per_mr_round": spread([k["cycles"] / k["mr_rounds"] for k in group if k["mr_rounds"]]
                                              or [0]),
                "keys_passed": sum(k["passed"] for k in group),
            })
    return rows


def disagreements(keys):
    """The (bits, seed index) whose key differs between implementations."""
    found = {}
    for k in keys:
        found.setdefault((k["bits"], k["index"]), set()).add((k["n"], k["d"]))
    return [{"bits": bits, "index": index} for (bits, index), made in sorted(found.items()) if len(made) > 1]


def targets(rows):
    """The targets, each with the measured median when the run has that row: met when the median is
    within the limit (the count of seeds says whether it is the median over TARGET_SEEDS seeds)."""
    out = []
    for bits, limit in sorted(TARGETS.items()):
        row = next((r for r in rows if (r["impl"], r["bits"]) == (TARGET_IMPL, bits)), None)
        out.append({"bits": bits, "impl": TARGET_IMPL, "limit_cycles": limit, "seeds_asked": TARGET_SEEDS,
                    "median_cycles": row["cycles"]["median"] if row else None, "seeds": row["keys"] if row else 0,
                    "met": (row["cycles"]["median"] <= limit) if row else None})
    return out


def make_report(keys, *, command, seed, soc, simulations=None, seconds=None, sim_records=()):
    """The report (a JSON-ready dict) of the key records `keys` (see key_record)."""
    rows = summarize(keys, soc["sys_clk_hz"])
    differ = disagreements(keys)
    failed = [f"{k['impl']}-{k['bits']}-{k['index']}: " + ", ".join(n for n, ok in k["checks"].items() if not ok)
              for k in keys if not k["passed"]]
    report = {
        "command": command,
        "date": time.strftime("%Y-%m-%d"),
        "seed": seed,
        "soc": soc,
        "simulations": simulations,
        "seconds": None if seconds is None else round(seconds, 1),
        "simulation_runs": list(sim_records),
        "checks": CHECKS,
        "rows": rows,
        "targets": targets(rows),
        "keys_checked": len(keys),
        "keys_passed": sum(k["passed"] for k in keys),
        "failed_keys": failed,
        "implementations_disagree": differ,
        "keys": keys,
    }
    report["passed"] = bool(keys) and not failed and not differ
    return report


def check(report):
    """Raises ProjectError when a key failed a check, implementations disagreed on a seed's key, or
    there was no key."""
    if not report["keys"]:
        raise ProjectError("no key was generated")
    if report["failed_keys"]:
        raise ProjectError(f"{len(report['failed_keys'])} of {report['keys_checked']} keys failed their checks: "
                           + "; ".join(report["failed_keys"][:4]))
    if report["implementations_disagree"]:
        raise ProjectError("the implementations made different keys from one seed: " + ", ".join(
            f"{d['bits']} bits, seed {d['index']}" for d in report["implementations_disagree"]))


def _number(value):
    return f"{value:,.0f}" if value == int(value) else f"{value:,.1f}"


def _spread_cells(entry, scale=_number):
    return f"{scale(entry['median'])} | {scale(entry['min'])} | {scale(entry['max'])}"


def _target_line(target):
    what = (f"RSA-{target['bits']} key generation on {target['impl']}, median over {target['seeds_asked']} seeds: "
            f"<= {target['limit_cycles']:,} cycles")
    if target["met"] is None:
        return f"- {what}: not measured in this run."
    verdict = "**met**" if target["met"] else "**not met**"
    few = (f" (over {target['seeds']} seeds here, not {target['seeds_asked']}: run `--seeds {target['seeds_asked']}` "
           "for the target's figure)" if target["seeds"] < target["seeds_asked"] else "")
    return f"- {what}: median {_number(target['median_cycles'])} cycles, {verdict}{few}."


def markdown(report):
    lines = [f"RSA key generation on the softcore ({report_files.soc_text(report['soc'])}), the "
             f"firmware's `keygen` (e = {PUBLIC_EXPONENT}), cycles counted by the firmware: `{report['command']}`, "
             f"{report['date']}, seed text {report['seed']!r}, {report['keys_checked']} keys"
             + (f" in {report['seconds']:.0f} s on {report['simulations']} simulation"
                f"{'s' if report['simulations'] != 1 else ''}" if report["seconds"] else "")
             + ".", "",
             "Time per key (median, min, max) in cycles and in milliseconds at the SoC's clock; candidates: the "
             "numbers the search looked at (sieve and Miller-Rabin); rounds: Miller-Rabin rounds run. Cycles per "
             "round = cycles / rounds per key: an upper bound of one round's cost, as the cycles also hold the "
             "candidates' generation, the sieve and the key arithmetic (d, CRT values).", "",
             "| impl | bits | keys | cycles median | min | max | ms median | min | max | candidates median | min | max "
             "| rounds median | min | max | cycles/round median (upper bound) | checks passed |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for row in report["rows"]:
        ms = {name: value * 1e3 for name, value in row["seconds"].items()}
        lines.append(f"| {row['impl']} | {row['bits']} | {row['keys']} | {_spread_cells(row['cycles'])} | "
                     f"{_spread_cells(ms, lambda v: f'{v:,.1f}')} | {_spread_cells(row['candidates'])} | "
                     f"{_spread_cells(row['mr_rounds'])} | {_number(row['cycles_per_mr_round']['median'])} | "
                     f"{row['keys_passed']}/{row['keys']} ({100 * row['keys_passed'] / row['keys']:.0f} %) |")
    lines += ["", "Targets:", ""]
    lines += [_target_line(target) for target in report["targets"]]
    lines += ["", "Checks of every key (the key written as PEM with `cryptography`):", ""]
    lines += [f"- {name}: {what}" for name, what in report["checks"].items()]
    lines.append("")
    if report["passed"]:
        impls = {k["impl"] for k in report["keys"]}
        lines.append(f"All {report['keys_checked']} keys passed every check (100 %)"
                     + ("; every seed gave the same key on every implementation run." if len(impls) > 1 else "."))
    else:
        lines.append(f"**{report['keys_checked'] - report['keys_passed']} of {report['keys_checked']} keys failed "
                     "a check.**" if report["failed_keys"] else "Every key passed its checks.")
        lines += [f"- {failure}" for failure in report["failed_keys"]]
        if report["implementations_disagree"]:
            lines.append("**The implementations made different keys from one seed:** " + ", ".join(
                f"{d['bits']} bits, seed {d['index']}" for d in report["implementations_disagree"]) + ".")
    lines.append("")
    return "\n".join(lines)


def plot(report, path):
    """report.png: cycles per key against key size, log scale, one colour per implementation, the median
    marked."""
    plt = report_files.pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    impls = [impl for impl in protocol.IMPLS if any(k["impl"] == impl for k in report["keys"])]
    sizes = sorted({k["bits"] for k in report["keys"]})
    width = 0.6 / max(1, len(impls))
    for i, impl in enumerate(impls):
        offset = (i - (len(impls) - 1) / 2) * width
        for j, bits in enumerate(sizes):
            cycles = [k["cycles"] for k in report["keys"] if (k["impl"], k["bits"]) == (impl, bits)]
            if not cycles:
                continue
            labelled = impl in ax.get_legend_handles_labels()[1]
            ax.scatter([j + offset] * len(cycles), cycles, s=12, alpha=0.6, color=f"C{i}",
                       label=None if labelled else impl)
            ax.hlines(statistics.median(cycles), j + offset - width / 2, j + offset + width / 2, color=f"C{i}")
    for target in report["targets"]:
        if target["bits"] in sizes:
            j = sizes.index(target["bits"])
            ax.hlines(target["limit_cycles"], j - 0.4, j + 0.4, color="black", linestyles="dashed")
    ax.set_xticks(range(len(sizes)))
    ax.set_xticklabels([f"RSA-{bits}" for bits in sizes])
    ax.set_yscale("log")
    ax.set_ylabel("cycles per key")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(fontsize=8)
    ax.set_title(f"Key generation on {report['soc']['cpu']} ({report['date']}): each key a point, the median a "
                 "bar,\nthe target dashed", fontsize=9)
    fig.tight_layout()
    report_files.save_figure(fig, path, dpi=100)


def write(report, out_dir):
    report_files.write(out_dir, "report", report, markdown, plot, allow_nan=False)


def run(builds, sizes, impls, count, out_dir, *, seed=DEFAULT_SEED, soc, command, simulations=2, timeout=7200,
        progress=sys.stderr):
    """Plans, generates and checks `count` keys of each size on each implementation, writes the report
    to `out_dir` and returns it. A failed check is in the report, not raised: `check(report)` raises."""
    out_dir = Path(out_dir)
    started = time.monotonic()
    jobs = plan(sizes, impls, seeds(seed, count))
    keys, sim_records = run_simulations(builds, jobs, out_dir, simulations, timeout, progress)
    report = make_report(keys, command=command, seed=seed, soc=soc, simulations=simulations,
                         seconds=time.monotonic() - started, sim_records=sim_records)
    write(report, out_dir)
    return report


# ---- the job: `python -m sim keygen` ----

def add_arguments(parser):
    options.add_sizes(parser, default=(1024,), allowed=range(MIN_BITS, MAX_BITS + 1, 64),
                      what=f"multiples of 64 from {MIN_BITS} to {MAX_BITS}")
    parser.add_argument("--seeds", type=options.at_least(1), default=16, metavar="N",
                        help="keys of each size on each implementation, each from a seed of its own drawn from "
                             "--seed (default: %(default)s)")
    options.add_impls(parser, DEFAULT_IMPLS, protocol.IMPLS)
    options.add_seed(parser, DEFAULT_SEED, "the key generations' seeds")
    options.add_out(parser, BUILD_DIR / "keygen")
    options.add_simulations(parser)


def main(args, log):
    """Key generations over parallel simulations, software ones on the SoC without the peripheral;
    exits 1 (a ProjectError) when a key fails a check."""
    from sim import build as sim_build
    build = options.simulation(args, log)
    builds = {True: build}
    if any(impl not in protocol.PERIPHERAL_IMPLS for impl in args.impls):
        builds[False] = sim_build.build_bare(build, log=log)
    command = (f"python -m sim keygen --sizes {','.join(map(str, args.sizes))} --seeds {args.seeds} "
               f"--impls {','.join(args.impls)}" + (f" --seed {args.seed}" if args.seed != DEFAULT_SEED else ""))
    report = run(builds, args.sizes, args.impls, args.seeds, args.out, seed=args.seed, soc=build.soc_info,
                 command=command, simulations=args.simulations, timeout=args.timeout,
                 progress=options.progress(args))
    print(markdown(report))
    print(f"report: {args.out}/report.{{json,md,png}}, keys: {args.out}/keys/")
    check(report)
    return 0


registry.register(registry.Job(
    "keygen", "key generations on the SoC, each key checked, build/keygen/", main,
    add_arguments=add_arguments, groups=(options.BUILD,), timeout=7200,
    description="Generate keys with the firmware's keygen, check each (our arithmetic, cryptography, "
                "openssl pkey -check) and write report.{json,md,png} and the keys as PEM; exits 1 if a "
                "key fails a check."))
