/* Raw RSA over a backend (see rsa.h): written once for every implementation. */
#include "rsa/rsa.h"
#include "bignum/ct.h"
#include "drivers/profile.h"

/* Intermediates (static: single-threaded firmware, see rsa.h); wiped before every return. */
static uint32_t xp[RSA_HALF_WORDS], m1[RSA_HALF_WORDS], m2[RSA_HALF_WORDS], h[RSA_HALF_WORDS];
static uint32_t wide[BN_MAX_WORDS], sum[BN_MAX_WORDS], check[BN_MAX_WORDS];

/* Runs a step of an operation that holds intermediates: on an error, goes to its `done:`, which clears
   the output and wipes them (a backend's error is passed on as it is). */
#define RSA_TRY(x) do { err = (x); if (err != RSA_OK) goto done; } while (0)

/* ---- key set-up (once per key; not constant-time) ---- */

/* A prime factor as stored in the key: odd, > 1, and fits RSA_HALF_WORDS limbs. */
static int factor_ok(const uint32_t *f)
{
	return (f[0] & 1) && bn_bits(f, RSA_HALF_WORDS) > 1;
}

/* The CRT half of rsa_ctx_init: the factors' contexts, the constants of Garner's step, and the
   checks p*q == n, dp < p, dq < q, qinv < p. 0 or -1. */
static int crt_ctx_init(rsa_ctx *c, const rsa_key *k)
{
	const unsigned nw = BN_WORDS(k->bits);

	if (!factor_ok(k->p) || !factor_ok(k->q))
		return -1;
	const unsigned pw = BN_WORDS(bn_bits(k->p, RSA_HALF_WORDS));
	const unsigned qw = BN_WORDS(bn_bits(k->q, RSA_HALF_WORDS));
	const unsigned mw = pw > qw ? pw : qw;
	if (2 * mw < nw || mont_init(&c->p, k->p, pw) != 0 || mont_init(&c->q, k->q, qw) != 0)
		return -1;
	if (bn_cmp(k->dp, k->p, pw) >= 0 || bn_cmp(k->dq, k->q, qw) >= 0 || bn_cmp(k->qinv, k->p, pw) >= 0)
		return -1;
	/* A wrong factor would make every CRT result fail the check anyway; say so now. */
	bn_zero(xp, RSA_HALF_WORDS);
	bn_zero(h, RSA_HALF_WORDS);
	bn_copy(xp, k->q, qw);
	bn_copy(h, k->p, pw);
	bn_mul(check, xp, h, mw);   /* 2*mw limbs <= BN_MAX_WORDS */
	int same = bn_cmp(check, k->n, nw) == 0 && bn_bits(check, 2 * mw) == k->bits;
	if (!same)
		return -1;
	/* p and q widened to n's limb count: reduce n-sized values modulo the factors (see rsa.h). */
	bn_zero(wide, nw);
	bn_copy(wide, k->p, pw);
	if (mont_init(&c->p_wide, wide, nw) != 0)
		return -1;
	bn_zero(wide, nw);
	bn_copy(wide, k->q, qw);
	if (mont_init(&c->q_wide, wide, nw) != 0)
		return -1;
	mont_to(&c->n, c->q_m, wide);          /* q * R_n mod n */
	/* 2^(32*nw) mod p (p_wide's one) times R_p, and the same for q */
	bn_zero(xp, RSA_HALF_WORDS);
	bn_copy(xp, c->p_wide.one, pw);
	mont_to(&c->p, c->p_k, xp);
	bn_zero(xp, RSA_HALF_WORDS);
	bn_copy(xp, c->q_wide.one, qw);
	mont_to(&c->q, c->q_k, xp);
	bn_zero(xp, RSA_HALF_WORDS);
	bn_copy(xp, k->qinv, pw);
	mont_to(&c->p, c->qinv_m, xp);         /* qinv * R_p mod p */
	return 0;
}

