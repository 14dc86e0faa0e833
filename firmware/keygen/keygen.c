/* RSA key generation over a backend (keygen.h). Not timed by the bench: linker.ld places this file
   after the timed region, with the console, so it moves none of the bench's addresses; keygen's own
   figure is timed by its command (sig_cmds.c).

   The helpers that claim constant time are kept out of line (CT_FUNCTION), so that the image's
   disassembly shows each on its own: tests/firmware/test_ct_disassembly.py checks that their only
   conditional branches are their loops'. */
#include <string.h>

#include "bignum/ct.h"
#include "hash/sha256_select.h"
#include "keygen/keygen.h"
#include "peers/peer_common.h"

#define E KEYGEN_PUBLIC_EXPONENT
#define HALF_WORDS RSA_HALF_WORDS
#define CT_FUNCTION static __attribute__((noinline))

/* FIPS 186-5 Table B.1 gives 1024-bit primes 5 rounds (error 2^-112), 1536- and 2048-bit primes 4
   (2^-128, 2^-144). Smaller primes (keys under 2048 bits, which FIPS 186-5 no longer covers) get what
   its Appendix C.1 bound (Damgard, Landrock and Pomerance) asks for an error of 2^-100, the table's
   lowest level: the least bits of a prime that each count of rounds is enough for. The same
   computation gives the table's own entries (tests/firmware/test_rsa_keygen.py). */
static const struct { uint16_t bits; uint8_t rounds; } rounds_below_1024[] = {
	{ 896, 4 }, { 704, 5 }, { 608, 6 }, { 512, 7 }, { 480, 8 }, { 416, 9 }, { 384, 10 }, { 352, 11 },
	{ 320, 12 }, { 288, 14 }, { 256, 16 },
};

unsigned keygen_mr_rounds(unsigned prime_bits)
{
	if (prime_bits >= 1536)
		return 4;
	if (prime_bits >= 1024)
		return 5;
	for (unsigned i = 0; i < sizeof(rounds_below_1024) / sizeof(rounds_below_1024[0]); i++)
		if (prime_bits >= rounds_below_1024[i].bits)
			return rounds_below_1024[i].rounds;
	return KEYGEN_MR_ROUNDS_MAX;
}

#if PEER_HAVE_BEARSSL

#include "bearssl_hash.h"
#include "bearssl_rand.h"

/* Everything key generation holds that tells of p, q or d (the generator, the candidates and their
   sieve, Miller-Rabin's bases and results, p - 1, q - 1, lambda, the primes' contexts), in one place,
   so that keygen_wipe clears all of it at once, after the timed region. */
static struct {
	br_hmac_drbg_context drbg;
	unsigned char random_bytes[4 * HALF_WORDS];
	/* Miller-Rabin bases: one call to the generator for a candidate's rounds and two spares, used
	   from the end (one HMAC-DRBG call costs its key updates once, about 8 SHA-256 blocks, then 2
	   blocks per 32 bytes); another such call if out-of-range draws used up the spares. */
	unsigned char base_bytes[(KEYGEN_MR_ROUNDS_MAX + 2) * 4 * HALF_WORDS];
	unsigned bases_left;
	uint32_t inv_t[BN_MAX_WORDS + 1];                             /* inv_e_mod */
	uint32_t double_t[HALF_WORDS];                                /* double_mod */
	uint32_t one[HALF_WORDS], minus_one[HALF_WORDS];              /* mr_verdict */
	uint32_t pre_half[2][HALF_WORDS], pre_r[2][HALF_WORDS], pre_k[2][HALF_WORDS];     /* pretest */
	uint32_t half[HALF_WORDS], base[HALF_WORDS], diff[HALF_WORDS], r[HALF_WORDS];     /* mr_rounds */
	uint32_t far_diff[HALF_WORDS];                                /* far_apart */
	uint32_t start[HALF_WORDS], step[HALF_WORDS], c[2][HALF_WORDS];                   /* find_prime */
	mont_ctx m[2];
	uint8_t struck[KEYGEN_SPAN];
	mont_ctx mp, mq;                                              /* keygen */
	uint32_t pm1[HALF_WORDS], qm1[HALF_WORDS], g[HALF_WORDS], pm2[HALF_WORDS];
	uint32_t lambda[BN_MAX_WORDS + 1];
} ks;

