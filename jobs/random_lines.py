"""Random lines typed into the console of the simulated SoC (or a board), each answer checked.

    python -m sim random-lines 2000 [--seed TEXT]

Kinds of line, drawn at random from a seeded generator (so a run repeats): binary bytes (anything but
CR and LF), lines from just below to past the console's line limit, commands with truncated, odd or
non-hex arguments, huge numbers (around and past the firmware's 4,096-bit limit), and the protocol's
words in random order. Each line's answer must be: nothing for a line that is empty once the console
has dropped what it ignores, `error=line_too_long` alone for a line past the limit,
`error=too_many_arguments` or `error=unknown_command` alone where the line's words call for it, and
otherwise either one `error=` line alone or an answer without any; the console must come back to its
prompt after every line. After the last line a known-answer command (`modexp`, against Python's pow) must
still be right.

The lines are kept cheap for the simulation: a command that would run for long when its arguments
happened to be valid (bench, vectors, keygen, an exponentiation of huge numbers) always gets an
argument it refuses, and `key` lines never set a key.

What the console echoes for each typed byte is modelled by link/console.py's `LineEditor` (firmware/console/
console.c's read_line), so typing waits for the echo of every chunk that has one; a chunk that echoes nothing
(the part of a line past the limit) is paced instead, as the firmware's receive ring holds 128 bytes.
"""

import random
import time
from dataclasses import dataclass

from gateware.interface import PeripheralConfig
from jobs import options, registry
from link.console import CHUNK, LINE_MAX, LineEditor
from soc import console_protocol as protocol
from soc.console_protocol import Error, error_code

#: CONSOLE_MAX_ARGS in firmware/console/console.h: a line of more words is refused.
MAX_WORDS = 8
#: The firmware's bignum limit, in bits.
MAX_BITS = PeripheralConfig().max_bits
KINDS = ("binary", "long", "truncated_hex", "huge_number", "words")


@dataclass
class Line:
    kind: str
    data: bytes