int rsa_ctx_init(rsa_ctx *c, const rsa_key *k)
{
	int err = RSA_OK;

	bn_wipe(c, sizeof(*c));
	if (k->bits < 16 || k->bits > BN_MAX_BITS)
		return RSA_ERR_KEY;
	const unsigned nw = BN_WORDS(k->bits);
	if (bn_bits(k->n, nw) != k->bits || (k->e[0] & 1) == 0 || bn_bits(k->e, nw) < 2
	    || mont_init(&c->n, k->n, nw) != 0)
		err = RSA_ERR_KEY;
	else if (k->has_crt && crt_ctx_init(c, k) != 0)
		err = RSA_ERR_KEY;
	if (err != RSA_OK)
		bn_wipe(c, sizeof(*c));
	bn_wipe(xp, sizeof(xp));
	bn_wipe(h, sizeof(h));
	bn_wipe(wide, sizeof(wide));
	bn_wipe(check, sizeof(check));
	return err;
}

/* ---- operations ---- */

/* The context must have been made for this key's modulus; in must be below n (a full-length,
   constant-time comparison: the message may be secret). */
static int check_args(const rsa_key *k, const rsa_ctx *c, const uint32_t *in)
{
	if (k->bits < 16 || k->bits > BN_MAX_BITS)
		return RSA_ERR_KEY;
	const unsigned nw = BN_WORDS(k->bits);
	if (c->n.words != nw)
		return RSA_ERR_KEY;
	uint32_t same;
	const int below = bn_less_same(in, k->n, c->n.n, nw, &same);
	if (!same)
		return RSA_ERR_KEY;
	if (!below)
		return RSA_ERR_RANGE;
	return RSA_OK;
}

/* An operation on a key of nw limbs writes only the first nw limbs of each intermediate (a factor has
   at most nw limbs), and every operation and the key set-up wipe what they wrote: the rest is zero. */
static void wipe_intermediates(unsigned nw)
{
	const size_t half = (nw < RSA_HALF_WORDS ? nw : RSA_HALF_WORDS) * sizeof(uint32_t);
	const size_t full = nw * sizeof(uint32_t);

	bn_wipe(xp, half);
	bn_wipe(m1, half);
	bn_wipe(m2, half);
	bn_wipe(h, half);
	bn_wipe(wide, full);
	bn_wipe(sum, full);
	bn_wipe(check, full);
}

int rsa_public(const rsa_backend *b, const rsa_key *k, const rsa_ctx *c, uint32_t *out, const uint32_t *in)
{
	int err = check_args(k, c, in);

	if (err != RSA_OK)
		return err;
	const unsigned nw = BN_WORDS(k->bits);
	return b->exp(&c->n, out, in, k->e, bn_bits(k->e, nw), 0);
}

int rsa_private(const rsa_backend *b, const rsa_key *k, const rsa_ctx *c, uint32_t *out, const uint32_t *in)
{
	int err = check_args(k, c, in);

	if (err != RSA_OK)
		return err;
	/* The modulus' length, not bn_bits(d): the exponent's length is not revealed either. */
	return b->exp(&c->n, out, in, k->d, k->bits, 1);
}

/* r (the factor's limbs) = x mod the factor, x of n's limbs: one product with 2^(32*nw) mod f. */
static int reduce(const rsa_backend *b, const mont_ctx *f_wide, unsigned fw, uint32_t *r, const uint32_t *x)
{
	int err = b->mul(f_wide, wide, x, f_wide->one);

	bn_copy(r, wide, fw);
	return err;
}

