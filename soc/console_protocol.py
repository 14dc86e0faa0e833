"""The firmware console's protocol, defined once: the prompt, the commands, the machine-readable
lines the firmware prints and its error codes.

The firmware gets them as a generated C header (`c_header()`, written next to `montmul.h` and
`keys.h` by soc/firmware.py): printf formats, command table entries, error-line prefixes. The
simulation runner and the tests parse the firmware's output with the same definitions
(`RESULT.parse(line)`, `error_code(line)`), so a changed line changes both sides.

Every output line is `key=value` pairs separated by single spaces, optionally after fixed words
(`result bits=512 op=public ...`); a refused command prints one line starting `error=<code>`,
followed by details for the reader.
"""

import enum
import re
from dataclasses import dataclass

from gateware.interface import FIRMWARE_SCHEMES
from soc import config, peer_libs

PROMPT = "rsa> "

#: The operations the benchmark times, with what they are.
OPS = {
    "public": f"public (e = {config.PUBLIC_EXPONENT})",
    "private": "private, no CRT",
    "private_crt": "private, CRT",
    "mul": "one Montgomery product",
}
#: Our implementations (RSA in firmware/rsa/rsa.c over a backend), with what they are: software, the CPU
#: loop, then one per exponent scheme the firmware runs on the sequencer (gateware.interface.FIRMWARE_SCHEMES:
#: hw_seq, EXP_FIXED; hw_seq_window, EXP_WINDOW), in the order of the firmware's table.
IMPLS = {
    "sw": "software on the CPU",
    "hw_cpu": "CPU loop + peripheral MUL commands",
    **{scheme.impl: scheme.impl_description for scheme in FIRMWARE_SCHEMES},
}
#: The implementations whose private-key operations (private, private_crt) claim to be constant-time:
#: no branch, loop bound or memory index depends on the message, the key's secrets or intermediates.
CONSTANT_TIME_IMPLS = ("sw", "hw_cpu", *(scheme.impl for scheme in FIRMWARE_SCHEMES if scheme.constant_time))
#: The implementations that use the peripheral; the others (software, the peer libraries) never touch
#: it, so the benchmark runs their rows on the SoC without it (sim/build.py, build_bare).
PERIPHERAL_IMPLS = ("hw_cpu", *(scheme.impl for scheme in FIRMWARE_SCHEMES))
#: Our implementations whose Montgomery product `bench` times (its `mul` rows): software, one MUL issued
#: by the CPU, one product inside the sequencer (firmware/rsa/rsa_hw.c, hw_mul_cycles).
MUL_IMPLS = ("sw", "hw_cpu", "hw_seq")
#: The operations that use the private key.
PRIVATE_OPS = ("private", "private_crt")
#: The peer libraries: software RSA people actually use, built from their own sources and run
#: through their own API on the same keys (firmware/peers/peer_*.c); one table, soc/peer_libs.PEERS.
PEER_IMPLS = {name: peer.description for name, peer in peer_libs.PEERS.items()}
#: The peers whose rows depend on the rows before them in one simulation (mbedTLS allocates from its
#: heap and makes its blinding pair on a key's first private operation: README, "Peer libraries"), so
#: their rows always run together, in the firmware's order.
STATEFUL_IMPLS = tuple(name for name, peer in peer_libs.PEERS.items() if peer.stateful)
#: The peers whose big-integer layer exposes a Montgomery product the bench can time.
PEER_MUL_IMPLS = tuple(name for name, peer in peer_libs.PEERS.items() if peer.mul)
#: Every implementation `bench` reports, ours first.
ALL_IMPLS = {**IMPLS, **PEER_IMPLS}


def bench_rows(peers=True):
    """(op, impl) of every RESULT line `bench` prints for one size, in order: every implementation for
    the private-key operations; public on the constant-time implementations and the peers
    (hw_seq_window's public operation is hw_seq's); mul on MUL_IMPLS and the peers that expose a
    product. peers=False: `bench ours`, our implementations only."""
    return [(op, impl) for op in OPS for impl in (ALL_IMPLS if peers else IMPLS)
            if op in PRIVATE_OPS or (impl in MUL_IMPLS if op == "mul" else impl in CONSTANT_TIME_IMPLS)
            or (impl in PEER_IMPLS and (op != "mul" or impl in PEER_MUL_IMPLS))]

#: Typed for an empty hex argument (an empty message, or label): the console splits its lines at spaces.
EMPTY_HEX = "-"
#: Options of the padded commands, `<name>=<value>` after their other arguments: the PSS salt's
#: length in bytes (`verify` also takes SALT_ANY: any length), and the OAEP label (hex).
SALT_OPTION = "salt"
SALT_ANY = "auto"
LABEL_OPTION = "label"
#: `tls`'s option: bytes from the host for the server's random generator (hex).
MIX_OPTION = "mix"
#: What `help` says after the commands about how hex arguments are typed.
HEX_NOTE = f"Hex arguments: two digits a byte, no prefix; {EMPTY_HEX} for an empty one (a message, a label)."


