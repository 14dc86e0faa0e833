"""firmware/bignum/bignum.c against Python integers: parsing, plain arithmetic, Montgomery, exponentiation."""
import ctypes
import math
import random

import pytest

from bnlib import BN_MAX_BITS, BN_MAX_WORDS, limbs, mont_reference, value, words_for

# Modulus sizes: tiny, word-aligned, just past a word, the odd PKCS#1 sizes, RSA sizes, the maximum.
# Every limb count modulo 4 appears (the kernels work on 2 and 4 rows at a time).
MONT_BITS = [2, 31, 32, 33, 63, 64, 95, 127, 128, 160, 192, 224, 255, 256, 384, 511, 512, 521, 1024,
             1025, 1026, 1027, 1028, 1029, 1030, 1088, 1120, 1536, 2048, 3072, 4095, 4096]


def rand_bits(rng, bits):
    """A random number with exactly `bits` bits."""
    return rng.getrandbits(bits) | (1 << (bits - 1)) if bits > 0 else 0


def rand_odd_modulus(rng, bits):
    return rand_bits(rng, bits) | 1 if bits > 1 else 1


def special_moduli(bits):
    """n = 2^k - 1 and n with only its top and bottom bits set, for the given size."""
    out = [(1 << bits) - 1]
    if bits > 1:
        out.append((1 << (bits - 1)) | 1)
    return out


# ---- hex ----

def test_hex_round_trip(bn):
    rng = random.Random(1)
    for bits in [0, 1, 4, 5, 31, 32, 33, 64, 100, 1025, 2048, 4096]:
        for _ in range(5):
            x = rand_bits(rng, bits)
            w = words_for(bits)
            rc, text = bn.to_hex(x, w)
            assert rc == len(text) and text == format(x, "x")
            assert bn.from_hex(text, w) == (0, x)
            assert bn.from_hex(text.upper(), w) == (0, x)
            assert bn.from_hex("000" + text, w) == (0, x)


def test_hex_edge_cases(bn):
    assert bn.to_hex(0, 4) == (1, "0")
    assert bn.from_hex("0", 1) == (0, 0)
    assert bn.from_hex("0" * 100, 2) == (0, 0)          # leading zeros never count
    assert bn.from_hex("ffffffff", 1) == (0, 0xFFFFFFFF)
    assert bn.from_hex("1ffffffff", 1)[0] == -2          # 33 bits into one limb
    assert bn.from_hex("00001" + "0" * 32, 4)[0] == -2
    assert bn.from_hex("1" + "0" * 31, 4) == (0, 1 << 124)
    for bad in ["", "g", "12 34", "0x10", "-1", "1.0", "abcz", "\x00"]:
        rc, v = bn.from_hex(bad, 4)
        assert rc == -1 and v == 0, bad
    assert bn.from_hex("zz" + "f" * 100, 2)[0] == -1     # bad digit wins over too long
    # Output buffer: digits plus the NUL must fit.
    assert bn.to_hex(0xABC, 1, outlen=4) == (3, "abc")
    assert bn.to_hex(0xABC, 1, outlen=3)[0] == -1
    assert bn.to_hex(0, 1, outlen=1)[0] == -1
    big = (1 << 4096) - 1
    assert bn.to_hex(big, BN_MAX_WORDS, outlen=1025) == (1024, "f" * 1024)
    assert bn.to_hex(big, BN_MAX_WORDS, outlen=1024)[0] == -1


# ---- plain arithmetic ----

MASK = 0xFFFFFFFF

def test_bits_and_cmp(bn):
    rng = random.Random(2)
    assert bn.bits(0, 4) == 0
    for bits in [1, 2, 31, 32, 33, 64, 65, 1000, 4096]:
        w = BN_MAX_WORDS
        assert bn.bits(rand_bits(rng, bits), w) == bits
    for w in [1, 2, 3, 8, 33, 128]:
        for _ in range(20):
            a, b = rng.getrandbits(32 * w), rng.getrandbits(32 * w)
            if rng.random() < 0.3:   # differ only in one limb, or not at all
                b = a ^ (rng.getrandbits(32) << (32 * rng.randrange(w)))
            assert bn.cmp(a, b, w) == (a > b) - (a < b)
            assert bn.cmp(a, a, w) == 0
            same = MASK if a == b else 0
            assert bn.less_same(a, b, a, w) == (int(a < b), same)
            assert bn.less_same(b, a, b, w) == (int(b < a), same)
            assert bn.less_same(a, a, a, w) == (0, MASK)
        # a borrow carried through equal limbs above the lowest: a = b - 1 with b's low limb 0
        b = 1 << (32 * (w - 1)) if w > 1 else 1
        assert bn.less_same(b - 1, b, b, w) == (1, MASK)
        assert bn.less_same(b, b - 1, b, w) == (0, 0)


