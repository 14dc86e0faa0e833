"""Drives the firmware's console over a transport (link/transport.py): the simulated SoC's stdin/stdout,
or a serial port on a board (or on a simulation that exposes its UART as one).

Typed text goes in chunks, each once the firmware has echoed the one before (the firmware's UART
receive ring is small, and a board's UART has no other flow control). A line longer than the
console's buffer (soc/config.py, CONSOLE_LINE_MAX) is refused before anything is sent: the firmware
would stop echoing it. What the firmware echoes is modelled by `LineEditor`: a command that takes secrets
(protocol.SECRET_COMMANDS) echoes protocol.ECHO_MASK for each character after its name.

Boot: the SoC starts in the LiteX BIOS, which first asks a host for a serial boot (LiteX's SFL
protocol) and otherwise, after a quarter of a second of simulated time, jumps to the firmware
preloaded in main RAM. In the simulation that wait costs more wall-clock time than the rest of the
boot, so `Console(boot=jump_to_main_ram)` answers the request the way `litex_term` does and sends the
BIOS the jump to main RAM at once (link/serial_boot.py; `upload_firmware` sends a new firmware first).

The benchmark's commands have typed methods (`set_key`, `time`, `bench`, `info`, `keygen`, `sign`):
they type the command the protocol (soc/console_protocol.py) defines and return its answer as records
of the lines it prints. A refusal (the firmware's `error=` line) raises CommandRefused, an answer
without the lines the command prints, or with one of them garbled, UnexpectedAnswer; both are
AnswerErrors, so a caller can tell a firmware that answered wrongly from one that stopped answering
(a plain ConsoleError). The jobs that drive it (jobs/bench.py, jobs/leak.py,
jobs/cpu_bench.py, jobs/keygen.py, ...) type and parse nothing themselves.
"""

import contextlib
import dataclasses
import time
from typing import ClassVar

from link.transport import ConsoleError, SocModelTransport
from soc import config
from soc import console_protocol as protocol
from soc.console_protocol import PROMPT

CHUNK = 64   # below the firmware UART driver's 128-byte receive ring
#: The longest line the console takes (its buffer keeps a terminating zero).
LINE_MAX = config.CONSOLE_LINE_MAX - 1
#: The BIOS prompt: a board left in the BIOS (boot cancelled, nothing in main RAM).
BIOS_PROMPT = "litex> "


class LineTooLong(ConsoleError):
    """A command longer than the console takes; nothing was sent."""


class AnswerError(ConsoleError):
    """The firmware answered a command, but not as the protocol says it answers it."""


def _shown(command):
    """`command` for a message: its first 40 characters, and only its name when it carries secrets."""
    words = command.split(" ", 1)
    if words[0] in protocol.SECRET_COMMANDS and len(words) > 1:
        return words[0] + " ..."
    return command if len(command) <= 40 else command[:40] + "..."


class LineEditor:
    """firmware/console/console.c's read_line: what the console keeps of typed bytes and what it echoes
    for them. The line's first word, once a blank ends it, decides the echo of the rest: as typed, or
    protocol.ECHO_MASK for each character when the word is one of protocol.SECRET_COMMANDS."""

    def __init__(self):
        self.line = []
        self.overflow = False
        self.word_start = None      # where the first word starts, once typed
        self.word_end = None        # where the blank after it is, once typed
        self.masked = False

    def _end_line(self):
        self.__init__()
        return "\n"

    def _erase(self):
        self.line.pop()
        if self.word_end is not None and self.word_end >= len(self.line):
            self.word_end, self.masked = None, False
        if self.word_start is not None and self.word_start >= len(self.line):
            self.word_start = None
        return "\x08 \x08"

    def _keep(self, char):
        at = len(self.line)
        self.line.append(char)
        if char != " " and self.word_start is None:
            self.word_start = at
        elif char == " " and self.word_start is not None and self.word_end is None:
            self.word_end = at
            self.masked = "".join(self.line[self.word_start:at]) in protocol.SECRET_COMMANDS
            return char
        return protocol.ECHO_MASK if self.masked else char

    def type(self, data):
        """Feeds bytes (a CR or LF ends the line); returns the echo."""
        echo = []
        for byte in data:
            if byte in (0x0A, 0x0D):
                echo.append(self._end_line())
            elif byte in (0x08, 0x7F):
                if self.line and not self.overflow:
                    echo.append(self._erase())
            elif byte < 0x20 or byte > 0x7E:
                continue
            elif len(self.line) >= LINE_MAX:
                self.overflow = True
            elif not self.overflow:
                echo.append(self._keep(chr(byte)))
        return "".join(echo)

    @property
    def text(self):
        return "".join(self.line)