int rsa_private_crt(const rsa_backend *b, const rsa_key *k, const rsa_ctx *c, uint32_t *out,
                    const uint32_t *in)
{
	int err = check_args(k, c, in);

	if (err != RSA_OK)
		return err;
	if (!k->has_crt || c->p.words == 0 || c->q.words == 0)
		return RSA_ERR_KEY;
	const unsigned nw = c->n.words, pw = c->p.words, qw = c->q.words;

	profile_step(PROFILE_EXP);
	if (b->crt && qw <= pw && 2 * qw >= nw) {
		/* the backend does it all and writes nothing here: no intermediate to wipe */
		err = b->crt(k, c, out, in);
		if (err == RSA_ERR_HW)     /* one test whether the check passed or not: the same cycles */
			bn_zero(out, nw);
		return err;
	}
	/* m2 = in^dq mod q, m1 = in^dp mod p; the exponents' declared length is the factor's (the larger
	   one's when both run at once). (In this order the products modulo p follow each other, and so do
	   those modulo n: a backend that keeps its modulus loaded loads each once.) */
	if (b->crt_exp && pw <= b->pair_max_limbs && qw <= b->pair_max_limbs) {
		RSA_TRY(b->crt_exp(&c->p, m1, k->dp, c->p_k, &c->q, m2, k->dq, c->q_k, in, nw, 32 * (pw > qw ? pw : qw)));
	} else {
		RSA_TRY(reduce(b, &c->q_wide, qw, xp, in));
		RSA_TRY(b->exp(&c->q, m2, xp, k->dq, 32 * qw, 1));
		RSA_TRY(reduce(b, &c->p_wide, pw, xp, in));
		RSA_TRY(b->exp(&c->p, m1, xp, k->dp, 32 * pw, 1));
	}
	profile_step(PROFILE_GARNER);
	/* Garner: h = (m1 - m2 mod p) * qinv mod p. m2 < q may exceed p: when q < 2p (fewer limbs than p,
	   or as many with q's top limb + 1 <= twice p's) by less than p, so subtracting p where it does not
	   borrow reduces it; otherwise by a product with R_p mod p (needs m2 < R_p, true when q has no
	   more limbs than p), else in the widened context. */
	bn_zero(wide, nw);
	bn_copy(wide, m2, qw);
	if (qw < pw || (qw == pw && (uint64_t)c->q.n[qw - 1] < 2 * (uint64_t)c->p.n[pw - 1]))
		mont_sub(&c->p, h, wide, c->p.n);
	else if (qw <= pw)
		RSA_TRY(b->mul(&c->p, h, wide, c->p.one));
	else
		RSA_TRY(reduce(b, &c->p_wide, pw, h, wide));
	mont_sub(&c->p, h, m1, h);
	RSA_TRY(b->mul(&c->p, h, h, c->qinv_m));
	profile_step(PROFILE_RECOMBINE);
	/* out = m2 + q*h < q*p = n: the product q*h is below n, so the product modulo n is exact. */
	bn_zero(wide, nw);
	bn_copy(wide, h, pw);
	RSA_TRY(b->mul(&c->n, sum, wide, c->q_m));
	bn_zero(wide, nw);
	bn_copy(wide, m2, qw);
	bn_add(sum, sum, wide, nw);
	/* Release only what the public exponent maps back to the input (fault attacks on the CRT). The
	   result is masked into the output, not branched on: a failed check takes the cycles a passed one
	   does (a decryption that fails it must not be told apart by its time, as OAEP's defects are not). */
	profile_step(PROFILE_CHECK);
	RSA_TRY(b->exp(&c->n, check, sum, k->e, bn_bits(k->e, nw), 0));
	profile_step(PROFILE_RELEASE);
	{
		uint32_t diff = 0, same;
		for (unsigned i = 0; i < nw; i++)
			diff |= check[i] ^ in[i];
		same = ct_eq_mask(diff, 0);
		for (unsigned i = 0; i < nw; i++)
			out[i] = sum[i] & same;
		err = (int)ct_select_u32(same, (uint32_t)RSA_OK, (uint32_t)RSA_ERR_FAULT);
	}
	profile_step(PROFILE_WIPE);
	wipe_intermediates(nw);
	return err;
done:
	bn_zero(out, nw);
	wipe_intermediates(nw);
	return err;
}