void keygen_wipe(void)
{
	bn_wipe(&ks, sizeof(ks));
}

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
CT_FUNCTION uint32_t mod_e(const uint32_t *a, unsigned words)
{
	int32_t s = 0;
	for (unsigned i = 0; i < words; i++)
		s += (int32_t)(a[i] & 0xffff) - (int32_t)(a[i] >> 16);
	return reduce_e((s & 0xffff) - (s >> 16));
}

/* x^-1 mod e for 0 < x < e (Fermat: x^(e-2)), a fixed sequence of products. */
CT_FUNCTION uint32_t inv_mod_e(uint32_t x)
{
	uint32_t r = 1;
	for (int bit = 15; bit >= 0; bit--) {      /* e - 2 = 0xffff */
		r = mod_e_small((uint64_t)r * r);
		uint32_t m = ct_mask_from_bit(((E - 2) >> bit) & 1);
		uint32_t rx = mod_e_small((uint64_t)r * x);
		r = ct_select_u32(m, rx, r);
	}
	return r;
}

/* r = e^-1 mod m (words limbs; e does not divide m): with j = -(m mod e)^-1 mod e,
   1 + j*m = 0 mod e, and r = (1 + j*m) / e < m. */
CT_FUNCTION void inv_e_mod(uint32_t *r, const uint32_t *m, unsigned words)
{
	uint32_t *t = ks.inv_t;
	uint32_t j = E - inv_mod_e(mod_e(m, words));

	bn_mul_limb_add(t, m, words, j, 1);
	bn_divexact_odd(t, t, words + 1, E);
	bn_copy(r, t, words);
}

/* ---- the generator and the candidates ---- */

/* r (words limbs) = the generator's next 4*words bytes, big-endian. */
static void random_limbs(uint32_t *r, unsigned words)
{
	br_hmac_drbg_generate(&ks.drbg, ks.random_bytes, 4 * words);
	peer_from_bytes(r, words, ks.random_bytes, 4 * words);
}

static void next_base(uint32_t *r, unsigned words, unsigned rounds)
{
	if (ks.bases_left == 0) {
		br_hmac_drbg_generate(&ks.drbg, ks.base_bytes, (rounds + 2) * 4 * words);
		ks.bases_left = rounds + 2;
	}
	ks.bases_left--;
	peer_from_bytes(r, words, ks.base_bytes + ks.bases_left * 4 * words, 4 * words);
}

/* The odd primes below KEYGEN_SIEVE_BOUND (308 below 2048), with 4^-1 and 2^32 modulo each, and
   floor(2^32/p) for reductions without a division: made once, before any timing. */
#define SMALL_PRIMES_MAX 320
static uint16_t small_primes[SMALL_PRIMES_MAX], small_inv4[SMALL_PRIMES_MAX];
static uint32_t small_recip[SMALL_PRIMES_MAX];
static uint16_t small_2_32[SMALL_PRIMES_MAX];     /* 2^32 mod p */
static unsigned small_count;

void keygen_prepare(void)
{
	uint8_t composite[KEYGEN_SIEVE_BOUND] = { 0 };

	if (small_count)
		return;
	for (unsigned p = 3; p < KEYGEN_SIEVE_BOUND && small_count < SMALL_PRIMES_MAX; p += 2) {
		if (composite[p])
			continue;
		for (unsigned m = p * p; m < KEYGEN_SIEVE_BOUND; m += 2 * p)
			composite[m] = 1;
		small_primes[small_count] = (uint16_t)p;
		small_inv4[small_count] = (uint16_t)((p + 1) / 2 * ((p + 1) / 2) % p);   /* (2^-1)^2 */
		small_recip[small_count] = (uint32_t)(0x100000000ull / p);
		small_2_32[small_count] = (uint16_t)(0x100000000ull % p);
		small_count++;
	}
}

