/*
 * bignum.c's multiply-accumulate rows (part of its translation unit, see there): t += a*b one row at
 * a time, and two rows per pass. The plain product (plain.c) and the Montgomery squaring and
 * reduction (mont.c) are built on them.
 */

/* One limb step of t += x * y + carry: stores the low word in T, leaves the high word in C. */
#define MAC(T, X, Y, C) do { \
		uint64_t p_ = MUL_WIDE((X), (Y)) + (T) + (C); \
		(T) = (uint32_t)p_; \
		(C) = (uint32_t)(p_ >> 32); \
	} while (0)

/* t[0..len-1] += a[0..len-1] * b; returns the carry limb. */
static uint32_t mac_row(uint32_t *t, const uint32_t *a, uint32_t b, unsigned len)
{
	uint32_t c = 0;

	for (; len >= 4; len -= 4, t += 4, a += 4) {
		MAC(t[0], a[0], b, c);
		MAC(t[1], a[1], b, c);
		MAC(t[2], a[2], b, c);
		MAC(t[3], a[3], b, c);
	}
	for (; len > 0; len--, t++, a++)
		MAC(t[0], a[0], b, c);
	return c;
}

/*
 * Two rows at once: t[0..len] += x*m0 + x*m1*2^32, where the m1 row sees x shifted up one limb and
 * `prev` stands for x[-1] (0 for a plain row pair). c0 is a carry into t[0] for the m0 row. Each limb
 * of t and x is loaded and stored once for two products, which saves a load and a store per product
 * over two single rows. Returns the carry into t[len+1] (up to 33 bits).
 */
#define MAC2_STEP(J) do { \
		const uint32_t x_ = x[J]; \
		uint64_t p_ = MUL_WIDE(x_, m0) + t[J] + c0; \
		uint64_t q_ = MUL_WIDE(prev, m1) + (uint32_t)p_ + c1; \
		c0 = (uint32_t)(p_ >> 32); \
		c1 = (uint32_t)(q_ >> 32); \
		t[J] = (uint32_t)q_; \
		prev = x_; \
	} while (0)

static ALWAYS_INLINE uint64_t mac2_row(uint32_t *t, const uint32_t *x, unsigned len,
                         uint32_t m0, uint32_t m1, uint32_t prev, uint32_t c0)
{
	uint32_t c1 = 0;

	for (; len >= 4; len -= 4, t += 4, x += 4) {
		MAC2_STEP(0);
		MAC2_STEP(1);
		MAC2_STEP(2);
		MAC2_STEP(3);
	}
	for (; len > 0; len--, t++, x++)
		MAC2_STEP(0);
	/* Limb len: only the m1 row still has a product (x[len-1] * m1). */
	uint64_t q = MUL_WIDE(prev, m1) + t[0] + c1;
	uint64_t s = (uint64_t)(uint32_t)q + c0;
	t[0] = (uint32_t)s;
	return (q >> 32) + (s >> 32);
}
