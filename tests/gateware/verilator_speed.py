"""Simulation-speed harness: the peripheral alone in Verilator, idle and busy (back-to-back 2048-bit MULs).

    .venv/bin/python tests/gateware/verilator_speed.py [idle_cycles] [busy_cycles]

prints the simulated cycles per second of each phase.  The model is built by ``verilator_bench``
(same flags and build directory); ``--profile`` runs it under callgrind.
"""

import pathlib
import random
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

from gateware.interface import BUS_BITS, WORD_BITS, Opcode, PeripheralConfig, pack_cmd, bus_words  # noqa: E402
import verilator_bench  # noqa: E402

BUILD_ROOT = pathlib.Path(__file__).resolve().parents[2] / "build" / "verilator_speed"

SPEED_CPP = r"""
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include "Vmontmul.h"
#include "verilated.h"

static Vmontmul *top;
static uint64_t cycles;
static void tick() { top->clk = 0; top->eval(); top->clk = 1; top->eval(); cycles++; }
static void strobe_cmd(unsigned v) { top->cmd = v; top->cmd_stb = 1; tick(); top->cmd_stb = 0; }
static void wait_idle() { while (top->status & 1) tick(); }
static double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int main(int argc, char **argv) {
    // argv: idle busy mul_cmd setmod_cmd nwords read_cmd; stdin: 3 x (write cmd, nwords hex words) for n, a, b
    Verilated::commandArgs(argc, argv);
    uint64_t idle = strtoull(argv[1], 0, 0), busy = strtoull(argv[2], 0, 0);
    unsigned mul = strtoul(argv[3], 0, 16), setmod = strtoul(argv[4], 0, 16);
    unsigned nw = strtoul(argv[5], 0, 0), rd = strtoul(argv[6], 0, 16);
    top = new Vmontmul;
    top->cmd_stb = 0; top->wdata_stb = 0; top->rdata_stb = 0;
    top->rst = 1; tick(); tick(); top->rst = 0; tick();
    for (int slot = 0; slot < 3; slot++) {
        unsigned wcmd; scanf("%x", &wcmd);
        strobe_cmd(wcmd);
        for (unsigned k = 0; k < nw; k++) {
            unsigned v; scanf("%x", &v);
            top->wdata = v; top->wdata_stb = 1; tick(); top->wdata_stb = 0;
        }
    }
    strobe_cmd(setmod); wait_idle();
    double t0 = now(); uint64_t c0 = cycles;
    for (uint64_t k = 0; k < idle; k++) tick();
    double t1 = now(); uint64_t c1 = cycles;
    unsigned muls = 0;
    while (cycles - c1 < busy) { strobe_cmd(mul); wait_idle(); muls++; }
    double t2 = now(); uint64_t c2 = cycles;
    printf("idle %llu cycles %.3f s %.0f cycles/s\n", (unsigned long long)(c1 - c0), t1 - t0, (c1 - c0) / (t1 - t0));
    printf("busy %llu cycles %.3f s %.0f cycles/s (%u MULs, %llu cycles each)\n", (unsigned long long)(c2 - c1),
           t2 - t1, (c2 - c1) / (t2 - t1), muls, (unsigned long long)((c2 - c1) / muls));
    printf("status %x\n", (unsigned)top->status);
    strobe_cmd(rd);
    printf("result");
    for (unsigned k = 0; k < nw; k++) {
        tick(); printf(" %08x", (unsigned)top->rdata);
        top->rdata_stb = 1; tick(); top->rdata_stb = 0;
    }
    printf("\n");
    delete top;
    return 0;
}
"""


def build(config=PeripheralConfig()):
    return verilator_bench.build(config, harness=SPEED_CPP)


def run(idle=2_000_000, busy=200_000, bits=2048, prefix=()):
    exe = build()
    size = bits // WORD_BITS
    nw = bus_words(size)
    rng = random.Random(1)
    n = rng.getrandbits(bits) | 1 | (1 << (bits - 1))
    a, b = rng.randrange(n), rng.randrange(n)
    lines = []
    for slot, value in enumerate((n, a, b)):
        lines.append(f"{pack_cmd(Opcode.WRITE, dst=slot):x}")
        lines += [f"{(value >> (BUS_BITS * k)) & 0xffffffff:x}" for k in range(nw)]
    argv = [*prefix, str(exe), str(idle), str(busy), f"{pack_cmd(Opcode.MUL, 3, 1, 2):x}",
            f"{pack_cmd(Opcode.SETMOD, a=0, arg=size):x}", str(nw), f"{pack_cmd(Opcode.READ, a=3):x}"]
    out = subprocess.run(argv, input="\n".join(lines) + "\n", capture_output=True, text=True, check=True)
    report = [line for line in out.stdout.splitlines() if not line.startswith("result")]
    words = [line for line in out.stdout.splitlines() if line.startswith("result")][0].split()[1:]
    got = sum(int(w, 16) << (BUS_BITS * k) for k, w in enumerate(words))
    expected = a * b * pow(1 << (WORD_BITS * size), -1, n) % n
    report.append("result " + ("ok" if busy == 0 or got == expected else "WRONG"))
    return "\n".join(report) + "\n"


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    idle = int(args[0]) if args else 2_000_000
    busy = int(args[1]) if len(args) > 1 else 200_000
    prefix = ()
    if "--callgrind" in sys.argv:
        prefix = ("valgrind", "--tool=callgrind", f"--callgrind-out-file={BUILD_ROOT}/callgrind.out")
    print(run(idle, busy, prefix=prefix), end="")
