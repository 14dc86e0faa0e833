/* gcd(a, b) for odd a and a^-1 mod m for odd m, in constant time, for key generation (keygen.c) and key
   set-up (the console's `key`). Compiled as an object of its own (bn_gcd.o), which linker.ld places
   after the timed region with the console: the bench's code does not use it. */
#include "bignum/bignum.h"
#include "bignum/ct.h"

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

/* a (words limbs) = r's n non-negative 30-bit limbs, below 2^(32 words). */
static void from_limbs30(uint32_t *a, unsigned words, const int32_t *r, unsigned n)
{
	bn_zero(a, words);
	for (unsigned i = 0; i < n; i++) {
		unsigned bit = 30 * i, w = bit / 32, sh = bit % 32;
		if (w < words)
			a[w] |= (uint32_t)r[i] << sh;
		if (sh > 2 && w + 1 < words)
			a[w + 1] |= (uint32_t)r[i] >> (32 - sh);
	}
}

/* The divsteps for inputs below 2^bits: the paper's bound for delta = 1/2. */
static unsigned divsteps_for(unsigned bits)
{
	return (45907 * bits + 26313) / 19929 + 1;
}

/* r = -r where mask is all ones (limb by limb, then carried back to 30 bits, the top signed); r as it
   is where mask is 0. */
static void negate_masked(int32_t *r, unsigned n, int32_t mask)
{
	int64_t c = 0;

	for (unsigned i = 0; i < n; i++) {
		c += (r[i] ^ mask) - mask;
		r[i] = i + 1 < n ? (int32_t)((uint32_t)c & M30) : (int32_t)c;
		c >>= 30;
	}
}

/* a = gcd(a, b) for odd a (words limbs, a and b below 2^bits); b is destroyed. */
void bn_gcd_odd(uint32_t *a, uint32_t *b, unsigned words, unsigned bits)
{
	static int32_t f[GCD_LIMBS], g[GCD_LIMBS];
	unsigned n = (32 * words + 29) / 30 + 1;
	unsigned steps = divsteps_for(bits);
	int32_t zeta = -1, t[4];

	to_limbs30(f, n, a, words);
	to_limbs30(g, n, b, words);
	for (unsigned done = 0; done < steps; done += 30) {
		zeta = divsteps_30(zeta, (uint32_t)f[0], (uint32_t)g[0], t);
		update_fg(f, g, n, t);
	}
	/* f = +-gcd: negated where negative, then the 30-bit limbs packed. */
	negate_masked(f, n, f[n - 1] >> 31);
	from_limbs30(a, words, f, n);
	bn_wipe(f, sizeof(f));
	bn_wipe(g, sizeof(g));
	bn_wipe(b, 4 * words);
}

/* ---- a^-1 mod m: the same divsteps on (f, g) = (m, a), with (d, e) = (0, 1) carried along under the
   same matrices mod m, as libsecp256k1's modinv32 does: each step (d, e) = (u d + v e, q d + r e) / 2^30
   mod m, the division made exact by adding the multiple of m that clears the low 30 bits, d and e kept
   in (-2m, m). At the end f = +-gcd(m, a) and d = +-a^-1 mod m. ---- */

