/*
 * BearSSL 0.6 as a peer implementation: br_rsa_i31_public and br_rsa_i31_private (the i31 code:
 * 31-bit limbs, constant-time by construction, CRT always), on our keys. Built only when
 * soc/peer_libs.py fetched the library (firmware/Makefile compiles the i31 big-integer files and the
 * two RSA files).
 *
 * BearSSL's private operation is always CRT; its API has no private operation without CRT. For that
 * row we call br_rsa_i31_public with d as the exponent: the same constant-time br_i31_modpow_opt
 * over n's full length that BearSSL's RSA runs, without CRT. BearSSL does not check a CRT result with
 * e before releasing it (mbedTLS and our rsa.c do: about one public operation more).
 *
 * The Montgomery-product row times br_i31_montymul (declared in BearSSL's inner.h: part of the
 * library's big-integer layer every i31 algorithm uses, not of its documented public API). Its R is
 * 2^(31*limbs), not ours, so the check composes it with br_i31_to_monty to get a*b mod n.
 */
#include "drivers/cycles.h"
#include "peers/peer_common.h"
#include "rsa/rsa_impls.h"

#if PEER_HAVE_BEARSSL

#include "bearssl_rsa.h"
#include "inner.h"

#define I31_WORDS (2 + (BN_MAX_BITS + 30) / 31)
#define MUL_REPEAT 4

static unsigned char n[PEER_MAX_BYTES], e[PEER_MAX_BYTES], d[PEER_MAX_BYTES], p[4 * RSA_HALF_WORDS],
                     q[4 * RSA_HALF_WORDS], dp[4 * RSA_HALF_WORDS], dq[4 * RSA_HALF_WORDS],
                     iq[4 * RSA_HALF_WORDS];
static unsigned char x[PEER_MAX_BYTES];
static br_rsa_public_key pk, pk_d;
static br_rsa_private_key sk;
static int key_loaded;
static uint32_t key_fingerprint;
static size_t len;

/* A factor-sized value (RSA_HALF_WORDS limbs) as bytes, without leading zero bytes. */
static size_t half(unsigned char *out, const uint32_t *a)
{
	return peer_to_bytes_trimmed(out, a, RSA_HALF_WORDS);
}

static int import(const rsa_key *k)
{
	size_t elen;

	len = peer_bytes(k->bits);
	if (!k->has_crt)
		return RSA_ERR_KEY;
	peer_to_bytes(n, len, k->n);
	elen = peer_to_bytes_trimmed(e, k->e, BN_WORDS(k->bits));   /* BearSSL's time follows e's length */
	peer_to_bytes(d, len, k->d);   /* d over n's length: constant time whatever d's top bits */
	pk = (br_rsa_public_key){ n, len, e, elen };
	pk_d = (br_rsa_public_key){ n, len, d, len };
	sk.n_bitlen = k->bits;
	sk.plen = half(p, k->p);
	sk.qlen = half(q, k->q);
	sk.dplen = half(dp, k->dp);
	sk.dqlen = half(dq, k->dq);
	sk.iqlen = half(iq, k->qinv);
	sk.p = p; sk.q = q; sk.dp = dp; sk.dq = dq; sk.iq = iq;
	key_loaded = 1;
	key_fingerprint = peer_key_fingerprint(k);
	return RSA_OK;
}

static int bearssl_load(const rsa_key *k, enum rsa_op_id op, const uint32_t *in)
{
	int err;

	(void)op;
	if (!key_loaded || peer_key_fingerprint(k) != key_fingerprint)
		if ((err = import(k)) != RSA_OK)
			return err;
	peer_to_bytes(x, len, in);
	return RSA_OK;
}

static int bearssl_run(enum rsa_op_id op)
{
	uint32_t ok;

	switch (op) {
	case RSA_OP_PUBLIC:
		ok = br_rsa_i31_public(x, len, &pk);
		break;
	case RSA_OP_PRIVATE:
		ok = br_rsa_i31_public(x, len, &pk_d);
		break;
	default:
		ok = br_rsa_i31_private(x, &sk);
		break;
	}
	return ok ? RSA_OK : RSA_ERR_PEER;
}

static void bearssl_store(uint32_t *r)
{
	peer_from_bytes(r, (unsigned)((len + 3) / 4), x, len);
}

static uint64_t bearssl_mul_cycles(const rsa_key *k, const mont_ctx *ctx, const uint32_t *a, const uint32_t *b,
                                   int *ok)
{
	static uint32_t m[I31_WORDS], xa[I31_WORDS], xb[I31_WORDS], r[I31_WORDS], check[BN_MAX_WORDS],
	                ab[BN_MAX_WORDS], ours[BN_MAX_WORDS];
	unsigned nw = BN_WORDS(k->bits), i;
	uint32_t m0i;
	timed_region t;
	uint64_t cycles;

	len = peer_bytes(k->bits);
	key_loaded = 0;      /* n, x are reused below */
	peer_to_bytes(n, len, k->n);
	br_i31_decode(m, n, len);
	m0i = br_i31_ninv31(m[1]);
	peer_to_bytes(x, len, a);
	*ok = br_i31_decode_mod(xa, x, len, m) == 1;
	peer_to_bytes(x, len, b);
	*ok &= br_i31_decode_mod(xb, x, len, m) == 1;
	t = timed_start();
	for (i = 0; i < MUL_REPEAT; i++)
		br_i31_montymul(r, xa, xb, m, m0i);
	cycles = timed_stop(t) / MUL_REPEAT;
	/* a*b mod n both ways: BearSSL's product of a*R31 and b, ours of a*b*R^-1 and R^2. */
	br_i31_to_monty(xa, m);
	br_i31_montymul(r, xa, xb, m, m0i);
	br_i31_encode(x, len, r);
	peer_from_bytes(check, nw, x, len);
	mont_mul(ctx, ab, a, b);
	mont_mul(ctx, ours, ab, ctx->rr);
	*ok &= bn_cmp(check, ours, nw) == 0;
	return cycles;
}

const struct rsa_peer peer_bearssl = { 1, bearssl_load, bearssl_run, bearssl_store, bearssl_mul_cycles };

#else

const struct rsa_peer peer_bearssl = { 0, NULL, NULL, NULL, NULL };

#endif
