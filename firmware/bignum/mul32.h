/*
 * The 32 x 32 -> 64-bit product of the bignum kernels (bignum.c and its parts: MUL_WIDE).
 *
 * With a multiplier (rv32im, the host) it is the C expression, which GCC turns into mul + mulhu.
 * Without one (rv32i: VexRiscv minimal, PicoRV32 minimal, SERV standard) GCC calls libgcc's
 * __muldi3, a 64 x 64 product built from 32-bit __mulsi3 calls, each a shift-and-add loop that runs
 * until the multiplier is zero: several hundred instructions, and a time that depends on the
 * operands. soft_mul_wide() instead takes the multiplier two bits at a time from the top, adding 0,
 * x, 2x or 3x from a small table: 16 fixed steps, no branch, the same instructions whatever the
 * operands (the table is read with an operand-dependent index; the rv32i CPUs here have no data
 * cache). README "Across softcores" has its measured gain. BN_SOFT_MUL forces it on any target (the
 * host tests check it there); BN_LIBGCC_MUL keeps libgcc's path (to measure the difference).
 */
#ifndef MUL32_H
#define MUL32_H

#include <stdint.h>

#if (defined(__riscv) && !defined(__riscv_mul) && !defined(BN_LIBGCC_MUL)) || defined(BN_SOFT_MUL)
#define BN_HAVE_SOFT_MUL 1

/* x * y, 0 <= x, y < 2^32. */
static __attribute__((noinline)) uint64_t soft_mul_wide(uint32_t x, uint32_t y)
{
	/* x * k for k = 0..3 as (low, high) word pairs: 2x and 3x need up to 34 bits. */
	uint32_t table[8];
	uint32_t x2 = x << 1, x3 = x2 + x;

	table[0] = 0;
	table[1] = 0;
	table[2] = x;
	table[3] = 0;
	table[4] = x2;
	table[5] = x >> 31;
	table[6] = x3;
	table[7] = (x >> 31) + (x3 < x2);

	uint32_t k = (y >> 30) << 1;
	uint32_t lo = table[k], hi = table[k + 1];
	y <<= 2;
#if defined(__GNUC__)
	_Pragma("GCC unroll 15")
#endif
	for (int i = 0; i < 15; i++) {
		hi = (hi << 2) | (lo >> 30);
		lo <<= 2;
		k = (y >> 30) << 1;
		y <<= 2;
		uint32_t add = table[k];
		lo += add;
		hi += table[k + 1] + (lo < add);
	}
	return ((uint64_t)hi << 32) | lo;
}

#define MUL_WIDE(x, y) soft_mul_wide((x), (y))
#define MUL_LOW(x, y)  ((uint32_t)soft_mul_wide((x), (y)))
#else
#define BN_HAVE_SOFT_MUL 0
#define MUL_WIDE(x, y) ((uint64_t)(x) * (uint32_t)(y))
#define MUL_LOW(x, y)  ((uint32_t)(x) * (uint32_t)(y))
#endif

#endif
