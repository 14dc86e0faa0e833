/* RSA key generation over a backend (keygen.h). Not timed by the bench: linker.ld places this file
   after the timed region, with the console, so it moves none of the bench's addresses; keygen's own
   figure is timed by its command (keygen_cmds.c). */
#include <string.h>

#include "ct.h"
#include "keygen.h"
#include "peer_common.h"

#define E KEYGEN_PUBLIC_EXPONENT
#define HALF_WORDS RSA_HALF_WORDS

unsigned keygen_mr_rounds(unsigned prime_bits)
{
	if (prime_bits >= 1536)
		return 4;
	if (prime_bits >= 1024)
		return 5;
	return 8;
}

#if PEER_HAVE_BEARSSL

#include "bearssl_hash.h"
#include "bearssl_rand.h"

/* ---- small arithmetic modulo e = 65537 = 2^16 + 1, where 2^16 = -1: no division ---- */

_Static_assert(E == 65537u, "the reductions modulo e below use e = 2^16 + 1");

/* r mod e for -2^16 < r < 2^17, without a branch. */
static uint32_t reduce_e(int32_t r)
{
	r += (int32_t)(E & (uint32_t)(r >> 31));                      /* 0 <= r < 2^17 */
	r -= (int32_t)(E & ~(uint32_t)((r - (int32_t)E) >> 31));      /* 0 <= r < e */
	return (uint32_t)r;
}

/* x mod e for x < 2^34 (a product of two residues): x = hi*2^32 + mid*2^16 + lo = hi - mid + lo. */
static uint32_t mod_e_small(uint64_t x)
{
	return reduce_e((int32_t)(x & 0xffff) - (int32_t)((x >> 16) & 0xffff) + (int32_t)(x >> 32));
}

/* a mod e for a big number: its 16-bit halves with alternating signs, summed (|s| < 2^24), then the
   same once more on the sum. */
static uint32_t mod_e(const uint32_t *a, unsigned words)
{
	int32_t s = 0;
	for (unsigned i = 0; i < words; i++)
		s += (int32_t)(a[i] & 0xffff) - (int32_t)(a[i] >> 16);
	return reduce_e((s & 0xffff) - (s >> 16));
}

/* x^-1 mod e for 0 < x < e (Fermat: x^(e-2)), a fixed sequence of products. */
static uint32_t inv_mod_e(uint32_t x)
{
	uint32_t r = 1;
	for (int bit = 16; bit >= 0; bit--) {
		r = mod_e_small((uint64_t)r * r);
		uint32_t m = ct_mask_from_bit(((E - 2) >> bit) & 1);
		uint32_t rx = mod_e_small((uint64_t)r * x);
		r = ct_select_u32(m, rx, r);
	}
	return r;
}

/* ---- big numbers by a single limb ---- */

/* r = a * m + c (words limbs of a; r has words + 1). */
static void mul_limb_add(uint32_t *r, const uint32_t *a, unsigned words, uint32_t m, uint32_t c)
{
	uint64_t acc = c;
	for (unsigned i = 0; i < words; i++) {
		acc += (uint64_t)a[i] * m;
		r[i] = (uint32_t)acc;
		acc >>= 32;
	}
	r[words] = (uint32_t)acc;
}

/* q = a / d for an odd d that divides a exactly: multiplication by d^-1 mod 2^32 limb by limb, with
   the borrow carried up (exact division, as in GMP's divexact_1). No branch, no division. */
static void divexact_odd(uint32_t *q, const uint32_t *a, unsigned words, uint32_t d)
{
	uint32_t inv = d, c = 0;
	for (int i = 0; i < 4; i++)
		inv *= 2 - d * inv;
	for (unsigned i = 0; i < words; i++) {
		uint32_t s = a[i], l = s - c;
		c = l > s;
		l *= inv;
		q[i] = l;
		c += (uint32_t)(((uint64_t)l * d) >> 32);
	}
}

/* r = e^-1 mod m (words limbs; e does not divide m): with j = -(m mod e)^-1 mod e,
   1 + j*m = 0 mod e, and r = (1 + j*m) / e < m. */
static void inv_e_mod(uint32_t *r, const uint32_t *m, unsigned words)
{
	static uint32_t t[BN_MAX_WORDS + 1];
	uint32_t j = E - inv_mod_e(mod_e(m, words));

	mul_limb_add(t, m, words, j, 1);
	divexact_odd(t, t, words + 1, E);
	bn_copy(r, t, words);
	bn_wipe(t, sizeof(t));
}