def hex_argument(data):
    """`data` (bytes) as the console's hex argument."""
    return bytes(data).hex() or EMPTY_HEX


#: `key export`: the word after `key` that prints the private key the console holds, instead of setting one.
KEY_EXPORT_WORD = "export"
#: Fewest bytes of seed `keygen` takes: its generator's only input, so the key's only secret.
KEYGEN_MIN_SEED = 32
#: The steps of key generation's prime search that `keygen_step` times on a given candidate (in the order of
#: firmware/keygen/keygen.h's KEYGEN_STEP_*), with what each runs. A candidate is a number the search could
#: make: its top two bits set, 3 mod 4, of a prime's size for a key keygen makes.
KEYGEN_STEPS = {
    "pretest": "the candidate's Montgomery set-up and its Miller-Rabin round to base 2",
    "round": "its R^2 mod c and one Miller-Rabin round to a base drawn, untimed, from a generator seeded with it",
}

#: `hash`'s implementations of SHA-256, each a BearSSL br_hash_class, with what they are.
HASH_IMPLS = {
    "sw": "BearSSL's software SHA-256 (br_sha256_vtable)",
    "hw": "the SHA-256 engine (firmware/hash/sha256_hw.c, soc/sha256.py)",
}
#: Most bytes `hash` takes: their hex fits the console's line.
HASH_MAX_BYTES = 1024
#: `hash`'s option: the message fed to the hash that many times over (1 to HASH_MAX_REPEAT; 1 by default),
#: so that a long hash needs no long line.
HASH_REPEAT_OPTION = "repeat"
HASH_MAX_REPEAT = 64
#: `hash_mct`: NIST's SHA-256 Monte Carlo test (CAVP's SHA256Monte.txt): from a seed, each checkpoint is
#: MD1002 of MD0 = MD1 = MD2 = the seed and MDi = SHA-256(MD(i-3) || MD(i-2) || MD(i-1)), and seeds the next.
#: The hashes between two checkpoints, the seed's bytes, and the checkpoints of a whole test (the most a
#: command runs: its index argument is the last checkpoint's, as the response file's COUNT numbers them).
HASH_MCT_ITERATIONS = 1000
HASH_MCT_SEED_BYTES = 32
HASH_MCT_CHECKPOINTS = 100

#: The SHA-256 the firmware's own users hash with (firmware/hash/sha256_select.h: the padding, the device's
#: and key generation's HMAC-DRBG, the TLS server's transcript hash and PRF), `sha256 <name>` to choose,
#: the default first. The peers' key generation always hashes in software.
SHA256_USERS_IMPLS = {
    "hw": "the engine (default)",
    "sw": "BearSSL's software",
}

