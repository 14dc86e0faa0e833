"""`python -m sim tls-bench`: full TLS 1.2 handshakes against the device's server by Python's `ssl`, N per
key size, RSA implementation, suite (ECDHE with X25519 and with P-256) and the SHA-256 the server hashes
with (`sha256 hw|sw`: the engine or BearSSL's software, for the transcript, the generator and the PRF),
each client verifying the device's chain; the device's own count of each handshake (cycles from the
connection's start to the handshake's end, without the UART waits) and its split (TLS_PARTS), as the server
answered them.

The rows run over parallel simulations (sim/pool.py), those whose RSA never touches the peripheral (sw,
bearssl) on the SoC without it, which runs the same image about three times as fast with the same counts;
with --port, one after another on a simulation behind `python -m sim pty` (a board's server reports no cycles:
the run stops at its first handshake, saying so).

Outputs, under build/tls/: report.json (every handshake, the rows' medians, where the time went),
report.md (the table) and report.png (each row's median split, stacked).
"""

import socket
import statistics
import threading
import time
from common import report as report_files
from dataclasses import dataclass
from pathlib import Path

from common.errors import ProjectError
from jobs import options, registry, tls
from link.console import UnexpectedAnswer
from sim import pool
from soc import config
from soc import console_protocol as protocol
from soc import keys as soc_keys

