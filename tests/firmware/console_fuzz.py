"""The firmware's console fuzzed on the host: libFuzzer with AddressSanitizer and UndefinedBehaviorSanitizer.

    .venv/bin/python tests/firmware/console_fuzz.py --seconds 60     # what `make fuzz` runs (FUZZ_SECONDS=60)
    .venv/bin/python tests/firmware/console_fuzz.py --replay FILE... # run inputs once (a crash, a corpus)

The target (fuzz/console_fuzz.c) is console.c with main.c's `help` and `info` and every command table,
every other source of firmware/ as firmware/Makefile takes them but the TLS server's (tls/), over a host
model of the peripheral's registers (fuzz/montmul_model.c), so the hardware paths run to their results,
and over the peer libraries' modules that firmware/Makefile compiles (BearSSL, mbedTLS from build/peers),
built with clang 14 into build/fuzz/. The SoC's and the protocol's headers are generated as for the
firmware (soc/firmware.py), for a firmware of FUZZ_MAX_BITS bits and a peripheral to match: the parsers'
limits, the buffers and every command's checks are the same as at 4,096 bits, relative to the limit,
and an input costs a millisecond or so instead of seconds (typing a 4,096-bit private key and signing
with it takes 5 s under the sanitizers). --max-bits 4096 fuzzes the firmware's own size.

Inputs: the first byte picks the key the console holds (console_fuzz.c), the rest is typed. The seed
corpus is generated from the protocol's command table (soc/console_protocol.COMMANDS: every command with
arguments made from its usage line), the dictionary from its words; both go to build/fuzz/. Inputs
that found a bug are kept in fuzz/regressions/ and replayed by tests/firmware/test_console_fuzz.py.
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from common.errors import ProjectError  # noqa: E402
from gateware.interface import PeripheralConfig  # noqa: E402
from soc import config, console_protocol as protocol  # noqa: E402

HERE = Path(__file__).resolve().parent
FUZZ_SOURCES = HERE / "fuzz"
REGRESSIONS = FUZZ_SOURCES / "regressions"
FIRMWARE = ROOT / "firmware"
BUILD = ROOT / "build" / "fuzz"
CLANG = "clang"

#: The fuzz build's bignum limit, and the peripheral's configuration for it (with pair commands, as the
#: default one has: 16 lanes give pairs of factors up to 512 bits, so RSA-1024's CRT halves run at once).
FUZZ_MAX_BITS = 1024
#: libFuzzer's longest input: past the console's line limit (CONSOLE_LINE_MAX) with room for more lines.
MAX_LEN = 3 * config.CONSOLE_LINE_MAX
#: An input taking longer than this is a hang (libFuzzer's -timeout, seconds).
TIMEOUT = 20
#: libFuzzer's flags for every run. No leak detection: the firmware allocates nothing (mbedTLS from its own
#: static heap), while the sanitizers' own handling of the harness's longjmp allocates, which made
#: libFuzzer run every input a second time to look for a leak.
LIBFUZZER_FLAGS = [f"-timeout={TIMEOUT}", "-detect_leaks=0"]

SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
#: As the firmware's target: RISC-V's char is unsigned.
#: One section per function, linked with --gc-sections as the firmware is: the peers' modules reference
#: what the firmware never calls and does not link (mbedTLS's rsa.c its message digests).
COMMON = ["-g", "-O2", "-fno-omit-frame-pointer", "-funsigned-char", "-ffunction-sections", "-fdata-sections"]
#: The arithmetic: the firmware's bignum kernels (bignum/bignum.c, which includes its layers) and the peripheral's
#: host model. Their comparisons are carries and limbs, not the input's structure; traced for libFuzzer
#: (trace-cmp) they took four fifths of the fuzzer's time (perf). They keep the edge counters, so the
#: fuzzer still sees their paths, and drop the comparison tracing.
ARITHMETIC = [FIRMWARE / "bignum" / "bignum.c", FUZZ_SOURCES / "montmul_model.c"]
NO_CMP_TRACE = ["-fsanitize=fuzzer-no-link", "-fno-sanitize-coverage=trace-cmp"]


def peripheral_config(max_bits):
    return PeripheralConfig(max_bits=max_bits, word_bits=PeripheralConfig().word_bits,
                            lanes=min(PeripheralConfig().lanes, max_bits // 64))


# ---- what firmware/Makefile compiles ----

def makefile_variables(path=FIRMWARE / "Makefile"):
    """{NAME: value} of the Makefile's `NAME := value` lines (continuations joined), and the
    target-specific ones as {"target: NAME": value}."""
    text = re.sub(r"\\\n\s*", " ", Path(path).read_text())
    found = {}
    for line in text.splitlines():
        match = re.match(r"^([^\s#:=]+(?:\s+[^\s#:=]+)*)\s*:\s*([A-Z_]+)\s*:=\s*(.*)$", line)
        if match:
            for target in match.group(1).split():
                found[f"{target}: {match.group(2)}"] = match.group(3).strip()
            continue
        match = re.match(r"^([A-Z_]+)\s*[:+]?=\s*(.*)$", line)
        if match:
            found[match.group(1)] = match.group(2).strip()
    return found


def bignum_objects_sources():
    """The files under firmware/bignum/ that the firmware compiles as objects of their own (the
    Makefile's BIGNUM_OBJECTS, bn_<name>.o from bignum/<name>.c)."""
    makefile = (FIRMWARE / "Makefile").read_text()
    [names] = re.findall(r"^BIGNUM_OBJECTS\s*:=(.*)$", makefile, re.M)
    return [FIRMWARE / "bignum" / (name.removeprefix("bn_").removesuffix(".o") + ".c") for name in names.split()]


def firmware_sources():
    """Every source the firmware compiles, as firmware/Makefile takes them (SOURCES, BIGNUM_OBJECTS):
    bignum/bignum.c, every .c file of its other FOLDERS, and key generation's bignum primitives."""
    folders = makefile_variables()["FOLDERS"].split()
    return ([FIRMWARE / "bignum" / "bignum.c"]
            + sorted(path for name in folders if name != "bignum" for path in (FIRMWARE / name).glob("*.c"))
            + bignum_objects_sources())


def bearssl_sources(tree):
    """BearSSL's source files the firmware's archives take (BEARSSL_SOURCES, PAD_ and KEYGEN_BEARSSL_SOURCES):
    every `.c` the three variables name, a bare name or pattern found anywhere under src/."""
    variables = makefile_variables()
    found = set()
    for name in ("BEARSSL_SOURCES", "PAD_BEARSSL_SOURCES", "KEYGEN_BEARSSL_SOURCES"):
        for token in re.findall(r"[\w./*$()_-]+\.c\b", variables[name]):
            token = token.replace("$(BEARSSL_DIR)/", "").removeprefix("src/")
            matches = sorted((tree / "src").glob(token if "/" in token else f"*/{token}"))
            if not matches:
                raise ProjectError(f"firmware/Makefile names {token}, which BearSSL's src/ does not have")
            found.update(matches)
    return sorted(found)


def mbedtls_sources(tree):
    """[(source, extra flags)] of mbedTLS's modules (MBEDTLS_MODULES), with the per-file flags."""
    variables = makefile_variables()
    return [(tree / "library" / f"{module}.c",
             variables.get(f"peer_mbedtls/{module}.o: MBEDTLS_KEYGEN_FLAGS", "").split())
            for module in variables["MBEDTLS_MODULES"].split()]


# ---- the build ----

def generated_headers(max_bits, peers):
    """{relative path: text} of the headers the firmware includes, made as for the firmware, and the
    SoC's generated/soc.h and generated/mem.h from soc/config.py (the data window's address from the
    host stand-in's mem.h)."""
    from soc import firmware
    headers = dict(firmware.generated_headers(max_bits))
    headers.update(firmware.soc_headers(peripheral_config(max_bits)))
    headers["peer_build.h"] = firmware.peer_header(peers)
    headers["generated/soc.h"] = ("/* The fuzz build's stand-in (tests/firmware/console_fuzz.py). */\n"
                                  f'#define CONFIG_CPU_HUMAN_NAME "host"\n'
                                  f"#define CONFIG_CLOCK_FREQUENCY {config.SYS_CLK_FREQ}\n")
    headers["generated/mem.h"] = (f"#define ROM_SIZE {config.ROM_SIZE}\n#define SRAM_SIZE {config.SRAM_SIZE}\n"
                                  f"#define MAIN_RAM_SIZE {config.MAIN_RAM_SIZE}\n"
                                  + (HERE / "host_litex" / "generated" / "mem.h").read_text())
    return headers


def _write_if_changed(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def _compile(args, out, deps=()):
    """Compiles into `out` unless it is newer than its inputs (the sources and objects it names, and
    `deps`) and made with the same command."""
    command_file = out.with_suffix(".cmd")
    command = " ".join(map(str, args))
    sources = [Path(a) for a in args if str(a).endswith((".c", ".o"))] + list(deps)
    if (out.exists() and command_file.exists() and command_file.read_text() == command
            and all(s.stat().st_mtime <= out.stat().st_mtime for s in sources)):
        return
    result = subprocess.run([*args, "-o", str(out)], capture_output=True, text=True)
    if result.returncode != 0:
        raise ProjectError(f"compiling {sources[0] if sources else out} failed:\n{result.stderr[-4000:]}")
    command_file.write_text(command)


def build(max_bits=FUZZ_MAX_BITS, out_dir=None, jobs=os.cpu_count() or 2, source_coverage=False,
          log=lambda msg: None):
    """Builds the fuzz target; returns its path (build/fuzz/<max_bits>/console_fuzz). source_coverage: the
    same with clang's source coverage in the firmware's files (console_fuzz_cov, for `coverage`)."""
    from soc import peer_libs
    if shutil.which(CLANG) is None:
        raise ProjectError("clang not found: run tools/setup.sh (apt-get install clang libclang-rt-14-dev)")
    out_dir = Path(out_dir or BUILD / str(max_bits))
    gen = out_dir / "gen"
    peers = {name: peer_libs.cached(peer) for name, peer in peer_libs.PEERS.items()}
    for name, text in generated_headers(max_bits, peers).items():
        _write_if_changed(gen / name, text)
    from bnlib import entropy_defines, sha256_defines    # the engines' CSR fields, from their contracts
    includes = [f"-I{gen}", f"-I{FUZZ_SOURCES / 'host'}", f"-I{HERE / 'host_litex'}", f"-I{FIRMWARE}",
                *entropy_defines(), *sha256_defines()]
    peer_objects, jobs_list = [], []
    if peers["bearssl"]:
        tree = peers["bearssl"]
        includes += [f"-I{tree / 'inc'}", f"-I{tree / 'src'}"]
        for source in bearssl_sources(tree):
            obj = out_dir / "bearssl" / (str(source.relative_to(tree / "src")).replace("/", "_") + ".o")
            jobs_list.append(([CLANG, "-c", *COMMON, "-fsanitize=address", "-w", f"-I{tree / 'inc'}",
                               f"-I{tree / 'src'}", str(source)], obj))
    if peers["mbedtls"]:
        tree = peers["mbedtls"]
        flags = [f"-I{FIRMWARE / 'peers'}", f"-I{tree / 'include'}", "-DMBEDTLS_CONFIG_FILE=\"mbedtls_config.h\""]
        includes += flags
        for source, extra in mbedtls_sources(tree):
            jobs_list.append(([CLANG, "-c", *COMMON, "-fsanitize=address", "-w", *flags, *extra, str(source)],
                              out_dir / "mbedtls" / f"{source.stem}.o"))
        # rsa.c once more without CRT, only its mbedtls_rsa_private kept, renamed (as firmware/Makefile does)
        jobs_list.append(([CLANG, "-c", *COMMON, "-fsanitize=address", "-w", *flags, "-DMBEDTLS_RSA_NO_CRT",
                           str(tree / "library" / "rsa.c")], out_dir / "mbedtls" / "rsa_no_crt.tmp.o"))
    coverage_flags = ["-fprofile-instr-generate", "-fcoverage-mapping"] if source_coverage else []
    warnings = ["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-Wno-unused-function",
                "-Wno-bitwise-instead-of-logical"]   # keygen.c's constant-time `|` of comparisons
    arithmetic = [out_dir / ("arithmetic_cov" if source_coverage else "arithmetic") / f"{source.stem}.o"
                  for source in ARITHMETIC]
    jobs_list += [([CLANG, "-c", *COMMON, *SANITIZE, *NO_CMP_TRACE, *coverage_flags, *warnings, "-include",
                    "firmware_config.h", *includes, str(source)], obj) for source, obj in zip(ARITHMETIC, arithmetic)]
    firmware_files = [*FIRMWARE.glob("*/*.h"), *(FIRMWARE / "bignum").glob("*.c"), *gen.glob("*.h")]
    for _, obj in jobs_list:
        obj.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
        list(pool.map(lambda job: _compile(*job, deps=firmware_files if job[1] in arithmetic else ()), jobs_list))
    peer_objects = [obj for _, obj in jobs_list if not obj.name.endswith(".tmp.o") and obj not in arithmetic]
    if peers["mbedtls"]:
        renamed = out_dir / "mbedtls" / "rsa_no_crt.o"
        subprocess.run(["objcopy", "--redefine-sym", "mbedtls_rsa_private=mbedtls_rsa_private_no_crt",
                        "--keep-global-symbol=mbedtls_rsa_private_no_crt",
                        str(out_dir / "mbedtls" / "rsa_no_crt.tmp.o"), str(renamed)], check=True)
        peer_objects.append(renamed)
    target = out_dir / ("console_fuzz_cov" if source_coverage else "console_fuzz")
    # every console source but the TLS server's, which drives the UART and the interrupt controller
    # itself (fuzz/no_tls.c stands in for its command table)
    sources = [path for path in firmware_sources() if path.parent.name != "tls" and path not in ARITHMETIC]
    harness = [FUZZ_SOURCES / "console_fuzz.c", FUZZ_SOURCES / "no_tls.c", HERE / "entropy_model.c",
               HERE / "sha256_model.c"]
    stack_bytes = 4 * 2048          # console_fuzz.c's fuzz_stack_space
    _compile([CLANG, *COMMON, *SANITIZE, "-fsanitize=fuzzer", *coverage_flags, *warnings,
              "-include", "firmware_config.h", *includes, "-Dmain=firmware_main",
              *map(str, sources), *map(str, harness), *map(str, arithmetic), *map(str, peer_objects),
              "-Wl,--defsym=_end=fuzz_stack_space", f"-Wl,--defsym=_fstack=fuzz_stack_space+{stack_bytes}",
              f"-Wl,--defsym=STACK_SIZE={stack_bytes // 4}", "-Wl,--defsym=_fuart_bss=fuzz_uart_state",
              "-Wl,--defsym=_euart_bss=fuzz_uart_state+64", "-Wl,--gc-sections",
              "-no-pie"], target)         # STACK_SIZE is a symbol's address (an absolute one): not relocated
    log(f"[fuzz] built {target} ({time.monotonic() - started:.1f} s)")
    return target


# ---- seeds and dictionary, from the protocol ----

def _hex(x):
    return f"{x:x}"


def seed_key():
    """The smallest built-in key: the one the input's first byte '1' and '3' give the console."""
    from soc.keys import bench_keys
    return bench_keys((min(config.KEY_SIZES),))[0]


def argument_values(max_bits):
    """Example values of every placeholder the protocol's usage lines name, with the smallest built-in
    key (the one input byte '1' and '3' give the console) where a value must fit the key."""
    key = seed_key()
    n, e, d, p, q = (key[k] for k in "nedpq")
    sizes = [b for b in config.KEY_SIZES if b <= max_bits]
    k = (n.bit_length() + 7) // 8
    signed = signatures(key, bytes(1))        # the message "00"
    return {
        "hex": [_hex(0x1234), _hex(n - 1), "0", "g1"],
        "n": [_hex(n), _hex(3233), "0"], "e": [_hex(e), "11", "1"], "d": [_hex(d), _hex(2753)],
        "p": [_hex(p), "3d"], "q": [_hex(q), "35"],
        "base": ["2", _hex(n - 2)], "exp": [_hex(d), "10001", "0"], "mod": [_hex(n), "ca1", "2", "0"],
        "op": [*(op for op in protocol.OPS if op != "mul"), "nope"],
        "impl": [*protocol.ALL_IMPLS, "nope"],         # the peers: keygen takes them, the others refuse
        "message-hex": ["00", "616263", "-", "", "0g"],
        "signature-hex": [signed["pkcs1"], f"{pow(0x1234, e, n):0{2 * k}x}", "00"],
        "ciphertext-hex": [f"{pow(0x1234, e, n):0{2 * k}x}", "abc"],
        "bits": [*map(str, sizes), "768", "100000"],
        "seed-hex": ["02" * protocol.KEYGEN_MIN_SEED, "0102", "", "0" * 130],
        # a 256-bit number the prime search could make (top two bits set, 3 mod 4), one it could not, none
        "candidate-hex": ["c" + "0" * 62 + "3", "0" * 63 + "3", "zz"],
        "index": ["0", "1", "99"],
        # options written name=<value>: their values by the option's name
        "salt": ["32", "0", "20", "223", "x"],
        "label": ["6c6162656c", "-", "0g"],
        "repeat": ["1", "16", "64", "65", "0", "x"],
    }


def signatures(key, message):
    """Hex of valid answers with `key` to the message (bytes): its PKCS#1 v1.5 and PSS signatures (SHA-256)
    and an OAEP ciphertext of it (SHA-256, MGF1-SHA-256), by the `cryptography` package."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding, rsa
    public = rsa.RSAPublicNumbers(key["e"], key["n"])
    private = rsa.RSAPrivateNumbers(key["p"], key["q"], key["d"], key["dp"], key["dq"], key["qinv"],
                                    public).private_key()
    mgf = padding.MGF1(hashes.SHA256())
    found = {"pkcs1": private.sign(message, padding.PKCS1v15(), hashes.SHA256()).hex(),
             "pss": private.sign(message, padding.PSS(mgf, padding.PSS.MAX_LENGTH), hashes.SHA256()).hex()}
    if key["n"].bit_length() >= 8 * (2 * 32 + 2 + len(message)):      # OAEP with SHA-256 has room
        found["oaep"] = private.public_key().encrypt(message, padding.OAEP(mgf, hashes.SHA256(), None)).hex()
    return found


def seed_lines(max_bits):
    """Lines for every command of soc/console_protocol.COMMANDS: its usage with each placeholder filled
    in turn by each of its example values (the others at their first), optional parts with and without,
    `a|b` alternatives each; and a few lines for the console itself (too many arguments, too long)."""
    values = argument_values(max_bits)
    bits0 = values["bits"][0]
    lines = []
    for name, (usage, _) in protocol.COMMANDS.items():
        if name == "bench":         # the whole benchmark is minutes on the host: one row of a size each
            for only in ("", "hw ", "ours "):
                for op in protocol.OPS:
                    lines.append(f"bench {only}{bits0} rows={bits0}:{op}:{'hw_seq' if only == 'hw ' else 'sw'}")
            lines += ["bench 768", f"bench {bits0} rows=x", f"bench {bits0} rows={bits0}:mul:nope"]
            continue
        if name == "entropy":       # the source's model (entropy_model.c) gives words at once
            lines += ["entropy raw 3", "entropy raw 0", "entropy raw 17 x", "entropy restart", "entropy"]
            continue
        if name in ("tls_key", "cert", "tls"):     # the TLS server's: not in the host build (fuzz/no_tls.c)
            lines += {"tls_key": [f"tls_key {bits0}", "tls_key 768"],
                      "cert": ["cert", "cert clear", "cert add 3000", "cert add zz"],
                      "tls": [f"tls {protocol.MIX_OPTION}=" + "00" * 16,
                              f"tls hw_seq 10 {protocol.MIX_OPTION}=00"]}[name]
            continue
        if name == "key":           # `key <n> <e> [<d> <p> <q>] | export`: the second form as it is
            lines.append(f"key {protocol.KEY_EXPORT_WORD}")
            usage = usage.split(" | ")[0]
        tokens = usage.split()
        expanded = [[]]
        for token in tokens:
            optional = token.startswith("[") and token.endswith("]")
            inner = token.strip("[]")
            if inner == "...":
                continue
            if "|" in inner and "<" not in inner:
                choices = inner.split("|") + ["nope"]
            elif "=" in inner:          # an option, name=<value>, or alternatives of them
                choices = []
                for alternative in inner.split("|"):
                    option, _, value = alternative.partition("=")
                    if not value.startswith("<"):
                        choices.append(alternative)
                        continue
                    if option not in values:
                        raise ProjectError(f"no example values for the option {option}= of `{name} {usage}`: "
                                           "add them to argument_values()")
                    choices += [f"{option}={v}" for v in values[option]]
                choices.append(f"{option}=nope")
            else:
                placeholder = inner.strip("<>")
                if placeholder not in values:
                    raise ProjectError(f"no example values for <{placeholder}> of `{name} {usage}`: add them "
                                       "to argument_values()")
                choices = values[placeholder]
            variants = []
            for prefix in expanded:
                for i, choice in enumerate(choices):
                    if i == 0 or all(not prefix or p == v for p, v in zip(prefix, expanded[0])):
                        variants.append(prefix + [choice])
                if optional:
                    variants.append(prefix)
            expanded = variants
        for args in expanded:
            if name == "keygen" and args and args[0] not in (bits0, "768", "100000"):
                continue            # keygen at the larger sizes: seconds on the host each
            lines.append(" ".join([name, *args]).rstrip())
        lines.append(" ".join([name, *["x"] * 9]))          # too many arguments
    lines += ["", "   help   ", "hxlp\x08\x08\x08elp", "frobnicate 1 2", "h" * (config.CONSOLE_LINE_MAX + 8),
              "modexp " + "f" * (2 * max_bits // 8 + 1) + " 2 3",
              "verify pss 00 " + signatures(seed_key(), bytes(1))["pss"]]
    # the largest built-in key's (input byte '2'): OAEP with SHA-256 needs more than 512 bits
    from soc.keys import bench_keys
    largest = signatures(bench_keys((max(b for b in config.KEY_SIZES if b <= max_bits),))[0], bytes(1))
    lines += ["verify pkcs1 00 " + largest["pkcs1"], "oaep_decrypt " + largest.get("oaep", "00")]
    return list(dict.fromkeys(lines))


def write_seeds(directory, max_bits=FUZZ_MAX_BITS):
    """The seed corpus: each line under each of the four key choices (first byte '0' to '3'), one file
    each (one input of every line would take seconds, and so would every input libFuzzer made from it).
    Returns the directory."""
    directory = Path(directory)
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    lines = seed_lines(max_bits)
    for i, line in enumerate(lines):
        for key in "0123":
            (directory / f"{i:03d}-{key}").write_bytes((key + line + "\n").encode("latin-1"))
    return directory


def dictionary_words():
    """The console's words: command names, operations, implementations, the fixed words of the usage
    lines, sizes, the editing characters."""
    words = set(protocol.COMMANDS) | set(protocol.OPS) | set(protocol.ALL_IMPLS)
    for usage, _ in protocol.COMMANDS.values():
        for word in re.findall(r"[a-z0-9_]+=?|\|", usage):
            if not word.isdigit():
                words.add(word)
    words |= {str(b) for b in config.KEY_SIZES} | {"rows=", ":", ",", " ", "\n", "\x08", "\x7f", "10001", "ff"}
    return sorted(words)


def write_dictionary(path):
    def quoted(word):
        return '"' + "".join(c if c.isalnum() or c in "_=:,| " else f"\\x{ord(c):02x}" for c in word) + '"'
    path = Path(path)
    path.write_text("".join(f"{quoted(w)}\n" for w in dictionary_words()))
    return path


# ---- running ----

def fuzz(target, seconds, work_dir=None, max_bits=FUZZ_MAX_BITS, extra=(), seeds=True, max_len=MAX_LEN, log=print):
    """Runs libFuzzer on `target` for `seconds` in one process, corpus in `work_dir`/corpus (default
    build/fuzz/<bits>, kept between runs) from the seeds (seeds=False: without them; they take seconds
    to load) and the regressions, inputs up to `max_len` bytes; findings in `work_dir`/findings/.
    Returns (exit code, libFuzzer's final statistics as {name: int})."""
    work_dir = Path(work_dir or BUILD / str(max_bits))
    corpus, findings = work_dir / "corpus", work_dir / "findings"
    corpus.mkdir(parents=True, exist_ok=True)
    findings.mkdir(parents=True, exist_ok=True)
    corpora = [corpus, write_seeds(work_dir / "seeds", max_bits)] if seeds else [corpus]
    dictionary = write_dictionary(work_dir / "console.dict")
    command = [str(target), *LIBFUZZER_FLAGS, f"-max_total_time={seconds}", f"-max_len={max_len}",
               f"-dict={dictionary}", f"-artifact_prefix={findings}/", "-print_final_stats=1",
               "-rss_limit_mb=4096",
               # an input's energy scaled down by its time: `bench` and `keygen` take up to a second each
               "-entropic_scale_per_exec_time=1", *extra, *map(str, corpora), str(REGRESSIONS)]
    log("[fuzz] " + " ".join(command))
    tail = []
    with subprocess.Popen(command, stderr=subprocess.PIPE, text=True, errors="replace") as process:
        for line in process.stderr:
            sys.stderr.write(line)
            tail = (tail + [line])[-200:]
        code = process.wait()
    stats = {m.group(1): int(m.group(2)) for m in re.finditer(r"^stat::(\w+):\s+(\d+)", "".join(tail), re.M)}
    return code, stats


def replay(target, inputs, timeout=None, echo=False):
    """Runs each input once (files); returns the CompletedProcess (stderr holds any report, and with `echo`
    the console's output)."""
    env = {**os.environ, **({"CONSOLE_FUZZ_ECHO": "1"} if echo else {})}
    return subprocess.run([str(target), *LIBFUZZER_FLAGS, *map(str, inputs)], capture_output=True, text=True,
                          errors="replace", timeout=timeout, env=env)


def coverage(corpora, max_bits=FUZZ_MAX_BITS, log=print):
    """Runs every input of `corpora` (directories) once through the coverage build; returns llvm-cov's
    report of the firmware's files, bignum/*.c included (lines, functions, regions, branches covered)."""
    target = build(max_bits, source_coverage=True, log=log)
    profile = target.with_suffix(".profraw")
    subprocess.run([str(target), "-runs=0", *LIBFUZZER_FLAGS, *map(str, corpora)], capture_output=True,
                   env={**os.environ, "LLVM_PROFILE_FILE": str(profile)}, check=True)
    merged = target.with_suffix(".profdata")
    subprocess.run(["llvm-profdata", "merge", "-sparse", str(profile), "-o", str(merged)], check=True)
    report = subprocess.run(["llvm-cov", "report", str(target), f"-instr-profile={merged}",
                             *map(str, sorted(FIRMWARE.glob("*/*.c")))],
                            capture_output=True, text=True, check=True)
    return report.stdout


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=60, help="how long to fuzz (default: %(default)s)")
    parser.add_argument("--max-bits", type=int, default=FUZZ_MAX_BITS,
                        help="the fuzz build's bignum limit (default: %(default)s; the firmware's: "
                             f"{PeripheralConfig().max_bits})")
    parser.add_argument("--replay", nargs="+", metavar="FILE", help="run these inputs once instead of fuzzing")
    parser.add_argument("--coverage", action="store_true",
                        help="instead of fuzzing: run the corpus, the seeds and the regressions once through a "
                             "build with source coverage and print llvm-cov's report of firmware/")
    parser.add_argument("--max-len", type=int, default=MAX_LEN,
                        help="the longest input in bytes (default: %(default)s, past the line limit); a "
                             "smaller one runs many more short inputs a second")
    parser.add_argument("--work-dir", type=Path, default=None,
                        help="the campaign's corpus and findings (default: build/fuzz/<max-bits>); a corpus of "
                             "long inputs slows a short-input campaign down: give it its own")
    parser.add_argument("--libfuzzer", default="", metavar="FLAGS",
                        help="more libFuzzer flags, e.g. '-runs=1000000 -jobs=1'")
    args = parser.parse_args(argv)
    if args.coverage:
        work = BUILD / str(args.max_bits)
        print(coverage([work / "corpus", write_seeds(work / "seeds", args.max_bits), REGRESSIONS], args.max_bits,
                       log=lambda msg: print(msg, file=sys.stderr)))
        return 0
    target = build(args.max_bits, log=lambda msg: print(msg, file=sys.stderr))
    if args.replay:
        result = replay(target, args.replay)
        sys.stderr.write(result.stderr[-20000:])
        return result.returncode
    work_dir = args.work_dir or BUILD / str(args.max_bits)
    code, stats = fuzz(target, args.seconds, work_dir=work_dir, max_bits=args.max_bits, extra=args.libfuzzer.split(),
                       max_len=args.max_len, log=lambda msg: print(msg, file=sys.stderr))
    interrupted = code == 72            # libFuzzer's code for a run stopped by a signal (Ctrl-C)
    print(f"[fuzz] {stats.get('number_of_executed_units', '?')} inputs, "
          f"{stats.get('new_units_added', '?')} new in the corpus; exit {code}"
          + (" (interrupted)" if interrupted else "")
          + ("" if code == 0 or interrupted else f"; findings in {work_dir / 'findings'}"))
    return 0 if interrupted else code


if __name__ == "__main__":
    sys.exit(main())
