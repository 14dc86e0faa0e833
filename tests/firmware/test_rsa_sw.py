"""firmware/rsa/rsa.c over the software backend (rsa_sw.c): raw RSA against Python's pow(), keys from `cryptography` and PKCS#1 v2.1 vectors."""
import ctypes
import random

import pytest

from bnlib import (BN_MAX_BITS, RSA_ERR_FAULT, RSA_ERR_KEY, RSA_ERR_RANGE, RSA_OK, key_numbers, random_prime,
                   set_limbs)
from soc.keys import oaep_vectors


@pytest.fixture(scope="module")
def keys():
    return {bits: key_numbers(bits) for bits in (512, 1024, 2048, 4096)}


def crt_key(bn, n, e, d, p, q):
    return bn.rsa_key(n, e, d, p, q, d % (p - 1), d % (q - 1), pow(q, -1, p))


def check_key(bn, numbers, messages):
    n, e, d, *_ = numbers
    key = bn.rsa_key(*numbers)
    assert key.has_crt == 1
    rc, ctx = bn.rsa_ctx(key)
    assert rc == RSA_OK
    for m in messages:
        c = pow(m, e, n)
        assert bn.rsa("rsa_public", key, ctx, m) == (RSA_OK, c)
        assert bn.rsa("rsa_private_crt", key, ctx, c) == (RSA_OK, m)
        assert bn.rsa("rsa_private", key, ctx, c) == (RSA_OK, m)
    return key, ctx


def sample_messages(rng, n):
    return [0, 1, 2, n - 1, n - 2, rng.randrange(n), rng.randrange(n), rng.randrange(1 << 64)]


@pytest.mark.parametrize("bits", [512, 1024, 2048])
def test_generated_keys(bn, keys, bits):
    rng = random.Random(bits)
    check_key(bn, keys[bits], sample_messages(rng, keys[bits][0]))


def test_generated_key_4096(bn, keys):
    n = keys[4096][0]
    check_key(bn, keys[4096], [random.Random(4096).randrange(n)])


def test_more_generated_keys(bn):
    """Fresh keys of the sizes the firmware benchmarks, a few messages each."""
    rng = random.Random(77)
    for i, bits in enumerate([512] * 4 + [1024] * 3 + [1536, 2048]):
        numbers = key_numbers(bits, seed=i)
        check_key(bn, numbers, [rng.randrange(numbers[0]) for _ in range(2)])


def test_p_smaller_than_q_and_swapped(bn, keys):
    n, e, d, p, q, *_ = keys[1024]
    rng = random.Random(9)
    for p_, q_ in ((p, q), (q, p)):
        check_key(bn, (n, e, d, p_, q_, d % (p_ - 1), d % (q_ - 1), pow(q_, -1, p_)),
                  [rng.randrange(n) for _ in range(3)])


@pytest.mark.parametrize("pbits,qbits", [(500, 530), (530, 500), (512, 520), (33, 31), (1000, 1048), (490, 510)])
def test_unequal_prime_sizes(bn, pbits, qbits):
    """p and q of different sizes and limb counts (the modulus need not be 2*32k bits). Garner's step
    takes each of its three ways: q with fewer limbs than p (530, 500; 33, 31: m2 mod p by a subtraction),
    as many limbs but q >= 2p (490, 510: a product with R_p mod p), more limbs (the widened context)."""
    rng = random.Random(pbits * 10000 + qbits)
    while True:
        p, q = random_prime(rng, pbits), random_prime(rng, qbits)
        phi = (p - 1) * (q - 1)
        if p != q and phi % 65537:
            break
    n, e = p * q, 65537
    d = pow(e, -1, phi)
    check_key(bn, (n, e, d, p, q, d % (p - 1), d % (q - 1), pow(q, -1, p)),
              [rng.randrange(n) for _ in range(2)] + [n - 1])


def test_range_errors(bn, keys):
    n = keys[512][0]
    key = bn.rsa_key(*keys[512])
    rc, ctx = bn.rsa_ctx(key)
    assert rc == RSA_OK
    for name in ("rsa_public", "rsa_private", "rsa_private_crt"):
        for x in (n, n + 1, (1 << 512) - 1):
            assert bn.rsa(name, key, ctx, x)[0] == RSA_ERR_RANGE


