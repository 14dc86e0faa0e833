"""Montgomery products whose quotient digits need no multiplier: the arithmetic of the next core.

Today's core spends a dedicated head (9 DSP48E1 per context) and two cycles per iteration on the
quotient digit m_i = (t_0 + a_i*b_0) * n' mod 2^W, because m_i waits on m_{i-1} through a multiply.
With wider words (W = 32 on Karatsuba lanes: three DSP48E1 per 32x32 product, where 16x16 products
leave most of each DSP unused) that head would need about 30 DSP48E1 per context, more than the xc7z020 has left.  This module is the
arithmetic that removes it, written as plain Python on W-bit digits so that the RTL can be checked
against it digit by digit and a proof can state it.

Quotient pipelining (after Orup, "Simplifying quotient determination in high-radix modular
multiplication", ARITH 1995).  With D >= 1 and n'' = -N^-1 mod 2^(W*D), the multiple
N~ = n''*N is congruent to -1 modulo 2^(W*D), so for a Montgomery reduction modulo N~ the quotient
digit of an accumulator Y is simply its low word q = Y mod 2^W (-N~^-1 = 1 mod 2^W).  Writing
N~ = N'*2^(W*D) - 1 with N' = (N~ + 1) / 2^(W*D) (N' <= N: no wider than N):

    (Y + q*N~) / 2^W = floor(Y / 2^W) + q*N'*2^(W*(D-1))

The low word of the quotient's term is zero for D - 1 more iterations, so the term can wait: it is
added as q_{i-D}*N' in iteration i, exactly when it reaches weight 1.  One iteration is

    Y_i = S_i + a_i*B + q_{i-D}*N'        q_i = Y_i mod 2^W        S_{i+1} = floor(Y_i / 2^W)

and q_i depends on q_{i-D} only (D iterations of latency for the multiply-add that makes it) and on
nothing but the accumulator's low word: in a lane design it is lane 0's low word.

Why the last D iterations are classic.  The contract promises a*b*R^-1 mod N below N, R = 2^(W*s).
Reducing modulo N~ alone leaves up to N~ < 2^(W*D)*N in the result.  So the first s - D iterations
are pipelined (their pending terms all land by iteration s - 1) and the last D ones pick the classic
quotient m_i = (Y_i mod 2^W)*n' mod 2^W (n' = n'' mod 2^W) and add m_i*N:

    T*R = a*b + sum_{i < s-D} q_i*2^(W*i)*N~ + sum_{i >= s-D} m_i*2^(W*i)*N

The first sum is below 2^(W*(s-D))*2^(W*D)*N = R*N and the second below R*N, so T < a*b/R + 2N < 3N for
b < N and a < R: the final step subtracts N or 2N (a three-way choice instead of today's two).
``mont_mul`` executes this; ``tests/gateware/test_quotient_pipelining.py`` checks it against pow() at
every operand of small word widths and at random full-size ones.
"""

from dataclasses import dataclass

__all__ = ["PipelinedModulus", "pipelined_modulus", "mont_mul", "MulTrace"]


@dataclass(frozen=True)
class PipelinedModulus:
    """What SETMOD would compute for a modulus ``n`` of ``size`` W-bit words with delay ``delay``:
    n'' = -n^-1 mod 2^(W*D), n' = n'' mod 2^W (the classic iterations' constant) and
    N' = (n''*n + 1) / 2^(W*D), the multiple the pipelined iterations add (N' <= n)."""
    n: int
    size: int
    word_bits: int
    delay: int
    n_inv_wide: int
    n_inv: int
    n_prime: int


def pipelined_modulus(n, size, word_bits, delay=1):
    if n <= 0 or not n & 1:
        raise ValueError("the modulus must be odd and positive")
    if n >> (word_bits * size):
        raise ValueError(f"{n.bit_length()}-bit modulus does not fit {size} words of {word_bits} bits")
    if not 1 <= delay < size:
        raise ValueError(f"delay {delay} outside 1..size-1 ({size - 1})")
    wide = word_bits * delay
    n_inv_wide = -pow(n, -1, 1 << wide) % (1 << wide)
    tilde = n_inv_wide * n
    assert (tilde + 1) % (1 << wide) == 0
    return PipelinedModulus(n=n, size=size, word_bits=word_bits, delay=delay, n_inv_wide=n_inv_wide,
                            n_inv=n_inv_wide & ((1 << word_bits) - 1), n_prime=(tilde + 1) >> wide)


@dataclass(frozen=True)
class MulTrace:
    """One product: the result (below n), the accumulator before the final subtraction, how many
    times n was subtracted (0, 1 or 2) and the quotient digit of each iteration (q_i for the
    pipelined ones, m_i for the classic ones)."""
    result: int
    unreduced: int
    subtracted: int
    quotients: tuple


def mont_mul(a, b, modulus):
    """a*b*R^-1 mod n (R = 2^(W*size)) by the iterations above, for b < n and a < R."""
    n, size, w, delay = modulus.n, modulus.size, modulus.word_bits, modulus.delay
    mask = (1 << w) - 1
    if not (0 <= b < n and 0 <= a < 1 << (w * size)):
        raise ValueError("operands outside the contract (b < n, a < R)")
    s = 0
    quotients = []
    for i in range(size):
        y = s + (a >> (w * i) & mask) * b
        if i >= delay:
            y += quotients[i - delay] * modulus.n_prime
        if i < size - delay:
            quotients.append(y & mask)
            s = y >> w
        else:
            m = (y & mask) * modulus.n_inv & mask
            quotients.append(m)
            y += m * n
            assert y & mask == 0
            s = y >> w
    unreduced = s
    subtracted = 0
    while s >= n:
        s -= n
        subtracted += 1
    assert subtracted <= 2, "the bound T < 3N does not hold"
    return MulTrace(result=s, unreduced=unreduced, subtracted=subtracted, quotients=tuple(quotients))