#: name -> (arguments, one line of help), in the order `help` lists them.
COMMANDS = {
    "help": ("", "list the commands"),
    "info": ("", "CPU, clock, memory sizes, cycle counter check, where randomness comes from"),
    "bench": ("[hw|ours] [bits ...] [rows=<bits>:<op>:<impl>,...]",
              f"time {' / '.join(('sw', 'hw_cpu', 'hw_seq', *PEER_IMPLS))} RSA (public, private, private_crt); hw: no "
              "software; ours: no peer library; rows=: only those rows (the others' messages still drawn)"),
    "vectors": ("[index ...]", "PKCS#1 v2.1 raw RSA vectors on both paths (all by default)"),
    "modexp": ("<base> <exp> <mod>", "base^exp mod mod (hex) in software and hardware"),
    "key": (f"<n> <e> [<d> <p> <q>] | {KEY_EXPORT_WORD}",
            f"set your own key (hex) for encrypt/decrypt (a refused one leaves no key); {KEY_EXPORT_WORD}: print "
            "the private key held (d, p, q, dp, dq, qinv)"),
    "encrypt": ("<hex>", "message^e mod n with your key, software and hardware"),
    "decrypt": ("<hex>", "ciphertext^d mod n (CRT) with your key, software and hardware"),
    "time": ("<op> <impl> <hex>", "one operation with your key on one implementation, timed"),
    "sign": (f"pkcs1|pss <message-hex> [impl] [{SALT_OPTION}=<n>]",
             "SHA-256 signature with your key (CRT; hw_seq by default), timed: hash, padding and RSA; "
             "pss: an n-byte salt (32 by default, or the most the key has room for)"),
    "verify": (f"pkcs1|pss <message-hex> <signature-hex> [impl] [{SALT_OPTION}=<n>|{SALT_OPTION}={SALT_ANY}]",
               f"check a SHA-256 signature with your key; pss: its salt must be n bytes (default as sign's; "
               f"{SALT_ANY}: any)"),
    "oaep_encrypt": (f"<message-hex> [impl] [{LABEL_OPTION}=<hex>]",
                     "RSA-OAEP encryption with your key (SHA-256, MGF1-SHA-256; the label empty by default)"),
    "oaep_decrypt": (f"<ciphertext-hex> [impl] [{LABEL_OPTION}=<hex>]",
                     "RSA-OAEP decryption with your key (CRT); every failure one line, in the cycles of a success"),
    "keygen": ("<bits> [<seed-hex>] [impl]",
               f"generate a key (e = 65537) from a seed of at least {KEYGEN_MIN_SEED} bytes, or from the device's "
               "random generator without one (hw_seq by default), "
               f"timed; it becomes your key (n and e printed; `key {KEY_EXPORT_WORD}` prints the rest)"),
    "keygen_step": (f"{'|'.join(KEYGEN_STEPS)} <candidate-hex> [impl]",
                    "time one constant-time step of keygen's prime search on a candidate (top two bits set, "
                    "3 mod 4): its pre-test, or one Miller-Rabin round; for the leak test"),
    "sha256": (f"[{'|'.join(SHA256_USERS_IMPLS)}]",
               "SHA-256 of sign, verify, OAEP, keygen, the generator, TLS: "
               + ", ".join(f"{name} {what}" for name, what in SHA256_USERS_IMPLS.items())),
    "entropy": ("raw <words> | restart",
                "the device's entropy source: raw words as it gives them (hex, for an SP 800-90B assessment), "
                "or restart it (clears a health-test failure)"),
    "hash": (f"{'|'.join(HASH_IMPLS)} <hex> [{HASH_REPEAT_OPTION}=<n>]",
             f"SHA-256 of the bytes (at most {HASH_MAX_BYTES}), n times over (1 to {HASH_MAX_REPEAT}), through "
             "BearSSL's hash class, timed: " + "; ".join(f"{name}: {what}" for name, what in HASH_IMPLS.items())),
    "hash_mct": (f"{'|'.join(HASH_IMPLS)} <seed-hex> [index]",
                 f"NIST's SHA-256 Monte Carlo test from a {HASH_MCT_SEED_BYTES}-byte seed through `hash`'s class: "
                 f"checkpoints 0 to index (0 by default; {HASH_MCT_CHECKPOINTS - 1}: the whole test), each "
                 f"{HASH_MCT_ITERATIONS} chained hashes, timed, one line each"),
    "tls_key": ("<bits>", "make the built-in bench key of that size your key (the TLS server's key)"),
    "cert": ("[clear | add <der-hex>]",
             "the TLS server's certificate chain: append DER bytes (leaf first), clear it, or show it"),
    "tls": (f"[impl] [timeout-ms] [{MIX_OPTION}=<hex>]",
            "serve one TLS 1.2 connection on this UART (raw bytes until it ends; docs/tls.md), RSA on impl "
            f"(hw_seq by default); {MIX_OPTION}: the host's random bytes for the server's generator"),
}
#: The commands whose lines carry secrets (a key's private part, a seed, entropy): the console echoes their
#: name and the blank after it, then ECHO_MASK for every other character typed (link/console.py, LineEditor).
SECRET_COMMANDS = ("key", "keygen", "tls")
ECHO_MASK = "*"

