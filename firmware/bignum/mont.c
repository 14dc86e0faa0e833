/*
 * bignum.c's Montgomery arithmetic (part of its translation unit, see there): the CIOS product, the
 * squaring with its separate reduction, the final subtraction, and the mont_* API over a mont_ctx.
 */

/*
 * One CIOS step for limb j >= 1: adds a[j]*bi and m*n[j] to t[j] and stores the result one limb down
 * (the division by 2^32 of the Montgomery row), with one carry per product chain.
 */
#define CIOS_STEP(J) do { \
		uint64_t p_ = MUL_WIDE(a[J], bi) + t[J] + c1; \
		uint64_t q_ = MUL_WIDE(m, n[J]) + (uint32_t)p_ + c2; \
		c1 = (uint32_t)(p_ >> 32); \
		c2 = (uint32_t)(q_ >> 32); \
		t[(J) - 1] = (uint32_t)q_; \
	} while (0)

/* One CIOS row: (t + top*R + a*bi + m*n) / 2^32 with m chosen to clear the low limb. Returns top. */
static uint32_t cios_row(uint32_t *t, uint32_t top, const uint32_t *a, uint32_t bi,
                         const uint32_t *n, uint32_t n0inv, unsigned w)
{
	uint64_t p = MUL_WIDE(a[0], bi) + t[0];
	uint32_t c1 = (uint32_t)(p >> 32);
	const uint32_t m = MUL_LOW((uint32_t)p, n0inv);
	uint64_t q = MUL_WIDE(m, n[0]) + (uint32_t)p;   /* low word is zero by choice of m */
	uint32_t c2 = (uint32_t)(q >> 32);
	unsigned j = 1;

	for (; j + 4 <= w; j += 4) {
		CIOS_STEP(j);
		CIOS_STEP(j + 1);
		CIOS_STEP(j + 2);
		CIOS_STEP(j + 3);
	}
	for (; j < w; j++)
		CIOS_STEP(j);
	uint64_t s = (uint64_t)top + c1 + c2;
	t[w - 1] = (uint32_t)s;
	return (uint32_t)(s >> 32);
}

/*
 * Two CIOS rows in one pass (b0 = b[i], b1 = b[i+1]): four products per limb of a and n, each limb
 * of a, n and t loaded once. The b1 and m1 rows see a and n one limb up (pa, pn hold a[j-1], n[j-1]);
 * the result is stored two limbs down. Needs w >= 2.
 */
#define CIOS2_STEP(J) do { \
		const uint32_t x_ = ap[J], y_ = np[J]; \
		uint64_t p_ = MUL_WIDE(x_, b0) + tp[J] + c0; \
		uint64_t q_ = MUL_WIDE(y_, m0) + (uint32_t)p_ + c2; \
		uint64_t r_ = MUL_WIDE(pa, b1) + (uint32_t)q_ + c1; \
		uint64_t s_ = MUL_WIDE(pn, m1) + (uint32_t)r_ + c3; \
		c0 = (uint32_t)(p_ >> 32); \
		c2 = (uint32_t)(q_ >> 32); \
		c1 = (uint32_t)(r_ >> 32); \
		c3 = (uint32_t)(s_ >> 32); \
		tp[(J) - 2] = (uint32_t)s_; \
		pa = x_; \
		pn = y_; \
	} while (0)