/* x mod p for x < 2^32, with recip = floor(2^32 / p): the quotient estimate is short by at most 1. */
static inline uint32_t mod_small(uint32_t x, uint32_t p, uint32_t recip)
{
	uint32_t r = x - (uint32_t)(((uint64_t)x * recip) >> 32) * p;
	return r - (p & ~(uint32_t)((int32_t)(r - p) >> 31));
}

/* The Montgomery constants of a candidate c for the pre-test: c has its top bit set, so R mod c is
   R - c. The id keeps clear of mont_init's (a backend tells loaded moduli apart by it): those count
   up from 1, these have the top bit set. */
CT_FUNCTION void candidate_one(mont_ctx *m, const uint32_t *c, unsigned words)
{
	static uint32_t next_id;
	uint32_t x = c[0];

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
}

/* r = 2r mod n for r < n (words limbs): the doubling and its difference with n in one pass, the
   choice in a second (mont_add's three passes cost twice as much). */
CT_FUNCTION void double_mod(uint32_t *r, const uint32_t *n, unsigned words)
{
	uint32_t *t = ks.double_t;
	uint32_t carry = 0, borrow = 0;

	for (unsigned i = 0; i < words; i++) {
		uint32_t d = r[i] << 1 | carry;
		carry = r[i] >> 31;
		t[i] = d - n[i] - borrow;
		borrow = (d < n[i]) | ((d - n[i]) < borrow);
		r[i] = d;
	}
	uint32_t use_t = ct_mask_from_bit(carry | (borrow ^ 1));   /* 2r >= 2^(32 words), or 2r >= n */
	for (unsigned i = 0; i < words; i++)
		r[i] = ct_select_u32(use_t, t[i], r[i]);
}

/* R^2 mod c for the backend's exp, without mont_init's generic reductions (which cost more than a
   Miller-Rabin round): 2^words * R by `words` modular doublings of R mod c, then five Montgomery
   squarings take it to 2^(32 words) * R = R^2. */
CT_FUNCTION int candidate_rr(const rsa_backend *b, mont_ctx *m)
{
	int err;

	bn_zero(m->rr, BN_MAX_WORDS);
	bn_copy(m->rr, m->one, m->words);
	for (unsigned i = 0; i < m->words; i++)
		double_mod(m->rr, m->n, m->words);
	for (int i = 0; i < 5; i++)
		if ((err = b->mul(m, m->rr, m->rr, m->rr)))
			return err;
	return 0;
}

/* c = 3 mod 4, so c - 1 = 2 * half with half odd, and a Miller-Rabin round to base z is z^half = +-1
   mod c. 1 when r (z^half) says c may be prime, 0 when c is composite. */
CT_FUNCTION int mr_verdict(const mont_ctx *m, const uint32_t *r)
{
	uint32_t *minus_one = ks.minus_one, *one = ks.one;
	unsigned w = m->words;

	bn_zero(one, w);
	one[0] = 1;
	bn_copy(minus_one, m->n, w);
	minus_one[0] &= ~1u;
	return (bn_cmp(r, one, w) == 0) | (bn_cmp(r, minus_one, w) == 0);
}

CT_FUNCTION void half_of(uint32_t *half, const uint32_t *c, unsigned words)
{
	for (unsigned j = 0; j < words; j++)
		half[j] = c[j] >> 1 | (j + 1 < words ? c[j + 1] << 31 : 0);
}

/* The borrow (0 or 1) out of the 32-bit subtraction x - y, whose result is diff, from the top bits
   alone: no comparison for the compiler to turn into a branch. */