class Error(enum.Enum):
    """Codes of the `error=<code>` line: input the firmware refuses, or an operation that failed."""
    LINE_TOO_LONG = "line_too_long"
    TOO_MANY_ARGUMENTS = "too_many_arguments"
    UNKNOWN_COMMAND = "unknown_command"
    USAGE = "usage"
    BAD_HEX = "bad_hex"
    TOO_LARGE = "too_large"
    UNKNOWN_SIZE = "unknown_size"
    UNKNOWN_OP = "unknown_op"
    UNKNOWN_IMPL = "unknown_impl"
    BAD_KEY = "bad_key"
    NO_KEY = "no_key"
    ZERO_MODULUS = "zero_modulus"
    EVEN_MODULUS = "even_modulus"
    BASE_NOT_BELOW_MODULUS = "base_not_below_modulus"
    EXPONENT_TOO_LONG = "exponent_too_long"
    MESSAGE_NOT_BELOW_MODULUS = "message_not_below_modulus"
    PERIPHERAL = "peripheral"
    CRT_CHECK_FAILED = "crt_check_failed"
    OPERATION_FAILED = "operation_failed"
    UNKNOWN_PADDING = "unknown_padding"
    BAD_LENGTH = "bad_length"               # a signature or ciphertext not of the modulus' length
    MESSAGE_TOO_LONG = "message_too_long"
    KEY_TOO_SMALL = "key_too_small"         # the modulus is too short for the padding with SHA-256
    # Every failed OAEP decryption (not below the modulus, fault check, padding, label): one line, no
    # oracle; DECRYPTION_FAILED_LINE carries the cycles, the same as a success's.
    DECRYPTION_FAILED = "decryption_failed"
    BAD_SALT_LENGTH = "bad_salt_length"     # a PSS salt length that is no number, or has no room in the key
    NO_PADDING_LIBRARY = "no_padding_library"   # BearSSL was not fetched: no SHA-256 or padding
    NO_RANDOM_GENERATOR = "no_random_generator"  # BearSSL was not fetched: no HMAC-DRBG for keygen
    # The peripheral stayed busy past the longest a command takes (a fault): the driver reset it.
    PERIPHERAL_STUCK = "peripheral_stuck"
    NO_TLS_LIBRARY = "no_tls_library"           # BearSSL was not fetched: no TLS server
    NO_CHAIN = "no_chain"                       # `tls` before a certificate chain was loaded (`cert add`)
    BAD_CHAIN = "bad_chain"                     # the chain's bytes are not whole DER certificates
    CHAIN_KEY_MISMATCH = "chain_key_mismatch"   # the first certificate does not hold the key's modulus
    # The device's entropy source failed a health test: its generator is stopped until `entropy restart`
    # or a reboot, and every command that draws randomness says so.
    ENTROPY_FAILED = "entropy_failed"
    ENTROPY_TIMEOUT = "entropy_timeout"         # the source gave no word in time (a board's oscillators stopped?)
    NOT_CONSTANT_TIME = "not_constant_time"     # a board's TLS server runs only TLS_CONSTANT_TIME_IMPLS
    SHORT_SEED = "short_seed"                   # `keygen` takes a seed of at least KEYGEN_MIN_SEED bytes
    BAD_CANDIDATE = "bad_candidate"             # `keygen_step`: not a number the prime search could make
    # The SHA-256 engine refused a command or write, or stayed busy past its bound (a fault).
    HASH_ENGINE = "hash_engine"
    BAD_REPEAT = "bad_repeat"                   # `hash`'s repeat= not a count from 1 to HASH_MAX_REPEAT

    @property
    def prefix(self):
        """How the line starts."""
        return f"error={self.value}"


def error_code(line):
    """The Error of an `error=` line; None for any other line."""
    match = re.match(r"error=(\w+)", line)
    return Error(match.group(1)) if match else None


def error_lines(text):
    return [line for line in text.splitlines() if error_code(line) is not None]


INTEGER_CONVERSIONS = ("u", "lu", "llu", "d")


@dataclass(frozen=True)
class Field:
    key: str
    conversion: str         # printf conversion without the `%`: u, lu, llu, d (integers) or s
    parse: object = None    # str -> value; default: int for integers, the text for s

    def value(self, text):
        if self.parse is not None:
            return self.parse(text)
        return int(text) if self.conversion in INTEGER_CONVERSIONS else text


def _hex(text):
    return int(text, 16)


def _bytes(text):
    """A hex field as bytes; EMPTY_HEX is none, as in the arguments."""
    return b"" if text == EMPTY_HEX else bytes.fromhex(text)


@dataclass(frozen=True)
class Line:
    """A line the firmware prints: fixed words, then `key=value` fields."""
    name: str               # C: <name>_LINE is its printf format
    words: tuple
    fields: tuple

    def c_format(self):
        return " ".join([*self.words, *(f"{f.key}=%{f.conversion}" for f in self.fields)]) + "\n"

    def parse(self, line):
        """{key: value} when `line` is this line, else None."""
        pattern = " ".join([*map(re.escape, self.words), *(f"{f.key}=(\\S+)" for f in self.fields)])
        match = re.fullmatch(pattern, line.rstrip("\n"))
        if match is None:
            return None
        return {f.key: f.value(text) for f, text in zip(self.fields, match.groups())}

    def parse_all(self, text):
        """Every line of `text` that is this line, parsed."""
        return [v for v in map(self.parse, text.splitlines()) if v is not None]

    def starts(self, line):
        """Whether `line` begins as this line does (its fixed words and its first field's `key=`): such
        a line that does not parse is this line garbled, not some other output."""
        return line.startswith(" ".join([*self.words, *(f"{f.key}=" for f in self.fields[:1])]))


# One measurement of `bench`: cycles of one operation on one implementation, and whether its
# result was right.
RESULT = Line("RESULT", ("result",), (Field("bits", "u"), Field("op", "s"), Field("impl", "s"),
                                      Field("cycles", "llu"), Field("ok", "d")))