def test_add_sub_mul(bn):
    rng = random.Random(3)
    for w in [1, 2, 3, 4, 5, 7, 8, 9, 16, 33, 64, 128]:
        m = 1 << (32 * w)
        cases = [(m - 1, m - 1), (m - 1, 1), (0, 0), (0, m - 1), (1, 0)]
        cases += [(rng.getrandbits(32 * w), rng.getrandbits(32 * w)) for _ in range(20)]
        for a, b in cases:
            assert bn.add(a, b, w) == ((a + b) >> (32 * w), (a + b) % m)
            assert bn.sub(a, b, w) == (int(a < b), (a - b) % m)
            assert bn.mul(a, b, w) == a * b


def test_add_sub_aliasing(bn):
    rng = random.Random(4)
    for w in [1, 5, 32]:
        a, b = rng.getrandbits(32 * w), rng.getrandbits(32 * w)
        x, y = limbs(a, w), limbs(b, w)
        bn.lib.bn_add(x, x, y, w)
        assert value(x) == (a + b) % (1 << 32 * w)
        bn.lib.bn_sub(x, x, x, w)
        assert value(x) == 0


def test_mod(bn):
    rng = random.Random(5)
    for nbits in [1, 2, 31, 32, 33, 64, 100, 512, 1024, 1027, 2048, 4096]:
        for abits in sorted({0, 1, nbits - 1, nbits, nbits + 1, 2 * nbits, nbits + 37, 8192}):
            if abits < 0 or abits > 8192:
                continue
            for even in (False, True):
                n = rand_bits(rng, nbits)
                n = (n & ~1) if even and nbits > 1 else n
                a = rand_bits(rng, abits)
                aw, nw = words_for(abits), words_for(nbits)
                assert bn.mod(a, aw, n, nw) == (0, a % n)
                # Extra limbs on both sides (leading zeros) change nothing.
                if nw < BN_MAX_WORDS:
                    assert bn.mod(a, aw + 2, n, nw + 1, rwords=nw + 3) == (0, a % n)
    # n with leading zero limbs, a multiple of n, a just below/above multiples.
    n = (1 << 100) - 3
    for a in [0, n, 2 * n, n * (1 << 300), n * (1 << 300) - 1, n * (1 << 300) + 1]:
        assert bn.mod(a, 16, n, 8) == (0, a % n)
    assert bn.mod(5, 1, 0, 4)[0] == -1
    assert bn.mod(5, 1, 0, 0)[0] == -1
    assert bn.mod(5, 1, 1 << 40, 2, rwords=1)[0] == -2    # result may need 2 limbs
    assert bn.mod(1 << 40, 2, (1 << 31) + 1, 2, rwords=1) == (0, (1 << 40) % ((1 << 31) + 1))


def test_mod_aliasing(bn):
    a, n = (1 << 500) + 12345, (1 << 130) + 17
    x = limbs(a, 16)
    assert bn.lib.bn_mod(x, 16, x, 16, limbs(n, 5), 5) == 0
    assert value(x) == a % n


# ---- Montgomery ----

def test_mont_init_rejects(bn):
    assert bn.mont_init_rc(10, 1) == -1                     # even
    assert bn.mont_init_rc(3, 0) == -1                      # no limbs
    assert bn.mont_init_rc((1 << 4096) - 1, BN_MAX_WORDS) == 0
    assert bn.mont_init_rc(3, BN_MAX_WORDS + 1) == -1       # too many limbs (never read)


@pytest.mark.parametrize("bits", MONT_BITS)
def test_mont_init_constants(bn, bits):
    rng = random.Random(bits)
    for n in [rand_odd_modulus(rng, bits)] + special_moduli(bits):
        w = words_for(bits)
        ctx = bn.mont(n, w)
        r = 1 << (32 * w)
        assert ctx.words == w
        assert value(ctx.n, w) == n
        assert (ctx.n0inv * n) % (1 << 32) == (1 << 32) - 1
        assert value(ctx.one, w) == r % n
        assert value(ctx.rr, w) == r * r % n