#define BORROW_OUT(x, y, diff) (((~(x) & (y)) | (~((x) ^ (y)) & (diff))) >> 31)

/* floor(n / d) for a d with its top bit set, at most 2^32 - 1 (all ones when n / 2^32 >= d): long
   division one bit at a time on 32-bit words, every decision a mask. Neither a 64-bit comparison
   (which GCC compiles for rv32 into a branch on the high words) nor libgcc's 64-bit division (whose
   time depends on the values). */
CT_FUNCTION uint32_t div_64_32(uint64_t n, uint32_t d)
{
	uint32_t hi = (uint32_t)(n >> 32), lo = (uint32_t)n;
	uint32_t saturate = ct_mask_from_bit(BORROW_OUT(hi, d, hi - d) ^ 1);      /* hi >= d */
	uint32_t r = hi & ~saturate, q = 0;                                         /* r < d */

	for (int bit = 31; bit >= 0; bit--) {
		uint32_t carry = r >> 31;                 /* bit 32 of 2r + 1: then it exceeds d */
		r = r << 1 | ((lo >> bit) & 1);
		uint32_t diff = r - d;
		uint32_t fits = ct_mask_from_bit(carry | (BORROW_OUT(r, d, diff) ^ 1));
		r = ct_select_u32(fits, diff, r);         /* below d again */
		q |= fits & (1u << bit);
	}
	return q | saturate;
}

/* k = 2^32 * a mod c for a < c (words limbs, c's top bit set): the quotient estimated from the top
   limbs (Knuth's, at most 2 too large), one multiply-subtract pass, then c added back at most twice,
   with masks. A tenth of the cost of 32 modular doublings. */
CT_FUNCTION void times_2_32_mod(uint32_t *k, const uint32_t *a, const uint32_t *c, unsigned words)
{
	uint32_t q = div_64_32((uint64_t)a[words - 1] << 32 | a[words - 2], c[words - 1]);
	uint32_t borrow = 0, mul_carry = 0, top = 0;

	for (unsigned i = 0; i <= words; i++) {           /* k = a * 2^32 - q c, over words + 1 limbs */
		uint64_t prod = (uint64_t)q * (i < words ? c[i] : 0) + mul_carry;
		uint32_t t = i ? a[i - 1] : 0, p = (uint32_t)prod, d = t - p - borrow;
		mul_carry = (uint32_t)(prod >> 32);
		borrow = (t < p) | ((t - p) < borrow);
		if (i < words)
			k[i] = d;
		else
			top = d;
	}
	for (int fix = 0; fix < 2; fix++) {                /* negative (top limb's sign): add c */
		uint32_t neg = ct_mask_from_bit(top >> 31), carry = 0;
		for (unsigned i = 0; i < words; i++) {
			uint32_t add = c[i] & neg, s = k[i] + add;
			uint32_t c1 = s < add;
			k[i] = s + carry;
			carry = c1 | (k[i] < carry);
		}
		top += carry;
	}
}

/* The pre-test of up to two candidates: a Miller-Rabin round to base 2, which discards nearly every
   composite for one exponentiation and no random bytes. On a backend with pair commands both take
   it in one pass of the peripheral (crt_exp from x = 2, one limb, whose constant for candidate c is
   2^32 R mod c: cheap, unlike R^2, which only a survivor needs). pass[i] = 1 when candidate i may be
   prime. 0, or an RSA_ERR_*. */