# A row `bench` cannot measure because the peer library is not in this firmware (its fetch failed).
RESULT_MISSING = Line("RESULT_MISSING", ("missing",), (Field("bits", "u"), Field("op", "s"), Field("impl", "s")))
BENCH_START = Line("BENCH_START", ("bench",), (Field("bits", "u"),))
BENCH_DONE = Line("BENCH_DONE", ("bench", "done"), ())
# modexp, encrypt, decrypt: both results (hex), both cycle counts, whether they agree (yes/no).
COMPARISON = Line("COMPARISON", (), (Field("sw", "s", _hex), Field("hw", "s", _hex), Field("sw_cycles", "llu"),
                                     Field("hw_cycles", "llu"), Field("match", "s")))
# `time`: one operation on one implementation with the user's key; ok=1 when it succeeded (a private
# result also passed the check result^e == message); the host checks `result` against its own.
TIMED = Line("TIMED", ("timed",), (Field("op", "s"), Field("impl", "s"), Field("cycles", "llu"), Field("ok", "d"),
                                   Field("result", "s", _hex)))
KEY_SET = Line("KEY_SET", ("key",), (Field("bits", "u"), Field("private", "s")))
# One PKCS#1 vector: each path ok or FAIL, and ok=1 when all are.
VECTOR = Line("VECTOR", (), (Field("vector", "u"), Field("bits", "u"), Field("sw", "s"), Field("hw_seq", "s"),
                             Field("hw_cpu", "s"), Field("public", "s"), Field("ok", "d")))
VECTORS_DONE = Line("VECTORS_DONE", (), (Field("vectors", "u"), Field("passed", "u")))
INFO_SOC = Line("INFO_SOC", (), (Field("cpu", "s"), Field("clk_hz", "lu"), Field("rom_bytes", "lu"),
                                 Field("sram_bytes", "lu"), Field("main_ram_bytes", "lu")))
INFO_LIMITS = Line("INFO_LIMITS", (), (Field("bignum_max_bits", "d"), Field("console_line_max", "d")))
INFO_COUNTER = Line("INFO_COUNTER", (), (Field("cycle_counter", "s"), Field("cycles", "lu"),
                                         Field("loop_cycles", "lu")))
# The stack: the space between the end of bss and the top of main RAM, and the deepest the firmware
# has reached in it since it started (the space is painted at start-up; the first changed word).
INFO_STACK = Line("INFO_STACK", (), (Field("stack_bytes", "lu"), Field("stack_used", "lu")))
# The peripheral the firmware was built for (its generated montmul.h): what a result file records of it.
INFO_PERIPHERAL = Line("INFO_PERIPHERAL", (), (Field("peripheral_lanes", "d"), Field("word_bits", "d"),
                                               Field("max_bits", "d"), Field("slots", "d")))
# sign: the signature (the modulus' length in bytes) and the cycles of the whole signing (SHA-256 of
# the message, padding, private CRT operation).
SIGNATURE = Line("SIGNATURE", (), (Field("signature", "s", _bytes), Field("cycles", "llu")))
# verify: yes or no, and the cycles of the whole check (SHA-256, the public operation, the comparison).
VALID = Line("VALID", (), (Field("valid", "s"), Field("cycles", "llu")))
# oaep_encrypt, oaep_decrypt: the result as bytes (EMPTY_HEX for none: an empty message).
CIPHERTEXT = Line("CIPHERTEXT", (), (Field("ciphertext", "s", _bytes),))
# oaep_decrypt also prints the cycles of the whole decryption (private CRT operation, unpadding).
MESSAGE = Line("MESSAGE", (), (Field("message", "s", _bytes), Field("cycles", "llu")))
# oaep_decrypt's one line for any failure of the decryption itself, with its cycles (those of a success).
DECRYPTION_FAILED = Line("DECRYPTION_FAILED", (Error.DECRYPTION_FAILED.prefix,), (Field("cycles", "llu"),))
# keygen: the cycles of the generation, the numbers looked at (sieve and Miller-Rabin), the Miller-Rabin
# rounds run, and ok=1 when the key passed the check after it (x^e^d = x with CRT); then its public part.
KEYGEN = Line("KEYGEN", ("keygen",), (Field("bits", "u"), Field("impl", "s"), Field("cycles", "llu"),
                                      Field("candidates", "u"), Field("mr_rounds", "u"), Field("ok", "d")))
