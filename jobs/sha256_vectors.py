"""`python -m sim sha256-vectors`: NIST's SHA-256 test vectors through the SHA-256 engine.

Three sets, from the CAVP response files that `cryptography_vectors` ships (hashes/SHA2/):

- ShortMsg (65 messages of 0 to 512 bits) and LongMsg (64 messages of 1,304 to 51,200 bits), hashed by the
  engine's RTL (gateware/sha256/engine.py) in Amaranth's simulator, block by block: padded here, each
  block's words written, BLOCK issued, the state read at the end (`rtl_digests`);
- the Monte Carlo test (SHA256Monte.txt): from the seed, 100 checkpoints of 1,000 chained hashes each, run
  by the firmware's `hash_mct` on the simulated SoC through a BearSSL hash class, the engine's (`hw`) and,
  with --impls, BearSSL's software one (`sw`); every checkpoint is compared with the file's.

The RTL driver knows the engine only through its ports (gateware/sha256/interface.py's contract); how a
block's message words reach the engine is in one function, `_write_message`.

Outputs, under build/sha256-vectors/: report.json (every set's counts, the failures, each checkpoint's
cycles) and report.md. Exits 1 when any digest or checkpoint differs from NIST's.
"""

import functools
import re
import struct
import time

from common import report as report_files
from common.errors import ProjectError
from common.paths import BUILD_DIR
from jobs import options, registry
from soc import console_protocol as protocol

#: The response files, under cryptography_vectors' tree.
VECTOR_DIR = "hashes/SHA2"
MESSAGE_SETS = {"short": "SHA256ShortMsg.rsp", "long": "SHA256LongMsg.rsp"}
MONTE_CARLO_FILE = "SHA256Monte.rsp"
#: Hashes between two Monte Carlo checkpoints (SHA256Monte.txt: MD3 .. MD1002), as the firmware runs them.
MONTE_CARLO_ITERATIONS = protocol.HASH_MCT_ITERATIONS
DEFAULT_IMPLS = ("hw",)


# ---- the response files ----

def _records(text):
    """The `Name = value` records of a response file, each a dict, in order: a blank line ends a record;
    comments and `[L = 32]` headers are skipped."""
    records, record = [], {}
    for line in text.splitlines() + [""]:
        line = line.strip()
        match = re.fullmatch(r"(\w+) = (\S*)", line)
        if match:
            record[match.group(1)] = match.group(2)
        elif not line and record:
            records.append(record)
            record = {}
    return records


@functools.cache
def _vector_text(name):
    import cryptography_vectors
    with cryptography_vectors.open_vector_file(f"{VECTOR_DIR}/{name}", "r") as f:
        return f.read()


