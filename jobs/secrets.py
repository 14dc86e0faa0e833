"""What a command leaves behind: the simulated SoC's RAM and the peripheral's memories scanned for key
material after each class of command.

    python -m sim secrets [--size 1024] [--commands key,decrypt,...]

The scan runs on the fault-injection model (sim/fault_model.py), which makes the SoC's RAMs readable and
the peripheral's memories public; nothing is faulted. A fresh key is made on the host (so that none of
its bytes are in the firmware's image) and set with `key`; each command class then runs once, and after
its answer the host dumps main RAM, SRAM and every memory of the peripheral and looks for the secrets the
command handled:

- in the RAMs, outside the key store (the console's key and its CRT context: KEY_STORE_SYMBOLS, from
  the firmware's symbol table), any 16-byte stretch of d, p, q, dp, dq, qInv, or of the command's CRT
  halves m1 = c^dp mod p and m2 = c^dq mod q, as the firmware keeps numbers (32-bit limbs, least
  significant first) or big-endian, and any 32-digit stretch of their hex as the console reads it;
- in the peripheral, any word other than zero: after a command that used a secret, its memories are
  wiped whole;
- in the SHA-256 engine, a message word other than zero or a state word other than the initial hash
  value (or zero, the reset's): after a command that hashed on it (HMAC-DRBG's key and V, an OAEP
  block, the TLS PRF's keyed blocks), the firmware wipes it (sha256_hw_wipe). Its schedule and working
  registers then hold what a block of zeros leaves, a function of nothing secret.

A finding names the command, the secret, its form and where it sits (address, symbol). The job exits 1
when there is one.
"""

import bisect
import hashlib
import subprocess
from dataclasses import dataclass

from common.errors import ProjectError
from jobs import options, registry

#: The firmware's key store: the console's key and the context derived from it (firmware/console/rsa_cmds.c).
#: Secrets there are where they belong; anywhere else in RAM they are left behind.
KEY_STORE_SYMBOLS = ("user_key", "user_ctx")
#: Bytes of a secret (binary) or hex digits (text) that make a finding.
WINDOW = 16
#: The command classes, in the order they run (keygen last: its key replaces the one set).
COMMANDS = ("key", "decrypt", "sign", "oaep_decrypt", "tls", "keygen")
#: The TLS connection's suite: the RSA key exchange, whose premaster the device decrypts with the key.
TLS_SUITE = "TLS_RSA_WITH_AES_128_GCM_SHA256"
#: SHA-256's DigestInfo prefix in an EMSA-PKCS1-v1_5 encoding (RFC 8017, 9.2, note 1).
_SHA256_PREFIX = bytes.fromhex("3031300d060960864801650304020105000420")


@dataclass(frozen=True)
class Finding:
    command: str
    memory: str
    secret: str
    form: str
    offset: int
    where: str

    def __str__(self):
        return (f"after `{self.command}`: {self.secret} ({self.form}) in {self.memory} at +{self.offset:#x}"
                f"{' (' + self.where + ')' if self.where else ''}")


# ---- the secrets and their forms ----

def fresh_key(bits, rng):
    """A new RSA key (e = 65537; soc.keys' dict) from `rng`, never one of the firmware's built-in keys."""
    from soc import keys as soc_keys
    return soc_keys.generate_key(bits, seed=f"secrets-{rng.getrandbits(64):016x}")


def key_secrets(key):
    return {name: key[name] for name in ("d", "p", "q", "dp", "dq", "qinv")}


def crt_halves(key, c):
    """The CRT halves of c^d mod n: m1 and m2."""
    return {"m1": pow(c, key["dp"], key["p"]), "m2": pow(c, key["dq"], key["q"])}