KEY_PUBLIC = Line("KEY_PUBLIC", ("key",), tuple(Field(name, "s", _hex) for name in ("n", "e")))
#: The fields of `key export`'s line: the whole key the console holds.
KEY_EXPORT_FIELDS = ("n", "e", "d", "p", "q", "dp", "dq", "qinv")
KEY_EXPORT = Line("KEY_EXPORT", ("key", KEY_EXPORT_WORD), tuple(Field(name, "s", _hex) for name in KEY_EXPORT_FIELDS))
# keygen_step: the step, the implementation, the candidate's bits, the step's cycles, and pass=1 when the
# candidate passed it (passed=1: may be prime; 0: composite).
KEYGEN_STEP = Line("KEYGEN_STEP", ("keygen_step",), (Field("step", "s"), Field("impl", "s"), Field("bits", "u"),
                                                     Field("cycles", "llu"), Field("passed", "d")))
# ---- the device's entropy source (firmware/rand/, soc/entropy.py) ----

#: Where the firmware's randomness comes from, as `info` names it: the simulation's harness (its seed is
#: the run's, the firmware does not know it), the board's ring oscillators, or the board's deterministic
#: stand-in (an LFSR, built with `--deterministic-entropy` only).
ENTROPY_SOURCES = {
    "simulated": "raw bits from the simulation's harness, seeded (+entropy_seed)",
    "ring_oscillators": "free-running ring oscillators in the fabric",
    "deterministic": "an LFSR in place of the oscillators (a board built with --deterministic-entropy)",
}
#: The source's health as `info` reports it, in firmware/rand/entropy.h's enum order.
ENTROPY_HEALTH = ("ok", "startup", "rct_failed", "apt_failed", "failed")
#: Most raw words one `entropy raw` prints, and how many a line.
ENTROPY_RAW_MAX_WORDS = 1 << 20
ENTROPY_RAW_WORDS_PER_LINE = 8
# `info`: where randomness comes from, the source's health.
INFO_ENTROPY = Line("INFO_ENTROPY", (), (Field("entropy", "s"), Field("entropy_health", "s")))
# `entropy raw`: raw words, each 8 hex digits, in the order the source gave them.
ENTROPY_RAW = Line("ENTROPY_RAW", (), (Field("raw", "s", lambda text: [int(text[i:i + 8], 16)
                                                                      for i in range(0, len(text), 8)]),))
# `entropy restart`: the source's health right after.
ENTROPY_RESTARTED = Line("ENTROPY_RESTARTED", ("entropy", "restarted"), (Field("entropy_health", "s"),))

# ---- SHA-256 (firmware/hash/, soc/sha256.py) ----

# `hash`: the implementation, the bytes hashed (the message's times the repeat), the cycles of the whole
# hash (init, every update, out) and the digest (hex).
HASH = Line("HASH", ("hash",), (Field("impl", "s"), Field("bytes", "u"), Field("cycles", "llu"),
                                Field("digest", "s", _bytes)))
# `hash_mct`: one Monte Carlo checkpoint (0 first): the implementation, the cycles of its HASH_MCT_ITERATIONS
# hashes and the checkpoint's digest (hex), which seeds the next.
HASH_MCT = Line("HASH_MCT", ("hash_mct",), (Field("impl", "s"), Field("checkpoint", "u"), Field("cycles", "llu"),
                                            Field("digest", "s", _bytes)))

# ---- the TLS server (firmware/tls/tls_*.c, jobs/tls.py, docs/tls.md) ----

#: The suites the TLS server offers (IANA names and code points), and the curves of its ECDHE (TLS
#: named-group names and code points; `none` for the RSA key exchange).
TLS_SUITES = {
    "TLS_RSA_WITH_AES_128_GCM_SHA256": 0x009C,
    "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256": 0xC02F,
}
TLS_CURVES = {"x25519": 29, "secp256r1": 23}
#: The implementations the server's RSA can run on: ours (rsa.c over a backend) and BearSSL's i31 code.
TLS_IMPLS = ("hw_seq", "sw", "hw_cpu", "hw_seq_window", "bearssl")
#: Those a board's server runs: the constant-time ones (the simulation's runs every one, to compare them).
TLS_CONSTANT_TIME_IMPLS = tuple(impl for impl in TLS_IMPLS if impl in CONSTANT_TIME_IMPLS)
#: Default idle limit of a connection in device milliseconds: no byte from the client for that long ends it.
TLS_TIMEOUT_MS = 10000
#: What the host sends, after the device's `tls done` line, to give the console back (the device
#: drops every byte before it), or during a connection to end it (the client went away). Bytes the
#: console's line editor ignores, so a token arriving at the prompt does nothing; no byte repeats the
#: first, so the device matches it with a one-counter scan.
TLS_RESUME_TOKEN = bytes((0x00, 0x1f, 0x80, 0x9d, 0xf1, 0x02, 0xc4, 0x17, 0xe8, 0x05, 0xab, 0x1c, 0x93, 0x06, 0xd7,
                          0x11))