/* One step of (d, e) under t, mod m (n signed 30-bit limbs; m_inv = m^-1 mod 2^30). */
static void update_de(int32_t *d, int32_t *e, unsigned n, const int32_t *t, const int32_t *m, uint32_t m_inv)
{
	const int32_t u = t[0], v = t[1], q = t[2], r = t[3];
	const int32_t sd = d[n - 1] >> 31, se = e[n - 1] >> 31;
	/* The multiples of m to add: what brings a negative d or e back into range, then what clears the
	   low 30 bits of the sums. */
	int32_t md = (u & sd) + (v & se), me = (q & sd) + (r & se);
	int64_t cd = (int64_t)u * d[0] + (int64_t)v * e[0];
	int64_t ce = (int64_t)q * d[0] + (int64_t)r * e[0];

	md -= (int32_t)((m_inv * (uint32_t)cd + (uint32_t)md) & M30);
	me -= (int32_t)((m_inv * (uint32_t)ce + (uint32_t)me) & M30);
	cd += (int64_t)m[0] * md;
	ce += (int64_t)m[0] * me;
	cd >>= 30;
	ce >>= 30;
	for (unsigned i = 1; i < n; i++) {
		cd += (int64_t)u * d[i] + (int64_t)v * e[i] + (int64_t)m[i] * md;
		ce += (int64_t)q * d[i] + (int64_t)r * e[i] + (int64_t)m[i] * me;
		d[i - 1] = (int32_t)((uint32_t)cd & M30);
		e[i - 1] = (int32_t)((uint32_t)ce & M30);
		cd >>= 30;
		ce >>= 30;
	}
	d[n - 1] = (int32_t)cd;
	e[n - 1] = (int32_t)ce;
}

/* r += m where mask is all ones (r and m n limbs), then the limbs carried back to 30 bits, the top
   signed. */
static void add_masked_carry(int32_t *r, const int32_t *m, unsigned n, int32_t mask)
{
	int64_t c = 0;

	for (unsigned i = 0; i < n; i++) {
		c += (int64_t)r[i] + (m[i] & mask);
		r[i] = i + 1 < n ? (int32_t)((uint32_t)c & M30) : (int32_t)c;
		c >>= 30;
	}
}

int bn_modinv_odd(uint32_t *r, const uint32_t *a, const uint32_t *m, unsigned words, unsigned bits)
{
	static int32_t f[GCD_LIMBS], g[GCD_LIMBS], d[GCD_LIMBS], e[GCD_LIMBS], mm[GCD_LIMBS];
	unsigned n = (32 * words + 29) / 30 + 1, steps = divsteps_for(bits);
	int32_t zeta = -1, t[4];
	uint32_t m_inv = m[0];

	if (n > GCD_LIMBS || (m[0] & 1) == 0)
		return -2;
	for (int i = 0; i < 4; i++)              /* Newton: m is its own inverse mod 8 */
		m_inv *= 2 - m[0] * m_inv;
	to_limbs30(mm, n, m, words);
	to_limbs30(f, n, m, words);
	to_limbs30(g, n, a, words);
	bn_zero((uint32_t *)d, n);
	bn_zero((uint32_t *)e, n);
	e[0] = 1;
	for (unsigned done = 0; done < steps; done += 30) {
		zeta = divsteps_30(zeta, (uint32_t)f[0], (uint32_t)g[0], t);
		update_de(d, e, n, t, mm, m_inv & M30);
		update_fg(f, g, n, t);
	}
	/* d in (-2m, m): add m if negative, negate with f's sign, add m if negative again: [0, m). */
	int32_t fsign = f[n - 1] >> 31;
	add_masked_carry(d, mm, n, d[n - 1] >> 31);
	negate_masked(d, n, fsign);
	add_masked_carry(d, mm, n, d[n - 1] >> 31);
	/* gcd(m, a) = +-f: the inverse exists when f is 1 (limbs 1, 0, ..., 0) or -1 (limbs 2^30 - 1, ...,
	   2^30 - 1, and -1 on top). */
	uint32_t plus = (uint32_t)f[0] ^ 1, minus = (uint32_t)f[0] ^ M30;
	for (unsigned i = 1; i < n; i++) {
		plus |= (uint32_t)f[i];
		minus |= (uint32_t)f[i] ^ (i + 1 < n ? M30 : UINT32_MAX);
	}
	from_limbs30(r, words, d, n);
	bn_wipe(f, sizeof(f));
	bn_wipe(g, sizeof(g));
	bn_wipe(d, sizeof(d));
	bn_wipe(e, sizeof(e));
	bn_wipe(mm, sizeof(mm));
	return plus == 0 || minus == 0 ? 0 : -1;
}
