/* Software RSA on top of the Montgomery arithmetic (see rsa_sw.h). */
#include "rsa_sw.h"

#define HALF_WORDS (BN_MAX_WORDS / 2)

/* Intermediates of the CRT private operation (static: single-threaded firmware, see rsa_sw.h). */
static uint32_t crt_xp[HALF_WORDS], crt_m1[HALF_WORDS], crt_m2[HALF_WORDS], crt_t[HALF_WORDS];
static uint32_t crt_qpad[HALF_WORDS], crt_hpad[HALF_WORDS];
static uint32_t crt_m[BN_MAX_WORDS], crt_check[BN_MAX_WORDS];

static unsigned words_for(unsigned bits)
{
	return (bits + 31) / 32;
}

/* A prime factor as stored in the key: odd, > 1, and fits BN_MAX_WORDS/2 limbs. */
static int factor_ok(const uint32_t *f)
{
	return (f[0] & 1) && bn_bits(f, HALF_WORDS) > 1;
}

/* The CRT half of rsa_ctx_init: Montgomery constants of p and q, and p*q == n. 0 or -1. */
static int crt_ctx_init(rsa_ctx *c, const rsa_key *k)
{
	const unsigned nw = words_for(k->bits);

	if (!factor_ok(k->p) || !factor_ok(k->q))
		return -1;
	const unsigned pw = words_for(bn_bits(k->p, HALF_WORDS));
	const unsigned qw = words_for(bn_bits(k->q, HALF_WORDS));
	const unsigned mw = pw > qw ? pw : qw;
	if (mont_init(&c->p, k->p, pw) != 0 || mont_init(&c->q, k->q, qw) != 0)
		return -1;
	/* A wrong factor would make every CRT result fail the check anyway; say so now. */
	bn_zero(crt_qpad, HALF_WORDS);
	bn_zero(crt_hpad, HALF_WORDS);
	bn_copy(crt_qpad, k->q, qw);
	bn_copy(crt_hpad, k->p, pw);
	bn_mul(crt_m, crt_qpad, crt_hpad, mw);
	int same = 2 * mw >= nw && bn_cmp(crt_m, k->n, nw) == 0 && bn_bits(crt_m, 2 * mw) == k->bits;
	bn_wipe(crt_m, sizeof(crt_m));
	bn_wipe(crt_hpad, sizeof(crt_hpad));
	return same ? 0 : -1;
}

int rsa_ctx_init(rsa_ctx *c, const rsa_key *k)
{
	bn_wipe(c, sizeof(*c));
	if (k->bits < 16 || k->bits > BN_MAX_BITS)
		return RSA_ERR_KEY;
	const unsigned nw = words_for(k->bits);
	if (bn_bits(k->n, nw) != k->bits || (k->e[0] & 1) == 0 || bn_bits(k->e, nw) < 2)
		return RSA_ERR_KEY;
	if (mont_init(&c->n, k->n, nw) != 0)
		return RSA_ERR_KEY;
	if (k->has_crt && crt_ctx_init(c, k) != 0) {
		bn_wipe(c, sizeof(*c));
		return RSA_ERR_KEY;
	}
	return RSA_OK;
}

/* The context must have been made for this key's modulus; in must be below n. */
static int check_args(const rsa_key *k, const rsa_ctx *c, const uint32_t *in)
{
	if (k->bits < 16 || k->bits > BN_MAX_BITS)
		return RSA_ERR_KEY;
	const unsigned nw = words_for(k->bits);
	if (c->n.words != nw || bn_cmp(c->n.n, k->n, nw) != 0)
		return RSA_ERR_KEY;
	if (bn_cmp(in, k->n, nw) >= 0)
		return RSA_ERR_RANGE;
	return RSA_OK;
}

int rsa_public(const rsa_key *k, const rsa_ctx *c, uint32_t *out, const uint32_t *in)
{
	int err = check_args(k, c, in);

	if (err != RSA_OK)
		return err;
	const unsigned nw = words_for(k->bits);
	mont_exp_window(&c->n, out, in, k->e, bn_bits(k->e, nw));
	return RSA_OK;
}