#: How the server's cycles are split: where its time went, each part counted inside the BearSSL hooks
#: and wrapped vtables it goes through (firmware/tls/tls_meter.h); `other` is everything else the CPU
#: did (the engine's handshake code, copies, the loop); `io_wait` the time spent waiting on the UART,
#: which the handshake's `cycles` leave out.
TLS_PARTS = ("rsa", "ecdhe", "hash", "prf", "record", "other")

# `tls` before the connection: from the next byte on, the UART carries the TLS stream.
TLS_START = Line("TLS_START", ("tls", "start"), (Field("impl", "s"), Field("bits", "u"), Field("timeout_ms", "lu")))
# One full handshake: the suite and curve it agreed, the RSA implementation, the key's size, the
# device's cycles from the connection's start to the handshake's end without the UART waits, their
# split (TLS_PARTS, which add up to `cycles`) and the waits. The server sends it to the client as
# its answer, and prints it on the console after the connection.
TLS_HANDSHAKE = Line("TLS_HANDSHAKE", ("handshake",), (
    Field("suite", "s"), Field("curve", "s"), Field("impl", "s"), Field("bits", "u"), Field("cycles", "llu"),
    *(Field(part, "llu") for part in TLS_PARTS), Field("io_wait", "llu")))
# The same on a board, without the cycles: how long the server's RSA took is nobody's business there.
TLS_HANDSHAKE_BRIEF = Line("TLS_HANDSHAKE_BRIEF", ("handshake",), TLS_HANDSHAKE.fields[:4])
# The end of a connection, after its TLS bytes (a line, where a record header would come): why it
# ended (closed: close_notify both ways; failed: the engine stopped on `error`, BearSSL's code, after
# sending an alert where it could; timeout: no byte for timeout_ms; aborted: the host's token), whether
# the handshake completed and the request was answered, the bytes each way. The console comes back
# after the host's TLS_RESUME_TOKEN (or timeout_ms without it).
TLS_DONE = Line("TLS_DONE", ("tls", "done"), (Field("reason", "s"), Field("error", "d"), Field("handshake", "d"),
                                              Field("answered", "d"), Field("bytes_in", "lu"), Field("bytes_out", "lu")))
# `cert`: the chain as loaded, and whether its first certificate holds the key's modulus (yes, no, or
# no_key when there is no key).
CHAIN = Line("CHAIN", ("chain",), (Field("certs", "u"), Field("bytes", "u"), Field("key_match", "s")))

# ---- the SHA-256 the firmware's users take (firmware/hash/sha256_select.h) ----

# `sha256` (with or without a choice): the class the users take from now on.
SHA256_USERS = Line("SHA256_USERS", ("sha256",), (Field("impl", "s"),))

#: An instrumented build (firmware built with -DRSA_PROFILE, `python -m sim split`) follows `time`'s line with
#: one line of this prefix and then `<step>=<cpu>,<transfer>,<wait>` for each step of the operation
#: (firmware/drivers/profile.h names the steps).
PROFILE_PREFIX = "profile"

LINES = (RESULT, RESULT_MISSING, BENCH_START, BENCH_DONE, COMPARISON, TIMED, KEY_SET, VECTOR, VECTORS_DONE,
         INFO_SOC, INFO_LIMITS, INFO_COUNTER, INFO_STACK, INFO_PERIPHERAL, SIGNATURE, VALID, CIPHERTEXT, MESSAGE,
         DECRYPTION_FAILED, KEYGEN, KEY_PUBLIC, KEY_EXPORT, KEYGEN_STEP, TLS_START, TLS_HANDSHAKE,
         TLS_HANDSHAKE_BRIEF, TLS_DONE, CHAIN, INFO_ENTROPY, ENTROPY_RAW, ENTROPY_RESTARTED, HASH,
         HASH_MCT, SHA256_USERS)