static uint32_t cios_2rows(uint32_t *t, uint32_t top, const uint32_t *a, uint32_t b0, uint32_t b1,
                           const uint32_t *n, uint32_t n0inv, unsigned w)
{
	/* Limb 0: choose m0; limb 1: choose m1 (both leave a zero limb behind). */
	uint64_t p = MUL_WIDE(a[0], b0) + t[0];
	const uint32_t m0 = MUL_LOW((uint32_t)p, n0inv);
	uint32_t c0 = (uint32_t)(p >> 32);
	uint64_t q = MUL_WIDE(n[0], m0) + (uint32_t)p;
	uint32_t c2 = (uint32_t)(q >> 32);
	p = MUL_WIDE(a[1], b0) + t[1] + c0;
	c0 = (uint32_t)(p >> 32);
	q = MUL_WIDE(n[1], m0) + (uint32_t)p + c2;
	c2 = (uint32_t)(q >> 32);
	uint64_t r = MUL_WIDE(a[0], b1) + (uint32_t)q;
	uint32_t c1 = (uint32_t)(r >> 32);
	const uint32_t m1 = MUL_LOW((uint32_t)r, n0inv);
	uint64_t s = MUL_WIDE(n[0], m1) + (uint32_t)r;
	uint32_t c3 = (uint32_t)(s >> 32);
	uint32_t pa = a[1], pn = n[1];
	const uint32_t *ap = a + 2, *np = n + 2;
	uint32_t *tp = t + 2;
	unsigned len = w - 2;

	for (; len >= 4; len -= 4, ap += 4, np += 4, tp += 4) {
		CIOS2_STEP(0);
		CIOS2_STEP(1);
		CIOS2_STEP(2);
		CIOS2_STEP(3);
	}
	for (; len > 0; len--, ap++, np++, tp++)
		CIOS2_STEP(0);
	/* Limb w (the old top) gets the last b1 and m1 products; limb w+1 the remaining carries. */
	r = MUL_WIDE(pa, b1) + top + c1;
	s = MUL_WIDE(pn, m1) + (uint32_t)r + c3;
	uint64_t u = (uint64_t)(uint32_t)s + c0 + c2;
	t[w - 2] = (uint32_t)u;
	u = (r >> 32) + (s >> 32) + (u >> 32);
	t[w - 1] = (uint32_t)u;
	return (uint32_t)(u >> 32);
}

/*
 * Fused (coarsely integrated) Montgomery product: t[0..w-1] + top*R = a*b*R^-1 (mod n), < 2n when
 * a*b < n*R. t must hold w limbs and start at zero. Returns top (0 or 1). Rows go in pairs.
 */
static uint32_t cios(uint32_t *t, const uint32_t *a, const uint32_t *b,
                     const uint32_t *n, uint32_t n0inv, unsigned w)
{
	uint32_t top = 0;
	unsigned i = 0;

	if (w >= 2)
		for (; i + 1 < w; i += 2)
			top = cios_2rows(t, top, a, b[i], b[i + 1], n, n0inv, w);
	for (; i < w; i++)
		top = cios_row(t, top, a, b[i], n, n0inv, w);
	return top;
}

/* r = (t + top*R) - n if that is non-negative, else t; t < 2n. Constant time. r must not alias t. */
static void final_sub(uint32_t *r, const uint32_t *t, uint32_t top, const uint32_t *n, unsigned w)
{
	uint32_t borrow = 0;

	/* Runs once per product: unrolled, it costs about 2% of a 1024-bit product instead of 3.5%. */
	UNROLL4
	for (unsigned j = 0; j < w; j++) {
		uint64_t d = (uint64_t)t[j] - n[j] - borrow;
		r[j] = (uint32_t)d;
		borrow = (uint32_t)(d >> 32) & 1;
	}
	uint32_t keep_diff = ct_mask_from_bit(top | (borrow ^ 1));
	UNROLL4
	for (unsigned j = 0; j < w; j++)
		r[j] = ct_select_u32(keep_diff, r[j], t[j]);
}

/*
 * Four Montgomery reduction rows at once: t[0..w+2] += n * (m0 + m1*2^32 + m2*2^64 + m3*2^96), with
 * the multipliers chosen so that t[0..3] become zero. One load of n and one load/store of t per four
 * products. Returns the carry into t[w+3] (below 2^34). Needs w >= 4.
 */
#define MAC4_STEP(X) do { \
		const uint32_t x_ = (X); \
		uint64_t p_ = MUL_WIDE(x_, m0) + tp[0] + c0; \
		uint64_t q_ = MUL_WIDE(x1, m1) + (uint32_t)p_ + c1; \
		uint64_t r_ = MUL_WIDE(x2, m2) + (uint32_t)q_ + c2; \
		uint64_t s_ = MUL_WIDE(x3, m3) + (uint32_t)r_ + c3; \
		c0 = (uint32_t)(p_ >> 32); \
		c1 = (uint32_t)(q_ >> 32); \
		c2 = (uint32_t)(r_ >> 32); \
		c3 = (uint32_t)(s_ >> 32); \
		*tp++ = (uint32_t)s_; \
		x3 = x2; \
		x2 = x1; \
		x1 = x_; \
	} while (0)

