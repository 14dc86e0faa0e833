"""`python -m sim bench`: the firmware's `bench` in the simulated SoC, split over parallel
simulations, or on a board over a serial port (`--port`); writes the results.

The rows are independent (every timed region starts from invalidated caches and nothing loaded in
the peripheral, and the firmware draws every size's messages whichever rows it times), so they are
dealt to as many simulations as there are cores, longest first, each taking the next when it is done:
the rows that never touch the peripheral (software, the peer libraries) on the SoC without it, which
simulates them about three times as fast, the others on the SoC with it. mbedTLS's rows depend on the
ones before them (STATEFUL_IMPLS) and run together in the firmware's order. Each row's count is the
one a single `bench` of every row gives (`tests/jobs/test_bench_split.py` checks it).

Outputs, under build/bench/: results.json (every measurement, the rows a missing peer library could
not give, and where the wall-clock time went: builds and each simulation with its simulated cycles
per second), results.md (tables per size) and results.png (cycles against key size, log scale, one
line per implementation).
"""

import argparse
import itertools
import statistics
import sys
import threading
import time
from dataclasses import dataclass

from common import report as report_files
from common.errors import ProjectError
from common.paths import BUILD_DIR
from jobs import options, registry
from link.console import ConsoleError, Missing
from sim import pool
from soc import config
from soc import console_protocol as protocol
from soc import peer_libs

#: The RSA operations (each has a plot); "mul" is only in the table.
RSA_OPS = tuple(op for op in protocol.OPS if op != "mul")
#: The rows left to `--full`: software private-key operations without CRT from this size on (about 1 G
#: simulated cycles at 2048 bits for ours, mbedTLS and BearSSL together: two thirds of the whole run).
FULL_ONLY_FROM_BITS = 2048


@dataclass(frozen=True)
class Row(pool.ImplRow):
    bits: int
    op: str
    impl: str


#: The padding and key-generation rows, beside the raw ones in a section of their own (results.json's
#: "padding_and_keygen"; the raw rows and their order are those of the firmware's `bench`): key
#: generation on hw_seq over KEYGEN_SEEDS seeds at the sizes of KEYGEN_SIZES the run has (software at
#: 512 bits with --full only: ~60 M cycles a key), and SHA-256 signatures with padding on hw_seq with
#: the bench's key of each size, once for each SHA-256 the firmware's users can take (`sha256 <hash>`:
#: SIGN_HASHES; key generation on the first, the firmware's default).
KEYGEN_SIZES = (512, 1024, 2048)
KEYGEN_SEEDS = 3
KEYGEN_SEED_TEXT = "bench"
SIGN_OPS = {"sign_pkcs1": "pkcs1", "sign_pss": "pss"}
SIGN_HASHES = tuple(protocol.SHA256_USERS_IMPLS)
#: The message signed: 64 bytes 00 01 .. 3f (README, "Signatures and encryption").
SIGN_MESSAGE = bytes(range(64))
#: The SHA-256 rows (`hash <impl> <message> repeat=<n>`, each implementation of HASH_IMPLS): (message
#: bytes, times fed): 64 B, 1 KiB and 16 KiB (1 KiB 16 times: a console line holds at most HASH_MAX_BYTES).
HASH_ROWS = ((64, 1), (1024, 1), (1024, 16))
#: The hashed messages' bytes: the first of these many (a fixed pattern).
HASH_MESSAGE = bytes(i * 167 + 13 & 0xFF for i in range(max(length for length, _ in HASH_ROWS)))