@pytest.mark.parametrize("bits", MONT_BITS)
def test_mont_mul_sqr(bn, bits):
    rng = random.Random(1000 + bits)
    w = words_for(bits)
    count = 12 if bits <= 1100 else 4
    for n in [rand_odd_modulus(rng, bits)] + special_moduli(bits):
        ctx = bn.mont(n, w)
        edges = [(0, 0), (0, n - 1), (1, 1), (1, n - 1), (n - 1, n - 1), (n - 1, 1)]
        randoms = [(rng.randrange(n), rng.randrange(n)) for _ in range(count)]
        for a, b in edges + randoms:
            assert bn.mont_binary("mont_mul", ctx, a, b) == mont_reference(a, b, n, w)
            assert bn.mont_unary("mont_sqr", ctx, a) == mont_reference(a, a, n, w)
            assert bn.mont_binary("mont_add", ctx, a, b) == (a + b) % n
            assert bn.mont_binary("mont_sub", ctx, a, b) == (a - b) % n
        # mont_sub(a, n) reduces any a < 2n that fits the limbs (Garner's step in rsa.c relies on it)
        for a in {n, n + 1, min(2 * n - 1, (1 << (32 * w)) - 1), n + rng.randrange(n)}:
            if a < 1 << (32 * w):
                assert bn.mont_binary("mont_sub", ctx, a, n) == a % n


@pytest.mark.parametrize("bits", [32, 33, 1027, 2048, 4096])
def test_mont_aliasing(bn, bits):
    rng = random.Random(2000 + bits)
    n = rand_odd_modulus(rng, bits)
    w = words_for(bits)
    ctx = bn.mont(n, w)
    a, b = n - 1, rng.randrange(n)
    x, y = limbs(a, w), limbs(b, w)
    bn.lib.mont_mul(ctx, x, x, x)                            # r == a == b
    assert value(x) == mont_reference(a, a, n, w)
    a2 = value(x)
    bn.lib.mont_mul(ctx, y, x, y)                            # r == b
    assert value(y) == mont_reference(a2, b, n, w)
    b2 = value(y)
    bn.lib.mont_sqr(ctx, y, y)
    assert value(y) == mont_reference(b2, b2, n, w)
    for name, expect in (("mont_to", lambda v: v * (1 << 32 * w) % n),
                         ("mont_from", lambda v: v * pow(1 << 32 * w, -1, n) % n)):
        v = value(y)
        getattr(bn.lib, name)(ctx, y, y)
        assert value(y) == expect(v)


@pytest.mark.parametrize("bits", [2, 32, 33, 521, 1024, 1030, 2048, 4096])
def test_mont_domain_conversions(bn, bits):
    rng = random.Random(3000 + bits)
    w = words_for(bits)
    r = 1 << (32 * w)
    for n in [rand_odd_modulus(rng, bits)] + special_moduli(bits):
        ctx = bn.mont(n, w)
        # Any value below R, not only below n.
        for a in [0, 1, n - 1, r - 1, rng.randrange(r), rng.randrange(n)]:
            assert bn.mont_unary("mont_to", ctx, a) == a * r % n
            assert bn.mont_unary("mont_from", ctx, a) == a * pow(r, -1, n) % n
        for awords in [1, w - 1, w, w + 1, 2 * w, 2 * w + 3, 3 * w]:
            if awords < 1:
                continue
            a = rng.getrandbits(32 * awords)
            assert bn.mont_to_wide(ctx, a, awords) == a * r % n


def test_mont_n_is_one(bn):
    ctx = bn.mont(1, 1)
    assert bn.mont_binary("mont_mul", ctx, 0, 0) == 0
    assert bn.exp("mont_exp_window", ctx, 0, 5, 3) == 0
    assert bn.exp("mont_exp_ladder", ctx, 0, 0, 0) == 0


# ---- exponentiation ----

EXP_FUNCS = ["mont_exp_window", "mont_exp_ladder", "mont_exp_fixed"]


def exponent_cases(rng, bits):
    """(e, ebits) pairs: 0, 1, 2, all ones, 65537, random full length, padded lengths."""
    full = rand_bits(rng, bits)
    return [(0, 0), (0, 7), (1, 1), (1, bits), (2, 2), (3, 2), ((1 << bits) - 1, bits),
            (65537, 17), (65537, max(17, bits + 5)), (full, bits), (full >> 3, bits),
            (rng.getrandbits(40), 40), (rand_bits(rng, 321), 321), (rand_bits(rng, 250), 250)]