static int pretest(const rsa_backend *b, mont_ctx *m, uint32_t (*c)[HALF_WORDS], unsigned count, int *pass)
{
	static uint32_t two[HALF_WORDS];
	uint32_t (*half)[HALF_WORDS] = ks.pre_half, (*r)[HALF_WORDS] = ks.pre_r, (*k)[HALF_WORDS] = ks.pre_k;
	unsigned words = m[0].words, i;
	int err;

	for (i = 0; i < count; i++)
		half_of(half[i], c[i], words);
	bn_zero(two, words);
	two[0] = 2;
	if (b->crt_exp && words <= b->pair_max_limbs) {
		const unsigned j = count - 1;                 /* one candidate: both halves of the pair */
		for (i = 0; i < count; i++)
			times_2_32_mod(k[i], m[i].one, c[i], words);
		if ((err = b->crt_exp(&m[0], r[0], half[0], k[0], &m[j], r[1], half[j], k[j], two, 1, 32 * words)))
			return err;
	} else {
		for (i = 0; i < count; i++)
			if ((err = candidate_rr(b, &m[i])) || (err = b->exp(&m[i], r[i], two, half[i], 32 * words, 1)))
				return err;
	}
	for (i = 0; i < count; i++)
		pass[i] = mr_verdict(&m[i], r[i]);
	return 0;
}

/* One Miller-Rabin round to `base` on the candidate of m, half = (c - 1) / 2: 1 when c may be prime,
   0 when composite; or an RSA_ERR_*. */
static int mr_round(const rsa_backend *b, const mont_ctx *m, const uint32_t *base, const uint32_t *half)
{
	int err = b->exp(m, ks.r, base, half, 32 * m->words, 1);
	return err ? err : mr_verdict(m, ks.r);
}

/* A base in [2, c - 2] (words limbs) from the generator, drawn again when out of range (FIPS 186-5
   B.3.1). Not constant time: the draws depend on c's top bits, which are public here (set). */
static void draw_base(uint32_t *base, const uint32_t *c, unsigned words, unsigned rounds)
{
	do {
		next_base(base, words, rounds);
		bn_sub(ks.diff, c, base, words);
	} while (bn_bits(base, words) <= 1 || bn_cmp(base, c, words) >= 0 || bn_bits(ks.diff, words) <= 1);
}

/* The FIPS 186-5 rounds on a pre-tested candidate, with random bases in [2, c - 2] (drawn again
   when out of range, B.3.1): 1 when c is probably prime, 0 when composite; or an RSA_ERR_*. */
static int mr_rounds(const rsa_backend *b, mont_ctx *m, const uint32_t *c, unsigned rounds,
                     struct keygen_stats *st)
{
	unsigned words = m->words, passed;
	int err;

	if (b->crt_exp && words <= b->pair_max_limbs && (err = candidate_rr(b, m)))
		return err;                                   /* the pair pre-test needed no R^2 */
	half_of(ks.half, c, words);
	ks.bases_left = 0;
	for (passed = 0; passed < rounds; passed++) {
		draw_base(ks.base, c, words, rounds);
		st->mr_rounds++;
		if ((err = mr_round(b, m, ks.base, ks.half)) <= 0)
			return err;
	}
	return 1;
}

/* |a - b| > 2^(bits - 100) (FIPS 186-5 A.1.3's distance between p and q). */
static int far_apart(const uint32_t *a, const uint32_t *b, unsigned words, unsigned bits)
{
	static uint32_t bound[HALF_WORDS];
	uint32_t *diff = ks.far_diff;

	if (bn_sub(diff, a, b, words))
		bn_sub(diff, b, a, words);
	bn_zero(bound, words);
	bound[(bits - 100) / 32] = 1u << ((bits - 100) % 32);
	return bn_cmp(diff, bound, words) > 0;
}

/* A prime of `bits` bits (words limbs) into p, with its Montgomery context in mp; other: the prime
   it must be far from, or NULL. 0, or an RSA_ERR_*. */
static int find_prime(const rsa_backend *b, unsigned bits, uint32_t *p, mont_ctx *mp, const uint32_t *other,
                      struct keygen_stats *st)
{
	uint32_t *start = ks.start, *step = ks.step, (*c)[HALF_WORDS] = ks.c;
	mont_ctx *m = ks.m;
	uint8_t *struck = ks.struck;
	unsigned words = bits / 32, rounds = keygen_mr_rounds(bits);
	unsigned want = b->crt_exp && words <= b->pair_max_limbs ? 2 : 1;
	int err, pass[2];

