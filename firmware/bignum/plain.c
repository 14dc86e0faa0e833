/*
 * bignum.c's plain big numbers (part of its translation unit, see there): copies, hex, comparison,
 * addition, subtraction, product and reduction of limb arrays, and the wipe. No modulus context.
 */

void bn_copy(uint32_t *r, const uint32_t *a, unsigned words)
{
	for (unsigned i = 0; i < words; i++)
		r[i] = a[i];
}

void bn_zero(uint32_t *r, unsigned words)
{
	for (unsigned i = 0; i < words; i++)
		r[i] = 0;
}

#include "bignum/hex_digit.h"

int bn_from_hex(uint32_t *r, unsigned words, const char *hex, size_t len)
{
	size_t start = 0, digits;

	bn_zero(r, words);
	if (len == 0)
		return -1;
	for (size_t i = 0; i < len; i++)
		if (hex_value(hex[i]) < 0)
			return -1;
	while (start < len && hex[start] == '0')
		start++;
	digits = len - start;
	if (digits > (size_t)words * 8)
		return -2;
	for (size_t k = 0; k < digits; k++)
		r[k / 8] |= (uint32_t)hex_value(hex[len - 1 - k]) << (4 * (k % 8));
	return 0;
}

int bn_to_hex(char *out, size_t outlen, const uint32_t *a, unsigned words)
{
	static const char digit[] = "0123456789abcdef";
	unsigned bits = bn_bits(a, words);
	size_t ndig = bits ? (bits + 3) / 4 : 1;

	if (outlen < ndig + 1)
		return -1;
	for (size_t k = 0; k < ndig; k++)
		out[ndig - 1 - k] = digit[(a[k / 8] >> (4 * (k % 8))) & 0xf];
	out[ndig] = '\0';
	return (int)ndig;
}

unsigned bn_bits(const uint32_t *a, unsigned words)
{
	unsigned i = words;

	while (i > 0 && a[i - 1] == 0)
		i--;
	if (i == 0)
		return 0;
	unsigned bits = 32 * (i - 1);
	for (uint32_t top = a[i - 1]; top != 0; top >>= 1)
		bits++;
	return bits;
}

int bn_cmp(const uint32_t *a, const uint32_t *b, unsigned words)
{
	/* Scan all limbs from the bottom; the most significant difference wins. */
	uint32_t gt = 0, lt = 0;

	for (unsigned i = 0; i < words; i++) {
		uint32_t g = (uint32_t)(b[i] < a[i]), l = (uint32_t)(a[i] < b[i]);
		uint32_t differ = ct_mask_from_bit(g | l);
		gt = ct_select_u32(differ, g, gt);
		lt = ct_select_u32(differ, l, lt);
	}
	return (int)gt - (int)lt;
}

uint32_t bn_add(uint32_t *r, const uint32_t *a, const uint32_t *b, unsigned words)
{
	uint32_t c = 0;

	for (unsigned i = 0; i < words; i++) {
		uint64_t s = (uint64_t)a[i] + b[i] + c;
		r[i] = (uint32_t)s;
		c = (uint32_t)(s >> 32);
	}
	return c;
}

uint32_t bn_sub(uint32_t *r, const uint32_t *a, const uint32_t *b, unsigned words)
{
	uint32_t borrow = 0;

	for (unsigned i = 0; i < words; i++) {
		uint64_t d = (uint64_t)a[i] - b[i] - borrow;
		r[i] = (uint32_t)d;
		borrow = (uint32_t)(d >> 32) & 1;
	}
	return borrow;
}

void bn_mul(uint32_t *r, const uint32_t *a, const uint32_t *b, unsigned words)
{
	unsigned i = 0;

	bn_zero(r, 2 * words);
	for (; i + 1 < words; i += 2)   /* the partial product a*b[0..i+1] fits below limb i+words+2 */
		r[i + words + 1] = (uint32_t)mac2_row(r + i, a, words, b[i], b[i + 1], 0, 0);
	if (i < words)
		r[i + words] = mac_row(r + i, a, b[i], words);
}

static uint32_t limb_or_zero(const uint32_t *a, unsigned words, unsigned i)
{
	return i < words ? a[i] : 0;
}

int bn_mod(uint32_t *r, unsigned rwords, const uint32_t *a, unsigned awords,
           const uint32_t *n, unsigned nwords)
{
	uint32_t acc[BN_MAX_WORDS], diff[BN_MAX_WORDS];

	if (nwords > BN_MAX_WORDS)
		return -2;
	const unsigned nbits = bn_bits(n, nwords);
	if (nbits == 0)
		return -1;
	const unsigned nw = BN_WORDS(nbits);
	if (rwords < nw)
		return -2;
	const unsigned abits = bn_bits(a, awords);
	if (abits < nbits) {   /* a < 2^(nbits-1) <= n */
		unsigned copy = awords < rwords ? awords : rwords;
		bn_copy(r, a, copy);
		bn_zero(r + copy, rwords - copy);
		return 0;
	}
	/* The top nbits-1 bits of a are below n: take them as they are, then shift in the rest. */
	const unsigned rest = abits - nbits + 1, ws = rest / 32, bs = rest % 32;
	for (unsigned k = 0; k < nw; k++) {
		uint32_t lo = limb_or_zero(a, awords, ws + k), hi = limb_or_zero(a, awords, ws + k + 1);
		acc[k] = bs ? (lo >> bs) | (hi << (32 - bs)) : lo;
	}
	for (unsigned bit = rest; bit-- > 0;) {
		uint32_t in = (a[bit / 32] >> (bit % 32)) & 1;
		uint32_t out = acc[nw - 1] >> 31;
		for (unsigned k = nw - 1; k > 0; k--)
			acc[k] = (acc[k] << 1) | (acc[k - 1] >> 31);
		acc[0] = (acc[0] << 1) | in;
		uint32_t borrow = bn_sub(diff, acc, n, nw);
		uint32_t take = ct_mask_from_bit(out | (borrow ^ 1));
		for (unsigned k = 0; k < nw; k++)
			acc[k] = ct_select_u32(take, diff[k], acc[k]);
	}
	bn_copy(r, acc, nw);
	bn_zero(r + nw, rwords - nw);
	bn_wipe(acc, sizeof(acc));
	bn_wipe(diff, sizeof(diff));
	return 0;
}

void bn_wipe(void *p, size_t len)
{
	if ((uintptr_t)p % sizeof(uint32_t) == 0 && len % sizeof(uint32_t) == 0) {   /* limb arrays */
		volatile uint32_t *w = (volatile uint32_t *)p;
		for (len /= sizeof(uint32_t); len > 0; len--)
			*w++ = 0;
		return;
	}
	volatile uint8_t *v = (volatile uint8_t *)p;

	while (len--)
		*v++ = 0;
}

int bn_less_same(const uint32_t *x, const uint32_t *n, const uint32_t *m, unsigned words, uint32_t *same)
{
	/* the borrow out of x - n: a limb borrows when it is below n's, or equal to it less the borrow
	   coming in (its difference is then 0 and the borrow 1) */
	uint32_t borrow = 0, diff = 0;

	for (unsigned i = 0; i < words; i++) {
		uint32_t ni = n[i], d = x[i] - ni;
		borrow = (uint32_t)(x[i] < ni) | (uint32_t)(d < borrow);
		diff |= ni ^ m[i];
	}
	*same = ct_eq_mask(diff, 0);
	return (int)borrow;
}