@pytest.mark.parametrize("bits", [2, 17, 32, 33, 64, 255, 512, 1025, 1030, 2048])
@pytest.mark.parametrize("func", EXP_FUNCS)
def test_exp(bn, func, bits):
    rng = random.Random(4000 + bits)
    w = words_for(bits)
    moduli = [rand_odd_modulus(rng, bits)] + special_moduli(bits)
    for n in moduli if bits <= 1100 else moduli[:1]:
        ctx = bn.mont(n, w)
        for base in [0, 1, n - 1, rng.randrange(n)]:
            for e, ebits in exponent_cases(rng, bits):
                if bits > 1100 and func == "mont_exp_ladder" and ebits > 512:
                    continue   # the ladder is slower; covered at full length at smaller sizes
                assert bn.exp(func, ctx, base, e, ebits) == pow(base, e, n), (n, base, e, ebits)


@pytest.mark.parametrize("func", EXP_FUNCS)
def test_exp_4096(bn, func):
    rng = random.Random(4096)
    n = rand_odd_modulus(rng, 4096)
    ctx = bn.mont(n, BN_MAX_WORDS)
    base = rng.randrange(n)
    for e, ebits in [(65537, 17), (rand_bits(rng, 4096), 4096) if func != "mont_exp_ladder"
                     else (rand_bits(rng, 600), 600)]:
        assert bn.exp(func, ctx, base, e, ebits) == pow(base, e, n)


def test_exp_aliasing(bn):
    rng = random.Random(5)
    n = rand_odd_modulus(rng, 700)
    ctx = bn.mont(n)
    w = ctx.words
    for func in EXP_FUNCS:
        base = rng.randrange(n)
        e = rand_bits(rng, 300)
        x = limbs(base, w)
        getattr(bn.lib, func)(ctx, x, x, limbs(e, words_for(300)), 300)   # r == base
        assert value(x) == pow(base, e, n)


def test_operands_beyond_the_build_limit_are_refused(bn):
    """BN_MAX_BITS is enforced wherever an operand's size enters: one limb more is refused."""
    w = BN_MAX_WORDS
    largest, too_large = (1 << BN_MAX_BITS) - 1, (1 << (BN_MAX_BITS + 32)) - 1
    assert bn.mont_init_rc(largest, w) == 0
    assert bn.mont_init_rc(too_large, w + 1) == -1
    assert bn.mod(5, 1, largest, w) == (0, 5)
    assert bn.mod(5, 1, too_large, w + 1)[0] == -2
    assert bn.from_hex(format(largest, "x"), w) == (0, largest)
    assert bn.from_hex(format(largest + 1, "x"), w)[0] == -2


def test_ctypes_mirrors_follow_the_c_layout(bn):
    """The check the `bn` fixture runs finds a mirror that drifted from the C structure."""
    import ctypes

    from bnlib import C_NAMES, MontCtx, c_layout, layout_mismatches, mirror_layout

    class StaleMontCtx(ctypes.Structure):           # `words` before `n0inv`: same size, wrong offsets
        _fields_ = [(name, kind) for name, kind in MontCtx._fields_[:3]] + [
            ("words", ctypes.c_uint), ("n0inv", ctypes.c_uint32), ("id", ctypes.c_uint32)]

    c = c_layout(bn.lib)
    assert layout_mismatches(c, mirror_layout()) == {}
    stale = mirror_layout((StaleMontCtx,), {StaleMontCtx: C_NAMES[MontCtx]})
    assert set(layout_mismatches({k: v for k, v in c.items() if k.startswith("mont_ctx")}, stale)) == {
        "mont_ctx.words", "mont_ctx.n0inv"}


# ---- key generation's primitives (bignum/divexact.c, bignum/gcd.c) ----

def test_mul_limb_add(bn):
    rng = random.Random(11)
    for words in (1, 2, 17, 64, 128):
        for a, m, c in [((1 << 32 * words) - 1, 0xFFFFFFFF, 0xFFFFFFFF), (0, 0, 0), (0, 5, 7)] + \
                [(rng.getrandbits(32 * words), rng.getrandbits(32), rng.getrandbits(32)) for _ in range(20)]:
            r = (ctypes.c_uint32 * (words + 1))()
            bn.lib.bn_mul_limb_add(r, limbs(a, words), words, m, c)
            assert value(r) == a * m + c