def parse_messages(text):
    """[(message, digest)] of a ShortMsg or LongMsg file; `Len` is in bits (Len = 0 comes with Msg = 00)."""
    vectors = []
    for record in _records(text):
        bits = int(record["Len"])
        if bits % 8:
            raise ProjectError(f"a message of {bits} bits: the engine's driver takes whole bytes")
        vectors.append((bytes.fromhex(record["Msg"])[:bits // 8], bytes.fromhex(record["MD"])))
    return vectors


def parse_monte_carlo(text):
    """(seed, [checkpoint 0, 1, ...]) of SHA256Monte.rsp, as bytes."""
    records = _records(text)
    seed = bytes.fromhex(records[0]["Seed"])
    checkpoints = [(int(r["COUNT"]), bytes.fromhex(r["MD"])) for r in records[1:]]
    if [count for count, _ in checkpoints] != list(range(len(checkpoints))):
        raise ProjectError("SHA256Monte.rsp: the checkpoints are not numbered 0, 1, ...")
    return seed, [md for _, md in checkpoints]


def message_vectors(name):
    """The vectors of MESSAGE_SETS[name]."""
    return parse_messages(_vector_text(MESSAGE_SETS[name]))


def monte_carlo_vectors():
    return parse_monte_carlo(_vector_text(MONTE_CARLO_FILE))


def monte_carlo(seed, checkpoints, digest):
    """The first `checkpoints` checkpoints from `seed`, with `digest(bytes) -> bytes` as the hash: each one
    MD1002 of MD0 = MD1 = MD2 = the previous (the seed first), MDi = digest(MD(i-3) || MD(i-2) || MD(i-1))."""
    found = []
    for _ in range(checkpoints):
        window = [seed] * 3
        for _ in range(MONTE_CARLO_ITERATIONS):
            window = window[1:] + [digest(b"".join(window))]
        seed = window[-1]
        found.append(seed)
    return found


# ---- the engine's RTL, block by block ----

def pad(message):
    """FIPS 180-4 5.1.1: a 1 bit, zeros to 448 mod 512 bits, the message's length in bits as 64 bits."""
    return message + b"\x80" + bytes(-(len(message) + 9) % 64) + struct.pack(">Q", 8 * len(message))


def message_blocks(message):
    """The padded message as blocks of 16 big-endian words (5.2.1)."""
    padded = pad(message)
    return [struct.unpack(">16I", padded[i:i + 64]) for i in range(0, len(padded), 64)]


async def _write_message(ctx, engine, words):
    """Puts one block's 16 message words into the engine's message buffer: the only code here that knows
    how. Each word is written by index (message_addr, message_data, message_we), one a cycle; the buffer
    takes them in any cycle, and this driver writes them while the engine is idle."""
    ctx.set(engine.message_we, 1)
    for index, word in enumerate(words):
        ctx.set(engine.message_addr, index)
        ctx.set(engine.message_data, word)
        await ctx.tick()
    ctx.set(engine.message_we, 0)


async def _issue(ctx, engine, command):
    """Strobes `command` for one cycle, then waits until the engine is idle."""
    ctx.set(engine.command, command)
    ctx.set(engine.command_stb, 1)
    await ctx.tick()
    ctx.set(engine.command_stb, 0)
    if ctx.get(engine.status.busy):
        await ctx.tick().until(engine.status.busy == 0)


async def _engine_digest(ctx, engine, message):
    """The engine's SHA-256 of `message`: INIT, each block's words and BLOCK, then the state words read."""
    from gateware.sha256.interface import STATE_WORDS, Command
    await _issue(ctx, engine, Command.INIT)
    for words in message_blocks(message):
        await _write_message(ctx, engine, words)
        await _issue(ctx, engine, Command.BLOCK)
    status = ctx.get(engine.status)
    if status.busy_refused or status.bad_command:
        raise ProjectError(f"the engine refused a write or command hashing a message of {len(message)} bytes")
    state = []
    for index in range(STATE_WORDS):
        ctx.set(engine.state_addr, index)
        state.append(ctx.get(engine.state_rdata))
    return struct.pack(f">{STATE_WORDS}I", *state)


def rtl_digests(messages):
    """The engine's RTL's SHA-256 of each message (bytes), one after another in one simulation."""
    from amaranth.sim import Simulator
    from gateware.sha256.engine import SHA256Engine
    engine = SHA256Engine()
    digests = []

    async def testbench(ctx):
        for message in messages:
            digests.append(await _engine_digest(ctx, engine, message))

    sim = Simulator(engine)
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()
    return digests


def rtl_set(name):
    """MESSAGE_SETS[name] through the engine's RTL: its vectors, those that passed, the lengths (bytes) of
    those that failed, the blocks hashed and the wall-clock seconds."""
    vectors = message_vectors(name)
    started = time.monotonic()
    digests = rtl_digests([message for message, _ in vectors])
    failed = [len(message) for (message, expected), found in zip(vectors, digests) if found != expected]
    return {"file": MESSAGE_SETS[name], "vectors": len(vectors), "passed": len(vectors) - len(failed),
            "failed_bytes": failed, "blocks": sum(len(message_blocks(message)) for message, _ in vectors),
            "seconds": round(time.monotonic() - started, 2)}


# ---- the Monte Carlo test on the SoC ----

def mct_command(impl, seed, checkpoints):
    """The console line running checkpoints 0 .. checkpoints - 1 on `impl`."""
    return f"hash_mct {impl} {seed.hex()} {checkpoints - 1}"


def checkpoint_rows(impl, lines, expected):
    """The record of one implementation's run from its output `lines`: each HASH_MCT line checked against
    `expected` (the response file's checkpoints), its cycles; an error line or a missing checkpoint
    fails the run."""
    found = [protocol.HASH_MCT.parse(line) for line in lines]
    checkpoints = [row for row in found if row is not None and row["impl"] == impl]
    errors = [line for line in lines if protocol.error_code(line) is not None]
    failed = [row["checkpoint"] for row in checkpoints
              if row["checkpoint"] >= len(expected) or row["digest"] != expected[row["checkpoint"]]]
    in_order = [row["checkpoint"] for row in checkpoints] == list(range(len(checkpoints)))
    cycles = [row["cycles"] for row in checkpoints]
    return {"impl": impl, "checkpoints": len(checkpoints), "passed": len(checkpoints) - len(failed),
            "failed_checkpoints": failed, "in_order": in_order, "error": errors[0] if errors else None,
            "cycles": cycles, "cycles_per_hash": round(sum(cycles) / (len(cycles) * MONTE_CARLO_ITERATIONS))
            if cycles else None}


def run_monte_carlo(console, impl, checkpoints, progress=None):
    """`hash_mct` on `console` for `checkpoints` checkpoints from NIST's seed; checkpoint_rows' record,
    with the wall-clock seconds and whether every checkpoint asked for came back right."""
    seed, expected = monte_carlo_vectors()
    started = time.monotonic()
    lines = []
    for line in console.command_lines(mct_command(impl, seed, checkpoints)):
        lines.append(line)
        if progress is not None:
            print(f"[sha256-vectors] {line}", file=progress, flush=True)
    row = checkpoint_rows(impl, lines, expected)
    row["asked"] = checkpoints
    row["ok"] = (row["checkpoints"] == row["passed"] == checkpoints and row["in_order"]
                 and row["error"] is None)
    row["seconds"] = round(time.monotonic() - started, 1)
    return row


# ---- the report ----

def make_report(rtl, monte_carlo_rows, *, command, soc, seconds):
    """The report of the RTL sets ({name: rtl_set record}) and the Monte Carlo runs (run_monte_carlo's)."""
    passed = (all(row["passed"] == row["vectors"] for row in rtl.values())
              and all(row["ok"] for row in monte_carlo_rows))
    return {"command": command, "date": time.strftime("%Y-%m-%d"), "seconds": round(seconds, 1), "soc": soc,
            "iterations": MONTE_CARLO_ITERATIONS, "rtl": rtl, "monte_carlo": monte_carlo_rows, "passed": passed}


def markdown(report):
    lines = [f"NIST's SHA-256 vectors (CAVP, `cryptography_vectors`) through the SHA-256 engine: "
             f"`{report['command']}`, {report['date']}, {report['seconds']:.0f} s.", "",
             "The message sets on the engine's RTL in Amaranth's simulator, block by block:", "",
             "| set | vectors | passed | blocks | seconds | failed (bytes) |", "|---|---:|---:|---:|---:|---|"]
    for row in report["rtl"].values():
        lines.append(f"| {row['file']} | {row['vectors']} | {row['passed']} | {row['blocks']:,} | {row['seconds']} | "
                     f"{', '.join(map(str, row['failed_bytes'])) or '-'} |")
    if report["monte_carlo"]:
        lines += ["", f"The Monte Carlo test (SHA256Monte.rsp) on the simulated SoC "
                      f"({report_files.soc_text(report['soc'])}), `hash_mct`: each checkpoint "
                      f"{report['iterations']:,} hashes of 96 bytes, timed by the firmware:", "",
                  "| class | checkpoints | passed | cycles a checkpoint | cycles a hash | seconds | failed |",
                  "|---|---:|---:|---:|---:|---:|---|"]
        for row in report["monte_carlo"]:
            low, high = (min(row["cycles"]), max(row["cycles"])) if row["cycles"] else (None, None)
            cycles = "-" if low is None else f"{low:,}" if low == high else f"{low:,} to {high:,}"
            per_hash = f"{row['cycles_per_hash']:,}" if row["cycles"] else "-"
            failed = ", ".join(map(str, row["failed_checkpoints"])) or row["error"] or "-"
            lines.append(f"| {row['impl']} | {row['checkpoints']} of {row['asked']} | {row['passed']} | {cycles} | "
                         f"{per_hash} | {row['seconds']} | {failed} |")
    lines += ["", "Every vector and checkpoint agrees with NIST's." if report["passed"]
              else "**Some vectors or checkpoints differ from NIST's.**", ""]
    return "\n".join(lines)


def check(report):
    """Raises ProjectError naming what differed from NIST's."""
    wrong = [f"{row['file']}: {row['vectors'] - row['passed']} of {row['vectors']}" for row in report["rtl"].values()
             if row["passed"] != row["vectors"]]
    wrong += [f"Monte Carlo on {row['impl']}: {row['passed']} of {row['asked']} checkpoints"
              + (f" ({row['error']})" if row["error"] else "") for row in report["monte_carlo"] if not row["ok"]]
    if wrong:
        raise ProjectError("SHA-256 vectors failed: " + "; ".join(wrong))


# ---- the job: `python -m sim sha256-vectors` ----

def add_arguments(parser):
    options.add_impls(parser, DEFAULT_IMPLS, tuple(protocol.HASH_IMPLS),
                      help="hash classes the Monte Carlo test runs on (hw: the engine; sw: BearSSL's software, "
                           "about 3 times the simulation)")
    parser.add_argument("--checkpoints", type=options.at_least(0), default=protocol.HASH_MCT_CHECKPOINTS,
                        metavar="N", help="Monte Carlo checkpoints on each class, 0: none, no simulated SoC "
                                          f"(default: %(default)s, the whole test)")
    options.add_out(parser, BUILD_DIR / "sha256-vectors")


def check_arguments(args):
    if args.checkpoints > protocol.HASH_MCT_CHECKPOINTS:
        raise options.UsageError(f"--checkpoints: the Monte Carlo test has {protocol.HASH_MCT_CHECKPOINTS}")


def main(args, log):
    """The message sets on the RTL, then the Monte Carlo test on the simulated SoC; exits 1 (a ProjectError)
    when anything differs from NIST's."""
    started = time.monotonic()
    rtl = {}
    for name in MESSAGE_SETS:
        log(f"[sha256-vectors] {MESSAGE_SETS[name]} on the engine's RTL")
        rtl[name] = rtl_set(name)
    rows, soc = [], None
    if args.checkpoints:
        build = options.simulation(args, log)
        soc = build.soc_info
        console = options.open_console(args, build)
        try:
            rows = [run_monte_carlo(console, impl, args.checkpoints, options.progress(args)) for impl in args.impls]
        finally:
            console.close()
    command = (f"python -m sim sha256-vectors --impls {','.join(args.impls)}"
               + (f" --checkpoints {args.checkpoints}" if args.checkpoints != protocol.HASH_MCT_CHECKPOINTS else ""))
    report = make_report(rtl, rows, command=command, soc=soc, seconds=time.monotonic() - started)
    report_files.write(args.out, "report", report, markdown)
    print(markdown(report))
    print(f"report: {args.out}/report.{{json,md}}")
    check(report)
    return 0


registry.register(registry.Job(
    "sha256-vectors", "NIST's SHA-256 vectors through the engine, build/sha256-vectors/", main,
    add_arguments=add_arguments, check=check_arguments, groups=(options.BUILD,), timeout=7200,
    description="Run NIST's SHA-256 ShortMsg and LongMsg vectors on the engine's RTL and the Monte Carlo test "
                "on the simulated SoC (hash_mct), every digest checked; writes report.{json,md} and exits 1 if "
                "any differs."))