/* a = gcd(a, b) for odd a, b (words limbs, at most `bits` bits each); b is destroyed. Binary gcd with
   a fixed number of masked steps (2 * bits: each step takes one bit off a*b): if b is odd, the smaller
   of the two becomes a and b their difference; then b is halved. */
static void gcd_odd(uint32_t *a, uint32_t *b, unsigned words, unsigned bits)
{
	static uint32_t t[HALF_WORDS];

	for (unsigned step = 0; step < 2 * bits; step++) {
		uint32_t odd = ct_mask_from_bit(b[0] & 1);
		uint32_t below = ct_mask_from_bit(bn_sub(t, b, a, words));    /* t = b - a; b < a */
		uint32_t swap = odd & below, borrow = 0;
		for (unsigned i = 0; i < words; i++) {
			uint32_t x = (a[i] ^ b[i]) & swap;
			a[i] ^= x;
			b[i] ^= x;
		}
		for (unsigned i = 0; i < words; i++) {        /* b -= a if odd (then b >= a: b - a >= 0) */
			uint32_t s = a[i] & odd, l = b[i] - s - borrow;
			borrow = (b[i] < s) | ((b[i] - s) < borrow);
			b[i] = l;
		}
		for (unsigned i = 0; i + 1 < words; i++)
			b[i] = b[i] >> 1 | b[i + 1] << 31;
		b[words - 1] >>= 1;
	}
	bn_wipe(t, sizeof(t));
}

/* ---- the generator and the candidates ---- */

static br_hmac_drbg_context drbg;

/* r (words limbs) = the generator's next 4*words bytes, big-endian. */
static void random_limbs(uint32_t *r, unsigned words)
{
	unsigned char bytes[4 * HALF_WORDS];
	br_hmac_drbg_generate(&drbg, bytes, 4 * words);
	peer_from_bytes(r, words, bytes, 4 * words);
	bn_wipe(bytes, sizeof(bytes));
}

/* The odd primes below KEYGEN_SIEVE_BOUND (308 below 2048) and 4^-1 modulo each: made once, before
   any timing. */
#define SMALL_PRIMES_MAX 320
static uint16_t small_primes[SMALL_PRIMES_MAX], small_inv4[SMALL_PRIMES_MAX];
static unsigned small_count;

void keygen_prepare(void)
{
	uint8_t composite[KEYGEN_SIEVE_BOUND] = { 0 };

	if (small_count)
		return;
	for (unsigned p = 3; p < KEYGEN_SIEVE_BOUND; p += 2) {
		if (composite[p])
			continue;
		for (unsigned m = p * p; m < KEYGEN_SIEVE_BOUND; m += 2 * p)
			composite[m] = 1;
		small_primes[small_count] = (uint16_t)p;
		small_inv4[small_count] = (uint16_t)((p + 1) / 2 * ((p + 1) / 2) % p);   /* (2^-1)^2 */
		small_count++;
		if (small_count == SMALL_PRIMES_MAX)
			break;
	}
}

/* A candidate's Montgomery constants without mont_init's generic reductions (which cost more than
   a Miller-Rabin round at these sizes): c has its top bit set, so R mod c = R - c; then 2^words * R
   by `words` modular doublings, and five Montgomery squarings on the backend take it to
   2^(32 words) * R = R^2. The id keeps clear of mont_init's (a backend tells loaded moduli apart
   by it): those count up from 1, these have the top bit set. */
static int candidate_ctx(const rsa_backend *b, mont_ctx *m, const uint32_t *c, unsigned words)
{
	static uint32_t next_id;
	uint32_t x = c[0];
	int err;

	bn_zero(m->n, BN_MAX_WORDS);
	bn_copy(m->n, c, words);
	m->words = words;
	next_id = (next_id + 1) & 0x7fffffff;
	m->id = 0x80000000u | next_id;
	for (int i = 0; i < 4; i++)
		x *= 2 - c[0] * x;
	m->n0inv = 0 - x;
	bn_zero(m->one, BN_MAX_WORDS);
	bn_sub(m->one, m->one, c, words);
	bn_zero(m->rr, BN_MAX_WORDS);
	bn_copy(m->rr, m->one, words);
	for (unsigned i = 0; i < words; i++)
		mont_add(m, m->rr, m->rr, m->rr);
	for (int i = 0; i < 5; i++)
		if ((err = b->mul(m, m->rr, m->rr, m->rr)))
			return err;
	return 0;
}

/* One Miller-Rabin round of c = 3 mod 4 (c - 1 = 2 * half, half odd) to `base`: 1 when c may be
   prime (base^half = +-1 mod c), 0 when it is composite; or RSA_ERR_HW. */