class CommandRefused(AnswerError):
    """The firmware refused `command`: `line` is its `error=<code>` line, `code` the protocol.Error
    (None for a code the protocol does not know)."""

    def __init__(self, command, line):
        super().__init__(f"the firmware refused `{_shown(command)}`: {line}")
        self.command, self.line = command, line
        try:
            self.code = protocol.error_code(line)
        except ValueError:
            self.code = None


class UnexpectedAnswer(AnswerError):
    """The answer to `command` lacks a line the command prints, has one garbled, or one that does not
    match what was asked; `output` is the whole answer."""

    def __init__(self, command, problem, output):
        super().__init__(f"`{_shown(command)}` {problem}: {output.strip()[:300]!r}")
        self.command, self.output = command, output


# ---- records of the lines the benchmark's commands print ----

@dataclasses.dataclass(frozen=True)
class _Record:
    """One line of the protocol as a typed record: the fields of its Line (LINE), in their order;
    FLAGS are 0/1 fields, held as bools."""
    LINE: ClassVar[protocol.Line]
    FLAGS: ClassVar[tuple] = ()

    @classmethod
    def parse(cls, line):
        """The record of `line`, or None when it is not this line."""
        values = cls.LINE.parse(line)
        if values is None:
            return None
        return cls(**{key: (value == 1 if key in cls.FLAGS else value) for key, value in values.items()})

    def as_dict(self):
        return dataclasses.asdict(self)


def _field_type(field, flags):
    if field.key in flags:
        return bool
    if field.parse is not None:
        return object          # what the field's own parser gives (an int from hex, bytes)
    return int if field.conversion in protocol.INTEGER_CONVERSIONS else str


def record(name, line, flags=(), doc=None):
    """The record class of `line` (a protocol.Line): a frozen dataclass with one attribute per field,
    in the line's order, typed as the line declares it; `flags`: the 0/1 fields, held as bools. The
    protocol is the one place the fields are written."""
    cls = dataclasses.make_dataclass(name, [(f.key, _field_type(f, flags)) for f in line.fields],
                                     bases=(_Record,), frozen=True,
                                     namespace={"LINE": line, "FLAGS": tuple(flags), "__module__": __name__})
    cls.__doc__ = doc or f"The line {line.name} as a record."
    return cls


KeySet = record("KeySet", protocol.KEY_SET,
                doc=("`key`: the size of the key the firmware now holds, and whether it has its private part."))
Timed = record("Timed", protocol.TIMED, flags=("ok",),
               doc=("`time`: one operation's cycles and result; `ok` when it succeeded (a private result also "
                    "mapped back to the message with e)."))
Result = record("Result", protocol.RESULT, flags=("ok",),
                doc=("One row of `bench`: its cycles, and whether its result was right."))
Missing = record("Missing", protocol.RESULT_MISSING,
                 doc=("A row of `bench` a peer library missing from the firmware could not give."))
SocInfo = record("SocInfo", protocol.INFO_SOC)
Limits = record("Limits", protocol.INFO_LIMITS)
CounterCheck = record("CounterCheck", protocol.INFO_COUNTER)
StackUse = record("StackUse", protocol.INFO_STACK)
PeripheralBuild = record("PeripheralBuild", protocol.INFO_PERIPHERAL)
EntropyState = record("EntropyState", protocol.INFO_ENTROPY,
                      doc="`info`: where the firmware's randomness comes from, and the entropy source's health.")