static uint64_t redc_4rows(uint32_t *t, const uint32_t *n, uint32_t n0inv, unsigned w)
{
	/* The multipliers, from the four low limbs as the single rows would update them. */
	uint32_t u1 = t[1], u2 = t[2], u3 = t[3];
	const uint32_t m0 = MUL_LOW(t[0], n0inv);
	uint64_t p = MUL_WIDE(m0, n[0]) + t[0];
	p = MUL_WIDE(m0, n[1]) + u1 + (p >> 32);
	u1 = (uint32_t)p;
	p = MUL_WIDE(m0, n[2]) + u2 + (p >> 32);
	u2 = (uint32_t)p;
	u3 += MUL_LOW(m0, n[3]) + (uint32_t)(p >> 32);
	const uint32_t m1 = MUL_LOW(u1, n0inv);
	p = MUL_WIDE(m1, n[0]) + u1;
	p = MUL_WIDE(m1, n[1]) + u2 + (p >> 32);
	u2 = (uint32_t)p;
	u3 += MUL_LOW(m1, n[2]) + (uint32_t)(p >> 32);
	const uint32_t m2 = MUL_LOW(u2, n0inv);
	p = MUL_WIDE(m2, n[0]) + u2;
	u3 += MUL_LOW(m2, n[1]) + (uint32_t)(p >> 32);
	const uint32_t m3 = MUL_LOW(u3, n0inv);

	uint32_t c0 = 0, c1 = 0, c2 = 0, c3 = 0, x1 = 0, x2 = 0, x3 = 0;
	uint32_t *tp = t;
	const uint32_t *np = n;
	unsigned len = w;

	for (; len >= 4; len -= 4, np += 4) {
		MAC4_STEP(np[0]);
		MAC4_STEP(np[1]);
		MAC4_STEP(np[2]);
		MAC4_STEP(np[3]);
	}
	for (; len > 0; len--, np++)
		MAC4_STEP(np[0]);
	MAC4_STEP(0);   /* limbs w .. w+2: the shifted rows' last products */
	MAC4_STEP(0);
	MAC4_STEP(0);
	return (uint64_t)c0 + c1 + c2 + c3;
}

/*
 * Montgomery reduction of t[0..2w-1] (t < n*R): r = t*R^-1 mod n, fully reduced. Destroys t.
 * r must not alias t. Rows go in fours (redc_4rows), the last w % 4 in pairs (mac2_row) and singly;
 * the multipliers of a group are computed up front from its low limbs.
 */
static void redc(const mont_ctx *ctx, uint32_t *r, uint32_t *t)
{
	const unsigned w = ctx->words;
	const uint32_t *n = ctx->n, n0inv = ctx->n0inv;
	uint32_t top = 0;   /* pending carry into t[i + w] */
	unsigned i = 0;

	for (; i + 3 < w; i += 4) {
		uint64_t s = (uint64_t)t[i + w] + top;
		t[i + w] = (uint32_t)s;
		s = (uint64_t)t[i + w + 1] + (uint32_t)(s >> 32);
		t[i + w + 1] = (uint32_t)s;
		s = (uint64_t)t[i + w + 2] + (uint32_t)(s >> 32);
		t[i + w + 2] = (uint32_t)s;
		uint32_t k = (uint32_t)(s >> 32);
		uint64_t c = redc_4rows(t + i, n, n0inv, w);
		s = (uint64_t)t[i + w + 3] + (uint32_t)c + k;
		t[i + w + 3] = (uint32_t)s;
		top = (uint32_t)(c >> 32) + (uint32_t)(s >> 32);
	}
	for (; i + 1 < w; i += 2) {
		uint32_t m0 = MUL_LOW(t[i], n0inv);
		uint64_t p = MUL_WIDE(m0, n[0]) + t[i];
		uint64_t q = MUL_WIDE(m0, n[1]) + t[i + 1] + (uint32_t)(p >> 32);
		uint32_t m1 = MUL_LOW((uint32_t)q, n0inv);
		uint64_t s = (uint64_t)t[i + w] + top;
		t[i + w] = (uint32_t)s;
		uint32_t k = (uint32_t)(s >> 32);
		uint64_t c = mac2_row(t + i, n, w, m0, m1, 0, 0);
		s = (uint64_t)t[i + w + 1] + (uint32_t)c + k;
		t[i + w + 1] = (uint32_t)s;
		top = (uint32_t)(c >> 32) + (uint32_t)(s >> 32);
	}
	if (i < w) {   /* odd w: one single row left */
		uint32_t m = MUL_LOW(t[i], n0inv);
		uint32_t c = mac_row(t + i, n, m, w);
		uint64_t s = (uint64_t)t[i + w] + c + top;
		t[i + w] = (uint32_t)s;
		top = (uint32_t)(s >> 32);
	}
	final_sub(r, t + w, top, n, w);
}