	/* Each start holds about KEYGEN_SPAN / (0.35 bits) primes (more than 10 at 1024 bits); a search
	   that finds none in this many starts has a fault, not bad luck. */
	for (unsigned starts = 0; starts < 64; starts++) {
		/* A start x: top two bits set, 3 mod 4; strike out x + 4i with a small factor or e | x + 4i - 1. */
		random_limbs(start, words);
		start[words - 1] |= 3u << 30;
		start[0] |= 3;
		memset(struck, 0, sizeof(ks.struck));
		for (unsigned k = 0; k < small_count; k++) {
			/* x mod q = sum of limb_i (2^(32 i) mod q), the powers made as the sum goes (each term
			   below 2^43, the sum below 2^50); one reduction a limb instead of two. */
			uint32_t q = small_primes[k], recip = small_recip[k], pow = 1, c32 = small_2_32[k], r;
			uint64_t sum = 0;
			for (unsigned i = 0; i < words; i++) {
				sum += (uint64_t)start[i] * pow;
				pow = mod_small(pow * c32, q, recip);
			}
			r = mod_small(mod_small((uint32_t)(sum >> 32), q, recip) * c32 + mod_small((uint32_t)sum, q, recip),
			              q, recip);
			for (uint32_t i = (q - r) % q * small_inv4[k] % q; i < KEYGEN_SPAN; i += q)
				struck[i] = 1;
		}
		uint32_t i_e = mod_e_small((uint64_t)(E + 1 - mod_e(start, words)) * 49153u);   /* 4 * 49153 = 1 mod e */
		if (i_e < KEYGEN_SPAN)
			struck[i_e] = 1;

		/* The survivors in order, `want` at a time (two on a pair-capable backend). */
		unsigned i = 0, end = 0;
		while (!end) {
			unsigned count = 0;
			while (count < want && i < KEYGEN_SPAN) {
				st->candidates++;
				if (struck[i++])
					continue;
				bn_zero(step, words);
				step[0] = 4 * (i - 1);
				if (bn_add(c[count], start, step, words)) {
					end = 1;                           /* past 2^bits: a new start */
					break;
				}
				if (other && !far_apart(c[count], other, words, bits))
					continue;
				candidate_one(&m[count], c[count], words);
				count++;
			}
			if (i == KEYGEN_SPAN)
				end = 1;
			if (count == 0)
				break;
			st->mr_rounds += count;
			if ((err = pretest(b, m, c, count, pass)))
				return err;
			for (unsigned j = 0; j < count; j++) {
				if (!pass[j])
					continue;
				if ((err = mr_rounds(b, &m[j], c[j], rounds, st)) < 0)
					return err;
				if (err) {
					bn_copy(p, c[j], words);
					*mp = m[j];
					return 0;
				}
			}
		}
	}
	return KEYGEN_ERR_SEARCH;
}

int keygen(const rsa_backend *b, unsigned bits, const unsigned char *seed, size_t seed_len, rsa_key *k,
           struct keygen_stats *st)
{
	mont_ctx *mp = &ks.mp, *mq = &ks.mq;
	uint32_t *pm1 = ks.pm1, *qm1 = ks.qm1, *g = ks.g, *pm2 = ks.pm2, *lambda = ks.lambda;
	unsigned pbits = bits / 2, pw = pbits / 32, nw = bits / 32;
	uint32_t faults = sha256_sel_faults();
	int err;

	memset(k, 0, sizeof(*k));
	memset(st, 0, sizeof(*st));
	if (bits % 64 || bits < KEYGEN_MIN_BITS || bits > BN_MAX_BITS)
		return KEYGEN_ERR_SIZE;
	keygen_prepare();
	br_hmac_drbg_init(&ks.drbg, &sha256_sel_vtable, seed, seed_len);

