"""A stand-in for the simulated SoC's console, for testing the host side (link/console.py's typed
commands, `python -m sim leak`) in a fraction of a second: it echoes what it is typed as the
firmware does (link/console.py's LineEditor: the arguments of `key` and `keygen` masked), takes `key`,
answers `time` with Python's pow() and made-up cycle counts, `bench` with made-up rows in the firmware's
order (BearSSL not built: its rows are `missing`), `info`, `keygen` with a key made in Python from the
seed (the same on every implementation) and made-up counts, and `key export` with the key it holds.

    python fake_console.py [mode]

mode: `ok` (constant-time paths take constant time; hw_seq_window depends on the exponent),
`leak` (hw_seq private also depends on the message's lowest bit), `wrong` (hw_cpu private_crt
answers message 1 with 2; keygen on hw_cpu prints a wrong d and ok=0), `refuse` (every `time` is an
unknown command), `mute` (prints its prompt, then reads without ever answering: a firmware that
hung), `garbled` (every answer of key, time,
bench, info and keygen has one line cut short), `astray` (answers as if asked something else: key
takes the key without its private part, time times the software, bench ends without its `bench done`,
info prints its SoC line twice, keygen makes a key on the software).
"""

import math
import os
import random
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from link.console import LineEditor             # noqa: E402
from soc import console_protocol as protocol    # noqa: E402
from soc import keys as soc_keys                  # noqa: E402

#: The sizes the fake's `bench` knows.
BENCH_SIZES = (512, 1024)
#: The peer library the fake was built without.
NOT_BUILT = "bearssl"


def _fields(line, values):
    """`line` as the firmware prints it, with `values` ({key: value})."""
    return " ".join([*line.words, *(f"{field.key}={values[field.key]}" for field in line.fields)]) + "\n"


def _cut(text):
    """The line cut short after its first field's `=`: garbled."""
    return text[:text.index("=") + 1] + "\n"


def _export(state):
    if state.get("p") is None:
        return f"{protocol.Error.NO_KEY.prefix} (set one with: key <n> <e> <d> <p> <q>)\n"
    n, e, d, p, q = (state[name] for name in ("n", "e", "d", "p", "q"))
    values = {"n": n, "e": e, "d": d, "p": p, "q": q, "dp": d % (p - 1), "dq": d % (q - 1), "qinv": pow(q, -1, p)}
    return _fields(protocol.KEY_EXPORT, {name: f"{value:x}" for name, value in values.items()})


def _key(words, state, mode):
    if words[1:] == [protocol.KEY_EXPORT_WORD]:
        return _export(state)
    try:
        numbers = [int(w, 16) for w in words[1:]]
    except ValueError:
        return f"{protocol.Error.BAD_HEX.prefix} arg={words[1]}\n"
    if len(numbers) not in (2, 5):
        return f"{protocol.Error.USAGE.prefix} usage=\"key <n> <e> [<d> <p> <q>]\"\n"
    n, e = numbers[:2]
    if n % 2 == 0:
        return f"{protocol.Error.BAD_KEY.prefix} reason=n must be odd, e odd and > 1\n"
    state.update(zip(("n", "e", "d", "p", "q"), numbers + [None] * (5 - len(numbers))))
    private = "no" if mode == "astray" or state["d"] is None else "yes"
    text = _fields(protocol.KEY_SET, {"bits": n.bit_length(), "private": private})
    return _cut(text) if mode == "garbled" else text


def _time(words, state, mode):
    op, impl, message = words[1], words[2], int(words[3], 16)
    if "n" not in state or (op != "public" and state["d"] is None):
        return f"{protocol.Error.NO_KEY.prefix} (set one with `key`)\n"
    exponent = state["e"] if op == "public" else state["d"]
    result = pow(message, exponent, state["n"])
    cycles = 1000 * (1 + list(protocol.IMPLS).index(impl)) + 10 * len(op)
    if impl == "hw_seq_window" or op == "public":
        cycles += bin(exponent).count("1")
    if mode == "leak" and (impl, op) == ("hw_seq", "private"):
        cycles += message & 1
    if mode == "wrong" and (impl, op, message) == ("hw_cpu", "private_crt", 1):
        result = 2
    text = _fields(protocol.TIMED, {"op": op, "impl": "sw" if mode == "astray" else impl, "cycles": cycles,
                                    "ok": 1, "result": f"{result:x}"})
    return _cut(text) if mode == "garbled" else text


def _bench(words, mode):
    only = words[1] if len(words) > 1 and words[1] in ("hw", "ours") else None
    sizes, rows = [], None
    for word in words[1 + (only is not None):]:
        if word.startswith("rows="):
            rows = {tuple(row.split(":")) for row in word[len("rows="):].split(",")}
        elif word.isdigit() and int(word) in BENCH_SIZES:
            sizes.append(int(word))
        else:
            return f"{protocol.Error.UNKNOWN_SIZE.prefix} bits={word} sizes={','.join(map(str, BENCH_SIZES))}\n"
    out = []
    for bits in sizes or BENCH_SIZES:
        out.append(_fields(protocol.BENCH_START, {"bits": bits}))
        for op, impl in protocol.bench_rows(peers=only is None):
            if (only == "hw" and impl not in protocol.PERIPHERAL_IMPLS
                    or rows is not None and (str(bits), op, impl) not in rows):
                continue
            if impl == NOT_BUILT:
                if op != "mul":
                    out.append(_fields(protocol.RESULT_MISSING, {"bits": bits, "op": op, "impl": impl}))
                continue
            cycles = bits * (1 + list(protocol.ALL_IMPLS).index(impl)) + len(op)
            out.append(_fields(protocol.RESULT, {"bits": bits, "op": op, "impl": impl, "cycles": cycles, "ok": 1}))
        out.append(f"\nRSA-{bits}, cycles (a table for people)\n  op           impl          cycles\n\n")
    if mode == "garbled":
        first = next(i for i, line in enumerate(out) if line.startswith("result "))
        out[first] = out[first][:out[first].index(" cycles=")] + "\n"
    if mode != "astray":
        out.append(_fields(protocol.BENCH_DONE, {}))
    return "".join(out)