/* t[0..2w-1] = a^2, computing each cross product a[i]*a[j] (i < j) once, two rows at a time. */
static void sqr_full(uint32_t *t, const uint32_t *a, unsigned w)
{
	uint32_t c = 0, shifted_out = 0;

	bn_zero(t, 2 * w);
	for (unsigned i = 0; i + 1 < w; i += 2) {
		/* Rows i and i+1: a[i]*a[i+1..] at t[2i+1..], a[i+1]*a[i+2..] at t[2i+3..]. */
		uint64_t p = MUL_WIDE(a[i], a[i + 1]) + t[2 * i + 1];
		t[2 * i + 1] = (uint32_t)p;
		uint64_t carry = mac2_row(t + 2 * i + 2, a + i + 2, w - i - 2, a[i], a[i + 1], 0,
		                          (uint32_t)(p >> 32));
		t[i + w + 1] = (uint32_t)carry;   /* untouched so far; the partial sum fits below i+w+2 */
	}
	/* Double the cross products and add the squares a[i]^2 in one pass. */
	for (unsigned i = 0; i < w; i++) {
		uint64_t sq = MUL_WIDE(a[i], a[i]);
		uint32_t t0 = t[2 * i], t1 = t[2 * i + 1];
		uint32_t d0 = (t0 << 1) | shifted_out;
		uint32_t d1 = (t1 << 1) | (t0 >> 31);
		shifted_out = t1 >> 31;
		uint64_t s = (uint64_t)d0 + (uint32_t)sq + c;
		t[2 * i] = (uint32_t)s;
		s = (uint64_t)d1 + (uint32_t)(sq >> 32) + (uint32_t)(s >> 32);
		t[2 * i + 1] = (uint32_t)s;
		c = (uint32_t)(s >> 32);
	}
}


void mont_mul(const mont_ctx *ctx, uint32_t *r, const uint32_t *a, const uint32_t *b)
{
	uint32_t t[BN_MAX_WORDS];
	const unsigned w = ctx->words;

	bn_zero(t, w);
	uint32_t top = cios(t, a, b, ctx->n, ctx->n0inv, w);
	final_sub(r, t, top, ctx->n, w);
}

void mont_sqr(const mont_ctx *ctx, uint32_t *r, const uint32_t *a)
{
	uint32_t t[2 * BN_MAX_WORDS];

	sqr_full(t, a, ctx->words);
	redc(ctx, r, t);
}

void mont_to(const mont_ctx *ctx, uint32_t *r, const uint32_t *a)
{
	mont_mul(ctx, r, a, ctx->rr);
}

void mont_from(const mont_ctx *ctx, uint32_t *r, const uint32_t *a)
{
	uint32_t t[2 * BN_MAX_WORDS];
	const unsigned w = ctx->words;

	bn_copy(t, a, w);
	bn_zero(t + w, w);
	redc(ctx, r, t);
}

