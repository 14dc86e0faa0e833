/*
 * mbedTLS 2.28.3 as a peer implementation: mbedtls_rsa_public, and mbedtls_rsa_private with the
 * library's CRT and blinding, on our keys. Built only when soc/peer_libs.py fetched the library
 * (firmware/Makefile compiles bignum.c, rsa.c and what they need, with peers/mbedtls_config.h).
 *
 * Private without CRT: mbedTLS chooses CRT or not at compile time (MBEDTLS_RSA_NO_CRT). The
 * Makefile compiles the library's rsa.c a second time with that option and keeps only its
 * mbedtls_rsa_private, renamed mbedtls_rsa_private_no_crt; the context layout does not depend on the
 * option, so both functions run on the same context.
 *
 * Blinding needs random numbers: we pass a deterministic generator (xorshift32 with a fixed seed),
 * so every run draws the same blinding values and gives the same cycle counts. It is a benchmark's
 * generator, not a source of secrets: a real device passes a DRBG (CTR_DRBG, HMAC_DRBG) here, which
 * costs a few more cycles per operation than this one.
 *
 * There is no Montgomery-product row for mbedTLS: its product (mpi_montmul in bignum.c) is a
 * static function; the public API offers mbedtls_mpi_exp_mod and plain multiplication and
 * division, not a Montgomery product.
 */
#include <string.h>

#include "peers/peer_common.h"
#include "rsa/rsa_impls.h"

#if PEER_HAVE_MBEDTLS

#include "mbedtls/memory_buffer_alloc.h"
#include "mbedtls/rsa.h"

/* The library's heap. Its peak, measured with MBEDTLS_MEMORY_DEBUG in a host build of this code
   (64-bit limbs, larger block headers than here): 8.6 KB through RSA-2048, 14.6 KB through RSA-4096. */
#ifndef PEER_MBEDTLS_HEAP
#define PEER_MBEDTLS_HEAP (24 * 1024)
#endif

/* rsa.c compiled with MBEDTLS_RSA_NO_CRT (firmware/Makefile). */
int mbedtls_rsa_private_no_crt(mbedtls_rsa_context *ctx, int (*f_rng)(void *, unsigned char *, size_t),
                               void *p_rng, const unsigned char *input, unsigned char *output);

static unsigned char heap[PEER_MBEDTLS_HEAP] __attribute__((aligned(8)));
static mbedtls_rsa_context rsa;
static int heap_ready, key_loaded;
static uint32_t key_fingerprint;
static size_t len;
static unsigned char in[PEER_MAX_BYTES], out[PEER_MAX_BYTES];
static uint32_t rng_state;

#define RNG_SEED 0x6d626564u

static int deterministic_rng(void *unused, unsigned char *buf, size_t n)
{
	(void)unused;
	while (n--) {
		rng_state ^= rng_state << 13;
		rng_state ^= rng_state >> 17;
		rng_state ^= rng_state << 5;
		*buf++ = (unsigned char)rng_state;
	}
	return 0;
}

static int call(enum rsa_op_id op)
{
	switch (op) {
	case RSA_OP_PUBLIC:
		return mbedtls_rsa_public(&rsa, in, out);
	case RSA_OP_PRIVATE:
		return mbedtls_rsa_private_no_crt(&rsa, deterministic_rng, NULL, in, out);
	default:
		return mbedtls_rsa_private(&rsa, deterministic_rng, NULL, in, out);
	}
}

/* The key through mbedtls_rsa_import_raw (n, p, q, d, e) and mbedtls_rsa_complete, which derives
   dp, dq and qinv itself. Then, untimed, the values mbedTLS caches in the context on first use, so
   the timed operations see the library as it runs once a key is in use: R^2 mod n, p and q (made by
   the library's own exponentiation, which fills a context's cache when it finds it empty). The
   blinding pair is also made on first use, by the first private operation (rsa_prepare_blinding is
   internal, and a whole warm-up operation would double the simulation time of these rows): the
   bench's first mbedTLS private row (without CRT) carries it; README "Peer libraries" says how much. */
static int warm_cache(mbedtls_mpi *cache, const mbedtls_mpi *m)
{
	mbedtls_mpi one, r;
	int err;

	mbedtls_mpi_init(&one);
	mbedtls_mpi_init(&r);
	err = mbedtls_mpi_lset(&one, 1) || mbedtls_mpi_exp_mod(&r, &one, &one, m, cache);
	mbedtls_mpi_free(&one);
	mbedtls_mpi_free(&r);
	return err;
}

static int import(const rsa_key *k)
{
	static unsigned char n[PEER_MAX_BYTES], p[4 * RSA_HALF_WORDS], q[4 * RSA_HALF_WORDS],
	                     d[PEER_MAX_BYTES], e[PEER_MAX_BYTES];
	unsigned nw = BN_WORDS(k->bits);
	size_t nlen = peer_to_bytes_trimmed(n, k->n, nw), dlen = peer_to_bytes_trimmed(d, k->d, nw),
	       elen = peer_to_bytes_trimmed(e, k->e, nw), plen = peer_to_bytes_trimmed(p, k->p, RSA_HALF_WORDS),
	       qlen = peer_to_bytes_trimmed(q, k->q, RSA_HALF_WORDS);

	if (key_loaded)
		mbedtls_rsa_free(&rsa);
	key_loaded = 0;
	mbedtls_rsa_init(&rsa, MBEDTLS_RSA_PKCS_V15, 0);
	if (!k->has_crt
	    || mbedtls_rsa_import_raw(&rsa, n, nlen, p, plen, q, qlen, d, dlen, e, elen) != 0
	    || mbedtls_rsa_complete(&rsa) != 0 || mbedtls_rsa_check_privkey(&rsa) != 0) {
		mbedtls_rsa_free(&rsa);
		return RSA_ERR_KEY;
	}
	key_loaded = 1;
	len = mbedtls_rsa_get_len(&rsa);
	if (warm_cache(&rsa.RN, &rsa.N) || warm_cache(&rsa.RP, &rsa.P) || warm_cache(&rsa.RQ, &rsa.Q))
		return RSA_ERR_PEER;
	key_fingerprint = peer_key_fingerprint(k);
	return RSA_OK;
}

static int mbedtls_load(const rsa_key *k, enum rsa_op_id op, const uint32_t *x)
{
	int err;

	(void)op;
	if (!heap_ready) {
		mbedtls_memory_buffer_alloc_init(heap, sizeof(heap));
		heap_ready = 1;
	}
	if (!key_loaded || peer_key_fingerprint(k) != key_fingerprint)
		if ((err = import(k)) != RSA_OK)
			return err;
	rng_state = RNG_SEED;    /* every operation draws the same blinding values */
	peer_to_bytes(in, len, x);
	return RSA_OK;
}

static int mbedtls_run(enum rsa_op_id op)
{
	return call(op) == 0 ? RSA_OK : RSA_ERR_PEER;
}

static void mbedtls_store(uint32_t *r)
{
	peer_from_bytes(r, (unsigned)((len + 3) / 4), out, len);
}

/* mbedTLS byte-swaps with __builtin_bswap32, which GCC turns into a call to libgcc's __bswapsi2 on
   a CPU without a byte-swap instruction (rv32im); LiteX links compiler-rt, which has none here. */
uint32_t __bswapsi2(uint32_t v);
uint32_t __bswapsi2(uint32_t v)
{
	return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}

const struct rsa_peer peer_mbedtls = { 1, mbedtls_load, mbedtls_run, mbedtls_store, NULL };

#else

const struct rsa_peer peer_mbedtls = { 0, NULL, NULL, NULL, NULL };

#endif