int rsa_private(const rsa_key *k, const rsa_ctx *c, uint32_t *out, const uint32_t *in)
{
	int err = check_args(k, c, in);

	if (err != RSA_OK)
		return err;
	/* Full modulus length, not bn_bits(d): the exponent's length is not revealed either. */
	mont_exp_fixed(&c->n, out, in, k->d, k->bits);
	return RSA_OK;
}

static void crt_wipe(void)
{
	bn_wipe(crt_xp, sizeof(crt_xp));
	bn_wipe(crt_m1, sizeof(crt_m1));
	bn_wipe(crt_m2, sizeof(crt_m2));
	bn_wipe(crt_t, sizeof(crt_t));
	bn_wipe(crt_qpad, sizeof(crt_qpad));
	bn_wipe(crt_hpad, sizeof(crt_hpad));
	bn_wipe(crt_m, sizeof(crt_m));
	bn_wipe(crt_check, sizeof(crt_check));
}

int rsa_private_crt(const rsa_key *k, const rsa_ctx *c, uint32_t *out, const uint32_t *in)
{
	int err = check_args(k, c, in);

	if (err != RSA_OK)
		return err;
	const mont_ctx *cp = &c->p, *cq = &c->q;
	const unsigned nw = words_for(k->bits), pw = cp->words, qw = cq->words;
	const unsigned mw = pw > qw ? pw : qw;
	if (!k->has_crt || pw == 0 || qw == 0
	    || bn_cmp(cp->n, k->p, pw) != 0
	    || bn_cmp(cq->n, k->q, qw) != 0
	    || bn_cmp(k->dp, k->p, pw) >= 0 || bn_cmp(k->dq, k->q, qw) >= 0)
		return RSA_ERR_KEY;
	const unsigned pbits = bn_bits(k->p, pw), qbits = bn_bits(k->q, qw);

	/* m1 = in^dp mod p, kept in p's Montgomery domain (m1*Rp). */
	mont_to_wide(cp, crt_xp, in, nw);
	mont_exp_fixed_m(cp, crt_m1, crt_xp, k->dp, pbits);
	/* m2 = in^dq mod q, back in the normal domain. */
	mont_to_wide(cq, crt_xp, in, nw);
	mont_exp_fixed_m(cq, crt_m2, crt_xp, k->dq, qbits);
	mont_from(cq, crt_m2, crt_m2);
	/* h = (m1 - m2) * qinv mod p: MM((m1 - m2)*Rp, qinv) leaves the Montgomery domain by itself. */
	mont_to_wide(cp, crt_xp, crt_m2, qw);
	mont_sub(cp, crt_t, crt_m1, crt_xp);
	mont_mul(cp, crt_t, crt_t, k->qinv);
	/* m = m2 + q*h < q*p = n. */
	bn_zero(crt_qpad, HALF_WORDS);
	bn_zero(crt_hpad, HALF_WORDS);
	bn_copy(crt_qpad, k->q, qw);
	bn_copy(crt_hpad, crt_t, pw);
	bn_mul(crt_m, crt_qpad, crt_hpad, mw);
	bn_zero(crt_hpad, HALF_WORDS);
	bn_copy(crt_hpad, crt_m2, qw);
	uint32_t carry = bn_add(crt_m, crt_m, crt_hpad, mw);
	for (unsigned j = mw; j < 2 * mw; j++) {   /* propagate into the upper half */
		uint64_t s = (uint64_t)crt_m[j] + carry;
		crt_m[j] = (uint32_t)s;
		carry = (uint32_t)(s >> 32);
	}

	/* Release only what the public exponent maps back to the input (fault attacks on the CRT). */
	int ok = carry == 0 && bn_bits(crt_m, 2 * mw) <= k->bits && bn_cmp(crt_m, k->n, nw) < 0;
	if (ok) {
		mont_exp_window(&c->n, crt_check, crt_m, k->e, bn_bits(k->e, nw));
		ok = bn_cmp(crt_check, in, nw) == 0;
	}
	if (ok)
		bn_copy(out, crt_m, nw);
	else
		bn_zero(out, nw);
	crt_wipe();
	return ok ? RSA_OK : RSA_ERR_FAULT;
}
