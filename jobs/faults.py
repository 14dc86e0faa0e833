"""`python -m sim faults N`: a fault-injection campaign on the simulated SoC.

Each run is one private-key operation typed at the console (`sign pkcs1 <message> hw_seq`: SHA-256,
PKCS#1 v1.5, RSA with CRT on the sequencer, both halves at once with the pair commands; or
`oaep_decrypt <ciphertext> hw_seq`) while one bit of the state of the peripheral, the SHA-256 engine or
the entropy source flips once, at a random cycle of the operation. The campaign runs on its own model of the SoC (sim/build.py, `faults`;
sim/fault_model.py): the same Verilog as every other build, with the peripheral's registers and
memories public, so that the harness's fault hook (sim/harness/fault_hook.h) can flip them; many runs
share one boot, each armed over a pipe the hook reads.

Fault sites are the peripheral's state: every register (a signal assigned on the clock edge in its
Verilog) and every memory, grouped into SITE_CLASSES; and one class more for each other unit
(UNIT_CLASSES): the entropy source's registers and the SHA-256 engine's. A run picks its class in turn
(the classes get equal shares of the runs), then a bit uniformly among the class's live bits: every bit
of every register, and of the memories the rows an operation of this size can use (rows 0..k-1 of each
operand slot, k the rows of a pair or of n; the modulus memory's rows of n, of bank 1 and of their N').
The operation's span runs from its first activity (a command of the peripheral or of the SHA-256
engine, a data word, busy) to the console's wipe after the command (CLEAR), as an unfaulted run
measured it. The cycle is uniform over the cycles of the span where the class's unit works: the
peripheral's classes from its first command on; the SHA-256 engine's over its hashing (each command to
the next when they follow within HASH_GAP cycles, the blocks streaming, else to the end of its block:
not the RSA between a digest and the engine's wipe); the entropy source's over the whole span.

Every run is classified from what the console printed and what the hook saw:

- correct: the expected signature (or message) was released;
- refused: an `error=` line, nothing released;
- stuck: the peripheral stopped answering, the driver's bounded wait gave up and reset it (the hook saw
  the reset), and the operation was refused;
- released_wrong: a signature (or message) was released and it is wrong. For a signature,
  gcd(s^e - m, n) says whether it gives the key away (Boneh-DeMillo-Lipton);
- hang: the console did not come back within a cycle limit (the model is then restarted).

After a run that was not correct, one unfaulted operation checks that the console and the peripheral
recovered. Outputs under build/faults/: report.json (`runs`, `classes`, per site class, every run),
report.md and report.png.
"""

import math
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass

from common import report as report_files
from common.errors import ProjectError
from common.paths import BUILD_DIR
from jobs import options, registry
from sim.fault_model import (ENTROPY_TOP, PERIPHERAL_SCOPE, SHA256_SCOPE, SHA256_TOP, UNIT_SCOPES, UNIT_TOPS, FaultHook,
                             plain_name, state_elements)
from soc import console_protocol as protocol

DEFAULT_SEED = "faults"
DEFAULT_OUT_DIR = BUILD_DIR / "faults"
IMPL = "hw_seq"
OPS = ("sign", "decrypt")
#: The run outcomes, in the report's order.
OUTCOMES = ("correct", "refused", "stuck", "released_wrong", "hang")
#: The start of the error line of an operation the driver gave up on (the peripheral stuck).
STUCK_ERROR = "error=peripheral_stuck"
#: The shortest cycle limit of a run after its fault; longer for operations that take longer.
MIN_LIMIT_CYCLES = 10_000_000
#: Cycles between two commands of the SHA-256 engine within which they are one hashing (the CPU writing
#: the next block, the next hash of the same encoding); a longer gap is other work.
HASH_GAP = 1_000
#: A run's cycle limit, in unfaulted operations' worth of cycles.
LIMIT_FACTOR = 20