def _hex_digits(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def _safe_words(rng):
    """A command line of the protocol's words that the firmware refuses or answers at once."""
    words = list(protocol.COMMANDS) + list(protocol.OPS) + list(protocol.ALL_IMPLS) + [
        "pkcs1", "pss", "hw", "ours", "rows=", "512:mul:sw", str(MAX_BITS), "0", "1", "ff", "10001", "x", "-"]
    name = rng.choice(list(protocol.COMMANDS) + ["frobnicate", "HELP", "key-"])
    args = [rng.choice(words) for _ in range(rng.randrange(0, 10))]
    if name == "bench":
        args.insert(rng.randrange(0, len(args) + 1), rng.choice(["100", "513", "nope"]))   # refused
    elif name == "vectors":
        args.append(rng.choice(["99", "x", "-1"]))                                          # refused
    elif name == "keygen":
        args[:1] = [rng.choice(["100", "513", "9000", "abc"])]                              # refused
    elif name == "modexp":
        args = [rng.choice(["2", "ff", "x"]), rng.choice(["3", "10001", "g"]), rng.choice(["ca1", "2", "0", "-"])]
    elif name == "key":
        args = [rng.choice(["ca0", "0", "x"]), *args[:4]]                                   # even n: no key
    return " ".join([name, *args])


def random_line(rng):
    """One line of a random kind (its bytes, without the newline)."""
    kind = rng.choice(KINDS)
    if kind == "binary":
        data = bytes(rng.choice([b for b in range(256) if b not in (10, 13)]) for _ in range(rng.randrange(1, 200)))
    elif kind == "long":
        length = rng.choice([LINE_MAX - 1, LINE_MAX, LINE_MAX + 1, rng.randrange(LINE_MAX - 64, LINE_MAX + 400)])
        head = rng.choice(["help ", "modexp ", "frobnicate ", ""])
        data = (head + _hex_digits(rng, length - len(head))).encode()
    elif kind == "truncated_hex":
        digits = _hex_digits(rng, rng.randrange(1, 300))
        cut = digits[:rng.randrange(0, len(digits) + 1)] + rng.choice(["", "g", "0x", "-", "\x08", "\x7f", "\x00"])
        name = rng.choice(["modexp", "key", "encrypt", "decrypt", "time public sw", "sign pkcs1", "sign pss",
                           "verify pkcs1 00", "oaep_encrypt", "oaep_decrypt", "keygen 100"])
        if name == "modexp":
            exponent = rng.choice(["3", "1", cut[:4] or "0"])
            line = f"modexp {cut} {exponent} {_hex_digits(rng, 8)}{rng.choice('13579bdf')}"
        elif name == "key":
            line = f"key {cut}0 10001"          # an even modulus: never a key
        else:
            line = f"{name} {cut}"
        data = line.encode("latin-1")
    elif kind == "huge_number":
        digits = rng.choice([MAX_BITS // 4 - 1, MAX_BITS // 4, MAX_BITS // 4 + 1, rng.randrange(MAX_BITS // 4, 3000)])
        # every modexp refused: a base above the modulus, an even modulus, an exponent longer than the
        # modulus' limbs (a 4,096-bit modexp takes the simulation 40 s with e = 3, hours with a long e)
        modulus = "e" + _hex_digits(rng, digits - 2) + rng.choice("13579bdf")
        base = "f" + _hex_digits(rng, digits - 1)
        exponent = "1" + "0" * (-(-digits // 8) * 8)
        line = rng.choice([f"modexp {base} 3 {modulus}", f"modexp 3 3 {modulus[:-1]}0",
                           f"modexp 2 {exponent} {modulus}", f"encrypt {base}",
                           f"key {modulus[:-1]}0 10001", f"time public sw {base}", f"oaep_decrypt {base}"])
        data = line.encode()
    else:
        data = _safe_words(rng).encode()
    return Line(kind, data)


def expectation(text):
    """What the answer to the kept line `text` must be: "empty", an Error it must be alone, or None (one
    error line alone, or no error line)."""
    words = text.replace("\t", " ").split()
    if not words:
        return "empty"
    if len(words) > MAX_WORDS:
        return Error.TOO_MANY_ARGUMENTS
    if words[0] not in protocol.COMMANDS:
        return Error.UNKNOWN_COMMAND
    return None


def check_answer(expected, answer, overflow):
    """A problem with `answer` (the output between the line's echo and the next prompt), or None."""
    lines = answer.splitlines()
    errors = [line for line in lines if line.startswith("error=")]
    if overflow:
        expected = Error.LINE_TOO_LONG
    if expected == "empty":
        return None if not answer.strip() else f"an answer to an empty line: {answer[:200]!r}"
    if isinstance(expected, Error):
        if len(lines) == 1 and errors and error_code(errors[0]) is expected:
            return None
        return f"not {expected.prefix} alone: {answer[:300]!r}"
    if errors and len(lines) != 1:
        return f"an error line among other lines: {answer[:300]!r}"
    if not lines:
        return "no answer"
    return None


def type_line(console, data, pause=0.1):
    """Types `data` and a newline; returns (the kept line, whether it overflowed, the answer)."""
    editor = LineEditor()
    chunks = [(data[i:i + CHUNK], None) for i in range(0, len(data), CHUNK)]
    chunks = [(chunk, editor.type(chunk)) for chunk, _ in chunks]
    console.send_bytes(chunks + [(b"\n", "\n")], pause)
    out = console.wait_prompt()
    return editor.text, editor.overflow, out[out.find("\n") + 1:]


def known_answer(console):
    """`modexp` of known numbers: None when right, else the problem."""
    base, exponent, modulus = 0x1234567, 0x10001, (1 << 255) + 95
    out = console.command(f"modexp {base:x} {exponent:x} {modulus:x}")
    [row] = protocol.COMPARISON.parse_all(out) or [None]
    if row is None or row["sw"] != pow(base, exponent, modulus) or row["hw"] != row["sw"] or row["match"] != "yes":
        return f"modexp answered wrongly: {out[:300]!r}"
    return None


def run(console, count, seed="random-lines", progress=None):
    """Types `count` random lines; returns {"lines", "seconds", "kinds", "problems": [(index, kind, data,
    problem)]}. The console must be at its prompt."""
    rng = random.Random(seed)
    problems, kinds = [], {kind: 0 for kind in KINDS}
    started = time.monotonic()
    for i in range(count):
        line = random_line(rng)
        kinds[line.kind] += 1
        text, overflow, answer = type_line(console, line.data)
        problem = check_answer(expectation(text), answer, overflow)
        if problem:
            problems.append((i, line.kind, line.data, problem))
        if progress and (i + 1) % 100 == 0:
            progress(f"[random-lines] {i + 1}/{count} lines, {len(problems)} problems, "
                     f"{time.monotonic() - started:.0f} s")
    problem = known_answer(console)
    if problem:
        problems.append((count, "known_answer", b"modexp", problem))
    return {"lines": count, "seconds": time.monotonic() - started, "kinds": kinds, "problems": problems}


# ---- the job: `python -m sim random-lines N` ----

DEFAULT_SEED = "random-lines"


def add_arguments(parser):
    parser.add_argument("lines", type=options.at_least(1), metavar="N", help="lines to type")
    options.add_seed(parser, DEFAULT_SEED, "the lines")


def main(args, log):
    """The lines, each answer checked, then a known answer; exit status 1 on a problem."""
    console = options.open_console(args, options.simulation(args, log))
    try:
        report = run(console, args.lines, seed=args.seed, progress=log)
    finally:
        console.close()
    for index, kind, data, problem in report["problems"]:
        print(f"line {index} ({kind}, {len(data)} bytes, {data[:60]!r}): {problem}")
    kinds = ", ".join(f"{kind} {n}" for kind, n in report["kinds"].items())
    print(f"{report['lines']} random lines ({kinds}) in {report['seconds']:.0f} s, "
          f"{len(report['problems'])} problems; the known answer after them "
          + ("wrong" if any(kind == "known_answer" for _, kind, _, _ in report["problems"]) else "right"))
    return 1 if report["problems"] else 0


registry.register(registry.Job(
    "random-lines", "random lines into the console, every answer checked", main,
    add_arguments=add_arguments, groups=(options.BUILD, options.SERIAL), timeout=7200,
    description="Type N random lines (binary bytes, over-long lines, truncated hex, huge numbers, the "
                "protocol's words), check each answer and a known answer after them; exit 1 on a "
                "problem."))
