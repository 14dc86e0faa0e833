import random

import pytest

from gateware.interface import Opcode, PeripheralConfig, WORD_BITS
from gateware.measure import mul_cycles, exp_cycles, simulate_command, exp_schedule_cycles, mul_schedule_cycles
from montmul_harness import mont_exp_ref

SMALL = PeripheralConfig(max_bits=256, lanes=4)


@pytest.mark.parametrize("mode", ["window", "ladder"])
def test_exp_schedule_matches_simulation(mode):
    rng = random.Random(11)
    for bits, ebits in [(64, 9), (100, 24), (128, 25), (64, 41)]:
        mul = mul_cycles(SMALL, bits)
        for e in (rng.getrandbits(ebits), (1 << ebits) - 1, 1 << (ebits - 1), 5):
            cycles, result, inp = simulate_command(SMALL, bits, _op(mode), exponent=e, exponent_bits=ebits)
            assert result == mont_exp_ref(inp["a"], e, inp["n"], inp["size"])
            assert cycles == exp_schedule_cycles(mul, e, ebits, mode), (bits, ebits, hex(e))


def _op(mode):
    return Opcode.EXP_WINDOW if mode == "window" else Opcode.EXP_LADDER


def test_mul_cycles_depend_only_on_size():
    counts = {mul_cycles(SMALL, bits) for bits in (193, 200, 208)}
    assert len(counts) == 1
    assert mul_cycles(SMALL, 256) > mul_cycles(SMALL, 64)


def test_exp_cycles_api():
    assert exp_cycles(SMALL, 64, "ladder") == exp_schedule_cycles(mul_cycles(SMALL, 64), 0, 64, "ladder")
    assert exp_cycles(SMALL, 64, "window") > exp_cycles(SMALL, 64, "window", exponent=1)


@pytest.mark.parametrize("config", [SMALL, PeripheralConfig(max_bits=1024, lanes=8)], ids=["256-L4", "1024-L8"])
def test_mul_schedule_matches_simulation(config):
    for bits in sorted({32, 48, 100, 128, config.max_bits // 2, config.max_bits - 16, config.max_bits}):
        assert mul_cycles(config, bits) == mul_schedule_cycles(config, bits), bits


@pytest.mark.slow
def test_default_config_cycles():
    """The PYNQ-Z2 configuration: simulated product cycles equal the schedule; the 2048/4096-bit targets."""
    config = PeripheralConfig()
    cycles = {bits: mul_cycles(config, bits) for bits in (1024, 2048, 4096)}
    assert cycles == {bits: mul_schedule_cycles(config, bits) for bits in cycles}
    assert cycles[2048] <= 300 and cycles[4096] <= 1100, cycles
