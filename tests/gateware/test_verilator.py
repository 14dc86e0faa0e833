"""The generated Verilog, run in Verilator: MULs and full-length RSA exponentiations."""

import random

import pytest

from gateware.interface import WORD_BITS, Opcode, PeripheralConfig, bus_words
from montmul_harness import mont_ref, to_mont, from_mont
from pkcs1_vectors import oaep_keys
from verilator_bench import VerilatedPeripheral

CONFIG = PeripheralConfig(max_bits=2048, lanes=8)


@pytest.fixture(scope="module")
def dut():
    peripheral = VerilatedPeripheral(CONFIG)
    yield peripheral
    peripheral.close()


def setmod(dut, n, size, slot=0):
    dut.write_slot(slot, n, bus_words(size))
    _, st = dut.command(Opcode.SETMOD, a=slot, arg=size)
    assert st == {"busy": 0, "done": 1, "error": 0}


def mod_exp(dut, x, e, n, size, mode):
    """x^e mod n on the peripheral (to and from the Montgomery domain with MULs)."""
    nw = bus_words(size)
    r = 1 << (WORD_BITS * size)
    dut.write_slot(1, x, nw)
    dut.write_slot(2, r * r % n, nw)
    dut.write_slot(4, e, nw)
    dut.write_slot(5, 1, nw)
    dut.write_slot(3, r % n, nw)
    assert dut.command(Opcode.MUL, 6, 1, 2)[1]["error"] == 0           # x in Montgomery form
    cycles, st = dut.command(mode, 3, 6, 4, max(e.bit_length(), 1))
    assert st == {"busy": 0, "done": 1, "error": 0}, st
    assert dut.command(Opcode.MUL, 7, 3, 5)[1]["error"] == 0           # back to normal form
    return dut.read_slot(7, nw), cycles


def test_random_muls(dut):
    rng = random.Random(21)
    for size in (2, 3, 31, 64, 65, 127, 128):
        n = rng.getrandbits(size * WORD_BITS - rng.randrange(3)) | 1 | (1 << (size * WORD_BITS - 4))
        setmod(dut, n, size)
        nw = bus_words(size)
        for _ in range(3):
            a, b = rng.randrange(n), rng.randrange(n)
            dut.write_slot(1, a, nw)
            dut.write_slot(2, b, nw)
            _, st = dut.command(Opcode.MUL, 3, 1, 2)
            assert st == {"busy": 0, "done": 1, "error": 0}
            assert dut.read_slot(3, nw) == mont_ref(a, b, n, size)


def test_mul_reduces_double_width_value(dut):
    """The firmware's reduction of a 2048-bit x modulo a 1024-bit prime p: SETMOD p at the 2048-bit size,
    then MUL(x, R^2 mod p) with x >= p (but < R) gives x*R mod p fully reduced, and MUL by 1 gives x mod p."""
    rng = random.Random(2)
    size = 128
    r = 1 << (WORD_BITS * size)
    for _ in range(3):
        p = rng.getrandbits(1024) | 1 | (1 << 1023)
        setmod(dut, p, size)
        x = rng.getrandbits(2048) | (1 << 2047)
        dut.write_slot(1, x, bus_words(size))
        dut.write_slot(2, r * r % p, bus_words(size))
        dut.write_slot(4, 1, bus_words(size))
        assert dut.command(Opcode.MUL, 3, 1, 2)[1] == {"busy": 0, "done": 1, "error": 0}
        assert dut.read_slot(3, bus_words(size)) == x * r % p
        assert dut.command(Opcode.MUL, 5, 3, 4)[1] == {"busy": 0, "done": 1, "error": 0}
        assert dut.read_slot(5, bus_words(size)) == x % p


@pytest.mark.parametrize("index", range(10))
def test_pkcs1_oaep_raw_rsa(dut, index):
    """c^d mod n with the private exponent (both EXP modes, and CRT halves), then back with e."""
    key = oaep_keys()[index]
    n, e, d = key["n"], key["e"], key["d"]
    size = -(-n.bit_length() // WORD_BITS)
    setmod(dut, n, size)
    for c in key["ciphertexts"][:1]:
        m = pow(c, d, n)
        mode = Opcode.EXP_WINDOW if index % 2 else Opcode.EXP_LADDER
        got, _ = mod_exp(dut, c, d, n, size, mode)
        assert got == m
        back, _ = mod_exp(dut, m, e, n, size, Opcode.EXP_WINDOW)
        assert back == c
    # CRT halves with the prime-size modulus
    p, dp = key["p"], key["dp"]
    psize = -(-p.bit_length() // WORD_BITS)
    setmod(dut, p, psize)
    c = key["ciphertexts"][0] % p
    got, _ = mod_exp(dut, c, dp, p, psize, Opcode.EXP_LADDER)
    assert got == pow(c, dp, p)


@pytest.mark.slow
def test_default_config_rsa_2048():
    """The PYNQ-Z2 configuration in Verilator: products at 1024/2048/4096 bits with the scheduled cycle
    counts, and the 2048-bit PKCS#1 key's private and public operations with the scheduled EXP counts."""
    from gateware.measure import mul_schedule_cycles, exp_schedule_cycles

    config = PeripheralConfig()
    dut = VerilatedPeripheral(config)
    try:
        rng = random.Random(2048)
        for bits in (1024, 2048, 4096):
            size = bits // WORD_BITS
            n = rng.getrandbits(bits) | 1 | (1 << (bits - 1))
            setmod(dut, n, size)
            a, b = rng.randrange(n), rng.randrange(n)
            dut.write_slot(1, a, bus_words(size))
            dut.write_slot(2, b, bus_words(size))
            cycles, st = dut.command(Opcode.MUL, 3, 1, 2)
            assert st == {"busy": 0, "done": 1, "error": 0}
            assert dut.read_slot(3, bus_words(size)) == mont_ref(a, b, n, size)
            assert cycles == mul_schedule_cycles(config, bits)
        key = oaep_keys()[9]
        n, e, d = key["n"], key["e"], key["d"]
        assert n.bit_length() == 2048
        setmod(dut, n, 128)
        mul = mul_schedule_cycles(config, 2048)
        c = key["ciphertexts"][0]
        for mode in (Opcode.EXP_WINDOW, Opcode.EXP_LADDER):
            m, cycles = mod_exp(dut, c, d, n, 128, mode)
            assert m == pow(c, d, n)
            assert cycles == exp_schedule_cycles(mul, d, d.bit_length(), mode)
        back, cycles = mod_exp(dut, m, e, n, 128, Opcode.EXP_WINDOW)
        assert back == c
        assert cycles == exp_schedule_cycles(mul, e, e.bit_length(), Opcode.EXP_WINDOW)
    finally:
        dut.close()