@dataclasses.dataclass(frozen=True)
class Info:
    """`info`: one record of each of its lines."""
    soc: SocInfo
    limits: Limits
    counter: CounterCheck
    stack: StackUse
    peripheral: PeripheralBuild
    entropy: EntropyState


@dataclasses.dataclass(frozen=True)
class BenchAnswer:
    """`bench`: its rows in the order the firmware printed them."""
    results: list
    missing: list


KeygenLine = record("KeygenLine", protocol.KEYGEN, flags=("ok",),
                    doc=("`keygen`'s first line: the generation's cycles, the numbers it looked at, the "
                         "Miller-Rabin rounds it ran, and `ok` when the key passed the device's pairwise check."))
PublicKey = record("PublicKey", protocol.KEY_PUBLIC, doc="`keygen`'s second line: the public part of the key it made.")
ExportedKey = record("ExportedKey", protocol.KEY_EXPORT,
                     doc="`key export`: the key the console holds, with every private value.")
KeygenStep = record("KeygenStep", protocol.KEYGEN_STEP, flags=("passed",),
                    doc=("`keygen_step`: one step of the prime search on a candidate, its cycles, and `passed` when "
                         "the candidate passed it."))
Signature = record("Signature", protocol.SIGNATURE,
                   doc=("`sign`: the signature and the cycles of the whole signing (hash, padding, private CRT "
                        "operation)."))
Verified = record("Verified", protocol.VALID,
                  doc=("`verify`: \"yes\" or \"no\", and the cycles of the whole check (hash, public operation, "
                       "comparison)."))
Decrypted = record("Decrypted", protocol.MESSAGE,
                   doc=("`oaep_decrypt`: the message and the cycles of the whole decryption (private CRT, "
                        "unpadding)."))


@dataclasses.dataclass(frozen=True)
class GeneratedKey:
    """`keygen`: its KEYGEN line's fields and its key, n and e from its own line, d, p and q from `key export`
    after it (all three 0 when the console could not take the key as its own, so holds none)."""
    bits: int
    impl: str
    cycles: int
    candidates: int
    mr_rounds: int
    ok: bool
    n: int
    e: int
    d: int
    p: int
    q: int

    @property
    def key(self):
        """The key as soc.keys' dicts hold one (what `set_key` takes)."""
        return {"n": self.n, "e": self.e, "d": self.d, "p": self.p, "q": self.q}

    def as_dict(self):
        return dataclasses.asdict(self)


#: The records, each of one Line of the protocol.
RECORDS = (KeySet, Timed, Result, Missing, SocInfo, Limits, CounterCheck, StackUse, PeripheralBuild, KeygenLine,
           PublicKey, ExportedKey, KeygenStep, Signature, Verified, Decrypted)
#: The words `bench` takes before its sizes: only the hardware rows, or only our implementations.
BENCH_ONLY = ("hw", "ours")


def _salt(salt):
    """The salt option of `sign` and `verify` (PSS), with its leading space; none for None."""
    return "" if salt is None else f" {protocol.SALT_OPTION}={salt}"


def _refusal(command, line):
    if line.startswith("error="):
        raise CommandRefused(command, line)


def _record(record, command, line):
    """`line` as a `record` when it is one, None when it is another line; UnexpectedAnswer when it
    starts as one but does not parse."""
    found = record.parse(line)
    if found is None and record.LINE.starts(line):
        raise UnexpectedAnswer(command, f"printed a garbled {record.LINE.name} line", line)
    return found