def test_crt_fault_is_caught(bn, keys):
    """A wrong CRT half (here a corrupted dp) must never leave the function."""
    n, e, d, p, q, dp, dq, qinv = keys[1024]
    key = bn.rsa_key(*keys[1024])
    rc, ctx = bn.rsa_ctx(key)
    assert rc == RSA_OK
    m = random.Random(11).randrange(n)   # above p and q, so both CRT halves matter
    c = pow(m, e, n)
    for bad in (dp ^ 1, dp ^ (1 << 300), (dp + 2) % p):
        faulty = bn.rsa_key(n, e, d, p, q, bad, dq, qinv)
        rc, out = bn.rsa("rsa_private_crt", faulty, ctx, c)
        assert rc == RSA_ERR_FAULT and out == 0
    # qinv is taken into the context at set-up: a wrong one (still below p) passes the set-up checks
    # and is caught by the check of every result.
    for bad_qinv in (qinv ^ 4, 0):
        faulty = bn.rsa_key(n, e, d, p, q, dp, dq, bad_qinv)
        rc, faulty_ctx = bn.rsa_ctx(faulty)
        assert rc == RSA_OK
        assert bn.rsa("rsa_private_crt", faulty, faulty_ctx, c) == (RSA_ERR_FAULT, 0)
    # The untouched key still works with the same context.
    assert bn.rsa("rsa_private_crt", key, ctx, c) == (RSA_OK, m)


def test_key_errors(bn, keys):
    n, e, d, p, q, dp, dq, qinv = keys[512]
    # No CRT parameters: public and plain private work, CRT refuses.
    plain = bn.rsa_key(n, e, d)
    rc, ctx = bn.rsa_ctx(plain)
    assert rc == RSA_OK
    c = pow(42, e, n)
    assert bn.rsa("rsa_private", plain, ctx, c) == (RSA_OK, 42)
    assert bn.rsa("rsa_private_crt", plain, ctx, c)[0] == RSA_ERR_KEY
    # Malformed keys are refused at context creation.
    bad_keys = [
        bn.rsa_key(n + 1, e, d),                                  # even modulus
        bn.rsa_key(n, 65536, d),                                  # even exponent
        bn.rsa_key(n, 1, d),                                      # trivial exponent
        bn.rsa_key(n, e, d, p, q + 2, dp, dq, qinv),              # p*q != n
        bn.rsa_key(n, e, d, p + 1, q, dp, dq, qinv),              # even p
    ]
    for key in bad_keys:
        assert bn.rsa_ctx(key)[0] == RSA_ERR_KEY
    wrong_bits = bn.rsa_key(n, e, d)
    wrong_bits.bits = 513
    assert bn.rsa_ctx(wrong_bits)[0] == RSA_ERR_KEY
    for bits in (0, 8, BN_MAX_BITS + 1):
        k = bn.rsa_key(n, e, d)
        k.bits = bits
        assert bn.rsa_ctx(k)[0] == RSA_ERR_KEY
    # A context made for another key is refused.
    other = bn.rsa_key(*keys[1024])
    rc, other_ctx = bn.rsa_ctx(other)
    assert rc == RSA_OK
    full = bn.rsa_key(*keys[512])
    for name in ("rsa_public", "rsa_private", "rsa_private_crt"):
        assert bn.rsa(name, full, other_ctx, 5)[0] == RSA_ERR_KEY
    # dp, dq or qinv out of range: refused at set-up.
    for bad in (bn.rsa_key(n, e, d, p, q, p, dq, qinv), bn.rsa_key(n, e, d, p, q, dp, q + 2, qinv),
                bn.rsa_key(n, e, d, p, q, dp, dq, p)):
        assert bn.rsa_ctx(bad)[0] == RSA_ERR_KEY


def test_out_may_alias_in(bn, keys):
    n, e, d, *_ = keys[1024]
    key = bn.rsa_key(*keys[1024])
    rc, ctx = bn.rsa_ctx(key)
    w = n.bit_length() // 32
    m = 0x1234567890ABCDEF
    buf = (ctypes.c_uint32 * w)()
    set_limbs(buf, m)
    assert bn.lib.rsa_public(bn.sw_backend, key, ctx, buf, buf) == RSA_OK
    for name in ("rsa_private", "rsa_private_crt"):
        copy = (ctypes.c_uint32 * w)(*buf)
        assert getattr(bn.lib, name)(bn.sw_backend, key, ctx, copy, copy) == RSA_OK
        assert sum(int(copy[i]) << (32 * i) for i in range(w)) == m


# ---- PKCS#1 v2.1 vectors ----

def test_pkcs1_oaep_vector_keys(bn):
    vectors = oaep_vectors()
    assert [key["bits"] for key, _ in vectors] == [1024, 1025, 1026, 1027, 1028, 1029, 1030, 1031, 1536, 2048]
    for key, cases in vectors:
        k = bn.rsa_key(*(key[name] for name in ("n", "e", "d", "p", "q", "dp", "dq", "qinv")))
        rc, ctx = bn.rsa_ctx(k)
        assert rc == RSA_OK
        assert len(cases) == 6
        for c, em in cases:
            assert em >> (8 * ((key["bits"] + 7) // 8 - 1)) == 0   # OAEP encoding starts with 0x00
            assert bn.rsa("rsa_private_crt", k, ctx, c) == (RSA_OK, em)
            assert bn.rsa("rsa_private", k, ctx, c) == (RSA_OK, em)
            assert bn.rsa("rsa_public", k, ctx, em) == (RSA_OK, c)