#: (suite, curve) pairs measured, as the table lists them.
VARIANTS = (("TLS_RSA_WITH_AES_128_GCM_SHA256", "none"),
            ("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "x25519"),
            ("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "secp256r1"))
#: The implementations measured unless --impls says otherwise.
DEFAULT_IMPLS = (*protocol.TLS_IMPLS[:3], "bearssl")
#: The SHA-256s the firmware's users can take (`sha256 <name>`), each a row of its own.
HASHES = tuple(protocol.SHA256_USERS_IMPLS)
#: The part names as the table and plot show them.
PART_LABELS = {"rsa": "RSA", "ecdhe": "ECDHE", "hash": "hash", "prf": "PRF", "record": "record", "other": "other"}


@dataclass(frozen=True)
class Row(pool.ImplRow):
    bits: int
    impl: str
    suite: str
    curve: str
    sha256: str = HASHES[0]


def _rows(sizes, impls, hashes=HASHES[:1]):
    return [Row(bits, impl, suite, curve, sha256) for bits in sizes for impl in impls for suite, curve in VARIANTS
            for sha256 in hashes]


def _cost(row):
    """A rough order for dealing the rows: software RSA dominates, then P-256."""
    rsa = {"bearssl": 100, "sw": 60, "hw_cpu": 0.4, "hw_seq": 0.2, "hw_seq_window": 0.3}[row.impl]
    return rsa * (row.bits / 2048) ** 3 + {"none": 3, "x25519": 12, "secp256r1": 26}[row.curve]


class _Server:
    """The device's key and chain as one simulation (or the board) holds them: set on first use of a
    size, kept while the rows stay at it."""

    def __init__(self, out_dir):
        self.out_dir = Path(out_dir)
        self.bits = {}
        self.certs = {}
        self.lock = threading.Lock()

    def certificate(self, bits):
        with self.lock:
            if bits not in self.certs:
                key = next(k for k in soc_keys.bench_keys() if k["bits"] == bits)
                self.certs[bits] = tls.server_certificate(key["n"], key["e"], self.out_dir, f"server-{bits}.pem")
            return self.certs[bits]

    def ready(self, console, bits):
        if self.bits.get(id(console)) != bits:
            tls.use_bench_key(console, bits)
            tls.load_chain(console, [self.certificate(bits)])
            self.bits[id(console)] = bits


def _handshake(bridge, row, ca):
    """One connection: Python's ssl over a socket pair, the bridge on the other end. The client's view
    (line, cipher, version) must agree with the device's report."""
    mine, theirs = socket.socketpair()
    client = {}

    def run():
        try:
            client["answer"] = tls.python_client(theirs, ca, suite=row.suite,
                                                 curve=None if row.curve == "none" else row.curve,
                                                 key_bits=row.bits)
        except Exception as error:      # reported below
            client["error"] = error

    thread = threading.Thread(target=run)
    thread.start()
    connection = bridge.serve_connection(mine)
    thread.join()
    if "error" in client:
        raise ProjectError(f"{row.name}: the client failed: {client['error']}")
    line, cipher, version = client["answer"]
    done, hs = connection.done, connection.handshake
    if hs is not None and "cycles" not in hs:
        raise ProjectError("the device's TLS server reports no cycles (a board's does not): tls-bench measures "
                           "the simulation's (docs/tls.md)")
    if done["reason"] != "closed" or hs is None or hs != protocol.TLS_HANDSHAKE.parse(line.strip()):
        raise UnexpectedAnswer("tls", f"{row.name}: ended {done} with {hs}; the client read {line!r}", line)
    if (hs["suite"], hs["curve"], hs["impl"], hs["bits"]) != (row.suite, row.curve, row.impl, row.bits) \
            or (cipher, version) != (tls.OPENSSL_CIPHERS[row.suite], "TLSv1.2"):
        raise UnexpectedAnswer("tls", f"{row.name}: got {hs} ({cipher}, {version})", line)
    return {**hs, "sha256": row.sha256, "seconds": round(connection.seconds, 2)}


def _run_row(console, row, server, handshakes, timeout_ms, ca, done, progress):
    from jobs.bench import use_hash
    server.ready(console, row.bits)
    use_hash(console, row.sha256)
    bridge = tls.Bridge(console, impl=row.impl, timeout_ms=timeout_ms)
    for _ in range(handshakes):
        record = _handshake(bridge, row, ca)
        done.append(record)
        progress(f"[tls-bench] RSA-{row.bits} {row.impl:<8} {row.suite} {row.curve:<9} sha256 {row.sha256} "
                 f"{record['cycles']:>12,} cycles")
    return [row.name]


def summarize(handshakes, clk_hz):
    """One row per (bits, impl, suite, curve, sha256): the handshakes' count, their cycles (median, min, max), the
    median of each part and handshakes per second at the SoC's clock."""
    rows = []
    keyed = {}
    for h in handshakes:
        keyed.setdefault((h["bits"], h["impl"], h["suite"], h["curve"], h.get("sha256", HASHES[0])), []).append(h)
    for (bits, impl, suite, curve, sha256), group in keyed.items():
        cycles = [h["cycles"] for h in group]
        median = statistics.median(cycles)
        rows.append({"bits": bits, "impl": impl, "suite": suite, "curve": curve, "sha256": sha256,
                     "handshakes": len(group),
                     "cycles": median, "cycles_min": min(cycles), "cycles_max": max(cycles),
                     "parts": {part: statistics.median(h[part] for h in group) for part in protocol.TLS_PARTS},
                     "io_wait": statistics.median(h["io_wait"] for h in group),
                     "per_second": round(clk_hz / median, 1)})
    order = {impl: i for i, impl in enumerate(protocol.TLS_IMPLS)}
    variants = {variant: i for i, variant in enumerate(VARIANTS)}
    rows.sort(key=lambda r: (r["bits"], variants[(r["suite"], r["curve"])], order[r["impl"]],
                             HASHES.index(r["sha256"])))
    return rows


def markdown(report):
    clk = report["soc"]["sys_clk_hz"] / 1e6
    lines = [f"# TLS 1.2 handshakes on the device ({report['date']})", "",
             f"`{report['command']}` on {report['where']}: {report['soc']['cpu']} {report['soc']['variant']}, "
             f"{clk:g} MHz. Each row: {report['handshakes_per_row']} full handshakes by Python's `ssl` "
             "(TLS 1.2, the chain verified); cycles as the device counts them, from the connection's start to "
             "the handshake's end without the UART waits (median; min and max beside it), split by where they "
             "went (medians: the parts of one handshake add up to its cycles, their medians nearly).", "",
             "| key | suite | curve | RSA on | SHA-256 | cycles | min | max | "
             + " | ".join(PART_LABELS[p] for p in protocol.TLS_PARTS) + f" | handshakes/s at {clk:g} MHz |",
             "|---:|---|---|---|---|" + "---:|" * (3 + len(protocol.TLS_PARTS) + 1)]
    for r in report["rows"]:
        suite = r["suite"].replace("TLS_", "").replace("_WITH_AES_128_GCM_SHA256", "")
        lines.append(f"| {r['bits']} | {suite} | {r['curve']} | {r['impl']} | {r['sha256']} | {r['cycles']:,.0f} | "
                     f"{r['cycles_min']:,} | {r['cycles_max']:,} | "
                     + " | ".join(f"{r['parts'][p]:,.0f}" for p in protocol.TLS_PARTS)
                     + f" | {r['per_second']:,.1f} |")
    lines += ["", "Suites: RSA = TLS_RSA_WITH_AES_128_GCM_SHA256, ECDHE_RSA = "
              "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256. Parts (docs/tls.md): RSA = the server's private-key "
              "operation in BearSSL's hooks (with our implementations, the CRT result's check with e); ECDHE = "
              "the curve's two scalar multiplications; hash = SHA-256 (handshake transcript, HMAC-DRBG, the "
              "signed parameters' hash); PRF = the TLS 1.2 PRF (master secret, keys, Finished; its hashes "
              "included); record = "
              "AES-128-GCM (key schedules, the two Finished records); other = BearSSL's handshake engine and "
              "everything else. SHA-256: hw = the engine, sw = BearSSL's software (`sha256 hw|sw`)."]
    return "\n".join(lines) + "\n"


def plot(report, path):
    """report.png: each row's median split as shares of its cycles (the rows differ by a hundredfold), its
    cycles and handshakes per second written beside it."""
    plt = report_files.pyplot()
    rows = report["rows"]
    clk = report["soc"]["sys_clk_hz"] / 1e6
    fig, ax = plt.subplots(figsize=(10, 0.42 * len(rows) + 1.7))
    labels = [f"RSA-{r['bits']} {r['suite'].replace('TLS_', '').replace('_WITH_AES_128_GCM_SHA256', '')} "
              f"{'' if r['curve'] == 'none' else r['curve'] + ' '}{r['impl']} sha256 {r['sha256']}" for r in rows]
    left = [0.0] * len(rows)
    for i, part in enumerate(protocol.TLS_PARTS):
        shares = [100 * r["parts"][part] / max(1, sum(r["parts"].values())) for r in rows]
        ax.barh(range(len(rows)), shares, left=left, color=f"C{i}", label=PART_LABELS[part])
        left = [a + b for a, b in zip(left, shares)]
    for y, r in enumerate(rows):
        ax.text(101, y, f"{r['cycles'] / 1e6:,.2f} M cycles, {r['per_second']:,.1f}/s", va="center", fontsize=8)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 135)
    ax.set_xticks(range(0, 101, 20))
    ax.set_xlabel(f"share of the handshake's cycles (median), %; right: cycles and handshakes per second at "
                  f"{clk:g} MHz")
    ax.legend(fontsize=8, ncol=len(protocol.TLS_PARTS), loc="lower center", bbox_to_anchor=(0.4, 1.0))
    fig.tight_layout()
    report_files.save_figure(fig, path)


def write(report, out_dir):
    report_files.write(out_dir, "report", report, markdown, plot)


def add_arguments(parser):
    parser.add_argument("--handshakes", type=options.at_least(1), default=3, metavar="N",
                        help="handshakes per implementation, suite and size (default: %(default)s)")
    options.add_impls(parser, DEFAULT_IMPLS, protocol.TLS_IMPLS, help="implementations of the server's RSA")
    parser.add_argument("--hashes", type=options.impls_type(HASHES), default=list(HASHES), metavar="LIST",
                        help=f"the SHA-256s the server hashes with, comma-separated (default and available: "
                             f"{','.join(HASHES)}: the engine, BearSSL's software)")
    options.add_sizes(parser, default=(2048,), help="the server's key sizes (the firmware's bench keys)")
    tls.add_tls_timeout(parser)
    options.add_out(parser, tls.OUT_DIR)
    options.add_simulations(parser)


def main(args, log):
    """`python -m sim tls-bench`: the rows over parallel simulations, or one after another at --port."""
    build = options.simulation(args, log)
    timeout_ms = tls.device_timeout_ms(args)
    sizes, impls, out_dir = args.sizes, args.impls, args.out
    tls.test_ca(out_dir)
    ca = out_dir / "ca.pem"
    server = _Server(out_dir)
    rows = sorted(_rows(sizes, impls, args.hashes), key=_cost, reverse=True)
    handshakes, lock = [], threading.Lock()
    progress = log
    command = (f"python -m sim tls-bench --handshakes {args.handshakes} --impls {','.join(impls)} "
               f"--sizes {','.join(map(str, sizes))} --hashes {','.join(args.hashes)}" + options.port_suffix(args))
    started = time.monotonic()

    def run_job(console, row):
        done = []
        names = _run_row(console, row, server, args.handshakes, timeout_ms, ca, done, progress)
        with lock:
            handshakes.extend(done)
        return names

    if args.port:
        from jobs.bench import soc_from_info
        console = options.open_console(args, build)
        try:
            soc = soc_from_info(console)
            where = f"a board on {args.port}"
            for row in rows:
                run_job(console, row)
        finally:
            console.close()
        simulations = []
    else:
        from sim import build as sim_build
        builds = {True: build}
        if any(not row.peripheral for row in rows):
            builds[False] = sim_build.build_bare(build, log=log)
        soc, where = build.soc_info, "the simulated SoC"
        simulations = pool.run_jobs(builds, rows, run_job, simulations=args.simulations, timeout=args.timeout)
    clk_hz = soc.get("sys_clk_hz") or config.SYS_CLK_FREQ
    report = {"date": time.strftime("%Y-%m-%d"), "command": command, "where": where,
              "soc": {**soc, "sys_clk_hz": clk_hz}, "handshakes_per_row": args.handshakes,
              "rows": summarize(handshakes, clk_hz), "handshakes": handshakes,
              "timing": {"seconds": round(time.monotonic() - started, 1), "simulations": simulations}}
    write(report, out_dir)
    print(markdown(report))
    print(f"report: {out_dir}/report.{{json,md,png}}")
    return 0


registry.register(registry.Job(
    "tls-bench", "TLS handshakes measured, build/tls/report.*", main, add_arguments=add_arguments,
    groups=(options.BUILD, options.SERIAL), timeout=7200,
    description="Full TLS 1.2 handshakes by Python's ssl against the device's server, per implementation, "
                "suite and key size; writes report.{json,md,png} (docs/tls.md)."))