class Console:
    """The console protocol over `transport` (read(timeout) -> bytes, write(bytes), close()).

    `timeout`: wall-clock seconds for the whole session. `echo_timeout`: how long typed text may
    wait for its echo before the firmware counts as not answering. `boot`: called with the
    transport when the BIOS asks for a serial boot (see the module docstring)."""

    def __init__(self, transport, timeout=600.0, echo_timeout=60.0, boot=None):
        self.transport = transport
        self.deadline = time.monotonic() + timeout
        self.timeout = timeout
        self.echo_timeout = echo_timeout
        self.output = ""        # everything the console printed
        self._pos = 0           # how far `expect` has consumed `output`
        self._boot = boot
        self._boot_scan = 0     # where to look for the BIOS's serial-boot request next
        self.started = time.monotonic()

    @property
    def source(self):
        return self.transport.source

    def _read(self, until, limit=None, waiting_for=None):
        """Reads output until `until()` is true; raises when the transport fails, the session's time
        runs out, or `limit` seconds pass (then: "the firmware stopped answering: <waiting_for>")."""
        from link import serial_boot
        limit_at = None if limit is None else time.monotonic() + limit
        while not until():
            now = time.monotonic()
            if now >= self.deadline:
                raise ConsoleError(f"time limit of {self.timeout:.0f} s passed{self._last_output()}")
            if limit_at is not None and now >= limit_at:
                raise ConsoleError(f"the firmware stopped answering: {waiting_for} in {limit:.0f} s{self._last_output()}")
            wait = min(self.deadline, limit_at or self.deadline) - now
            data = self.transport.read(min(wait, 1.0))
            if not data:
                continue
            self.output += data.decode("ascii", errors="replace").replace("\r", "")
            if self._boot is not None and BIOS_PROMPT in self.output[-len(data) - len(BIOS_PROMPT):]:
                raise ConsoleError(f"the BIOS did not start the firmware: it gave its own prompt{self._last_output()}")
            if self._boot is not None:
                found = self.output.find(serial_boot.REQUEST, self._boot_scan)
                self._boot_scan = max(self._boot_scan, len(self.output) - len(serial_boot.REQUEST))
                if found >= 0:
                    self._boot(self.transport)
                    self._boot_scan = found + len(serial_boot.REQUEST)

    def _last_output(self):
        """The end of what the console printed last, for an error message."""
        tail = self.output[-300:].strip()
        return f"; it printed last: {tail!r}" if tail else "; it printed nothing"

    def expect(self, text, limit=None, waiting_for=None):
        """Waits for `text` after what was consumed so far; returns the output before it."""
        def found():
            return self.output.find(text, self._pos) >= 0
        self._read(found, limit, waiting_for or f"no {text!r}")
        idx = self.output.find(text, self._pos)
        before = self.output[self._pos:idx]
        self._pos = idx + len(text)
        return before

    def send(self, text, echo=True):
        """Types `text` (from the start of a line) in chunks. With `echo`, each chunk waits for the
        console's echo of it (LineEditor's) before the next goes (flow control); without (text the console
        will not echo), chunks are paced."""
        editor = LineEditor()
        for i in range(0, len(text), CHUNK):
            chunk = text[i:i + CHUNK]
            mark = len(self.output)
            self.transport.write(chunk.encode("ascii"))
            expected = editor.type(chunk.encode("ascii")).rstrip("\n")
            if not echo or "\x08" in chunk or "\x7f" in chunk:
                time.sleep(0.1)
            elif expected:
                self._read(lambda: expected in self.output[mark:], self.echo_timeout,
                           f"no echo of the typed text ({expected[:20]!r})")

    def send_bytes(self, chunks, pause=0.1):
        """Types any bytes: `chunks` is [(bytes, echo)], each chunk at most CHUNK bytes and `echo` the text
        the console echoes for it (LineEditor's). A chunk with an echo
        waits for it (flow control); one without is paced by `pause` seconds."""
        for data, echo in chunks:
            mark = len(self.output)
            self.transport.write(data)
            if echo:
                self._read(lambda: echo in self.output[mark:], self.echo_timeout,
                           f"no echo of the typed bytes {data[:20]!r}")
            else:
                time.sleep(pause)

    def resume(self, text=""):
        """Back from a stretch in which the caller read the transport itself (jobs/tls.py: a TLS connection's
        raw bytes): `text` is console output it read past that stretch, to be read from here on."""
        self._pos = len(self.output)
        self.output += text

    def wait_prompt(self, limit=None):
        before = self.expect(PROMPT, limit, "no prompt")
        self._idle()
        return before

    def _idle(self):
        """At the prompt with nothing more printed: a transport that can pause its simulation until
        the next typed byte (SocModelTransport.idle) does."""
        idle = getattr(self.transport, "idle", None)
        if idle is not None and self._pos == len(self.output):
            idle()

    def _type_line(self, line):
        if len(line) > LINE_MAX:
            raise LineTooLong(f"the command is {len(line)} characters, the console takes at most {LINE_MAX} "
                              f"(CONSOLE_LINE_MAX in soc/config.py): not sent")
        self.send(line + "\n")

    def command(self, line):
        """Runs one console command; returns its output (without the echoed line and prompt)."""
        self._type_line(line)
        out = self.wait_prompt()
        # Drop the echoed command line itself.
        first_nl = out.find("\n")
        return out[first_nl + 1:] if first_nl >= 0 else ""

    def command_lines(self, line):
        """Runs one console command and yields its output lines as they arrive."""
        self._type_line(line)
        self.expect("\n")                       # the echoed command line
        while True:
            self._read(lambda: "\n" in self.output[self._pos:] or self.output.endswith(PROMPT))
            nl = self.output.find("\n", self._pos)
            if nl < 0:                           # only the prompt is left
                self.expect(PROMPT)
                self._idle()
                return
            text = self.output[self._pos:nl]
            self._pos = nl + 1
            yield text

    # ---- the benchmark's commands, typed ----

    def _answer(self, command):
        """Runs `command`; its output. CommandRefused when the firmware printed an error line."""
        output = self.command(command)
        for line in output.splitlines():
            _refusal(command, line)
        return output

    def _one(self, record, command, output):
        """The one `record` line of `output`; UnexpectedAnswer when there is none, more, or a garbled one."""
        found = [r for r in (_record(record, command, line) for line in output.splitlines()) if r]
        if len(found) != 1:
            raise UnexpectedAnswer(command, f"printed {len(found)} {record.LINE.name} lines, not one", output)
        return found[0]

    def set_key(self, key):
        """`key`: makes `key` ({"n", "e"} and, for a private key, "d", "p", "q": soc.keys' dicts) the one
        `time` uses. Returns the KeySet; UnexpectedAnswer when the firmware says it holds another key
        (another size, or without the private part that was sent)."""
        private = "d" in key
        command = "key " + " ".join(f"{key[k]:x}" for k in (("n", "e", "d", "p", "q") if private else ("n", "e")))
        output = self._answer(command)
        taken = self._one(KeySet, command, output)
        if (taken.bits, taken.private) != (key["n"].bit_length(), "yes" if private else "no"):
            raise UnexpectedAnswer(command, f"took a {taken.bits}-bit key, private part: {taken.private}", output)
        return taken

    def time(self, op, impl, message):
        """`time`: `op` of `impl` on `message` with the key set last, timed. Returns the Timed record;
        UnexpectedAnswer when it is not of the operation and implementation asked for."""
        command = f"time {op} {impl} {message:x}"
        output = self._answer(command)
        timed = self._one(Timed, command, output)
        if (timed.op, timed.impl) != (op, impl):
            raise UnexpectedAnswer(command, f"timed {timed.op} on {timed.impl}", output)
        return timed

    def bench(self, sizes, rows=None, only=None, on_result=None):
        """`bench`: the benchmark at `sizes` (key sizes), of `rows` only when given ((bits, op, impl)
        each), of the hardware rows or our implementations only with `only` ("hw", "ours").
        `on_result(record)` is called with each Result or Missing record as its line arrives. Returns
        the BenchAnswer once the firmware says it is done. A refusal stops reading at once (the console
        is left inside the command)."""
        if only is not None and only not in BENCH_ONLY:
            raise ValueError(f"only= takes one of {BENCH_ONLY} (got {only!r})")
        words = ["bench", *([only] if only else []), *(str(bits) for bits in sizes)]
        if rows is not None:
            words.append("rows=" + ",".join(f"{bits}:{op}:{impl}" for bits, op, impl in rows))
        command = " ".join(words)
        results, missing, lines, done = [], [], [], False
        for line in self.command_lines(command):
            lines.append(line)
            _refusal(command, line)
            record = _record(Result, command, line) or _record(Missing, command, line)
            if record is not None:
                (results if isinstance(record, Result) else missing).append(record)
                if on_result is not None:
                    on_result(record)
            done = done or protocol.BENCH_DONE.parse(line) is not None
        if not done:
            raise UnexpectedAnswer(command, "ended without its `bench done` line", "\n".join(lines))
        return BenchAnswer(results, missing)

    def keygen(self, bits, seed, impl="hw_seq"):
        """`keygen`: a `bits`-bit key generated on `impl` from `seed` (bytes), which then is the key `time`,
        `sign` and the others use, then `key export` for its private part. Returns the GeneratedKey (`ok`
        False when the device's own check of the key failed: the caller decides); UnexpectedAnswer when it
        is not of the size and implementation asked for, or the exported key is not the one made. A seed
        shorter than protocol.KEYGEN_MIN_SEED is a ValueError: the firmware refuses one; seed None: the key
        comes from the device's random generator."""
        if seed is not None and len(seed) < protocol.KEYGEN_MIN_SEED:
            raise ValueError(f"keygen takes a seed of at least {protocol.KEYGEN_MIN_SEED} bytes")
        command = f"keygen {bits} {'' if seed is None else bytes(seed).hex() + ' '}{impl}"
        output = self._answer(command)
        generation = self._one(KeygenLine, command, output)
        public = self._one(PublicKey, command, output)
        if (generation.bits, generation.impl) != (bits, impl):
            raise UnexpectedAnswer(command, f"generated a {generation.bits}-bit key on {generation.impl}", output)
        try:
            private = self.export_key()
        except CommandRefused as refused:
            if refused.code is not protocol.Error.NO_KEY:
                raise
            private = None
        if private is not None and (private.n, private.e) != (public.n, public.e):
            raise UnexpectedAnswer(command, "`key export` gave another key than the one made", output)
        return GeneratedKey(**dataclasses.asdict(generation), **dataclasses.asdict(public),
                            **{name: getattr(private, name) if private else 0 for name in ("d", "p", "q")})

    def export_key(self):
        """`key export`: the key the console holds, every private value (an ExportedKey); CommandRefused
        (error=no_key) when it holds none, or no private part."""
        command = f"key {protocol.KEY_EXPORT_WORD}"
        return self._one(ExportedKey, command, self._answer(command))

    def keygen_step(self, step, candidate, impl="hw_seq"):
        """`keygen_step`: `step` (protocol.KEYGEN_STEPS) of the prime search on `candidate` (an int of a
        whole number of 32-bit words), timed on `impl`. Returns the KeygenStep; UnexpectedAnswer when it is
        not of the step, implementation and size asked for."""
        command = f"keygen_step {step} {candidate:x} {impl}"
        output = self._answer(command)
        made = self._one(KeygenStep, command, output)
        if (made.step, made.impl, made.bits) != (step, impl, candidate.bit_length()):
            raise UnexpectedAnswer(command, f"ran {made.step} on {made.impl} at {made.bits} bits", output)
        return made

    def sign(self, scheme, message, impl="hw_seq", salt=None):
        """`sign`: a SHA-256 signature of `message` (bytes) with padding `scheme` ("pkcs1" or "pss") on
        `impl`, with the key the console holds; PSS with a `salt`-byte salt (None: the firmware's
        default, the hash's length). Returns the Signature record."""
        command = f"sign {scheme} {protocol.hex_argument(message)} {impl}" + _salt(salt)
        return self._one(Signature, command, self._answer(command))

    def verify(self, scheme, message, signature, impl="hw_seq", salt=None):
        """`verify`: whether `signature` (bytes) is a valid `scheme` signature of `message` under the
        console's key; PSS with a salt of `salt` bytes (None: the firmware's default, the hash's length;
        protocol.SALT_ANY: any length). Returns the Verified record."""
        command = f"verify {scheme} {protocol.hex_argument(message)} {bytes(signature).hex()} {impl}" + _salt(salt)
        return self._one(Verified, command, self._answer(command))

    def oaep_decrypt(self, ciphertext, impl="hw_seq", label=None):
        """`oaep_decrypt`: the OAEP (SHA-256) decryption of `ciphertext` (bytes) with the console's key
        and `label` (bytes; None: empty). Returns the Decrypted record; a ciphertext that does not
        decrypt is a CommandRefused (protocol.Error.DECRYPTION_FAILED)."""
        command = f"oaep_decrypt {bytes(ciphertext).hex()} {impl}"
        if label is not None:
            command += f" {protocol.LABEL_OPTION}={protocol.hex_argument(label)}"
        return self._one(Decrypted, command, self._answer(command))

    def info(self):
        """`info`: the SoC, the firmware's limits, the cycle counter's check and the stack's use."""
        output = self._answer("info")
        return Info(*(self._one(record, "info", output)
                      for record in (SocInfo, Limits, CounterCheck, StackUse, PeripheralBuild, EntropyState)))

    def close(self):
        self.transport.close()