def _c_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def c_header():
    """`console_protocol.h`: the protocol as C macros."""
    lines = ["/* Generated by soc/console_protocol.py: do not edit. */",
             "#ifndef CONSOLE_PROTOCOL_H", "#define CONSOLE_PROTOCOL_H", "",
             f"#define PROMPT {_c_string(PROMPT)}", "",
             "/* Command table entries: name, arguments, help. */"]
    lines += [f"#define CMD_{name.upper()} {_c_string(name)}, {_c_string(usage)}, {_c_string(help_)}"
              for name, (usage, help_) in COMMANDS.items()]
    lines += ["", "/* Operation and implementation names of the benchmark. */"]
    lines += [f"#define OP_{name.upper()} {_c_string(name)}" for name in OPS]
    lines += [f"#define IMPL_{name.upper()} {_c_string(name)}" for name in ALL_IMPLS]
    lines += [f"#define IMPL_{name.upper()}_CONSTANT_TIME {int(name in CONSTANT_TIME_IMPLS)}" for name in ALL_IMPLS]
    legend = ", ".join(f"{name}: {what}" for name, what in ALL_IMPLS.items())
    lines += [f"#define IMPL_LEGEND {_c_string(legend)}", "",
              "/* Arguments and options. */",
              f"#define EMPTY_HEX {_c_string(EMPTY_HEX)}",
              f"#define OPT_SALT {_c_string(SALT_OPTION + '=')}",
              f"#define OPT_LABEL {_c_string(LABEL_OPTION + '=')}",
              f"#define OPT_MIX {_c_string(MIX_OPTION + '=')}",
              f"#define SALT_ANY {_c_string(SALT_ANY)}",
              f"#define HEX_NOTE {_c_string(HEX_NOTE)}",
              f"#define PROFILE_PREFIX {_c_string(PROFILE_PREFIX)}", "",
              "/* The line editor: commands whose arguments it does not echo, and what it echoes instead. */",
              "#define CONSOLE_SECRET_COMMANDS { " + ", ".join(map(_c_string, SECRET_COMMANDS)) + " }",
              f"#define ECHO_MASK '{ECHO_MASK}'", "",
              f"#define KEY_EXPORT_WORD {_c_string(KEY_EXPORT_WORD)}",
              f"#define KEYGEN_MIN_SEED {KEYGEN_MIN_SEED}",
              "#define KEYGEN_STEP_NAMES { " + ", ".join(map(_c_string, KEYGEN_STEPS)) + " }", "",
              "/* Output lines (printf formats). */"]
    lines += [f"#define {line.name}_LINE {_c_string(line.c_format())}" for line in LINES]
    lines += ["", "/* The TLS server. */"]
    lines += [f"#define TLS_SUITE_{name[4:]} 0x{code:04X}" for name, code in TLS_SUITES.items()]
    lines += ["#define TLS_SUITE_NAMES { " + ", ".join(f"{{ 0x{code:04X}, {_c_string(name)} }}"
                                                         for name, code in TLS_SUITES.items()) + " }",
              "#define TLS_CURVE_NAMES { " + ", ".join(f"{{ {code}, {_c_string(name)} }}"
                                                         for name, code in TLS_CURVES.items()) + " }",
              "#define TLS_IMPL_NAMES { " + ", ".join(map(_c_string, TLS_IMPLS)) + " }",
              "#define TLS_CONSTANT_TIME_IMPL_NAMES { " + ", ".join(map(_c_string, TLS_CONSTANT_TIME_IMPLS)) + " }",
              f"#define TLS_TIMEOUT_MS {TLS_TIMEOUT_MS}",
              "#define TLS_RESUME_TOKEN { " + ", ".join(f"0x{b:02x}" for b in TLS_RESUME_TOKEN) + " }"]
    lines += ["", "/* The entropy source. */"]
    lines += [f"#define ENTROPY_SOURCE_{name.upper()} {_c_string(name)}" for name in ENTROPY_SOURCES]
    lines += ["#define ENTROPY_HEALTH_NAMES { " + ", ".join(map(_c_string, ENTROPY_HEALTH)) + " }",
              f"#define ENTROPY_RAW_MAX_WORDS {ENTROPY_RAW_MAX_WORDS}",
              f"#define ENTROPY_RAW_WORDS_PER_LINE {ENTROPY_RAW_WORDS_PER_LINE}"]
    lines += ["", "/* SHA-256. */"]
    lines += [f"#define HASH_IMPL_{name.upper()} {_c_string(name)}" for name in HASH_IMPLS]
    lines += [f"#define HASH_MAX_BYTES {HASH_MAX_BYTES}",
              f"#define OPT_REPEAT {_c_string(HASH_REPEAT_OPTION + '=')}",
              f"#define HASH_MAX_REPEAT {HASH_MAX_REPEAT}"]
    lines += [f"#define HASH_MCT_ITERATIONS {HASH_MCT_ITERATIONS}",
              f"#define HASH_MCT_SEED_BYTES {HASH_MCT_SEED_BYTES}",
              f"#define HASH_MCT_CHECKPOINTS {HASH_MCT_CHECKPOINTS}"]
    lines += ["", "/* The SHA-256 of the firmware's users. */"]
    lines += [f"#define SHA256_USERS_{name.upper()} {_c_string(name)}" for name in SHA256_USERS_IMPLS]
    lines += ["", "/* Error lines start with these; details follow. */"]
    lines += [f"#define ERR_{error.name} {_c_string(error.prefix)}" for error in Error]
    lines += ["", "#endif", ""]
    return "\n".join(lines)
