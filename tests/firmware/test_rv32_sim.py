"""The rv32im machine code itself (not the host build) against Python, on the RV32IM simulator.

Sizes stay small (the simulator runs a few million instructions per second); the host tests cover the
large sizes with the same C source.
"""
import random

import pytest

from bnlib import BN_MAX_BITS, BN_MAX_WORDS, RSA_ERR_FAULT, RSA_OK, key_numbers, mont_reference, words_for
from rv32sim import RV32, build_image, measure_products, mont_ctx, rsa_key_bytes, tool


@pytest.fixture(scope="module")
def sim():
    for name in ("gcc", "ld", "objcopy", "nm"):
        try:
            tool(name)
        except RuntimeError as err:   # a missing toolchain is a failure, not a skip
            pytest.fail(str(err))
    image, symbols = build_image(BN_MAX_BITS)
    return RV32(image, symbols)


def odd_modulus(rng, bits):
    return rng.getrandbits(bits) | (1 << (bits - 1)) | 1


@pytest.mark.parametrize("bits", [32, 33, 64, 95, 128, 160, 255, 512, 1025])
def test_rv32_mont_mul_sqr(sim, bits):
    rng = random.Random(bits)
    w = words_for(bits)
    r = 1 << (32 * w)
    for n in (odd_modulus(rng, bits), (1 << bits) - 1, (1 << (bits - 1)) | 1):
        sim.free_all()
        ctx, _ = mont_ctx(sim, n, w, BN_MAX_WORDS)
        assert sim.read_int(ctx + 4 * BN_MAX_WORDS, w) == r * r % n           # rr
        assert sim.read_int(ctx + 8 * BN_MAX_WORDS, w) == r % n                # one
        out = sim.alloc(4 * w)
        for a, b in [(0, 0), (1, n - 1), (n - 1, n - 1)] + [(rng.randrange(n), rng.randrange(n))
                                                             for _ in range(4)]:
            pa, pb = sim.put_int(a, w), sim.put_int(b, w)
            sim.call("mont_mul", ctx, out, pa, pb)
            assert sim.read_int(out, w) == mont_reference(a, b, n, w)
            sim.call("mont_sqr", ctx, out, pa)
            assert sim.read_int(out, w) == mont_reference(a, a, n, w)
            sim.call("mont_mul", ctx, pa, pa, pa)                               # r == a == b
            assert sim.read_int(pa, w) == mont_reference(a, a, n, w)
            sim.call("mont_from", ctx, out, pb)
            assert sim.read_int(out, w) == b * pow(r, -1, n) % n


def test_rv32_plain_arithmetic(sim):
    rng = random.Random(7)
    sim.free_all()
    for w in (1, 3, 4, 9):
        a, b = rng.getrandbits(32 * w), rng.getrandbits(32 * w)
        pa, pb, out = sim.put_int(a, w), sim.put_int(b, w), sim.alloc(8 * w)
        carry, _ = sim.call("bn_add", out, pa, pb, w)
        assert (carry << (32 * w)) + sim.read_int(out, w) == a + b
        borrow, _ = sim.call("bn_sub", out, pa, pb, w)
        assert sim.read_int(out, w) == (a - b) % (1 << 32 * w) and borrow == int(a < b)
        sim.call("bn_mul", out, pa, pb, w)
        assert sim.read_int(out, 2 * w) == a * b
        n = rng.getrandbits(32 * w - 5) | 1
        rc, _ = sim.call("bn_mod", out, w, pa, w, sim.put_int(n, w), w)
        assert rc == 0 and sim.read_int(out, w) == a % n
    text = format(rng.getrandbits(300), "x")
    num = sim.alloc(4 * 10)
    rc, _ = sim.call("bn_from_hex", num, 10, sim.put_bytes(text.encode()), len(text))
    assert rc == 0 and sim.read_int(num, 10) == int(text, 16)
    buf = sim.alloc(100)
    rc, _ = sim.call("bn_to_hex", buf, 100, num, 10)
    assert rc == len(text) and bytes(sim.mem[buf:buf + rc + 1]) == text.encode() + b"\0"


@pytest.mark.parametrize("func", ["mont_exp_window", "mont_exp_ladder", "mont_exp_fixed"])
def test_rv32_exp(sim, func):
    rng = random.Random(11)
    for bits in (64, 200):
        w = words_for(bits)
        n = odd_modulus(rng, bits)
        sim.free_all()
        ctx, _ = mont_ctx(sim, n, w, BN_MAX_WORDS)
        out = sim.alloc(4 * w)
        for e, ebits in [(0, 0), (1, 1), (65537, 17), ((1 << bits) - 1, bits), (rng.getrandbits(bits), bits)]:
            base = rng.randrange(n)
            sim.call(func, ctx, out, sim.put_int(base, w), sim.put_int(e, max(1, words_for(ebits))), ebits)
            assert sim.read_int(out, w) == pow(base, e, n)


def test_rv32_rsa_512(sim):
    n, e, d, p, q, dp, dq, qinv = numbers = key_numbers(512, seed=3)
    w = 16
    sim.free_all()
    key = sim.put_bytes(rsa_key_bytes(BN_MAX_WORDS, *numbers))
    ctx = sim.alloc(3 * (12 * BN_MAX_WORDS + 8))
    rc, _ = sim.call("rsa_ctx_init", ctx, key)
    assert rc == RSA_OK
    m = random.Random(5).randrange(n)
    c = pow(m, e, n)
    out = sim.alloc(4 * w)
    rc, _ = sim.call("rsa_public", key, ctx, out, sim.put_int(m, w))
    assert rc == RSA_OK and sim.read_int(out, w) == c
    rc, _ = sim.call("rsa_private_crt", key, ctx, out, sim.put_int(c, w))
    assert rc == RSA_OK and sim.read_int(out, w) == m
    faulty = sim.put_bytes(rsa_key_bytes(BN_MAX_WORDS, n, e, d, p, q, dp ^ 2, dq, qinv))
    rc, _ = sim.call("rsa_private_crt", faulty, ctx, out, sim.put_int(c, w))
    assert rc == RSA_ERR_FAULT and sim.read_int(out, w) == 0


def test_rv32_cycle_estimate_beats_the_calibration_baseline():
    """The simulator's model reproduces the notes' calibration (plain CIOS, 1024 bits: ~33,100 cycles
    measured on the SoC) within 15%, and our products beat that baseline clearly."""
    ((bits, base, mul, sqr, _),) = measure_products(BN_MAX_BITS, sizes=(1024,))
    assert abs(base.cycles - 33100) < 0.15 * 33100, base
    assert mul.cycles < 0.85 * base.cycles, (mul, base)
    assert sqr.cycles < 0.92 * mul.cycles, (sqr, mul)