static int mr_round(const rsa_backend *b, const mont_ctx *m, const uint32_t *base, const uint32_t *half,
                    unsigned bits)
{
	static uint32_t z[HALF_WORDS], minus_one[HALF_WORDS], one[HALF_WORDS];
	unsigned w = m->words;
	int err = b->exp(m, z, base, half, bits, 1);

	if (err)
		return err;
	bn_zero(one, w);
	one[0] = 1;
	bn_copy(minus_one, m->n, w);
	minus_one[0] &= ~1u;
	return (bn_cmp(z, one, w) == 0) | (bn_cmp(z, minus_one, w) == 0);
}

/* |a - b| > 2^(bits - 100) (FIPS 186-5 A.1.3's distance between p and q). */
static int far_apart(const uint32_t *a, const uint32_t *b, unsigned words, unsigned bits)
{
	static uint32_t diff[HALF_WORDS], bound[HALF_WORDS];

	if (bn_sub(diff, a, b, words))
		bn_sub(diff, b, a, words);
	bn_zero(bound, words);
	bound[(bits - 100) / 32] = 1u << ((bits - 100) % 32);
	return bn_cmp(diff, bound, words) > 0;
}

/* A prime of `bits` bits (words limbs) into c, with its Montgomery context in m; other: the prime
   it must be far from, or NULL. 0, or RSA_ERR_HW. */
static int find_prime(const rsa_backend *b, unsigned bits, uint32_t *c, mont_ctx *m, const uint32_t *other,
                      struct keygen_stats *st)
{
	static uint32_t start[HALF_WORDS], half[HALF_WORDS], base[HALF_WORDS], two[HALF_WORDS];
	static uint8_t struck[KEYGEN_SPAN];
	unsigned words = bits / 32, rounds = keygen_mr_rounds(bits);
	int err;

	for (;;) {
		/* A start: top two bits set, 3 mod 4; then strike out x + 4i with a small factor or e | x + 4i - 1. */
		random_limbs(start, words);
		start[words - 1] |= 3u << 30;
		start[0] |= 3;
		memset(struck, 0, sizeof(struck));
		for (unsigned k = 0; k < small_count; k++) {
			uint32_t p = small_primes[k], r = 0;
			for (unsigned i = words; i-- > 0;) {
				r = ((r << 16) | (start[i] >> 16)) % p;
				r = ((r << 16) | (start[i] & 0xffff)) % p;
			}
			for (uint32_t i = (p - r) % p * small_inv4[k] % p; i < KEYGEN_SPAN; i += p)
				struck[i] = 1;
		}
		uint32_t i_e = mod_e_small((uint64_t)(E + 1 - mod_e(start, words)) * 49153u);   /* 4 * 49153 = 1 mod e */
		if (i_e < KEYGEN_SPAN)
			struck[i_e] = 1;

		for (unsigned i = 0; i < KEYGEN_SPAN; i++) {
			st->candidates++;
			if (struck[i])
				continue;
			bn_zero(c, HALF_WORDS);
			bn_zero(half, HALF_WORDS);
			half[0] = 4 * i;
			if (bn_add(c, start, half, words))
				break;                                 /* past 2^bits: a new start */
			if (other && !far_apart(c, other, words, bits))
				continue;
			if ((err = candidate_ctx(b, m, c, words)))
				return err;
			for (unsigned j = 0; j < words; j++)       /* half = (c - 1) / 2 */
				half[j] = c[j] >> 1 | (j + 1 < words ? c[j + 1] << 31 : 0);
			bn_zero(two, words);
			two[0] = 2;
			st->mr_rounds++;
			if ((err = mr_round(b, m, two, half, bits)) <= 0) {
				if (err < 0)
					return err;
				continue;
			}
			unsigned passed = 0;
			while (passed < rounds) {
				/* A base in [2, c - 2], drawn again when out of range (FIPS 186-5 B.3.1). */
				random_limbs(base, words);
				bn_sub(two, c, base, words);            /* two: scratch, c - base */
				if (bn_bits(base, words) <= 1 || bn_bits(two, words) <= 1 || bn_cmp(base, c, words) >= 0)
					continue;
				st->mr_rounds++;
				if ((err = mr_round(b, m, base, half, bits)) < 0)
					return err;
				if (!err)
					break;
				passed++;
			}
			if (passed == rounds)
				return 0;
		}
	}
}

