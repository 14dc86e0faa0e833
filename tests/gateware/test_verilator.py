"""The generated Verilog in Verilator, through the one driver: MULs, full-length RSA exponentiations,
and the model's cycles, statuses and irqs."""

import random

import pytest

from gateware import model
from gateware.driver import BlockingDriver, Driver, complete
from gateware.interface import NUM_SLOTS, Opcode, PeripheralConfig
from montmul_harness import W, bus_words, mont_ref, model_driver
from pkcs1_vectors import oaep_keys
from sim.montmul_verilator import VerilatorTransport

CONFIG = PeripheralConfig(max_bits=2048, lanes=8, word_bits=W)
OK = {"busy": 0, "done": 1, "error": 0}


@pytest.fixture(scope="module")
def dut():
    with VerilatorTransport(CONFIG) as transport:
        yield BlockingDriver(transport)


def setmod(dut, n, size, slot=0, word_bits=W):
    assert dut.load_modulus(n, size, slot, word_bits=word_bits)[1] == OK


def mod_exp(dut, x, e, n, size, op, config=CONFIG):
    """x^e mod n on the peripheral (into and out of the Montgomery domain with MULs); checks the EXP's
    cycles against the model."""
    W = config.word_bits
    nw = config.bus_words(size)
    r = 1 << (W * size)
    dut.write_slot(1, x, nw)
    dut.write_slot(2, r * r % n, nw)
    dut.write_slot(4, e, nw)
    dut.write_slot(5, 1, nw)
    dut.write_slot(3, r % n, nw)
    assert dut.mul(6, 1, 2)[1] == OK                                    # x in Montgomery form
    bits = max(e.bit_length(), 1)
    cycles, status = dut.exp(3, 6, 4, bits, op)
    assert status == OK
    assert cycles == model.exp_cycles(config, size * W, op, e, bits)
    assert dut.mul(7, 3, 5)[1] == OK                                    # back to normal form
    return dut.read_slot(7, nw)


def test_random_muls(dut):
    rng = random.Random(21)
    for size in (2, 3, 31, 64, 65, 127, 128):
        n = rng.getrandbits(size * W - rng.randrange(3)) | 1 | (1 << (size * W - 4))
        setmod(dut, n, size)
        nw = bus_words(size)
        for _ in range(3):
            a, b = rng.randrange(n), rng.randrange(n)
            dut.write_slot(1, a, nw)
            dut.write_slot(2, b, nw)
            assert dut.mul(3, 1, 2) == (model.mul_cycles(CONFIG, size * W), OK)
            assert dut.read_slot(3, nw) == mont_ref(a, b, n, size)


def test_mul_reduces_double_width_value(dut):
    """The firmware's reduction of a 2048-bit x modulo a 1024-bit prime p: SETMOD p at the 2048-bit size,
    then MUL(x, R^2 mod p) with x >= p (but < R) gives x*R mod p fully reduced, and MUL by 1 gives x mod p."""
    rng = random.Random(2)
    size = 128
    r = 1 << (W * size)
    for _ in range(3):
        p = rng.getrandbits(1024) | 1 | (1 << 1023)
        setmod(dut, p, size)
        x = rng.getrandbits(2048) | (1 << 2047)
        dut.write_slot(1, x, bus_words(size))
        dut.write_slot(2, r * r % p, bus_words(size))
        dut.write_slot(4, 1, bus_words(size))
        assert dut.mul(3, 1, 2)[1] == OK
        assert dut.read_slot(3, bus_words(size)) == x * r % p
        assert dut.mul(5, 3, 4)[1] == OK
        assert dut.read_slot(5, bus_words(size)) == x % p


