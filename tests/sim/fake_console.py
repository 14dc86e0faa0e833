"""A stand-in for the simulated SoC's console, for testing the host side of `python -m sim --leak`
in a fraction of a second: it echoes what it is typed as the firmware does, takes `key` and
answers `time` with Python's pow() and made-up cycle counts.

    python fake_console.py [mode]

mode: `ok` (constant-time paths take constant time; hw_seq_window depends on the exponent),
`leak` (hw_seq private also depends on the message's lowest bit), `wrong` (hw_cpu private_crt
answers message 1 with 2), `refuse` (every `time` is an unknown command), `mute` (prints its prompt,
then reads without ever answering: a firmware that hung).
"""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from soc import console_protocol as protocol    # noqa: E402


def answer(line, state, mode):
    words = line.split()
    if not words:
        return ""
    if words[0] == "key" and len(words) == 6:
        n, e, d, p, q = (int(w, 16) for w in words[1:])
        state.update(n=n, e=e, d=d)
        return f"key bits={n.bit_length()} private=yes\n"
    if words[0] == "time" and mode != "refuse" and len(words) == 4:
        op, impl, message = words[1], words[2], int(words[3], 16)
        exponent = state["e"] if op == "public" else state["d"]
        result = pow(message, exponent, state["n"])
        cycles = 1000 * (1 + list(protocol.IMPLS).index(impl)) + 10 * len(op)
        if impl == "hw_seq_window" or op == "public":
            cycles += bin(exponent).count("1")
        if mode == "leak" and (impl, op) == ("hw_seq", "private"):
            cycles += message & 1
        if mode == "wrong" and (impl, op, message) == ("hw_cpu", "private_crt", 1):
            result = 2
        return f"timed op={op} impl={impl} cycles={cycles} ok=1 result={result:x}\n"
    return f"error=unknown_command command={words[0]} (type 'help')\n"


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
    state, pending = {}, b""
    os.write(1, protocol.PROMPT.encode())
    while True:
        data = os.read(0, 4096)
        if not data:
            return
        if mode == "mute":
            continue
        os.write(1, data)                       # the echo SimConsole waits for
        pending += data
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            os.write(1, (answer(line.decode(), state, mode) + protocol.PROMPT).encode())


if __name__ == "__main__":
    main()