@dataclass
class ExtraJob:
    """The padding and key-generation rows one simulation runs: `kind` "keygen" (the seeds of one size
    and implementation) or "sign" (every signature row of `sizes`), with the SHA-256 `sha256`."""
    kind: str
    impl: str
    sizes: tuple
    sha256: str = SIGN_HASHES[0]

    @property
    def peripheral(self):
        return self.impl in protocol.PERIPHERAL_IMPLS

    @property
    def estimated_seconds(self):
        if self.kind == "hash":         # software's ~5,800 cycles a block, the engine's far fewer
            blocks = sum(-(-length * times // 64) for length, times in HASH_ROWS)
            return 6_000 * blocks / _SPEED[self.peripheral]
        if self.kind == "keygen":
            per_key = 6e7 if self.impl == "sw" else 2.3e6 * (self.sizes[0] / 512) ** 2.2
            return KEYGEN_SEEDS * per_key / _SPEED[self.peripheral]
        return sum(2 * estimated_cycles(Row(bits, "private_crt", self.impl)) for bits in self.sizes) / _SPEED[True]


def extra_jobs(sizes, full=False):
    """The padding and key-generation rows of a run at `sizes` as jobs."""
    jobs = [ExtraJob("keygen", "hw_seq", (bits,)) for bits in KEYGEN_SIZES if bits in sizes]
    if full and 512 in sizes:
        jobs.append(ExtraJob("keygen", "sw", (512,)))
    # the hashes need no peripheral: the SoC without it simulates them faster
    return jobs + [ExtraJob("sign", "hw_seq", tuple(sizes), sha256) for sha256 in SIGN_HASHES] + \
        [ExtraJob("hash", "sw", ())]


def use_hash(console, sha256):
    """`sha256 <name>`: the SHA-256 the firmware's users take from now on."""
    out = console.command(f"sha256 {sha256}")
    if protocol.SHA256_USERS.parse_all(out) != [{"impl": sha256}]:
        raise ProjectError(f"`sha256 {sha256}` answered {out!r}")


def _extra_results(console, job, progress):
    """The rows of an ExtraJob on `console`: dicts of results.json's "padding_and_keygen" section."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding

    from jobs import keygen
    from soc.keys import bench_keys
    if job.kind == "hash":
        return _hash_results(console, progress)
    rows = []
    use_hash(console, job.sha256)
    on = f"{job.impl:<13} {job.sha256:<3}"          # the implementation and the SHA-256, as progress shows them
    if job.kind == "keygen":
        [bits] = job.sizes
        made = [console.keygen(bits, seed, job.impl) for seed in keygen.seeds(KEYGEN_SEED_TEXT, KEYGEN_SEEDS)]
        ok = all(m.ok and m.n == m.p * m.q and m.n.bit_length() == bits for m in made)
        cycles = [m.cycles for m in made]
        rows.append({"bits": bits, "op": "keygen", "impl": job.impl, "sha256": job.sha256, "seeds": len(made),
                     "cycles": cycles,
                     "median_cycles": statistics.median(cycles), "min_cycles": min(cycles),
                     "max_cycles": max(cycles), "candidates": [m.candidates for m in made],
                     "mr_rounds": [m.mr_rounds for m in made], "ok": ok})
        progress.write(f"[bench] RSA-{bits:<5} keygen       {on} {', '.join(f'{c:,}' for c in cycles)} "
                       f"cycles ({len(made)} seeds) {'ok' if ok else 'MISMATCH'}\n")
        return rows
    for key in bench_keys(job.sizes):
        console.set_key(key)
        public = keygen.private_key(keygen_numbers(key)).public_key()
        for op, scheme in SIGN_OPS.items():
            signed = console.sign(scheme, SIGN_MESSAGE, job.impl)
            pad = (padding.PKCS1v15() if scheme == "pkcs1" else
                   padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=padding.PSS.AUTO))
            try:
                public.verify(signed.signature, SIGN_MESSAGE, pad, hashes.SHA256())
                ok = True
            except InvalidSignature:
                ok = False
            bits = key["n"].bit_length()
            rows.append({"bits": bits, "op": op, "impl": job.impl, "sha256": job.sha256, "cycles": signed.cycles,
                         "ok": ok})
            progress.write(f"[bench] RSA-{bits:<5} {op:<12} {on} {signed.cycles:>12,} cycles "
                           f"{'ok' if ok else 'MISMATCH'}\n")
            if scheme == "pkcs1":
                # verify: the device checks the signature it made (and cryptography accepted)
                verified = console.verify(scheme, SIGN_MESSAGE, signed.signature, job.impl)
                rows.append({"bits": bits, "op": "verify", "impl": job.impl, "sha256": job.sha256,
                             "cycles": verified.cycles, "ok": ok and verified.valid == "yes"})
                progress.write(f"[bench] RSA-{bits:<5} {'verify':<12} {on} {verified.cycles:>12,} "
                               f"cycles {'ok' if rows[-1]['ok'] else 'MISMATCH'}\n")
        # oaep_decrypt: a ciphertext cryptography made of the signed message's first bytes; OAEP with
        # SHA-256 carries k - 66 bytes, none at 512 bits (k = 64), which has no such row
        room = (bits + 7) // 8 - 66
        if room < 1:
            continue
        plain = SIGN_MESSAGE[:min(len(SIGN_MESSAGE), room)]
        ciphertext = public.encrypt(plain, padding.OAEP(mgf=padding.MGF1(hashes.SHA256()),
                                                        algorithm=hashes.SHA256(), label=None))
        decrypted = console.oaep_decrypt(ciphertext, job.impl)
        rows.append({"bits": bits, "op": "oaep_decrypt", "impl": job.impl, "sha256": job.sha256,
                     "cycles": decrypted.cycles, "ok": decrypted.message == plain})
        progress.write(f"[bench] RSA-{bits:<5} {'oaep_decrypt':<12} {on} {decrypted.cycles:>12,} cycles "
                       f"{'ok' if rows[-1]['ok'] else 'MISMATCH'}\n")
    return rows


def _hash_results(console, progress):
    """The SHA-256 rows (HASH_ROWS) with each of `hash`'s implementations, every digest checked with
    hashlib: dicts of results.json's "padding_and_keygen" section, op "sha256"."""
    import hashlib
    rows = []
    for impl in protocol.HASH_IMPLS:
        for length, times in HASH_ROWS:
            message = HASH_MESSAGE[:length]
            out = console.command(f"hash {impl} {message.hex()} {protocol.HASH_REPEAT_OPTION}={times}")
            lines = protocol.HASH.parse_all(out)
            if len(lines) != 1:
                raise ProjectError(f"`hash {impl}` of {length} bytes x {times} answered {out.strip()[:200]!r}")
            [line] = lines
            total = length * times
            rows.append({"op": "sha256", "impl": impl, "bytes": total, "message_bytes": length, "repeat": times,
                         "blocks": total // 64 + 1, "cycles": line["cycles"],
                         "ok": line["bytes"] == total and line["digest"] == hashlib.sha256(message * times).digest()})
            progress.write(f"[bench] SHA-256 {total:>6} B    {impl:<17} {line['cycles']:>12,} cycles "
                           f"{'ok' if rows[-1]['ok'] else 'MISMATCH'}\n")
    return rows


def keygen_numbers(key):
    """A soc.keys dict as the attributes jobs.keygen.private_key reads."""
    from types import SimpleNamespace
    return SimpleNamespace(**{name: key[name] for name in ("n", "e", "d", "p", "q")})


def planned_rows(sizes, full=False, peers=True):
    """The rows of `bench <sizes>` in the firmware's order; without `full`, the software rows of
    private-key operations without CRT from FULL_ONLY_FROM_BITS bits on are left out."""
    return [Row(bits, op, impl) for bits in sizes for op, impl in protocol.bench_rows(peers)
            if full or not (op == "private" and bits >= FULL_ONLY_FROM_BITS and impl not in protocol.PERIPHERAL_IMPLS)]


#: Rough cycles of each row at 1024 bits and how they grow with the key size (exponent of bits/1024),
#: from the README's table: only to deal the longest rows first and to print the time left. Our
#: software's here, a peer library's in its entry of soc/peer_libs.PEERS (`cycles_1024`).
_ESTIMATE_1024 = {
    "sw": {"public": 4e5, "private": 2.9e7, "private_crt": 1.1e7, "mul": 2.3e4},
}
_GROWTH = {"public": 1.9, "private": 2.9, "private_crt": 2.5, "mul": 1.9}
#: Simulated cycles per wall-clock second, for the estimates (README, "Simulation speed").
_SPEED = {True: 1.0e6, False: 3.0e6}


def estimated_cycles(row):
    peer = peer_libs.PEERS.get(row.impl)
    estimates = peer.cycles_1024 if peer else _ESTIMATE_1024.get(row.impl, {})
    base = estimates.get(row.op, 3e5 if row.op != "mul" else 200)
    return base * (row.bits / 1024) ** _GROWTH[row.op]


@dataclass
class Job:
    """Rows one `bench` command times in one simulation: of the SoC with the peripheral or without."""
    rows: list
    peripheral: bool

    @property
    def estimated_seconds(self):
        return sum(estimated_cycles(r) for r in self.rows) / _SPEED[self.peripheral]


def jobs_for(rows):
    """The rows as jobs, longest first: the peripheral's rows in one job (seconds in all), mbedTLS's in
    one (STATEFUL_IMPLS), every other software row alone."""
    hardware = [r for r in rows if r.peripheral]
    jobs = [Job(hardware, True)] if hardware else []
    for impl in protocol.STATEFUL_IMPLS:
        stateful = [r for r in rows if r.impl == impl]
        if stateful:
            jobs.append(Job(stateful, False))
    jobs += [Job([r], False) for r in rows if not r.peripheral and r.impl not in protocol.STATEFUL_IMPLS]
    return sorted(jobs, key=lambda job: -job.estimated_seconds)


class Progress:
    """One line per result as it arrives, with the time so far and an estimate of the time left."""

    def __init__(self, jobs, out):
        self.out, self.started = out, time.monotonic()
        self.total = sum(estimated_cycles(r) for job in jobs for r in job.rows)
        self.done = 0.0
        self.lock = threading.Lock()

    def row(self, row, text):
        with self.lock:
            self.done += estimated_cycles(row)
            elapsed = time.monotonic() - self.started
            left = elapsed * (self.total - self.done) / self.done if self.done else 0
            self.out.write(f"[bench {elapsed:5.0f} s, ~{left:4.0f} s left] RSA-{row.bits:<5} {row.op:<12} "
                           f"{row.impl:<13} {text}\n")
            self.out.flush()


def _read_results(console, sizes, rows, progress):
    """Runs `bench` of `rows` at `sizes`; its results and missing rows, as the dicts of results.json."""
    def show(record):
        row = Row(record.bits, record.op, record.impl)
        if isinstance(record, Missing):
            progress.row(row, "missing (library not fetched)")
        else:
            progress.row(row, f"{record.cycles:>12,} cycles {'ok' if record.ok else 'MISMATCH'}")
    answer = console.bench(sizes, [(r.bits, r.op, r.impl) for r in rows], on_result=show)
    return [r.as_dict() for r in answer.results], [m.as_dict() for m in answer.missing]


def _merge(rows, results, missing):
    """The results in the firmware's order; every planned row must have come back."""
    by_row = {(r["bits"], r["op"], r["impl"]): r for r in results}
    gone = {(m["bits"], m["op"], m["impl"]) for m in missing}
    lost = [r.name for r in rows if (r.bits, r.op, r.impl) not in by_row and (r.bits, r.op, r.impl) not in gone
            and not (r.op == "mul" and r.impl in protocol.PEER_IMPLS and any(g[2] == r.impl for g in gone))]
    if lost:
        raise ConsoleError(f"the benchmark gave no result for {', '.join(lost)}")
    order = {(r.bits, r.op, r.impl): i for i, r in enumerate(rows)}
    return (sorted(results, key=lambda r: order.get((r["bits"], r["op"], r["impl"]), len(order))),
            sorted(missing, key=lambda r: order.get((r["bits"], r["op"], r["impl"]), len(order))))


def run_simulations(builds, sizes, full=False, simulations=2, timeout=7200, progress=sys.stderr, extra=None):
    """The benchmark over `simulations` parallel simulations. `builds`: {True: the SoC with the
    peripheral, False: without} (sim.build.SimBuild). Returns (results, missing, simulation records);
    `extra`, a list, receives the padding and key-generation rows (extra_jobs) when given."""
    rows = planned_rows(sizes, full)
    jobs = jobs_for(rows)
    report = Progress(jobs, progress)
    if extra is not None:
        jobs = sorted(jobs + extra_jobs(sizes, full), key=lambda job: -job.estimated_seconds)
    results, missing = [], []
    lock = threading.Lock()

    def run_job(console, job):
        if isinstance(job, ExtraJob):
            got = _extra_results(console, job, progress)
            with lock:
                extra.extend(got)
            return [f"{r['op']}:{r['impl']}:{r['bytes']}" if r["op"] == "sha256" else
                    f"{r['bits']}:{r['op']}:{r['impl']}:{r['sha256']}" for r in got]
        got, gone = _read_results(console, sizes, job.rows, report)
        with lock:
            results.extend(got)
            missing.extend(gone)
        return [r.name for r in job.rows]

    records = pool.run_jobs(builds, jobs, run_job, "rows", simulations, timeout)
    results, missing = _merge(rows, results, missing)
    if extra is not None:
        order = [(op, impl) for op in ("keygen", *SIGN_OPS, "verify", "oaep_decrypt") for impl in protocol.IMPLS]
        hashes = [r for r in extra if r["op"] == "sha256"]          # in their own order, after the others
        extra[:] = sorted((r for r in extra if r["op"] != "sha256"),
                          key=lambda r: (order.index((r["op"], r["impl"])), r["bits"],
                                         SIGN_HASHES.index(r["sha256"]))) + hashes
    return results, missing, records


def run_console(console, sizes, full=False, progress=sys.stderr):
    """The benchmark on one console (a board): every row in one `bench` command. Returns (results,
    missing)."""
    rows = planned_rows(sizes, full)
    try:
        results, missing = _read_results(console, sizes, rows, Progress([Job(rows, True)], progress))
    finally:
        console.close()
    return _merge(rows, results, missing)


def soc_from_info(console):
    """What the firmware says of its SoC (`info`): for a board, where no local build describes it."""
    info = console.info()
    soc, peripheral = info.soc, info.peripheral
    cpu = soc.cpu
    return {"cpu": cpu.split("_")[0].lower(), "variant": cpu.split("_", 1)[1].lower() if "_" in cpu else "",
            "sys_clk_hz": soc.clk_hz,
            "peripheral": {"max_bits": peripheral.max_bits, "lanes": peripheral.peripheral_lanes,
                           "word_bits": peripheral.word_bits, "slots": peripheral.slots}}


def write(results, missing, out_dir, soc_info, source, command, timing=None, extra=None):
    """Writes results.{json,md,png}; returns the results dict. `extra`: the padding and key-generation rows (run_simulations)."""
    data = {
        "soc": soc_info,
        "source": source,
        "command": command,
        "date": time.strftime("%Y-%m-%d"),
        "results": results,
        "missing": missing,
    }
    if extra is not None:
        data["padding_and_keygen"] = {"rows": extra, "sign_message": SIGN_MESSAGE.hex(),
                                      "keygen_seed_text": KEYGEN_SEED_TEXT}
    if timing is not None:
        data["timing"] = timing
    report_files.write(out_dir, "results", data, markdown, plot)
    return data


def timing_markdown(timing):
    """Where the wall-clock time of a run went: set-up, builds, each simulation."""
    lines = ["| step | wall s | simulated cycles | M cycles/s |", "|---|---:|---:|---:|"]
    for step in timing["steps"]:
        cycles = step.get("cycles")
        speed = step.get("cycles_per_second")
        lines.append(f"| {step['step']} | {step['seconds']:.1f} | {f'{cycles:,}' if cycles else ''} | "
                     f"{f'{speed / 1e6:.2f}' if speed else ''} |")
    lines.append(f"| **total** | **{timing['total_seconds']:.1f}** | | |")
    return "\n".join(lines) + "\n"


def _cycles(results, bits, op, impl):
    for r in results:
        if (r["bits"], r["op"], r["impl"]) == (bits, op, impl):
            return r
    return None


def cycles_cell(entry):
    """A result row's cycles for a markdown table, '-' for a row not measured."""
    return f"{entry['cycles']:,}" if entry else "-"


def speedup_cell(slow, fast):
    """slow's cycles over fast's, '-' where either is missing."""
    return f"{slow['cycles'] / fast['cycles']:,.1f}x" if slow and fast and fast["cycles"] else "-"


def _where(data):
    source = data.get("source", {"transport": "simulation"})
    return "simulated SoC" if source["transport"] == "simulation" else f"board on {source['port']}"


def _and(names):
    """'a', 'a and b', 'a, b and c'."""
    return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def markdown(data):
    """Tables in the shape of the published ones: per size and operation, our software, the peer
    libraries and the hardware, with the sequencer's speedup over each software."""
    soc, results = data["soc"], data["results"]
    missing = {(m["bits"], m["op"], m["impl"]) for m in data.get("missing", ())}
    missing_impls = sorted({impl for _, _, impl in missing})
    clk = soc["sys_clk_hz"]
    sizes = sorted({r["bits"] for r in results})
    titles = [peer_libs.PEERS[impl].title for impl in protocol.PEER_IMPLS]
    lines = [f"Cycles counted by the firmware (SoC cycle counter), whole operation including operand "
             f"transfers; {report_files.soc_text(soc)}; {_where(data)}. `{data['command']}`, {data['date']}.", "",
             f"| key | operation | software (ours) | {' | '.join(titles)} | hw: CPU loop | hw: sequencer | "
             "hw: sequencer, sliding window (not constant-time) | ms (sequencer) | speedup vs ours | "
             + "".join(f"vs {title} | " for title in titles) + "ok |",
             "|---:|---|" + "---:|" * (2 * len(titles) + 6) + ":-:|"]
    for bits in sizes:
        for op, what in protocol.OPS.items():
            row = {impl: _cycles(results, bits, op, impl) for impl in protocol.ALL_IMPLS}
            if not row["hw_seq"]:
                continue
            seq = row["hw_seq"]
            peers = [("missing" if (bits, op, impl) in missing else cycles_cell(row[impl]))
                     for impl in protocol.PEER_IMPLS]
            ok = all(r["ok"] for r in row.values() if r)
            lines.append(f"| {bits} | {what} | {cycles_cell(row['sw'])} | {' | '.join(peers)} | "
                         f"{cycles_cell(row['hw_cpu'])} | {cycles_cell(seq)} | {cycles_cell(row['hw_seq_window'])} | "
                         f"{seq['cycles'] / clk * 1e3:.3f} | "
                         f"{speedup_cell(row['sw'], seq)} | "
                         + "".join(f"{speedup_cell(row[impl], seq)} | " for impl in protocol.PEER_IMPLS)
                         + f"{'yes' if ok else '**no**'} |")
    peers = [peer_libs.PEERS[impl] for impl in protocol.PEER_IMPLS]
    lines += ["", "Speedup = the software's cycles / the sequencer's. "
              f"{_and([peer.label for peer in peers])} are built from their Debian source packages for the "
              "same CPU with the same compiler and -O2 (`soc/peer_libs.py`, `firmware/peers/peer_*.c`) and run "
              "through their own RSA API on the same keys and messages; their results are checked like "
              "ours. " + " ".join(peer.note for peer in peers if peer.note), "",
              "The private-key operations are constant-time on software, CPU loop and sequencer (fixed "
              "windows; `python -m sim leak` measures it). The sliding-window column is the sequencer's faster "
              "variable-time path, shown for the cost of safety. For `one Montgomery product`, the "
              "CPU-loop figure is one MUL command issued and waited for by the CPU, the sequencer figure "
              "one product inside an EXP_LADDER (their difference is the per-command overhead). Every "
              "timed region runs with interrupts masked and the caches invalidated at its start."]
    left_out = sorted({(r.bits, r.op) for r in planned_rows(sizes, full=True)} - {(r["bits"], r["op"]) for r in results
                      if r["impl"] not in protocol.PERIPHERAL_IMPLS} - {(b, o) for b, o, _ in missing})
    if left_out:
        lines += ["", f"**Not run:** the software rows ({', '.join(['ours', *titles])}) of "
                  + ", ".join(f"RSA-{b} {protocol.OPS[o]}" for b, o in left_out)
                  + ": about a billion simulated cycles, left to `python -m sim bench --full` (README, \"Results\")."]
    if missing_impls:
        lines += ["", f"**Missing:** {', '.join(missing_impls)} (not in this firmware: the library could not "
                  "be fetched when it was built (see the `error:` line of the build), or the image leaves it "
                  "out, as the PYNQ-Z2 image does to stay within the board's BRAM budget)."]
    if "padding_and_keygen" in data:
        lines += ["", *extra_markdown(data)]
    return "\n".join(lines + [""])


def extra_markdown(data):
    """The padding and key-generation rows: key generation over seeds; signatures and OAEP decryption
    against the raw CRT operation, verification against the raw public one."""
    section, results = data["padding_and_keygen"], data["results"]
    clk = data["soc"]["sys_clk_hz"]
    lines = ["Key generation and signatures, cycles counted by the firmware:", "",
             "| key | operation | impl | SHA-256 | cycles (median of seeds) | min | max | ms (median) | × raw op "
             "| ok |",
             "|---:|---|---|---|---:|---:|---:|---:|---:|:-:|"]
    for row in section["rows"]:
        if row["op"] == "sha256":
            continue
        raw = _cycles(results, row["bits"], "public" if row["op"] == "verify" else "private_crt", row["impl"])
        if row["op"] == "keygen":
            median, low, high = row["median_cycles"], f"{row['min_cycles']:,}", f"{row['max_cycles']:,}"
            what = f"key generation ({row['seeds']} seeds)"
        else:
            median, low, high, what = row["cycles"], "", "", row["op"].replace("_", " ")
        ratio = f"{median / raw['cycles']:.2f}" if raw and row["op"] != "keygen" else ""
        sha256 = row.get("sha256", SIGN_HASHES[0])         # a results.json older than the choice: the default's
        lines.append(f"| {row['bits']} | {what} | {row['impl']} | {sha256} | {median:,.0f} | {low} | {high} | "
                     f"{median / clk * 1e3:.2f} | {ratio} | {'yes' if row['ok'] else '**no**'} |")
    lines += ["", f"Key generation: seeds drawn from the text {section['keygen_seed_text']!r} (jobs/keygen.py's "
              "`seeds`); `python -m sim keygen` checks the keys in full, over more seeds. Signatures: "
              f"SHA-256 of the 64-byte message {section['sign_message'][:8]}.., padding and the private CRT "
              "operation, with the bench's key, verified on the host by `cryptography`; verify: the device "
              "checks its PKCS#1 signature (× the raw public operation); oaep_decrypt: a ciphertext "
              "`cryptography` made (MGF1-SHA-256, no label), × the raw CRT operation. SHA-256: the one the "
              "firmware's users took (`sha256 hw`: the engine, each signature's encoding made twice and compared; "
              "`sha256 sw`: BearSSL's software)."]
    hashes = [row for row in section["rows"] if row["op"] == "sha256"]
    if hashes:
        lines += ["", "SHA-256, cycles counted by the firmware from the hash's init to its digest (`hash <impl> "
                  "<message> repeat=<n>`, the digest checked with hashlib):", "",
                  "| bytes | impl | cycles | cycles a block | ok |", "|---:|---|---:|---:|:-:|"]
        lines += [f"| {row['bytes']:,} | {row['impl']} | {row['cycles']:,} | {row['cycles'] / row['blocks']:,.0f} | "
                  f"{'yes' if row['ok'] else '**no**'} |" for row in hashes]
        lines += ["", "A block is 64 bytes, the padding's included. sw: " + protocol.HASH_IMPLS["sw"] + "; hw: "
                  + protocol.HASH_IMPLS["hw"] + ". 16 KiB is a 1 KiB message fed 16 times."]
    return lines


def plot(data, path):
    report_files.save_figure(figure(data), path, dpi=110)


def figure(data):
    """The results plot: cycles against key size, one panel per RSA operation, one line per
    implementation (the same style and colour in every panel)."""
    plt = report_files.pyplot()
    results = data["results"]
    sizes = sorted({r["bits"] for r in results})
    fig, axes = plt.subplots(1, len(RSA_OPS), figsize=(15, 4.5), sharey=True)
    # One style and one colour per implementation in every panel (the colour cycle would shift in a
    # panel where an implementation has no row), and one legend for the figure.
    markers = itertools.cycle(("o-", "s--", "^-", "v:", "D-.", "P-.", "X--", "*:"))
    styles = dict(zip(protocol.ALL_IMPLS, zip(markers, itertools.cycle(plt.get_cmap("tab10").colors))))
    handles = {}
    for ax, op in zip(axes, RSA_OPS):
        for impl, (style, color) in styles.items():
            points = [(b, _cycles(results, b, op, impl)) for b in sizes]
            points = [(b, r["cycles"]) for b, r in points if r]
            if points:
                [handles[impl]] = ax.plot(*zip(*points), style, color=color,
                                          label=impl + ": " + protocol.ALL_IMPLS[impl].split(" (")[0])
        ax.set_title(f"RSA {protocol.OPS[op]}")
        ax.set_xlabel("key size (bits)")
        ax.set_yscale("log")
        ax.set_xticks(sizes)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel(f"cycles at {data['soc']['sys_clk_hz'] / 1e6:.0f} MHz")
    axes[0].legend([handles[impl] for impl in styles if impl in handles],
                   [handles[impl].get_label() for impl in styles if impl in handles], fontsize=7)
    titles = [peer_libs.PEERS[impl].title for impl in protocol.PEER_IMPLS]
    fig.suptitle(f"Software ({', '.join(['ours', *titles])}) vs hardware RSA on {data['soc']['cpu']} {data['soc']['variant']} "
                 f"({_where(data)}, {data['date']})")
    fig.tight_layout()
    return fig


# ---- the job: `python -m sim bench` ----

def add_arguments(parser):
    options.add_sizes(parser, default=config.BENCH_SIZES)
    parser.add_argument("--full", action="store_true",
                        help="also the software rows of private operations without CRT from "
                             f"{FULL_ONLY_FROM_BITS} bits on (about a billion simulated cycles more)")
    options.add_out(parser, _default_out(), what="results.{json,md,png}")
    options.add_simulations(parser)
    parser.add_argument("--setup-seconds", type=float, default=None, help=argparse.SUPPRESS)


def _default_out():
    return BUILD_DIR / "bench"


def _simulated(args, build, log, steps):
    """The rows over parallel simulations, those that never touch the peripheral on the SoC without
    it; the builds' and simulations' times go to `steps`."""
    from sim import build as sim_build
    bare = sim_build.build_bare(build, log=log)
    for what, made in (("SoC with the peripheral", build), ("SoC without the peripheral", bare)):
        for step, seconds in made.seconds.items():
            steps.append({"step": f"{what}: {step}", "seconds": round(seconds, 2)})
    started, extra = time.monotonic(), []
    results, missing, records = run_simulations({True: build, False: bare}, args.sizes, full=args.full,
                                                simulations=args.simulations, timeout=args.timeout, extra=extra)
    for i, record in enumerate(records):
        steps.append({"step": f"simulation {i + 1} ({record['soc']}, {len(record['rows'])} rows)",
                      **{key: record[key] for key in ("seconds", "cycles", "cycles_per_second")}})
    steps.append({"step": f"all simulations ({args.simulations} at once)",
                  "seconds": round(time.monotonic() - started, 2)})
    return build.soc_info, {"transport": "simulation"}, results, missing, records, extra


def main(args, log):
    """The benchmark over parallel simulations or on the console at --port; prints the table and
    where the time went, and fails when a result disagrees."""
    started = time.monotonic()
    command = (f"python -m sim bench --sizes {','.join(map(str, args.sizes))}" + (" --full" if args.full else "")
               + options.port_suffix(args))
    steps = []
    if args.setup_seconds is not None:
        steps.append({"step": "set-up (tools/setup.sh: Debian and Python packages, peer libraries)",
                      "seconds": round(args.setup_seconds, 2)})
    build = options.simulation(args, log)
    if args.port:
        console = options.open_console(args, build)
        soc_info, source = soc_from_info(console), console.source
        results, missing = run_console(console, args.sizes, full=args.full)
        records, extra = [], None
    else:
        soc_info, source, results, missing, records, extra = _simulated(args, build, log, steps)
    total = time.monotonic() - started + (args.setup_seconds or 0)
    timing = {"steps": steps, "total_seconds": round(total, 2), "simulations": records}
    data = write(results, missing, args.out, soc_info, source, command, timing, extra=extra)
    print(markdown(data))
    print("Where the wall-clock time went:\n")
    print(timing_markdown(timing))
    print(f"results: {args.out}/results.{{json,md,png}}")
    bad = [r for r in data["results"] + (extra or []) if not r["ok"]]
    if bad:
        raise ProjectError(f"{len(bad)} results disagree: {bad}")
    return 0


registry.register(registry.Job(
    "bench", "the benchmark, build/bench/results.*", main, add_arguments=add_arguments,
    groups=(options.BUILD, options.SERIAL), timeout=7200,
    description="The firmware's benchmark over parallel simulations (or on the console at --port): every "
                "RSA operation at each size on each implementation, every result checked; writes "
                "results.{json,md,png}. `python -m sim cpus` runs it across softcores."))