@contextlib.contextmanager
def booted(build, timeout=600.0, model_args=(), entropy=None):
    """`with booted(build) as console:` a SimConsole on `build` (a sim.build.SimBuild), at its first
    prompt; closed on leaving. `entropy`: the raw bits (link.transport.SimEntropy; default: the build's)."""
    console = SimConsole(build.model, build.gateware_dir, timeout=timeout, model_args=model_args,
                         entropy=entropy or getattr(build, "entropy", None))
    try:
        console.wait_prompt()
        yield console
    finally:
        console.close()


class SimConsole(Console):
    """The simulated SoC on the model's stdin/stdout, booted straight into the preloaded firmware."""

    def __init__(self, model, cwd, timeout=600.0, echo_timeout=60.0, model_args=(), entropy=None):
        from link import serial_boot
        super().__init__(SocModelTransport(model, cwd, model_args, entropy=entropy), timeout, echo_timeout,
                         boot=serial_boot.jump_to_main_ram)

    @property
    def proc(self):
        return self.transport.proc


def _garbled(text):
    """Mostly bytes that are not text: what a wrong baud rate reads."""
    odd = sum(1 for c in text if not (c.isprintable() or c in "\n\t\x1b") or c == "\ufffd")
    return len(text) >= 4 and odd / len(text) > 0.2


