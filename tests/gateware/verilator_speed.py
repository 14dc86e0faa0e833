"""Simulation-speed harness: the peripheral alone in Verilator, idle and busy (back-to-back 2048-bit MULs).

    .venv/bin/python tests/gateware/verilator_speed.py [idle_cycles] [busy_cycles] [--callgrind]

prints the simulated cycles per second of each phase.  The bench is ``sim.montmul_verilator``'s, driven by
``gateware.driver``: the idle stretch is one request, each MUL two round trips through the pipe (tens of
microseconds, against milliseconds of simulation); ``--callgrind`` runs the bench under valgrind.
"""

import pathlib
import random
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

from gateware.driver import BlockingDriver, complete  # noqa: E402
from gateware.interface import PeripheralConfig  # noqa: E402
from gateware.model import mont_mul  # noqa: E402
from sim.montmul_verilator import BUILD_ROOT, VerilatorTransport  # noqa: E402


#: The configuration timed: 16-bit words, 64 lanes (a 1024-bit row).
CONFIG = PeripheralConfig(word_bits=16, lanes=64)


def run(idle=2_000_000, busy=200_000, bits=2048, prefix=()):
    w = CONFIG.word_bits
    size = bits // w
    nw = CONFIG.bus_words(size)
    rng = random.Random(1)
    n = rng.getrandbits(bits) | 1 | (1 << (bits - 1))
    a, b = rng.randrange(n), rng.randrange(n)
    with VerilatorTransport(CONFIG, prefix) as transport:
        driver = BlockingDriver(transport)
        driver.load_modulus(n, size, word_bits=w)
        driver.write_slot(1, a, nw)
        driver.write_slot(2, b, nw)
        t0 = time.perf_counter()
        driver.tick(idle)
        complete(transport.sample())                # the answer comes once the cycles have run
        t1 = time.perf_counter()
        muls = cycles = 0
        while cycles < busy or not muls:
            cycles += driver.mul(3, 1, 2)[0]
            muls += 1
        t2 = time.perf_counter()
        status = driver.read_status()
        ok = driver.read_slot(3, nw) == mont_mul(a, b, n, size, w)
    return (f"idle {idle} cycles {t1 - t0:.3f} s {idle / (t1 - t0):.0f} cycles/s\n"
            f"busy {cycles} cycles {t2 - t1:.3f} s {cycles / (t2 - t1):.0f} cycles/s "
            f"({muls} MULs, {cycles // muls} cycles each)\n"
            f"status {status}\n"
            f"result {'ok' if ok else 'WRONG'}\n")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    idle = int(args[0]) if args else 2_000_000
    busy = int(args[1]) if len(args) > 1 else 200_000
    prefix = ()
    if "--callgrind" in sys.argv:
        BUILD_ROOT.mkdir(parents=True, exist_ok=True)
        prefix = ("valgrind", "--tool=callgrind", f"--callgrind-out-file={BUILD_ROOT}/callgrind.out")
    print(run(idle, busy, prefix=prefix), end="")
