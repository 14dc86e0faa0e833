"""Run the generated Verilog of the peripheral in Verilator through a small line protocol.

The C++ bench reads commands on stdin and answers on stdout:
  ``c <hex>``  strobe ``cmd``, wait until not busy, print ``s <status hex> <cycles>``
  ``w <hex>``  strobe ``wdata``
  ``r <n>``    read n words at the read pointer (rdata 2 cycles after the pointer moves), print ``d <hex>``
"""

import hashlib
import os
import pathlib
import shutil
import subprocess

from gateware.interface import BUS_BITS, WORD_BITS, Opcode, pack_cmd, bus_words
from gateware.montmul import generate_verilog

BUILD_ROOT = pathlib.Path(__file__).resolve().parents[2] / "build" / "verilator"

BENCH_CPP = r"""
#include <cstdio>
#include <cstdint>
#include "Vmontmul.h"
#include "verilated.h"

static Vmontmul *top;
static void tick() { top->clk = 0; top->eval(); top->clk = 1; top->eval(); }

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    top = new Vmontmul;
    top->cmd_stb = 0; top->wdata_stb = 0; top->rdata_stb = 0;
    top->rst = 1; tick(); tick(); top->rst = 0; tick();
    char op;
    while (std::scanf(" %c", &op) == 1) {
        if (op == 'c') {
            unsigned value; std::scanf("%x", &value);
            top->cmd = value; top->cmd_stb = 1; tick(); top->cmd_stb = 0;
            unsigned long cycles = 1;
            while (top->status & 1) { tick(); cycles++; }
            std::printf("s %x %lu\n", (unsigned)top->status, cycles);
        } else if (op == 'w') {
            unsigned value; std::scanf("%x", &value);
            top->wdata = value; top->wdata_stb = 1; tick(); top->wdata_stb = 0;
        } else if (op == 'r') {
            unsigned n; std::scanf("%u", &n);
            std::printf("d");
            for (unsigned k = 0; k < n; k++) {
                tick();
                std::printf(" %08x", (unsigned)top->rdata);
                top->rdata_stb = 1; tick(); top->rdata_stb = 0;
            }
            std::printf("\n");
        }
        std::fflush(stdout);
    }
    delete top;
    return 0;
}
"""


def build(config, harness=BENCH_CPP):
    """Build (or reuse) the Verilator model of ``config`` with the C++ ``harness``; return the
    executable's path."""
    verilog = generate_verilog(config, name="montmul")
    key = hashlib.sha256((verilog + harness).encode()).hexdigest()[:16]
    work = BUILD_ROOT / key
    exe = work / "obj_dir" / "Vmontmul"
    if exe.exists():
        return exe
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    (work / "montmul.v").write_text(verilog)
    (work / "harness.cpp").write_text(harness)
    subprocess.run(
        ["verilator", "--cc", "--exe", "--build", "-j", "2", "-O2", "--x-assign", "fast", "--x-initial", "fast",
         "-Wno-fatal", "-Wno-lint", "-Wno-style", "--top-module", "montmul",
         "-CFLAGS", "-O1", "montmul.v", "harness.cpp"],
        cwd=work, check=True, capture_output=True, text=True)
    return exe


class VerilatedPeripheral:
    def __init__(self, config):
        self.config = config
        self.proc = subprocess.Popen([str(build(config))], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)
        self.proc.stdout.close()

    def _send(self, line):
        self.proc.stdin.write(line + "\n")

    def _recv(self):
        return self.proc.stdout.readline().split()

    def command(self, op, dst=0, a=0, b=0, arg=0):
        self._send(f"c {pack_cmd(op, dst, a, b, arg):x}")
        tag, status, cycles = self._recv()
        assert tag == "s"
        status = int(status, 16)
        return int(cycles), {"busy": status & 1, "done": (status >> 1) & 1, "error": (status >> 8) & 0xff}

    def write_slot(self, slot, value, nwords):
        _, st = self.command(Opcode.WRITE, dst=slot)
        assert st["error"] == 0
        self._send("\n".join(f"w {(value >> (BUS_BITS * k)) & 0xffffffff:x}" for k in range(nwords)))

    def read_slot(self, slot, nwords):
        _, st = self.command(Opcode.READ, a=slot)
        assert st["error"] == 0
        self._send(f"r {nwords}")
        words = self._recv()
        assert words[0] == "d"
        return sum(int(w, 16) << (BUS_BITS * k) for k, w in enumerate(words[1:]))