int keygen(const rsa_backend *b, unsigned bits, const unsigned char *seed, size_t seed_len, rsa_key *k,
           struct keygen_stats *st)
{
	static mont_ctx mp, mq;
	static uint32_t pm1[HALF_WORDS], qm1[HALF_WORDS], g[HALF_WORDS], pm2[HALF_WORDS];
	static uint32_t lambda[BN_MAX_WORDS + 1];
	unsigned pbits = bits / 2, pw = pbits / 32, nw = bits / 32;
	int err;

	memset(k, 0, sizeof(*k));
	memset(st, 0, sizeof(*st));
	if (bits % 64 || bits < KEYGEN_MIN_BITS || bits > BN_MAX_BITS)
		return KEYGEN_ERR_SIZE;
	keygen_prepare();
	br_hmac_drbg_init(&drbg, &br_sha256_vtable, seed, seed_len);

	for (;;) {
		if ((err = find_prime(b, pbits, k->p, &mp, NULL, st)))
			break;
	another_q:
		if ((err = find_prime(b, pbits, k->q, &mq, k->p, st)))
			break;

		/* lambda = lcm(p-1, q-1) = (p-1) * ((q-1)/g), g = gcd(p-1, q-1) = 2 gcd((p-1)/2, (q-1)/2), both odd
		   (p = q = 3 mod 4). The exact division needs g/2 to fit a limb: else (hardly ever) another q. */
		for (unsigned j = 0; j < pw; j++) {
			pm1[j] = k->p[j] >> 1 | (j + 1 < pw ? k->p[j + 1] << 31 : 0);
			qm1[j] = k->q[j] >> 1 | (j + 1 < pw ? k->q[j + 1] << 31 : 0);
		}
		bn_copy(g, pm1, pw);
		bn_copy(lambda, qm1, pw);
		gcd_odd(g, lambda, pw, pbits);
		if (bn_bits(g, pw) > 32) {
			st->restarts++;
			goto another_q;
		}
		divexact_odd(qm1, qm1, pw, g[0]);              /* (q-1)/g */
		bn_copy(pm1, k->p, pw);
		pm1[0] &= ~1u;                                 /* p - 1 */
		bn_mul(lambda, pm1, qm1, pw);

		/* d = e^-1 mod lambda, which must exceed 2^(bits/2) (FIPS 186-5 A.1.1); else a new key. */
		inv_e_mod(k->d, lambda, nw);
		if (bn_bits(k->d, nw) <= pbits) {
			st->restarts++;
			continue;
		}
		break;
	}
	if (!err) {
		/* p > q (qinv below is then q^-1 mod p of q < p); n; e; dp, dq; qinv = q^(p-2) mod p. */
		if (bn_cmp(k->p, k->q, pw) < 0) {
			bn_copy(pm1, k->p, pw);
			bn_copy(k->p, k->q, pw);
			bn_copy(k->q, pm1, pw);
			mp = mq;
		}
		bn_mul(k->n, k->p, k->q, pw);
		k->e[0] = E;
		k->bits = bits;
		bn_copy(pm1, k->p, pw);
		pm1[0] &= ~1u;
		inv_e_mod(k->dp, pm1, pw);
		bn_copy(qm1, k->q, pw);
		qm1[0] &= ~1u;
		inv_e_mod(k->dq, qm1, pw);
		bn_copy(pm2, k->p, pw);
		pm2[0] -= 2;                                   /* p = 3 mod 4: no borrow */
		err = b->exp(&mp, k->qinv, k->q, pm2, pbits, 1);
		k->has_crt = 1;
	}
	bn_wipe(pm1, sizeof(pm1));
	bn_wipe(qm1, sizeof(qm1));
	bn_wipe(pm2, sizeof(pm2));
	bn_wipe(g, sizeof(g));
	bn_wipe(lambda, sizeof(lambda));
	bn_wipe(&mp, sizeof(mp));
	bn_wipe(&mq, sizeof(mq));
	bn_wipe(&drbg, sizeof(drbg));
	if (err) {
		bn_wipe(k, sizeof(*k));
		return KEYGEN_ERR_HW;
	}
	return KEYGEN_OK;
}

#else

void keygen_prepare(void)
{
}

int keygen(const rsa_backend *b, unsigned bits, const unsigned char *seed, size_t seed_len, rsa_key *k,
           struct keygen_stats *st)
{
	(void)b; (void)bits; (void)seed; (void)seed_len;
	memset(k, 0, sizeof(*k));
	memset(st, 0, sizeof(*st));
	return KEYGEN_ERR_UNAVAILABLE;
}

#endif
