"""The softcores (soc/config.py CPUS_ALL; under `make test` a sample of them, SAMPLED below) boot the
firmware in the simulated SoC, run a 512-bit `bench hw` (CPU loop, sequencer, sliding window: every result checked by the firmware
against the expected one) and a software modular exponentiation checked against Python.

The exponentiation's modulus has MODEXP_BITS = 224 bits, 7 limbs: the software kernels work in blocks
of 4 limbs and then in pairs and singles (firmware/bignum/bignum.c), so 7 limbs run every one of those
paths, which a multiple of 4 limbs such as 512 bits never does; and on the rv32i CPUs, where every
product is a libgcc call, it costs about a fifth of the cycles of a 512-bit one (SERV, `sw_cycles`: 14.4 M
against 66.6 M).

The software RSA rows are not run here: on the rv32i CPUs one 512-bit private operation is hundreds
of millions of cycles, tens of minutes of simulation (`python -m sim cpus` times them
within a budget).

Each CPU but the default one has a build of its own for this test (build/sim-<type>-<variant>-boot,
reused when nothing changed; a first build costs a LiteX generation, a Verilator compile and a firmware
build), two ways smaller than the benchmark's (`python -m sim cpus`) and with the same property at stake, that
the CPU boots, drives the peripheral and gets every result right:
- the peripheral has BOOT_LANES = 16 lanes, not 64. Its Verilog is half as long (30 % less
  Verilator CPU time for SERV's model), and at 512 bits the firmware takes the same paths as on 64 lanes:
  the CRT's two 256-bit halves (16 words) still fit one row, so the pair commands still run; 8 lanes
  would not have them. The default CPU's test runs on the benchmark's own build (64 lanes), which the
  other simulation tests share;
- the firmware has no peer library (as on the board): `bench hw` never runs one, and mbedTLS and
  BearSSL are most of the firmware's compile (4 of its 6 CPU-seconds, per CPU)."""
import os
import random

import pytest

from common.paths import BUILD_DIR
from gateware.interface import PeripheralConfig
from sim import build as sim_build
from link.console import SimConsole
from soc import config, cpus, peer_libs
from soc import console_protocol as protocol
from soc.console_protocol import COMPARISON, RESULT, error_lines


#: The modular exponentiation's modulus size (module docstring).
MODEXP_BITS = 224
#: The peripheral's lanes in this test's builds (module docstring).
BOOT_LANES = 16


def _boot_build(cpu):
    """The default CPU's benchmark build; for the others, their own build for this test (module docstring)."""
    if (cpu.type, cpu.variant) == (config.CPU_TYPE, config.CPU_VARIANT):
        return sim_build.build(log=lambda msg: None)
    return sim_build.build(BUILD_DIR / f"sim-{cpu.type}-{cpu.variant}-boot", cpu_type=cpu.type,
                           cpu_variant=cpu.variant, montmul_config=PeripheralConfig(lanes=BOOT_LANES, word_bits=16),
                           firmware_peers=dict.fromkeys(peer_libs.PEERS), log=lambda msg: None)


#: The CPUs `make test` boots: the default and PicoRV32 minimal, so that both ISAs run: rv32im and rv32i,
#: whose products go through the firmware's soft multiply. The others differ from these inside the core
#: or in its bus: the VexRiscv variants, PicoRV32 standard (an rv32im like the default) and SERV (bit-serial
#: rv32i: its build and boot took about 50 s of a `make test`). ALL_SOFTCORES=1 in the environment boots
#: every CPU of CPUS_ALL (about four minutes more), as `python -m sim cpus all` benches them, every
#: result checked.
SAMPLED = (f"{config.CPU_TYPE}:{config.CPU_VARIANT}", "picorv32:minimal")
BOOTED = config.CPUS_ALL if os.environ.get("ALL_SOFTCORES") else SAMPLED


def test_the_sample_covers_every_isa():
    """The sample above is drawn from CPUS_ALL and has each of its ISAs, with and without a multiplier."""
    assert set(SAMPLED) <= set(config.CPUS_ALL)
    assert {cpus.isa(cpus.parse(name)) for name in SAMPLED} == {cpus.isa(cpus.parse(name)) for name in config.CPUS_ALL}


@pytest.mark.slow
@pytest.mark.parametrize("name", BOOTED)
def test_cpu_boots_and_benches_512_bits(name):
    from litex.soc.cores.cpu import CPUS
    cpu = cpus.parse(name)
    build = _boot_build(cpu)
    rng = random.Random(name)
    n = rng.getrandbits(MODEXP_BITS) | (1 << (MODEXP_BITS - 1)) | 1
    base, exponent = rng.randrange(n), 0x13
    console = SimConsole(build.model, build.gateware_dir, timeout=1200)
    try:
        console.wait_prompt()
        info = console.command("info")
        [soc] = protocol.INFO_SOC.parse_all(info)
        [counter] = protocol.INFO_COUNTER.parse_all(info)
        bench = console.command("bench hw 512")
        modexp = console.command(f"modexp {base:x} {exponent:x} {n:x}")
    finally:
        console.close()
    assert soc["cpu"].split("_")[0].lower() == CPUS[cpu.type].human_name.split("_")[0].lower()
    assert counter["cycle_counter"] == "ok"
    assert not error_lines(bench)
    results = RESULT.parse_all(bench)
    assert [(r["bits"], r["op"], r["impl"]) for r in results] == \
        [(512, op, impl) for op, impl in protocol.bench_rows(peers=False) if impl != "sw"]
    assert all(r["ok"] == 1 and r["cycles"] > 0 for r in results), [r for r in results if r["ok"] != 1]
    [comparison] = COMPARISON.parse_all(modexp)
    assert comparison["sw"] == comparison["hw"] == pow(base, exponent, n)
    assert comparison["match"] == "yes"