void mont_add(const mont_ctx *ctx, uint32_t *r, const uint32_t *a, const uint32_t *b)
{
	uint32_t sum[BN_MAX_WORDS];
	const unsigned w = ctx->words;
	uint32_t carry = bn_add(sum, a, b, w);

	final_sub(r, sum, carry, ctx->n, w);
}

void mont_sub(const mont_ctx *ctx, uint32_t *r, const uint32_t *a, const uint32_t *b)
{
	const unsigned w = ctx->words;
	uint32_t add_n = ct_mask_from_bit(bn_sub(r, a, b, w));
	uint32_t c = 0;

	for (unsigned j = 0; j < w; j++) {
		uint64_t s = (uint64_t)r[j] + (ctx->n[j] & add_n) + c;
		r[j] = (uint32_t)s;
		c = (uint32_t)(s >> 32);
	}
}

void mont_to_wide(const mont_ctx *ctx, uint32_t *r, const uint32_t *a, unsigned awords)
{
	uint32_t chunk[BN_MAX_WORDS];
	const unsigned w = ctx->words;

	if (w == 0)   /* a context mont_init refused */
		return;
	unsigned pos = awords - awords % w;

	if (pos == awords && pos > 0)
		pos -= w;
	/* Horner in base R from the top chunk down: x*R + c -> (x*R + c)*R = MM(xR, R^2) + MM(c, R^2). */
	bn_zero(chunk, BN_MAX_WORDS);   /* all of it: keeps -Wmaybe-uninitialized quiet on rv32 */
	bn_copy(chunk, a + pos, awords - pos);
	mont_to(ctx, r, chunk);
	while (pos > 0) {
		pos -= w;
		mont_mul(ctx, r, r, ctx->rr);
		mont_to(ctx, chunk, a + pos);
		mont_add(ctx, r, r, chunk);
	}
	bn_wipe(chunk, sizeof(chunk));
}

int mont_init(mont_ctx *ctx, const uint32_t *n, unsigned words)
{
	uint32_t x, two_r[BN_MAX_WORDS];

	if (words == 0 || words > BN_MAX_WORDS || (n[0] & 1) == 0)
		return -1;
	static uint32_t next_id;

	bn_wipe(ctx, sizeof(*ctx));
	bn_copy(ctx->n, n, words);
	ctx->words = words;
	ctx->id = ++next_id ? next_id : ++next_id;   /* never 0, which means "none" */

	/* Newton iteration for n^-1 mod 2^32: n is its own inverse mod 8, each step doubles the bits. */
	x = n[0];
	for (int i = 0; i < 4; i++)
		x *= 2 - n[0] * x;
	ctx->n0inv = (uint32_t)0 - x;

	/* R mod n = (R - n) mod n; R - n is the two's complement of n in w limbs. */
	bn_zero(two_r, sizeof(two_r) / sizeof(uint32_t));
	bn_sub(two_r, two_r, n, words);
	bn_mod(ctx->one, words, two_r, words, n, words);

	/* R^2 mod n = R * 2^(32w) mod n, from R mod n. A modular doubling takes R * 2^t to R * 2^(t+1), a
	   Montgomery squaring R * 2^t to R * 2^(2t). With a multiplier: s doublings for s the odd part of
	   32w, then a squaring for each factor 2 (1,024 bits: one doubling and ten squarings, where 1,024
	   doublings of 32 limbs took about 1 M cycles a context). Without one (rv32i), where a squaring's
	   w^2 products cost about 280 instructions apiece (mul32.h), the 32w doublings alone. Not timed by
	   the benchmark (key set-up); the steps follow the size only. */
	unsigned doublings = 32 * words, squarings = 0;
#if !BN_HAVE_SOFT_MUL
	while (doublings % 2 == 0) {
		doublings /= 2;
		squarings++;
	}
#endif
	bn_copy(ctx->rr, ctx->one, words);
	for (unsigned i = 0; i < doublings; i++)
		mont_add(ctx, ctx->rr, ctx->rr, ctx->rr);
	for (unsigned i = 0; i < squarings; i++)
		mont_sqr(ctx, ctx->rr, ctx->rr);
	bn_wipe(two_r, sizeof(two_r));
	return 0;
}
