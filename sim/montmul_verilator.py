"""The peripheral's generated Verilog in Verilator, as a transport of ``gateware.driver``.

A small C++ bench drives the model's ports and answers on stdout, one line per request on stdin:

    s c <hex> | s w <hex> | s r   one cycle with cmd_stb (cmd = hex), wdata_stb (wdata = hex) or rdata_stb
    t <n>                         n cycles without strobes
    g                             prints "<status hex> <rdata hex> <irq pulses so far>"
    i <mask hex> <limit>          cycles until status & mask == 0; prints their number, "x" after limit

so the driver's sequencing is the same as on the Amaranth simulation, and only the long waits run in
C++.  The model is built once per Verilog and bench source, under build/verilator::

    from gateware.driver import BlockingDriver
    from sim.montmul_verilator import VerilatorTransport
    with VerilatorTransport(PeripheralConfig()) as transport:
        driver = BlockingDriver(transport)
        driver.load_modulus(n, size)
"""

import subprocess

from common import cache, tools
from common.errors import ProjectError
from common.paths import BUILD_DIR
from gateware.driver import PeripheralError

__all__ = ["BUILD_ROOT", "BENCH_CPP", "build", "VerilatorTransport"]

BUILD_ROOT = BUILD_DIR / "verilator"

BENCH_CPP = r"""
#include <cstdio>
#include "Vmontmul.h"
#include "verilated.h"

static Vmontmul *top;
static unsigned long long irqs;

static void tick() {
    top->clk = 0; top->eval(); top->clk = 1; top->eval();
    if (top->irq) irqs++;
}

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    top = new Vmontmul;
    top->cmd_stb = 0; top->wdata_stb = 0; top->rdata_stb = 0;
    top->rst = 1; tick(); tick(); top->rst = 0; tick();
    irqs = 0;
    char request;
    while (std::scanf(" %c", &request) == 1) {
        if (request == 's') {
            char port; unsigned value = 0;
            if (std::scanf(" %c", &port) != 1) break;
            if (port == 'c' || port == 'w') std::scanf("%x", &value);
            if (port == 'c') { top->cmd = value; top->cmd_stb = 1; tick(); top->cmd_stb = 0; }
            if (port == 'w') { top->wdata = value; top->wdata_stb = 1; tick(); top->wdata_stb = 0; }
            if (port == 'r') { top->rdata_stb = 1; tick(); top->rdata_stb = 0; }
        } else if (request == 't') {
            unsigned long long count = 0;
            std::scanf("%llu", &count);
            while (count--) tick();
        } else if (request == 'g') {
            top->eval();
            std::printf("%x %x %llu\n", (unsigned)top->status, (unsigned)top->rdata, irqs);
            std::fflush(stdout);
        } else if (request == 'i') {
            unsigned mask = 0; unsigned long long limit = 0, count = 0;
            std::scanf("%x %llu", &mask, &limit);
            while ((top->status & mask) && count < limit) { tick(); count++; }
            if (top->status & mask) std::printf("x\n");
            else std::printf("%llu\n", count);
            std::fflush(stdout);
        }
    }
    top->final();
    delete top;
    return 0;
}
"""


def build(config, harness=BENCH_CPP):
    """The Verilator executable of ``config``'s peripheral with the C++ ``harness`` (reused while
    neither changes)."""
    from gateware.tools.verilog import generate_verilog

    verilator, env = tools.verilator()
    verilog = generate_verilog(config, name="montmul")

    def make(work):
        (work / "montmul.v").write_text(verilog)
        (work / "harness.cpp").write_text(harness)
        result = subprocess.run(
            [verilator, "--cc", "--exe", "--build", "-j", "2", "-O2", "--x-assign", "fast",
             "--x-initial", "fast", "-Wno-fatal", "-Wno-lint", "-Wno-style", "--top-module", "montmul",
             "-CFLAGS", "-O1", "-MAKEFLAGS", " ".join(tools.VERILATOR_MAKE_VARIABLES), "montmul.v", "harness.cpp"],
            cwd=work, capture_output=True, text=True, env=env)
        if result.returncode:
            raise ProjectError(f"verilator failed in {work}:\n{result.stderr[-2000:]}")

    # keep: every configuration the test suite runs (4), so that no worker's build is dropped while
    # another worker is about to start it
    work, _ = cache.cached_dir(BUILD_ROOT, "montmul", (tools.verilator_version(), verilog, harness), make, keep=8)
    return work / "obj_dir" / "Vmontmul"


class VerilatorTransport:
    """The bench as a transport (its methods never suspend: use ``gateware.driver.BlockingDriver``).
    ``prefix`` runs the bench under another program (valgrind)."""

    def __init__(self, config, prefix=()):
        self.config = config
        self.process = subprocess.Popen([*prefix, str(build(config))], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, bufsize=1)

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=60)
        self.process.stdout.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _send(self, line):
        self.process.stdin.write(line + "\n")

    def _answer(self):
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise ProjectError(f"the Verilator bench stopped (exit status {self.process.poll()})")
        return line.split()

    def _sample(self):
        self._send("g")
        status, rdata, irqs = self._answer()
        return int(status, 16), int(rdata, 16), int(irqs)

    @property
    def irqs(self):
        return self._sample()[2]

    async def strobe(self, port, value=0):
        self._send(f"s {port[0]} {value:x}" if port != "rdata" else "s r")

    async def tick(self, count=1):
        self._send(f"t {count}")

    async def sample(self):
        status, rdata, _ = self._sample()
        return status, rdata

    async def wait(self, busy_mask, limit):
        self._send(f"i {busy_mask:x} {limit}")
        (edges,) = self._answer()
        if edges == "x":
            raise PeripheralError(f"still busy after {limit} cycles")
        return int(edges)