#: The classes of fault sites, in the report's order: (name, what, rule). A rule takes a state
#: element (its module path below the peripheral, "" for the peripheral itself, its name and the memory
#: it reads, if it is a memory's read register) and says whether it belongs to the class; the first
#: class that takes an element has it, and an element no class takes is an error (a new register must
#: be given a class).
SITE_CLASSES = (
    ("operand_slots", "operand register file (every slot, user and hidden) and its read port",
     lambda m, n, reads: m == "regfile" and (n == "operands" or reads == "operands")),
    ("modulus_banks", "modulus memory (N and N' of both banks), its read port, each bank's size, n' and valid flag",
     lambda m, n, reads: (m == "regfile" and (n == "modulus" or reads == "modulus"))
     or (m == "modulus" and n.startswith(("state__", "state1__")))),
    ("accumulators_carries", "the lanes' accumulators, products, carries and the carry resolution",
     lambda m, n, reads: m.startswith(("core.accumulator", "core.lanes", "core.resolve", "core.select"))),
    ("quotient_heads", "both contexts' quotient heads (a row, the quotient digit, the classic pass)",
     lambda m, n, reads: m in ("core.head0", "core.head1")),
    ("exponent_reader", "the sequencer's exponent reader (the words the windows come from), the exponent's slot and length",
     lambda m, n, reads: m == "sequencer.reader" or (m == "sequencer" and n in ("exponent_slot", "exponent_bits"))),
    ("fsm_states", "every state machine's state register (peripheral, core, SETMOD, each sequencer)",
     lambda m, n, reads: n == "fsm_state"),
    ("sequencer_control", "the sequencers' other registers (slots, digits, counters, bit indices)",
     lambda m, n, reads: m.startswith("sequencer")),
    ("core_control", "the core's control (slots, schedule, iteration counters, row counters), CLEAR's row counter",
     lambda m, n, reads: m.startswith("core.control") or m == "core" or (m == "" and n == "wipe_row")),
    ("setmod_engine", "SETMOD's working registers (n' inversion, N' computation, the bank being loaded)",
     lambda m, n, reads: m == "modulus"),
    ("bus_pointers", "the data port's slot and word pointers",
     lambda m, n, reads: m == "data_port"),
    ("word_serial", "the word-serial unit of ADD, SUB, COPY and EQUAL (its words, carries, counters, slots)",
     lambda m, n, reads: m.split("$")[0] == "serial"),
    ("status", "the status word's error code, done and equal flags, the interrupt",
     lambda m, n, reads: m == "" and n in ("done", "error", "irq", "equal")),
)
#: The entropy source's registers (soc/entropy.py; all of them one class): the health tests' counters and
#: flags, the word being assembled, the waiting word. No RSA result depends on them (PKCS#1 v1.5 and the
#: decryption draw no randomness): the runs show that, and a fault that trips a health test stops the
#: device's generator until `entropy restart` (tests/jobs/test_faults.py).
ENTROPY_CLASS = ("entropy_source", "the entropy source's registers (health tests' counters and flags, the words)",
                 None)
#: The SHA-256 engine's registers (soc/sha256.py; one class): the message words, the schedule, the working
#: variables, the chaining state, the round counter and the status. Faulted while the operation hashes:
#: the digest (and for OAEP, its masks) comes from the engine.
SHA256_CLASS = ("sha256_engine", "the SHA-256 engine's registers (message, schedule, working and chaining state, "
                "round counter, status)", None)
#: The class of each other unit, by its module.
UNIT_CLASSES = {ENTROPY_TOP: ENTROPY_CLASS, SHA256_TOP: SHA256_CLASS}
ALL_CLASSES = (*SITE_CLASSES, *(UNIT_CLASSES[top] for top in UNIT_TOPS))
SITE_CLASS_NAMES = tuple(name for name, _, _ in ALL_CLASSES)


def site_class(element):
    for name, _, rule in SITE_CLASSES:
        if rule(element.module, element.name, element.reads):
            return name
    raise ProjectError(f"no fault-site class takes the peripheral's register {element.module or '(top)'}."
                       f"{element.name}: give it one in jobs/faults.py's SITE_CLASSES")


