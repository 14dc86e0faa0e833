/*
 * Reading an exponent, the left-to-right sliding-window scan over it and the fixed-window split,
 * written once for both kinds of exponent loop: the software ones (bignum/exp.c, mont_exp_window_m and
 * mont_exp_fixed_m) and the CPU-driven ones on the peripheral (rsa_hw.c, rsa_hw_cpu). The scan says
 * which squarings and which table entry to multiply by; the caller does the arithmetic (in memory,
 * or as peripheral commands).
 *
 * Header-only (static inline): the same code is inlined into each loop, as before it was shared.
 */
#ifndef EXP_WINDOW_H
#define EXP_WINDOW_H

#include <stdint.h>

#include "bignum/bignum.h"     /* BN_WORDS */

/* Bit i of the exponent e. */
static inline uint32_t exp_bit(const uint32_t *e, unsigned i)
{
	return (e[i / 32] >> (i % 32)) & 1;
}

/* Bits e[pos .. pos+len-1] as an integer, len <= 8 (reads at most two limbs within ceil(ebits/32)). */
static inline uint32_t exp_bits(const uint32_t *e, unsigned ebits, unsigned pos, unsigned len)
{
	uint32_t v = e[pos / 32] >> (pos % 32);

	if (pos % 32 + len > 32 && pos / 32 + 1 < BN_WORDS(ebits))
		v |= e[pos / 32 + 1] << (32 - pos % 32);
	return v & ((1u << len) - 1);
}

/* Scan state over the low `ebits` bits of e, from the top. */
typedef struct {
	const uint32_t *e;
	unsigned ebits;
	unsigned width;      /* at most this many bits per window (1..8) */
	int i;               /* the next bit to read; -1 when all are read */
	int started;         /* a window was taken: the accumulator is no longer 1 */
} exp_window_scan;

/* What comes after the squarings of a step. */
enum exp_window_step {
	EXP_WINDOW_END = 0,     /* nothing: the exponent is read */
	EXP_WINDOW_FIRST,       /* the first window: the accumulator becomes table entry *index */
	EXP_WINDOW_NEXT,        /* a later window: multiply the accumulator by table entry *index */
};

static inline void exp_window_start(exp_window_scan *s, const uint32_t *e, unsigned ebits, unsigned width)
{
	s->e = e;
	s->ebits = ebits;
	s->width = width;
	s->i = (int)ebits - 1;
	s->started = 0;
}

/*
 * The next step: square the accumulator *squarings times, then act as the result says. Table entry
 * k is the odd power base^(2k+1). Windows are the longest run of at most `width` bits that starts
 * and ends with a set bit; zero bits between them are single squarings. Nothing is squared before
 * the first window (the accumulator is 1 until then).
 */
static inline enum exp_window_step exp_window_next(exp_window_scan *s, unsigned *squarings, unsigned *index)
{
	unsigned count = 0;
	int i = s->i, low;

	while (i >= 0 && !exp_bit(s->e, (unsigned)i)) {
		count += (unsigned)s->started;
		i--;
	}
	if (i < 0) {
		s->i = i;
		*squarings = count;
		return EXP_WINDOW_END;
	}
	low = i - (int)s->width + 1;
	if (low < 0)
		low = 0;
	while (!exp_bit(s->e, (unsigned)low))
		low++;
	*index = exp_bits(s->e, s->ebits, (unsigned)low, (unsigned)(i - low + 1)) >> 1;
	s->i = low - 1;
	if (!s->started) {
		s->started = 1;
		*squarings = count;
		return EXP_WINDOW_FIRST;
	}
	*squarings = count + (unsigned)(i - low + 1);
	return EXP_WINDOW_NEXT;
}

/*
 * Fixed windows of `width` bits over a declared length of ebits >= 1 bits: the first window is the
 * top (ebits - 1) % width + 1 bits, the others `width` bits each, so the number of windows depends on
 * ebits alone. Returns the position of the first window's lowest bit; the next windows start at
 * pos - width, pos - 2*width, ..., 0.
 */
static inline unsigned exp_fixed_top(unsigned ebits, unsigned width)
{
	return ebits - ((ebits - 1) % width + 1);
}

#endif
