/*
 * bignum.c's exponentiations (part of its translation unit, see there): sliding window, ladder and
 * fixed window, in the Montgomery domain and with conversions around them.
 */

/* Window table for the exponentiations: 16 entries of up to BN_MAX_WORDS limbs (32 entries when the
 * operands are at most BN_MAX_WORDS/2 limbs). Static: not re-entrant, see bignum.h. */
#define TABLE_LIMBS (16 * BN_MAX_WORDS)
static uint32_t exp_table[TABLE_LIMBS];

void mont_exp_window_m(const mont_ctx *ctx, uint32_t *r, const uint32_t *base_m, const uint32_t *e, unsigned ebits)
{
	uint32_t acc[BN_MAX_WORDS];
	const unsigned w = ctx->words;
	/* Widths by exponent length (table cost against saved products); e = 65537 is best plain. */
	const unsigned width = ebits > 240 ? 5 : ebits > 80 ? 4 : ebits > 24 ? 3 : ebits > 17 ? 2 : 1;
	const unsigned entries = 1u << (width - 1);   /* odd powers base^1, base^3, ... */
	exp_window_scan scan;

	bn_copy(exp_table, base_m, w);
	if (entries > 1) {
		mont_sqr(ctx, acc, base_m);
		for (unsigned k = 1; k < entries; k++)
			mont_mul(ctx, exp_table + k * w, exp_table + (k - 1) * w, acc);
	}
	exp_window_start(&scan, e, ebits, width);
	for (;;) {
		unsigned squarings, index;
		enum exp_window_step step = exp_window_next(&scan, &squarings, &index);
		while (squarings--)
			mont_sqr(ctx, acc, acc);
		if (step == EXP_WINDOW_END)
			break;
		if (step == EXP_WINDOW_FIRST)
			bn_copy(acc, exp_table + index * w, w);
		else
			mont_mul(ctx, acc, acc, exp_table + index * w);
	}
	bn_copy(r, scan.started ? acc : ctx->one, w);
	bn_wipe(acc, sizeof(acc));
	bn_wipe(exp_table, entries * w * sizeof(uint32_t));
}

/* r = a if swap == 0, swapped with b if swap == 1, without a branch on swap. */
static void cswap(uint32_t *a, uint32_t *b, uint32_t swap, unsigned w)
{
	uint32_t mask = ct_mask_from_bit(swap);

	for (unsigned j = 0; j < w; j++) {
		uint32_t d = (a[j] ^ b[j]) & mask;
		a[j] ^= d;
		b[j] ^= d;
	}
}

void mont_exp_ladder_m(const mont_ctx *ctx, uint32_t *r, const uint32_t *base_m, const uint32_t *e, unsigned ebits)
{
	uint32_t r0[BN_MAX_WORDS], r1[BN_MAX_WORDS];
	const unsigned w = ctx->words;
	uint32_t swapped = 0;

	bn_copy(r0, ctx->one, w);
	bn_copy(r1, base_m, w);
	/* Invariant: r1 = r0 * base. Bit 1: r0 = r0*r1, r1 = r1^2; bit 0: r1 = r0*r1, r0 = r0^2. */
	for (unsigned i = ebits; i-- > 0;) {
		uint32_t bit = exp_bit(e, i);
		cswap(r0, r1, bit ^ swapped, w);
		swapped = bit;
		mont_mul(ctx, r1, r0, r1);
		mont_sqr(ctx, r0, r0);
	}
	cswap(r0, r1, swapped, w);
	bn_copy(r, r0, w);
	bn_wipe(r0, sizeof(r0));
	bn_wipe(r1, sizeof(r1));
}

/* r = table entry idx of count entries, reading every entry (no secret-dependent address). */
static void table_select(uint32_t *r, const uint32_t *table, unsigned count, uint32_t idx, unsigned w)
{
	bn_zero(r, w);
	for (unsigned k = 0; k < count; k++) {
		uint32_t mask = ct_eq_mask((uint32_t)k, idx);
		const uint32_t *entry = table + k * w;
		for (unsigned j = 0; j < w; j++)
			r[j] |= entry[j] & mask;
	}
}

void mont_exp_fixed_m(const mont_ctx *ctx, uint32_t *r, const uint32_t *base_m, const uint32_t *e, unsigned ebits)
{
	uint32_t acc[BN_MAX_WORDS], sel[BN_MAX_WORDS];
	const unsigned w = ctx->words;
	const unsigned width = (ebits > 320 && 32 * w <= TABLE_LIMBS) ? 5 : 4;
	const unsigned entries = 1u << width;   /* base^0 .. base^(2^width - 1) */

	if (ebits == 0) {
		bn_copy(r, ctx->one, w);
		return;
	}
	bn_copy(exp_table, ctx->one, w);
	bn_copy(exp_table + w, base_m, w);
	for (unsigned k = 2; k < entries; k++) {
		if (k & 1)
			mont_mul(ctx, exp_table + k * w, exp_table + (k - 1) * w, base_m);
		else
			mont_sqr(ctx, exp_table + k * w, exp_table + (k / 2) * w);
	}
	/* Windows from the top; the first one takes the ebits % width leftover bits (if any). */
	unsigned pos = exp_fixed_top(ebits, width);
	table_select(acc, exp_table, entries, exp_bits(e, ebits, pos, ebits - pos), w);
	while (pos > 0) {
		pos -= width;
		for (unsigned k = 0; k < width; k++)
			mont_sqr(ctx, acc, acc);
		table_select(sel, exp_table, entries, exp_bits(e, ebits, pos, width), w);
		mont_mul(ctx, acc, acc, sel);
	}
	bn_copy(r, acc, w);
	bn_wipe(acc, sizeof(acc));
	bn_wipe(sel, sizeof(sel));
	bn_wipe(exp_table, entries * w * sizeof(uint32_t));
}

/* Normal-domain wrappers: convert in, exponentiate, convert out. */
typedef void (*exp_m_fn)(const mont_ctx *, uint32_t *, const uint32_t *, const uint32_t *, unsigned);

static void exp_normal(exp_m_fn fn, const mont_ctx *ctx, uint32_t *r, const uint32_t *base,
                       const uint32_t *e, unsigned ebits)
{
	uint32_t x[BN_MAX_WORDS];

	mont_to(ctx, x, base);
	fn(ctx, x, x, e, ebits);
	mont_from(ctx, r, x);
	bn_wipe(x, sizeof(x));
}

void mont_exp_window(const mont_ctx *ctx, uint32_t *r, const uint32_t *base, const uint32_t *e, unsigned ebits)
{
	exp_normal(mont_exp_window_m, ctx, r, base, e, ebits);
}

void mont_exp_ladder(const mont_ctx *ctx, uint32_t *r, const uint32_t *base, const uint32_t *e, unsigned ebits)
{
	exp_normal(mont_exp_ladder_m, ctx, r, base, e, ebits);
}

void mont_exp_fixed(const mont_ctx *ctx, uint32_t *r, const uint32_t *base, const uint32_t *e, unsigned ebits)
{
	exp_normal(mont_exp_fixed_m, ctx, r, base, e, ebits);
}
