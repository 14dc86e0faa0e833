/* gcd(a, b) for odd a in constant time, for key generation (keygen.c). Compiled as an object of its
   own (bn_gcd.o), which linker.ld places after the timed region with the console: the bench's code
   does not use it. */
#include "bignum.h"
#include "ct.h"

/* ---- gcd(a, b) for odd a: Bernstein and Yang's divsteps ("Fast constant-time gcd computation and
   modular inversion", 2019), in the form with delta starting at 1/2 (zeta = -(delta + 1/2)) that
   libsecp256k1 uses. Thirty divsteps at a time run on the low word only and give a 2x2 matrix, which
   then updates the full numbers, held in signed 30-bit limbs. A fixed number of divsteps (the paper's
   bound for inputs below 2^bits) brings g to 0 and f to +-gcd, with no branch on the values: a
   fiftieth of the cost of a bit-at-a-time binary gcd. ---- */

#define GCD_LIMBS (BN_MAX_BITS / 2 / 30 + 2)
#define M30 0x3fffffffu

/* Thirty divsteps on the low words of f (odd) and g; returns zeta, t = {u, v, q, r} such that
   2^30 (f', g') = (u f + v g, q f + r g). */
static int32_t divsteps_30(int32_t zeta, uint32_t f, uint32_t g, int32_t *t)
{
	uint32_t u = 1, v = 0, q = 0, r = 1;

	for (int i = 0; i < 30; i++) {
		uint32_t zneg = (uint32_t)(zeta >> 31), godd = ct_mask_from_bit(g & 1);
		uint32_t x = (f ^ zneg) - zneg, y = (u ^ zneg) - zneg, z = (v ^ zneg) - zneg;
		g += x & godd;
		q += y & godd;
		r += z & godd;
		zneg &= godd;
		zeta = (zeta ^ (int32_t)zneg) - 1;
		f += g & zneg;
		u += q & zneg;
		v += r & zneg;
		g >>= 1;
		u <<= 1;
		v <<= 1;
	}
	t[0] = (int32_t)u;
	t[1] = (int32_t)v;
	t[2] = (int32_t)q;
	t[3] = (int32_t)r;
	return zeta;
}

/* (f, g) = (u f + v g, q f + r g) / 2^30, exactly; limbs below the top in [0, 2^30), the top signed. */
static void update_fg(int32_t *f, int32_t *g, unsigned n, const int32_t *t)
{
	int64_t cf = (int64_t)t[0] * f[0] + (int64_t)t[1] * g[0];
	int64_t cg = (int64_t)t[2] * f[0] + (int64_t)t[3] * g[0];

	cf >>= 30;
	cg >>= 30;
	for (unsigned i = 1; i < n; i++) {
		cf += (int64_t)t[0] * f[i] + (int64_t)t[1] * g[i];
		cg += (int64_t)t[2] * f[i] + (int64_t)t[3] * g[i];
		f[i - 1] = (int32_t)((uint32_t)cf & M30);
		g[i - 1] = (int32_t)((uint32_t)cg & M30);
		cf >>= 30;
		cg >>= 30;
	}
	f[n - 1] = (int32_t)cf;
	g[n - 1] = (int32_t)cg;
}

static void to_limbs30(int32_t *r, unsigned n, const uint32_t *a, unsigned words)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned bit = 30 * i, w = bit / 32;
		uint64_t pair = (w < words ? a[w] : 0) | (uint64_t)(w + 1 < words ? a[w + 1] : 0) << 32;
		r[i] = (int32_t)((uint32_t)(pair >> (bit % 32)) & M30);
	}
}

/* a = gcd(a, b) for odd a (words limbs, a and b below 2^bits); b is destroyed. */
void bn_gcd_odd(uint32_t *a, uint32_t *b, unsigned words, unsigned bits)
{
	static int32_t f[GCD_LIMBS], g[GCD_LIMBS];
	unsigned n = (32 * words + 29) / 30 + 1;
	unsigned steps = (45907 * bits + 26313) / 19929 + 1;    /* the paper's bound for delta = 1/2 */
	int32_t zeta = -1, t[4];

	to_limbs30(f, n, a, words);
	to_limbs30(g, n, b, words);
	for (unsigned done = 0; done < steps; done += 30) {
		zeta = divsteps_30(zeta, (uint32_t)f[0], (uint32_t)g[0], t);
		update_fg(f, g, n, t);
	}
	/* f = +-gcd: negate where negative (limb by limb, then carried), then pack the 30-bit limbs. */
	int32_t sign = f[n - 1] >> 31;
	int64_t c = 0;
	for (unsigned i = 0; i < n; i++) {
		c += (f[i] ^ sign) - sign;
		f[i] = i + 1 < n ? (int32_t)((uint32_t)c & M30) : (int32_t)c;
		c >>= 30;
	}
	bn_zero(a, words);
	for (unsigned i = 0; i < n; i++) {
		unsigned bit = 30 * i, w = bit / 32, sh = bit % 32;
		if (w < words)
			a[w] |= (uint32_t)f[i] << sh;
		if (sh > 2 && w + 1 < words)
			a[w + 1] |= (uint32_t)f[i] >> (32 - sh);
	}
	bn_wipe(f, sizeof(f));
	bn_wipe(g, sizeof(g));
	bn_wipe(b, 4 * words);
}