def test_divexact_odd(bn):
    rng = random.Random(12)
    for words in (1, 2, 3, 16, 33, 64, 129):
        ds = [1, 3, 65537, 0xFFFFFFFF, 0x80000001] + [rng.getrandbits(32) | 1 for _ in range(20)]
        for d in ds:
            for q in [0, 1, ((1 << 32 * words) - 1) // d, rng.getrandbits(32 * words) // d]:
                a = q * d
                out = (ctypes.c_uint32 * words)()
                bn.lib.bn_divexact_odd(out, limbs(a, words), words, d)
                assert value(out) == q, (words, d, q)
    # in place, as keygen calls it
    a = 65537 * rng.getrandbits(2000)
    buf = limbs(a, 64)
    bn.lib.bn_divexact_odd(buf, buf, 64, 65537)
    assert value(buf) == a // 65537


def gcd_c(bn, a, b, words, bits):
    x, y = limbs(a, words), limbs(b, words)
    bn.lib.bn_gcd_odd(x, y, words, bits)
    assert value(y) == 0                               # b is wiped
    return value(x)


def test_gcd_odd(bn):
    rng = random.Random(14)
    for bits in (64, 96, 127, 256, 511, 512, 1024, 1536, 2048):
        words = (bits + 31) // 32
        cases = [(1, rng.getrandbits(bits)), (1, 0), ((1 << bits) - 1, (1 << bits) - 1), ((1 << bits) - 1, 0),
                 ((1 << bits) - 1, (1 << bits) - 2), (3, 3 << (bits - 3))]
        cases += [(rng.getrandbits(bits) | 1, rng.getrandbits(bits)) for _ in range(20)]
        for _ in range(10):                            # a large common factor
            g = rng.getrandbits(rng.randrange(1, bits - 2)) | 1
            a = g * (rng.getrandbits(bits - g.bit_length()) | 1)
            b = g * rng.getrandbits(bits - g.bit_length())
            cases.append((a, b))
        a = rng.getrandbits(bits) | 1
        cases.append((a, a))                           # equal inputs
        cases.append((a, 2 * a % (1 << bits)))
        for a, b in cases:
            assert a % 2 == 1 and a < 1 << bits and b < 1 << bits
            assert gcd_c(bn, a, b, words, bits) == math.gcd(a, b), (bits, hex(a), hex(b))
    # keygen's own use: halves of p - 1 and q - 1, word-sized
    for bits in (256, 1024):
        a, b = rng.getrandbits(bits) | 1 | 1 << (bits - 1), rng.getrandbits(bits) | 1 | 1 << (bits - 1)
        assert gcd_c(bn, a, b, bits // 32, bits) == math.gcd(a, b)


def test_modinv_odd(bn):
    """a^-1 mod m against Python's, 0 when it exists and -1 when gcd(a, m) > 1 (the console's `key`
    takes qInv so: q^-1 mod p), at the sizes of RSA's halves and odd ones; -2 for an even or too long m."""
    rng = random.Random(15)
    for bits in (33, 64, 95, 256, 511, 512, 1024, 2048):
        words = (bits + 31) // 32
        ms = [rng.getrandbits(bits) | 1 | 1 << (bits - 1) for _ in range(6)] + [(1 << bits) - 1, 3]
        for m in ms:
            cases = [1, 2, m - 1, m - 2, (m + 1) // 2] + [rng.randrange(1, m) for _ in range(12)]
            for a in cases:
                a %= m
                r = limbs(0, words)
                rc = bn.lib.bn_modinv_odd(r, limbs(a, words), limbs(m, words), words, bits)
                if math.gcd(a, m) == 1:
                    assert (rc, value(r)) == (0, pow(a, -1, m)), (bits, hex(m), hex(a))
                else:
                    assert rc == -1, (bits, hex(m), hex(a))
        g = rng.getrandbits(bits // 2) | 1                # a common factor
        m = g * (rng.getrandbits(bits - g.bit_length()) | 1)
        assert bn.lib.bn_modinv_odd(limbs(0, words), limbs(g * 3 % m, words), limbs(m, words), words, bits) == -1
    assert bn.lib.bn_modinv_odd(limbs(0, 2), limbs(3, 2), limbs(10, 2), 2, 64) == -2
