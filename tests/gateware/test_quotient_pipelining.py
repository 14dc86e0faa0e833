"""The pipelined-quotient Montgomery product (``gateware.quotient_pipelining``) against pow(): every
operand at small word widths, random ones at full size."""

import random

import pytest

from gateware.quotient_pipelining import mont_mul, pipelined_modulus


def _expected(a, b, n, size, word_bits):
    return a * b * pow(1 << (word_bits * size), -1, n) % n


@pytest.mark.parametrize("word_bits, size, delay", [(2, 3, 1), (2, 3, 2), (3, 2, 1)])
def test_every_operand_and_modulus(word_bits, size, delay):
    """Every odd n of the size (its top word non-zero), every b < n and every a < R: the result is
    a*b*R^-1 mod n, and at most two subtractions of n reduce it (the bound T < 3N)."""
    r = 1 << (word_bits * size)
    subtracted = set()
    checked = 0
    for n in range(max(3, r >> word_bits) | 1, r, 2):
        modulus = pipelined_modulus(n, size, word_bits, delay)
        assert modulus.n_prime <= n
        assert (modulus.n_inv_wide * n + 1) % (1 << (word_bits * delay)) == 0
        for a in range(r):
            for b in range(n):
                trace = mont_mul(a, b, modulus)
                assert trace.result == _expected(a, b, n, size, word_bits), (a, b, n)
                subtracted.add(trace.subtracted)
                checked += 1
    assert checked > 1000
    # the three-way choice is needed: some products end in [2N, 3N)
    assert subtracted == {0, 1, 2}


@pytest.mark.parametrize("word_bits, bits, delay", [(32, 1024, 1), (32, 2048, 2), (32, 1025, 1), (16, 512, 3),
                                                     (17, 1024, 2)])
def test_random_full_size(word_bits, bits, delay):
    rng = random.Random(bits * 31 + delay)
    size = -(-bits // word_bits)
    for _ in range(40):
        n = rng.getrandbits(bits) | 1 | 1 << (bits - 1)
        modulus = pipelined_modulus(n, size, word_bits, delay)
        a = rng.getrandbits(word_bits * size)
        b = rng.randrange(n)
        assert mont_mul(a, b, modulus).result == _expected(a, b, n, size, word_bits)
    # the extremes of the contract: a = R - 1, b = n - 1
    a, b = (1 << (word_bits * size)) - 1, n - 1
    assert mont_mul(a, b, modulus).result == _expected(a, b, n, size, word_bits)


def test_trace_replays_as_a_montgomery_sum():
    """The digits the iterations picked (low words q_i for the pipelined ones, classic m_i for the
    last D) make a*b + sum q_i*2^(W*i)*N~ + sum m_i*2^(W*i)*N a multiple of R whose quotient is the
    unreduced result: the deferred terms were all added, each at its own weight."""
    word_bits, size, delay = 8, 6, 2
    rng = random.Random(5)
    n = rng.getrandbits(word_bits * size) | 1 | 1 << (word_bits * size - 1)
    modulus = pipelined_modulus(n, size, word_bits, delay)
    a, b = rng.getrandbits(word_bits * size), rng.randrange(n)
    trace = mont_mul(a, b, modulus)
    tilde = modulus.n_inv_wide * n
    total = a * b
    for i, q in enumerate(trace.quotients):
        total += q * (tilde if i < size - delay else n) << (word_bits * i)
    assert total % (1 << (word_bits * size)) == 0
    assert total >> (word_bits * size) == trace.unreduced


def test_refusals():
    with pytest.raises(ValueError, match="odd"):
        pipelined_modulus(10, 2, 4)
    with pytest.raises(ValueError, match="does not fit"):
        pipelined_modulus(1 << 9 | 1, 2, 4)
    with pytest.raises(ValueError, match="delay"):
        pipelined_modulus(201, 2, 4, delay=2)
    modulus = pipelined_modulus(201, 2, 4)
    with pytest.raises(ValueError, match="contract"):
        mont_mul(1, 201, modulus)
    with pytest.raises(ValueError, match="contract"):
        mont_mul(256, 1, modulus)