def open_serial_console(url, baudrate, timeout=600.0, answer_within=10.0, echo_timeout=10.0):
    """The console at a serial port (a board, or `python -m sim pty`), at its prompt. Every way it
    can fail is one ConsoleError line: no such port, no permission, busy, no answer, not text (wrong
    baud rate), the BIOS instead of the firmware."""
    from link import serial_boot
    from link.transport import SerialTransport
    transport = SerialTransport(url, baudrate)
    console = Console(transport, timeout, echo_timeout, boot=serial_boot.jump_to_main_ram)
    try:
        transport.write(b"\n")              # an empty line: the firmware prints its prompt again
        console.wait_prompt(limit=answer_within)
        return console
    except ConsoleError as error:
        console.close()
        heard = console.output
        if not heard.strip():
            raise ConsoleError(f"no answer from {url} in {answer_within:.0f} s: is the bitstream loaded, the "
                               f"firmware running and the USB-UART on this port? (docs/pynq_z2.md)") from None
        if _garbled(heard):
            raise ConsoleError(f"{url} sends bytes that are not text: wrong baud rate? The SoC's UART runs at "
                               f"{config.UART_BAUDRATE} (--baud; this run used {baudrate})") from None
        if BIOS_PROMPT in heard:
            raise ConsoleError(f"{url} is at the LiteX BIOS prompt, not the benchmark firmware: type `reboot` in "
                               f"a terminal, or load it with `litex_term --kernel firmware.bin {url}`") from None
        last = heard.strip().splitlines()[-1][:60]
        raise ConsoleError(f"{url} answers, but without the console prompt {PROMPT!r} ({error}; last line: "
                           f"{last!r}): is it the benchmark firmware?") from None
