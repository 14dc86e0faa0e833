"""firmware/bignum/mul32.h: the bignum kernels with the software 32x32 -> 64 product of rv32i builds (on the
host, with BN_SOFT_MUL) against Python, and the rv32i object using it instead of libgcc's __muldi3."""
import random
import re
import subprocess

import pytest

from bnlib import mont_reference, value, words_for
from test_bignum import rand_odd_modulus, special_moduli
from test_rv32_build import compile_rv32, rv_tool, undefined_symbols

# Every limb count modulo 4 (the kernels work on 1, 2 and 4 rows at a time), and RSA sizes.
BITS = [32, 33, 64, 95, 128, 521, 1024, 1030, 2048]


@pytest.mark.parametrize("bits", BITS)
def test_soft_mul_montgomery_products(bn_soft, bits):
    rng = random.Random(7000 + bits)
    w = words_for(bits)
    for n in [rand_odd_modulus(rng, bits)] + special_moduli(bits):      # all-ones limbs included
        ctx = bn_soft.mont(n, w)
        assert (ctx.n0inv * n) % (1 << 32) == (1 << 32) - 1
        assert value(ctx.rr, w) == (1 << 64 * w) % n          # by doublings alone here (mont_init)
        pairs = [(0, n - 1), (1, n - 1), (n - 1, n - 1)] + [(rng.randrange(n), rng.randrange(n)) for _ in range(6)]
        for a, b in pairs:
            assert bn_soft.mont_binary("mont_mul", ctx, a, b) == mont_reference(a, b, n, w)
            assert bn_soft.mont_unary("mont_sqr", ctx, a) == mont_reference(a, a, n, w)


def test_soft_mul_exponentiation(bn_soft):
    rng = random.Random(7512)
    n = rand_odd_modulus(rng, 512)
    ctx = bn_soft.mont(n, words_for(512))
    base, e = rng.randrange(n), rng.getrandbits(512)
    for func in ("mont_exp_window", "mont_exp_fixed"):
        assert bn_soft.exp(func, ctx, base, e, 512) == pow(base, e, n)


def _rv32i_object(extra=()):
    result, obj = compile_rv32("bignum/bignum.c", 4096, extra=["-march=rv32i", *extra])
    assert result.returncode == 0 and result.stderr == "", result.stderr
    return obj


def test_rv32i_products_do_not_call_libgcc():
    """On rv32i the kernels call soft_mul_wide, not __muldi3 (64x64 from __mulsi3 loops); the
    __mulsi3 left are index arithmetic outside the products (mont_init, window table offsets)."""
    obj = _rv32i_object()
    assert "__muldi3" not in undefined_symbols(obj)
    dis = subprocess.run([rv_tool("objdump"), "-dr", str(obj)], capture_output=True, text=True, check=True).stdout
    callers = set()
    function = None
    for line in dis.splitlines():
        match = re.match(r"^[0-9a-f]+ <([A-Za-z_]\w*)>:", line)
        if match:
            function = match.group(1)
        elif "__mulsi3" in line:
            callers.add(function)
    assert callers <= {"mont_init", "mont_exp_window_m", "mont_exp_fixed_m"}, callers
    assert re.search(r"<soft_mul_wide>:", dis)
    assert not re.search(r"\bmulhu?\b", dis)


def test_rv32i_libgcc_path_is_still_selectable():
    """BN_LIBGCC_MUL builds the kernels the way GCC does alone (what the README's gain is measured against)."""
    assert "__muldi3" in undefined_symbols(_rv32i_object(extra=["-DBN_LIBGCC_MUL"]))