@dataclass(frozen=True)
class Site:
    index: int              # the hook's
    cls: str
    module: str
    name: str
    bits: int
    elements: int
    live: tuple             # the elements a fault may hit

    @property
    def live_bits(self):
        return self.bits * len(self.live)

    @property
    def label(self):
        return f"{self.module + '.' if self.module else ''}{self.name}"


def live_rows(montmul_config, bits):
    """Rows of an operand slot a private operation on a `bits`-bit key uses: both pair rows, and n's."""
    row_bits = montmul_config.row_bits
    return max(2 if montmul_config.has_pairs else 1, -(-bits // row_bits))


def live_elements(element, montmul_config, bits, elements):
    """The words of a memory that an operation of this key size can use (all of any other)."""
    cfg = montmul_config
    if element.module == "regfile" and element.name == "operands":
        rows = live_rows(cfg, bits)
        return tuple(i for i in range(elements) if i % cfg.rows_per_slot < rows)
    if element.module == "regfile" and element.name == "modulus":
        n_rows = -(-bits // cfg.row_bits)
        rows = set(range(n_rows)) | {cfg.n_prime_row + r for r in range(n_rows)}
        if cfg.has_pairs:
            rows |= {cfg.bank1_row, cfg.n_prime_row + cfg.bank1_row}
        return tuple(sorted(r for r in rows if r < elements))
    return tuple(range(elements))


def catalog(hook_sites, elements, montmul_config, bits, unit_elements=None):
    """The fault sites: the hook's variables that are state elements, each with its class: the
    peripheral's (`elements`, by SITE_CLASSES) and the other units' (`unit_elements`: {module: its
    elements}, each unit all of its UNIT_CLASSES class; their module paths start with its name).
    `hook_sites`: (index, scope, name, bits, elements) as the hook lists them."""
    units = [(PERIPHERAL_SCOPE, "", elements, site_class)]
    for top, scope in zip(UNIT_TOPS, UNIT_SCOPES):
        if unit_elements is not None and top in unit_elements:
            units.append((scope, top, unit_elements[top], lambda element, cls=UNIT_CLASSES[top][0]: cls))
    sites = []
    for unit_scope, prefix, unit_elements, classify in units:
        found = set()
        for index, scope, name, width, count in hook_sites:
            if scope != unit_scope and not scope.startswith(unit_scope + "."):
                continue
            module = scope[len(unit_scope) + 1:]
            element = unit_elements.get((module, plain_name(name)))
            if element is None:
                continue
            if (element.bits, max(element.depth, 1)) != (width, count):
                raise ProjectError(f"{module}.{element.name}: {width} bits x {count} in the model, "
                                   f"{element.bits} x {max(element.depth, 1)} in the Verilog")
            found.add((module, element.name))
            path = ".".join(part for part in (prefix, module) if part)
            sites.append(Site(index, classify(element), path, element.name, width, count,
                              live_elements(element, montmul_config, bits, count)))
        missing = sorted(set(unit_elements) - found)
        if missing:
            raise ProjectError(f"the fault model lacks {len(missing)} of the registers of {unit_scope}, e.g. "
                               f"{'.'.join(missing[0])}: is sim/build.py's fault configuration in its build?")
    return sites


# ---- one operation, its expected answer, its classification ----

def _private_key(key):
    from cryptography.hazmat.primitives.asymmetric import rsa
    return rsa.RSAPrivateNumbers(key["p"], key["q"], key["d"], key["dp"], key["dq"], key["qinv"],
                                 rsa.RSAPublicNumbers(key["e"], key["n"])).private_key()


def oaep_encrypt(key, message, seed):
    """RSA-OAEP (SHA-256, MGF1-SHA-256, empty label; RFC 8017 7.1.1) with a given seed, so that a campaign
    repeats from its --seed (cryptography draws the seed itself)."""
    import hashlib

    def mgf1(data, length):
        return b"".join(hashlib.sha256(data + i.to_bytes(4, "big")).digest()
                        for i in range(-(-length // 32)))[:length]

    k = (key["n"].bit_length() + 7) // 8
    db = hashlib.sha256(b"").digest() + bytes(k - len(message) - 66) + b"\x01" + message
    masked_db = bytes(a ^ b for a, b in zip(db, mgf1(seed, k - 33)))
    masked_seed = bytes(a ^ b for a, b in zip(seed, mgf1(masked_db, 32)))
    encoded = int.from_bytes(b"\x00" + masked_seed + masked_db, "big")
    return pow(encoded, key["e"], key["n"]).to_bytes(k, "big")


class Operation:
    """The console command of a run and what a correct answer is."""

    def __init__(self, op, key, rng):
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import padding
        self.op, self.key = op, key
        self.message = rng.randbytes(32)
        private = _private_key(key)
        if op == "sign":
            self.expected = private.sign(self.message, padding.PKCS1v15(), hashes.SHA256())
            self.command = f"sign pkcs1 {self.message.hex()} {IMPL}"
            # the encoded message m = s^e: what a released s is checked against
            self.encoded = pow(int.from_bytes(self.expected, "big"), key["e"], key["n"])
        else:
            ciphertext = oaep_encrypt(key, self.message, rng.randbytes(32))
            self.expected = self.message
            self.command = f"oaep_decrypt {ciphertext.hex()} {IMPL}"
            self.encoded = None
            private.decrypt(ciphertext, padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(),
                                                     label=None))      # cryptography takes it

    def released(self, output):
        """What the answer released (bytes), or None; and its error line, or None."""
        error = None
        for line in output.splitlines():
            if protocol.error_code(line) is not None:
                error = line.strip()
            values = (protocol.SIGNATURE if self.op == "sign" else protocol.MESSAGE).parse(line)
            if values is not None:
                return values["signature" if self.op == "sign" else "message"], error
        return None, error

    def factors(self, released):
        """For a released wrong signature: whether gcd(s^e - m, n) is a proper factor of n."""
        if self.encoded is None:
            return None
        n = self.key["n"]
        g = math.gcd((pow(int.from_bytes(released, "big"), self.key["e"], n) - self.encoded) % n, n)
        return 1 < g < n


# ---- the campaign ----

def _op_field(word):
    from amaranth.lib import data
    from gateware.interface import Command, Opcode
    field = data.Layout.cast(Command)["op"]
    value = (word >> field.offset) & ((1 << field.width) - 1)
    try:
        return Opcode(value).name
    except ValueError:
        return str(value)


def check_start(commands):
    """Where the check with e begins in an operation's command trace ((offset, word, busy) each): after
    the last READ before its exponentiation (the one EXP_WINDOW of a sequencer CRT operation: the
    READ is the signature's, which the check then takes back), at the next command; None when there
    is no EXP_WINDOW."""
    ops = [_op_field(word) for _, word, _ in commands]
    if "EXP_WINDOW" not in ops:
        return None
    exp = len(ops) - 1 - ops[::-1].index("EXP_WINDOW")
    reads = [i for i in range(exp) if ops[i] == "READ"]
    start = reads[-1] + 1 if reads else 0
    return commands[start][0]


class Session:
    """One boot of the fault model with the key set; `operation()` runs one command."""

    def __init__(self, build, key, timeout):
        from link import serial_boot
        from link.console import Console
        from link.transport import SocModelTransport
        import os
        self.hook = FaultHook()
        transport = SocModelTransport(build.model, build.gateware_dir, pass_fds=self.hook.model_fds,
                                      env={**os.environ, **self.hook.model_env()}, entropy=build.entropy)
        self.hook.started()
        self.console = Console(transport, timeout=timeout, boot=serial_boot.jump_to_main_ram)
        try:
            self.console.wait_prompt()
            self.console.set_key(key)
        except BaseException:
            self.close()
            raise

    def operation(self, command):
        """Types `command`; its output, or None when the model ended (the hook's cycle limit)."""
        from link.transport import TransportError
        try:
            return self.console.command(command)
        except TransportError:
            return None

    def close(self):
        self.console.close()
        self.hook.close()


def _windows(trace, unit_commands, span):
    """{class: [(first, end), ...]}: the cycles of the span in which each class's unit works (the module
    docstring). `trace`: the peripheral's commands, (offset, word, busy) each; `unit_commands`: the other
    units' commands, (scope, offset) each."""
    from gateware.sha256.interface import BLOCK_CYCLES
    start = trace[0][0] if trace else 0
    windows = {name: [(start, span)] for name, _, _ in SITE_CLASSES}
    windows[ENTROPY_CLASS[0]] = [(0, span)]
    hashing = sorted(offset for scope, offset in unit_commands if scope == SHA256_SCOPE)
    if not hashing:
        raise ProjectError("the unfaulted operation gave the SHA-256 engine no command: its class would fault an "
                           "idle engine (is the firmware's SHA-256 the engine's?)")
    intervals = []
    for offset, following in zip(hashing, hashing[1:] + [None]):
        end = following if following is not None and following - offset <= HASH_GAP else offset + BLOCK_CYCLES + 1
        if intervals and intervals[-1][1] >= offset:
            intervals[-1] = (intervals[-1][0], max(intervals[-1][1], end))
        else:
            intervals.append((offset, end))
    windows[SHA256_CLASS[0]] = intervals
    return windows


def _pick(intervals, rng):
    """A cycle uniform over the union of `intervals` ((first, end) each, disjoint)."""
    u = rng.randrange(sum(end - first for first, end in intervals))
    for first, end in intervals:
        if u < end - first:
            return first + u
        u -= end - first
    raise AssertionError("unreachable")


def _sample(sites, cls, rng):
    in_class = [s for s in sites if s.cls == cls and s.live]
    site = rng.choices(in_class, weights=[s.live_bits for s in in_class])[0]
    return site, rng.choice(site.live), rng.randrange(site.bits)


def peripheral_config(build):
    """The PeripheralConfig a SimBuild's SoC carries."""
    from gateware.interface import PeripheralConfig
    info = build.soc_info["peripheral"]
    return PeripheralConfig(max_bits=info["max_bits"], lanes=info["lanes"], word_bits=info["word_bits"])


class Injector:
    """The fault model booted with `key`, and an unfaulted operation watched: its span on the
    peripheral (`span`), its commands (`trace`), where its check with e starts (`check`), its cycles as
    the firmware counts them (`cycles`). `inject` runs one faulted operation and classifies it."""

    def __init__(self, build, key, op="sign", rng=None, timeout=None, bits=None):
        if op not in OPS:
            raise ProjectError(f"the operation is one of {', '.join(OPS)}, not {op!r}")
        self.build, self.key, self.op = build, key, op
        self.rng = rng or random.Random(DEFAULT_SEED)
        self.timeout = timeout or 10 * 3600
        self.elements = state_elements((build.gateware_dir / "montmul.v").read_text())
        self.unit_elements = {top: state_elements((build.gateware_dir / f"{top}.v").read_text(), top)
                              for top in UNIT_TOPS}
        self.session = Session(build, key, timeout=self.timeout)
        self.boots = 1
        try:
            self.sites = catalog(self.session.hook.sites(), self.elements, peripheral_config(build),
                                 bits or key["n"].bit_length(), self.unit_elements)
            calibration = Operation(op, key, self.rng)
            self.session.hook.arm()
            output = self.session.operation(calibration.command)
            watched = self.session.hook.report()
            released, _ = calibration.released(output or "")
            if released != calibration.expected:
                raise ProjectError(f"the unfaulted operation failed: {(output or '').strip()[:300]!r}")
        except BaseException:
            self.close()
            raise
        self.trace = watched["commands"]
        # the operation's span ends where the console's wipe after the command (CLEAR) starts: the result
        # is out by then, and the cycles before it print the result, the peripheral idle
        wipes = [offset for offset, word, _ in self.trace if _op_field(word) == "CLEAR"]
        self.span = wipes[-1] if wipes else watched["span"]
        self.check = check_start(self.trace)
        self.windows = _windows(self.trace, watched["unit_commands"], self.span)
        self.cycles = _cycles(calibration, output)
        self.limit = max(MIN_LIMIT_CYCLES, LIMIT_FACTOR * self.cycles)

    def site(self, label):
        """The Site of `label` ("regfile.operands", "fsm_state", "sequencer.fixed.digit", ...)."""
        found = [s for s in self.sites if s.label == label]
        if len(found) != 1:
            raise ProjectError(f"{len(found)} fault sites named {label!r}")
        return found[0]

    def command_offsets(self, opcode):
        """Where each command of `opcode` (its name) starts in the unfaulted trace, and how long it ran."""
        return [(offset, busy) for offset, word, busy in self.trace if _op_field(word) == opcode]

    def restart(self):
        self.session.close()
        self.session = Session(self.build, self.key, timeout=self.timeout)
        self.boots += 1

    def inject(self, site, element, bit, offset):
        """One operation with bit `bit` of element `element` of `site` flipped `offset` cycles after the
        peripheral's first activity; the run's record (outcome, error line, the flip's before and after
        words, the peripheral resets seen, whether a wrong signature factors n)."""
        operation = Operation(self.op, self.key, self.rng)
        self.session.hook.arm(site.index, element, bit, offset, self.limit)
        output = self.session.operation(operation.command)
        record = {"class": site.cls, "site": site.label, "element": element, "bit": bit, "offset": offset,
                  "phase": "hash" if site.cls == SHA256_CLASS[0] else
                           "check" if self.check is not None and offset >= self.check else "crt",
                  "command": _command_at(self.trace, offset)}
        if output is None:
            record.update(outcome="hang", error=None, factors=None)
            self.restart()
            return record
        seen = self.session.hook.report()
        if not seen["fired"]:
            raise ProjectError(f"the fault did not fire (offset {offset} of a {self.span}-cycle span; this run's "
                               f"span {seen['span']}, {len(seen['commands'])} commands; output "
                               f"{output.strip()[:200]!r})")
        record.update(before=f"{seen['before']:x}", after=f"{seen['after']:x}", resets=seen["resets"])
        released, error = operation.released(output)
        record["error"] = error
        if released is not None:
            right = released == operation.expected
            record["outcome"] = "correct" if right else "released_wrong"
            record["factors"] = None if right else operation.factors(released)
        elif error is not None:
            stuck = seen["resets"] > 0 or error.startswith(STUCK_ERROR)
            record.update(outcome="stuck" if stuck else "refused", factors=None)
        else:
            raise ProjectError(f"neither a result nor an error line: {output.strip()[:300]!r}")
        return record

    def recovered(self):
        """One unfaulted operation: True when it gives the right answer."""
        operation = Operation(self.op, self.key, self.rng)
        output = self.session.operation(operation.command)
        if output is None:
            return False
        released, _ = operation.released(output)
        return released == operation.expected

    def close(self):
        self.session.close()


def run(build, runs, bits=1024, op="sign", seed=DEFAULT_SEED, out_dir=DEFAULT_OUT_DIR, progress=sys.stderr,
        command=None, timeout=None):
    """The campaign: `runs` faulted operations on `build` (a fault-model SimBuild); writes and returns
    the report."""
    from soc import keys as soc_keys
    key = soc_keys.bench_keys([bits])[0]
    rng = random.Random(f"{seed}-{bits}-{op}")
    started = time.monotonic()
    injector = Injector(build, key, op, rng, timeout, bits)
    records, order = [], []
    try:
        for i in range(runs):
            if not order:
                order = list(SITE_CLASS_NAMES)
                rng.shuffle(order)
            cls = order.pop()
            site, element, bit = _sample(injector.sites, cls, rng)
            record = {"run": i, **injector.inject(site, element, bit, _pick(injector.windows[cls], rng))}
            if record["outcome"] not in ("correct", "hang"):
                record["recovered"] = injector.recovered()
                if not record["recovered"]:
                    injector.restart()      # the peripheral stays broken: the next run starts from a fresh boot
            records.append(record)
            if progress is not None and ((i + 1) % 50 == 0 or i + 1 == runs):
                counts = Counter(r["outcome"] for r in records)
                print(f"[faults] {i + 1}/{runs} runs, {time.monotonic() - started:.0f} s: "
                      + ", ".join(f"{k} {counts[k]}" for k in OUTCOMES), file=progress, flush=True)
        alive = injector.recovered()
    finally:
        injector.close()
    report = _report(records, injector, bits, op, seed, alive, time.monotonic() - started, build, command)
    write(report, out_dir)
    return report


def _cycles(operation, output):
    """The firmware's own count of an unfaulted operation (its answer's cycles= field)."""
    line = protocol.SIGNATURE if operation.op == "sign" else protocol.MESSAGE
    values = line.parse_all(output)
    return values[0]["cycles"]


def _command_at(trace, offset):
    """The opcode of the command running (or last issued) at `offset` of the unfaulted trace."""
    name = None
    for start, word, _ in trace:
        if start > offset:
            break
        name = _op_field(word)
    return name


def _report(records, injector, bits, op, seed, alive, seconds, build, command):
    sites, span, trace, check = injector.sites, injector.span, injector.trace, injector.check
    classes = Counter(r["outcome"] for r in records)
    by_site = {}
    for cls, what, _ in ALL_CLASSES:
        rows = [r for r in records if r["class"] == cls]
        in_class = [s for s in sites if s.cls == cls]
        by_site[cls] = {"what": what, "runs": len(rows), "sites": len(in_class),
                        "live_bits": sum(s.live_bits for s in in_class),
                        **{k: sum(r["outcome"] == k for r in rows) for k in OUTCOMES},
                        "in_check": sum(r["phase"] == "check" for r in rows),
                        "window": [list(interval) for interval in injector.windows[cls]]}
    wrong = [r for r in records if r["outcome"] == "released_wrong"]
    return {
        "command": command or f"python -m sim faults {len(records)} --size {bits} --op {op}",
        "date": time.strftime("%Y-%m-%d"),
        "soc": build.soc_info,
        "bits": bits, "op": op, "impl": IMPL, "seed": seed,
        "runs": len(records),
        "classes": {k: classes[k] for k in OUTCOMES},
        # a decryption releases the unpadded message, not the raw CRT result: no gcd to take
        "released_wrong_factoring_n": sum(bool(r["factors"]) for r in wrong) if op == "sign" else None,
        "not_recovered": sum(r.get("recovered") is False for r in records),
        "alive_at_end": alive,
        "by_site": by_site,
        "operation": {"cycles": injector.cycles, "span": span, "commands": len(trace),
                      "check_start": check, "check_cycles": None if check is None else span - check},
        "limit_cycles": injector.limit,
        "boots": injector.boots,
        "seconds": round(seconds, 1),
        "records": records,
    }


def write(report, out_dir):
    report_files.write(out_dir, "report", report, markdown, _plot)


def _plot(report, path):
    plt = report_files.pyplot()
    names = list(report["by_site"])
    colours = {"correct": "#4c9a2a", "refused": "#3b75af", "stuck": "#ef8636", "released_wrong": "#c0392b",
               "hang": "#7f7f7f"}
    fig, ax = plt.subplots(figsize=(10, 4.8))
    left = [0] * len(names)
    for outcome in OUTCOMES:
        values = [report["by_site"][n][outcome] for n in names]
        ax.barh(names, values, left=left, color=colours[outcome], label=outcome)
        left = [a + b for a, b in zip(left, values)]
    ax.invert_yaxis()
    ax.set_xlabel("runs")
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title(f"Faults in the hardware units, RSA-{report['bits']} {report['op']} on {report['impl']} "
                 f"({report['runs']} runs, {report['date']})", fontsize=10)
    fig.tight_layout()
    report_files.save_figure(fig, path, dpi=110)


def markdown(report):
    c = report["classes"]
    op = report["operation"]
    lines = [f"# Fault injection: RSA-{report['bits']} {report['op']} on {report['impl']}", "",
             f"`{report['command']}`, {report['date']}: {report['runs']} runs on {report['boots']} boot(s), "
             f"{report['seconds']:.0f} s. One bit of a unit's state flipped once per run, at a random "
             f"cycle of the part of the operation's {op['span']:,}-cycle span where that unit works (`window`: "
             f"cycles after the first command of the peripheral or the SHA-256 engine; {op['commands']} "
             f"peripheral commands; the firmware counts {op['cycles']:,} cycles for the whole operation).", "",
             "| outcome | runs |", "|---|---:|"]
    lines += [f"| {k} | {c[k]} |" for k in OUTCOMES]
    factoring = report["released_wrong_factoring_n"]
    lines += ["", f"Wrong outputs released: {c['released_wrong']}"
                  + (f" (of which factor n by gcd(s^e - m, n): {factoring})" if factoring is not None else "") + ". "
                  f"Console hangs: {c['hang']}. Runs after which the next unfaulted operation failed: "
                  f"{report['not_recovered']}. The console answered correctly at the end: "
                  f"{'yes' if report['alive_at_end'] else 'no'}.", ""]
    if op["check_cycles"] is not None:
        lines += [f"The check with e (from its first command to the end of the operation on the peripheral) "
                  f"takes {op['check_cycles']:,} of the {op['span']:,} cycles; runs whose fault landed in it "
                  f"are counted under `in check`.", ""]
    lines += ["| site class | what | live bits | window | runs | " + " | ".join(OUTCOMES) + " | in check |",
              "|---|---|---:|---|---:|" + "---:|" * len(OUTCOMES) + "---:|"]
    for name, row in report["by_site"].items():
        window = ", ".join(f"{first:,}-{end:,}" for first, end in row["window"][:3]) + \
            (f" (+{len(row['window']) - 3})" if len(row["window"]) > 3 else "")
        lines.append(f"| {name} | {row['what']} | {row['live_bits']:,} | {window} | {row['runs']} | "
                     + " | ".join(str(row[k]) for k in OUTCOMES) + f" | {row['in_check']} |")
    return "\n".join(lines) + "\n"


def check(report):
    """A ProjectError when a wrong output was released or the console hung."""
    c = report["classes"]
    if c["released_wrong"] or c["hang"] or not report["alive_at_end"]:
        raise ProjectError(f"{c['released_wrong']} wrong outputs released, {c['hang']} console hangs, "
                           f"console alive at the end: {report['alive_at_end']}")


# ---- the job: `python -m sim faults N` ----

def add_arguments(parser):
    parser.add_argument("runs", type=options.at_least(1), metavar="N", help="faulted operations, at least 1")
    options.add_size(parser, default=1024)
    parser.add_argument("--op", default="sign", choices=OPS,
                        help="`sign pkcs1` or `oaep_decrypt` (default: %(default)s)")
    options.add_seed(parser, DEFAULT_SEED, "the messages and the faults")
    options.add_out(parser, DEFAULT_OUT_DIR)


def main(args, log):
    """The campaign on the fault model; exits 1 (a ProjectError) if a wrong result was released or
    the console hung."""
    build = options.simulation(args, log, faults=True)
    command = (f"python -m sim faults {args.runs} --size {args.size} --op {args.op}"
               + (f" --seed {args.seed}" if args.seed != DEFAULT_SEED else ""))
    report = run(build, args.runs, bits=args.size, op=args.op, seed=args.seed, out_dir=args.out,
                 progress=options.progress(args), command=command, timeout=args.timeout)
    print(markdown(report))
    print(f"report: {args.out}/report.{{json,md,png}}")
    check(report)
    return 0


registry.register(registry.Job(
    "faults", "fault injection in the peripheral and the engines, build/faults/", main, add_arguments=add_arguments,
    groups=(options.BUILD,), timeout=10 * 3600,
    description="N private-key operations on hw_seq, each with one bit of the state of the peripheral, the "
                "SHA-256 engine or the entropy source flipped "
                "at a random cycle, on a model built for it; writes report.{json,md,png} and exits 1 if a "
                "wrong result was released or the console hung."))