@pytest.mark.parametrize("index", range(10))
def test_pkcs1_oaep_raw_rsa(dut, index):
    """c^d mod n with the private exponent (the EXP modes, and CRT halves), then back with e."""
    key = oaep_keys()[index]
    n, e, d = key["n"], key["e"], key["d"]
    size = -(-n.bit_length() // W)
    setmod(dut, n, size)
    c = key["ciphertexts"][0]
    m = pow(c, d, n)
    op = Opcode.EXP_WINDOW if index % 2 else Opcode.EXP_LADDER
    assert mod_exp(dut, c, d, n, size, op) == m
    assert mod_exp(dut, m, e, n, size, Opcode.EXP_WINDOW) == c
    # CRT halves with the prime-size modulus
    p, dp = key["p"], key["dp"]
    psize = -(-p.bit_length() // W)
    setmod(dut, p, psize)
    assert mod_exp(dut, c % p, dp, p, psize, Opcode.EXP_LADDER) == pow(c % p, dp, p)
    q, dq = key["q"], key["dq"]
    qsize = -(-q.bit_length() // W)
    setmod(dut, q, qsize)
    assert mod_exp(dut, c % q, dq, q, qsize, Opcode.EXP_FIXED) == pow(c % q, dq, q)


def test_agrees_with_model():
    """A fresh bench and a fresh model, the same accesses: refusals, strobes while busy, data past the
    end of a slot, products and exponentiations; every answer equal."""

    async def scenario(d):
        rng = random.Random(4)
        seen = []
        size = 70
        nw = bus_words(size)
        n = rng.getrandbits(size * W) | 1 | 1 << (size * W - 1)
        for op, fields in [(Opcode.MUL, (3, 1, 2, 0)), (9, (0, 0, 0, 0)), (Opcode.SETMOD, (0, 0, 0, 1)),
                           (Opcode.WRITE, (NUM_SLOTS, 0, 0, 0))]:
            seen.append((await d.run(op, *fields), d.irqs))
        await d.write_slot(0, n, nw)
        seen.append(await d.setmod(0, size))
        for slot in range(1, NUM_SLOTS):          # no slot left as it was at power-up
            await d.write_slot(slot, rng.randrange(n), nw)
        await d.write_slot(3, (1 << (W * size)) % n, nw)
        for op, fields in [(Opcode.MUL, (5, 1, 2, 0)), (Opcode.EXP_WINDOW, (3, 1, 3, 8)),
                           (Opcode.EXP_LADDER, (3, 1, 2, 2000)), (Opcode.EXP_WINDOW, (3, 1, 4, 100)),
                           (Opcode.EXP_LADDER, (6, 1, 4, 30)), (Opcode.EXP_FIXED, (6, 1, 4, 50)),
                           (Opcode.EXP_FIXED, (6, 1, 6, 50))]:
            seen.append((await d.run(op, *fields), d.irqs))
        await d.strobe_cmd(Opcode.MUL, 7, 1, 2)
        for delay, port in ((0, "cmd"), (5, "wdata"), (30, "rdata")):
            await d.tick(delay)
            await d.transport.strobe(port, 0x0000_0005)
            seen.append(await d.read_status())
        seen.append((await d.wait(), await d.read_status(), d.irqs))
        await d.run(Opcode.WRITE, dst=8)
        await d.write_words(range(CONFIG.bus_words_per_slot + 1))
        seen.append(await d.read_status())
        for slot in range(NUM_SLOTS):
            seen.append(await d.read_slot(slot, CONFIG.bus_words_per_slot))
        return seen

    with VerilatorTransport(CONFIG) as transport:
        verilated = complete(scenario(Driver(transport)))
    assert verilated == complete(scenario(model_driver(CONFIG)))
    assert {"busy": 0, "done": 1, "error": 9} in verilated                 # OVERFLOW
    assert verilated[4] == (model.setmod_cycles(CONFIG, 70 * W), OK)


@pytest.mark.slow
def test_default_config_rsa_2048():
    """The default configuration (``PeripheralConfig()``, the SoC's: the PYNQ-Z2's and the simulation's) in Verilator:
    products at every RSA size (random operands and (n-1)^2) with the model's cycle counts, and the
    2048-bit PKCS#1 key's private operation on EXP_FIXED (the constant-time exponentiation the firmware's
    private paths use) and its public one on EXP_WINDOW, against pow(). (The other exponentiations are
    checked at smaller sizes, where they cost less: test_montmul.py, test_pkcs1_oaep_raw_rsa below;
    test_montmul.py's test_w16_l64_full_sizes runs 512 and 1536 bits in the Amaranth simulator,
    where the larger sizes cost minutes.)"""
    config = PeripheralConfig()
    W = config.word_bits
    with VerilatorTransport(config) as transport:
        dut = BlockingDriver(transport)
        rng = random.Random(2048)
        for bits in (1024, 2048, 4096, 512, 1536, 3072):
            size = bits // W
            n = rng.getrandbits(bits) | 1 | (1 << (bits - 1))
            setmod(dut, n, size, word_bits=W)
            for a, b in ((rng.randrange(n), rng.randrange(n)), (n - 1, n - 1)):
                dut.write_slot(1, a, config.bus_words(size))
                dut.write_slot(2, b, config.bus_words(size))
                assert dut.mul(3, 1, 2) == (model.mul_cycles(config, bits), OK)
                assert dut.read_slot(3, config.bus_words(size)) == mont_ref(a, b, n, size, W)
        key = oaep_keys()[9]
        n, e, d = key["n"], key["e"], key["d"]
        assert n.bit_length() == 2048
        setmod(dut, n, 2048 // W, word_bits=W)
        c = key["ciphertexts"][0]
        m = mod_exp(dut, c, d, n, 2048 // W, Opcode.EXP_FIXED, config)
        assert m == pow(c, d, n)
        assert mod_exp(dut, m, e, n, 2048 // W, Opcode.EXP_WINDOW, config) == c