def forms(value):
    """{form: bytes} of a secret as memory can hold it: limbs (32-bit, least significant first, i.e. its
    bytes little-endian), big-endian bytes, and its hex in either case."""
    size = -(-value.bit_length() // 32) * 4
    text = f"{value:x}"
    return {"limbs": value.to_bytes(size, "little"), "big-endian": value.to_bytes(size, "big").lstrip(b"\0"),
            "hex": text.encode(), "HEX": text.upper().encode()}


def needles(secrets):
    """{window: (secret, form)} of every stretch that makes a finding: WINDOW bytes of a binary form, 2 *
    WINDOW digits of a hex one; stretches of few distinct bytes (a zero run) are left out."""
    found = {}
    for name, value in secrets.items():
        for form, data in forms(value).items():
            width = 2 * WINDOW if form.lower() == "hex" else WINDOW
            for i in range(len(data) - width + 1):
                window = data[i:i + width]
                if len(set(window)) >= WINDOW // 2:
                    found.setdefault(window, (name, form))
    return found


def scan(data, secrets, excluded=()):
    """Findings [(offset, secret, form)] of `secrets` in `data` (bytes of a RAM), outside `excluded`
    ((start, end) offsets)."""
    table = needles(secrets)
    widths = sorted({len(window) for window in table})
    data = bytearray(data)
    for start, end in excluded:
        data[start:end] = bytes(end - start)
    data = bytes(data)
    hits, last = [], {}
    for offset in range(len(data) - min(widths, default=0) + 1):
        for width in widths:
            match = table.get(data[offset:offset + width])
            if match:
                if last.get(match) != offset - 1:       # one finding per run of overlapping windows
                    hits.append((offset, *match))
                last[match] = offset
    return hits


def engine_words(sites, scope):
    """[(name, hook index, values allowed after a wipe)] of the SHA-256 engine's message and state
    registers among the hook's `sites` (its registers `message<i>` and `state<i>`, sim/fault_model.py)."""
    import re
    from gateware.sha256.interface import BLOCK_WORDS, INITIAL_HASH, STATE_WORDS
    words = {}
    for index, site_scope, name, _, _ in sites:
        m = re.fullmatch(r"(message|state)(\d+)", name)
        if site_scope == scope and m:
            i = int(m.group(2))
            words[name] = (name, index, {0} if m.group(1) == "message" else {0, INITIAL_HASH[i]})
    if len(words) != BLOCK_WORDS + STATE_WORDS:
        raise ProjectError(f"the fault model shows {len(words)} of the SHA-256 engine's {BLOCK_WORDS} message and "
                           f"{STATE_WORDS} state registers: have they been renamed?")
    return sorted(words.values())


# ---- the firmware's symbols ----

class Symbols:
    """The firmware's data symbols (name, address, size), from its ELF."""

    def __init__(self, elf):
        try:
            out = subprocess.run(["riscv64-unknown-elf-nm", "-S", "--defined-only", str(elf)], check=True,
                                 capture_output=True, text=True).stdout
        except (OSError, subprocess.CalledProcessError) as error:
            raise ProjectError(f"cannot read the firmware's symbols from {elf}: {error}") from None
        self.entries = sorted((int(address, 16), int(size, 16), name) for address, size, _, name in
                              (line.split() for line in out.splitlines() if len(line.split()) == 4))
        self._starts = [address for address, _, _ in self.entries]

    def range(self, name):
        found = [(address, address + size) for address, size, symbol in self.entries if symbol == name]
        if len(found) != 1:
            raise ProjectError(f"the firmware has {len(found)} symbols named {name}: is KEY_STORE_SYMBOLS current?")
        return found[0]

    def at(self, address):
        """The symbol holding `address`, as `name+offset`, or ''."""
        i = bisect.bisect_right(self._starts, address) - 1
        if i >= 0:
            start, size, name = self.entries[i]
            if address < start + max(size, 1):
                return f"{name}+{address - start:#x}"
        return ""


# ---- one boot, its commands, its scans ----

def pkcs1_representative(key, message):
    k = (key["n"].bit_length() + 7) // 8
    t = _SHA256_PREFIX + hashlib.sha256(message).digest()
    return int.from_bytes(b"\0\1" + b"\xff" * (k - len(t) - 3) + b"\0" + t, "big")


def command_and_secrets(command, key, rng):
    """The console line of a command class and the secrets it handles (besides the key's)."""
    from jobs import faults
    from soc import console_protocol as protocol
    k = (key["n"].bit_length() + 7) // 8
    if command == "key":
        return None, {}
    if command == "decrypt":
        c = rng.randrange(2, key["n"])
        return f"decrypt {c:x}", crt_halves(key, c)
    if command == "sign":
        message = rng.randbytes(32)
        return (f"sign pkcs1 {protocol.hex_argument(message)} hw_seq",
                crt_halves(key, pkcs1_representative(key, message)))
    if command == "oaep_decrypt":
        c = faults.oaep_encrypt(key, rng.randbytes(16), rng.randbytes(32))
        return f"oaep_decrypt {c.hex()} hw_seq", crt_halves(key, int.from_bytes(c, "big"))
    if command == "keygen":                 # from the device's generator; its key's secrets known after
        return f"keygen {key['n'].bit_length()} hw_seq", {}
    if command == "tls":                    # a connection, run by Scanner.after
        return "tls", {}
    raise ProjectError(f"no command class {command!r} (known: {', '.join(COMMANDS)})")


class Scanner:
    """The fault model booted with `key` set; `after(command)` runs a command class and scans."""

    def __init__(self, build, key, timeout):
        from jobs.faults import Session
        from sim import fault_model
        from soc import config
        self.fault_model, self.key = fault_model, key
        self.symbols = Symbols(build.firmware_bin.with_suffix(".elf"))
        base = config.MAIN_RAM_BASE
        self.excluded = {"main_ram": [tuple(a - base for a in self.symbols.range(name))
                                      for name in KEY_STORE_SYMBOLS], "sram": []}
        self.bases = {"main_ram": base, "sram": None}
        self.session = Session(build, key, timeout=timeout)
        scope = fault_model.PERIPHERAL_SCOPE
        sites = self.session.hook.sites()
        self.memories = [(site_scope, name) for _, site_scope, name, _, elements in sites
                         if elements > 1 and (site_scope == scope or site_scope.startswith(scope + "."))]
        self.engine_words = engine_words(sites, fault_model.SHA256_SCOPE)

    def after(self, command, line, secrets):
        """Findings after `line` (None: nothing typed, the state as it is) ran."""
        if line == "tls":
            secrets = {**secrets, "master secret": self.tls_connection()}
        elif line is not None:
            output = self.session.operation(line)
            if output is None or output.lstrip().startswith("error="):
                raise ProjectError(f"`{line[:60]}...` failed: {(output or '(the model ended)').strip()[:300]}")
        dumps = {memory: self.session.hook.dump(self.fault_model.SOC_SCOPE, memory)[0]
                 for memory in self.fault_model.SOC_MEMORIES}
        secrets = {**key_secrets(self.key), **secrets}
        if command == "keygen":             # the new key's secrets too, now that the RAM is dumped
            made = self.session.console.export_key()
            secrets.update({f"new {name}": value for name, value in key_secrets(vars(made)).items()})
        findings = []
        for memory, data in dumps.items():
            for offset, secret, form in scan(data, secrets, self.excluded[memory]):
                base = self.bases[memory]
                where = self.symbols.at(base + offset) if base is not None else ""
                findings.append(Finding(command, memory, secret, form, offset, where))
        for name, index, allowed in self.engine_words:
            value = self.session.hook.peek(index, 0)
            if value not in allowed:
                findings.append(Finding(command, "SHA-256 engine", "hashed data", f"{name} = {value:08x}", 0,
                                        "not wiped"))
        for scope, name in self.memories:
            data, width = self.session.hook.dump(scope, name)
            nonzero = [i for i in range(0, len(data), width) if any(data[i:i + width])]
            if nonzero:
                findings.append(Finding(command, f"peripheral {name}", "any", "nonzero words",
                                        nonzero[0], f"{len(nonzero)} of {len(data) // width} words"))
        return findings

    def tls_connection(self):
        """One TLS connection to the device (Python's `ssl` as the client, the RSA key exchange, the
        server's certificate for the key set): the master secret, as the client's key log gives it."""
        import os
        import socket
        import tempfile
        import threading
        from jobs import tls
        console = self.session.console
        with tempfile.TemporaryDirectory() as tmp:
            tls.prepare(console, self.key, tmp)
            keylog, answer = os.path.join(tmp, "keylog"), {}
            server_end, client_end = socket.socketpair()

            def client():
                try:
                    answer["line"] = tls.python_client(client_end, os.path.join(tmp, "ca.pem"), suite=TLS_SUITE,
                                                       key_bits=self.key["n"].bit_length(), keylog=keylog)[0]
                except Exception as error:      # reported below
                    answer["error"] = error

            thread = threading.Thread(target=client, daemon=True)
            thread.start()
            connection = tls.Bridge(console).serve_connection(server_end)
            thread.join(timeout=60)
            if "line" not in answer or connection.handshake is None:
                raise ProjectError(f"the TLS connection failed: {answer.get('error')!r}, {connection.summary}")
            with open(keylog) as lines:
                master = [line.split()[2] for line in lines if line.startswith("CLIENT_RANDOM ")]
        if len(master) != 1:
            raise ProjectError(f"the client's key log has {len(master)} master secrets, not one")
        return int(master[0], 16)

    def close(self):
        self.session.close()


def run(build, bits=1024, commands=COMMANDS, rng=None, timeout=3600, progress=None):
    """Every command class once on a fresh key; the findings, per command."""
    import random
    rng = rng or random.Random()
    key = fresh_key(bits, rng)
    scanner = Scanner(build, key, timeout)
    results = {}
    try:
        for command in commands:
            line, secrets = command_and_secrets(command, key, rng)
            results[command] = scanner.after(command, line, secrets)
            if progress:
                print(f"[secrets] {command}: {len(results[command])} findings", file=progress)
    finally:
        scanner.close()
    return results


# ---- the job: `python -m sim secrets` ----

def add_arguments(parser):
    options.add_size(parser, default=1024)
    parser.add_argument("--commands", type=options.impls_type(COMMANDS), default=COMMANDS, metavar="LIST",
                        help=f"command classes, comma-separated (default: all: {','.join(COMMANDS)})")


def main(args, log):
    build = options.simulation(args, log, faults=True)
    results = run(build, args.size, args.commands, timeout=args.timeout, progress=options.progress(args))
    total = 0
    for command, findings in results.items():
        print(f"{command}: {'clean' if not findings else f'{len(findings)} findings'}")
        for finding in findings[:20]:
            print(f"  {finding}")
        total += len(findings)
    return 1 if total else 0


registry.register(registry.Job(
    "secrets", "RAM and peripheral scanned for key material after each command", main,
    add_arguments=add_arguments, groups=(options.BUILD,), timeout=3600,
    description="Sets a fresh key, runs each command class once on the fault-injection model and dumps the "
                "SoC's RAMs and the peripheral's memories after each: key material outside the key store, or "
                "a peripheral word left nonzero, is a finding; exits 1 if there is one."))