def _info(mode):
    lines = [_fields(protocol.INFO_SOC, {"cpu": "Fake_Full", "clk_hz": 100_000_000, "rom_bytes": 65536,
                                         "sram_bytes": 8192, "main_ram_bytes": 262144}),
             _fields(protocol.INFO_LIMITS, {"bignum_max_bits": 4096, "console_line_max": 4095}),
             _fields(protocol.INFO_COUNTER, {"cycle_counter": "ok", "cycles": 672955, "loop_cycles": 15064}),
             _fields(protocol.INFO_STACK, {"stack_bytes": 44680, "stack_used": 432}),
             _fields(protocol.INFO_PERIPHERAL, {"peripheral_lanes": 32, "word_bits": 32, "max_bits": 4096,
                                                "slots": 16}),
             _fields(protocol.INFO_ENTROPY, {"entropy": "simulated", "entropy_health": "ok"})]
    if mode == "garbled":
        lines[3] = _cut(lines[3])
    if mode == "astray":
        lines.insert(1, lines[0])
    return "".join(lines)


#: What the firmware's keygen takes: sizes, the seed's most bytes.
KEYGEN_BITS = range(512, 4096 + 1, 64)
KEYGEN_SEED_MAX = 64


def _generated_key(bits, seed):
    """A key as the firmware's keygen makes one (top two bits set, e = 65537, d mod lcm(p-1, q-1)), from
    the seed alone."""
    rng = random.Random(f"fake-keygen-{bits}-{seed.hex()}")
    e = 65537
    while True:
        p, q = (soc_keys.random_prime(rng, bits // 2, 2, e) for _ in range(2))
        if abs(p - q) >> (bits // 2 - 100) and (p * q).bit_length() == bits:
            return p, q, e, pow(e, -1, math.lcm(p - 1, q - 1))


def _keygen(words, state, mode):
    if len(words) not in (3, 4):
        return f"{protocol.Error.USAGE.prefix} usage=\"keygen <bits> <seed-hex> [impl]\"\n"
    if not words[1].isdigit() or int(words[1]) not in KEYGEN_BITS:
        return f"{protocol.Error.UNKNOWN_SIZE.prefix} bits={words[1]} (a multiple of 64 from 512 to 4096)\n"
    impl = words[3] if len(words) == 4 else "hw_seq"
    if impl not in protocol.IMPLS:
        return f"{protocol.Error.UNKNOWN_IMPL.prefix} impl={impl}\n"
    try:
        seed = bytes.fromhex(words[2])
    except ValueError:
        return f"{protocol.Error.BAD_HEX.prefix} arg=seed\n"
    if len(seed) > KEYGEN_SEED_MAX:
        return f"{protocol.Error.TOO_LARGE.prefix} arg=seed max_bytes={KEYGEN_SEED_MAX}\n"
    if len(seed) < protocol.KEYGEN_MIN_SEED:
        return f"{protocol.Error.SHORT_SEED.prefix} bytes={len(seed)} min={protocol.KEYGEN_MIN_SEED}\n"
    bits = int(words[1])
    p, q, e, d = _generated_key(bits, seed)
    ok = 1
    if mode == "wrong" and impl == "hw_cpu":
        d, ok = d + 2, 0
    if mode == "astray":
        impl = "sw"
    state.update(n=p * q, e=e, d=d, p=p, q=q)
    rank = 1 + list(protocol.IMPLS).index(impl)
    text = (_fields(protocol.KEYGEN, {"bits": bits, "impl": impl, "cycles": 1000 * bits * rank + seed[0],
                                      "candidates": 100 + seed[0], "mr_rounds": 10 + seed[0] % 4, "ok": ok})
            + _fields(protocol.KEY_PUBLIC, {"n": f"{p * q:x}", "e": f"{e:x}"}))
    if mode == "garbled":
        text = text[:text.index("\nkey ")] + "\nkey n=\n"
    return text


def answer(line, state, mode):
    words = line.split()
    if not words:
        return ""
    if words[0] == "key" and len(words) > 1:
        return _key(words, state, mode)
    if words[0] == "time" and mode != "refuse" and len(words) == 4:
        return _time(words, state, mode)
    if words[0] == "bench":
        return _bench(words, mode)
    if words[0] == "info":
        return _info(mode)
    if words[0] == "keygen":
        return _keygen(words, state, mode)
    return f"error=unknown_command command={words[0]} (type 'help')\n"


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
    signal.signal(signal.SIGUSR1, signal.SIG_IGN)     # the model's idle request: this one is idle anyway
    state, pending, editor = {}, b"", LineEditor()
    os.write(1, protocol.PROMPT.encode())
    while True:
        data = os.read(0, 4096)
        if not data:
            return
        if mode == "mute":
            continue
        os.write(1, editor.type(data).encode())     # the echo SimConsole waits for
        pending += data
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            os.write(1, (answer(line.decode(), state, mode) + protocol.PROMPT).encode())


if __name__ == "__main__":
    main()