	for (;;) {
		if ((err = find_prime(b, pbits, k->p, mp, NULL, st)))
			break;
	another_q:
		if ((err = find_prime(b, pbits, k->q, mq, k->p, st)))
			break;

		/* lambda = lcm(p-1, q-1) = (p-1) * ((q-1)/g), g = gcd(p-1, q-1) = 2 gcd((p-1)/2, (q-1)/2), both odd
		   (p = q = 3 mod 4). The exact division needs g/2 to fit a limb: else (hardly ever) another q. */
		for (unsigned j = 0; j < pw; j++) {
			pm1[j] = k->p[j] >> 1 | (j + 1 < pw ? k->p[j + 1] << 31 : 0);
			qm1[j] = k->q[j] >> 1 | (j + 1 < pw ? k->q[j + 1] << 31 : 0);
		}
		bn_copy(g, pm1, pw);
		bn_copy(lambda, qm1, pw);
		bn_gcd_odd(g, lambda, pw, pbits);
		if (bn_bits(g, pw) > 32) {
			st->restarts++;
			goto another_q;
		}
		bn_divexact_odd(qm1, qm1, pw, g[0]);              /* (q-1)/g */
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
			*mp = *mq;
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
		err = b->exp(mp, k->qinv, k->q, pm2, pbits, 1);
		k->has_crt = 1;
	}
	if (err) {
		bn_wipe(k, sizeof(*k));
		return err == KEYGEN_ERR_SEARCH ? err : KEYGEN_ERR_HW;
	}
	/* a DRBG over a faulted hash drew other candidates than the seed gives: not the seed's key */
	if (sha256_sel_faults() != faults) {
		bn_wipe(k, sizeof(*k));
		return KEYGEN_ERR_HASH;
	}
	return KEYGEN_OK;
}

/* ---- one constant-time step of the search on a given candidate (the console's keygen_step) ---- */

int keygen_step_load(const uint32_t *c, unsigned words)
{
	keygen_wipe();
	if (words < KEYGEN_MIN_BITS / 64 || words > HALF_WORDS || c[words - 1] >> 30 != 3 || (c[0] & 3) != 3)
		return KEYGEN_ERR_CANDIDATE;
	keygen_prepare();
	bn_copy(ks.c[0], c, words);
	br_hmac_drbg_init(&ks.drbg, &sha256_sel_vtable, c, 4 * words);
	draw_base(ks.base, c, words, 1);
	ks.m[0].words = words;                            /* the candidate's length, until the step's set-up */
	return KEYGEN_OK;
}

int keygen_step_run(const rsa_backend *b, int step)
{
	unsigned words = ks.m[0].words;
	int pass = 0, err;

	if (words == 0)
		return KEYGEN_ERR_CANDIDATE;
	candidate_one(&ks.m[0], ks.c[0], words);
	if (step == KEYGEN_STEP_PRETEST) {
		err = pretest(b, ks.m, ks.c, 1, &pass);
	} else {
		/* mr_round's work, but with no test of the verdict on the way out: the search branches on it
		   (a composite is dropped, which shows anyway), a timed step must not. */
		half_of(ks.half, ks.c[0], words);
		if (!(err = candidate_rr(b, &ks.m[0])) && !(err = b->exp(&ks.m[0], ks.r, ks.base, ks.half, 32 * words, 1)))
			pass = mr_verdict(&ks.m[0], ks.r);
	}
	return err ? KEYGEN_ERR_HW : pass;
}

#else

void keygen_prepare(void)
{
}

void keygen_wipe(void)
{
}

int keygen_step_load(const uint32_t *c, unsigned words)
{
	(void)c; (void)words;
	return KEYGEN_ERR_UNAVAILABLE;
}

int keygen_step_run(const rsa_backend *b, int step)
{
	(void)b; (void)step;
	return KEYGEN_ERR_UNAVAILABLE;
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
