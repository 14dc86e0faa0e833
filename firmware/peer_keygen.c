/* Key generation by the peer libraries (peer_keygen.h). */
#include <string.h>

#include "cycles.h"
#include "keygen.h"
#include "peer_common.h"
#include "peer_keygen.h"
#include "rsa_impls.h"

#if PEER_HAVE_BEARSSL
#include "bearssl_hash.h"
#include "bearssl_rand.h"
#include "bearssl_rsa.h"
#endif
#if PEER_HAVE_MBEDTLS
#include "mbedtls/rsa.h"
#endif

int peer_keygen_find(const char *name)
{
	const struct rsa_impl *impl = rsa_impl_find(name);

	if (!impl || !impl->peer || !impl->peer->built)
		return -1;
	return impl->peer == &peer_mbedtls ? PEER_KEYGEN_MBEDTLS : PEER_KEYGEN_BEARSSL;
}

#if PEER_HAVE_BEARSSL

static br_hmac_drbg_context drbg;
/* Big-endian bytes of one key value on its way into an rsa_key. */
static unsigned char value[PEER_MAX_BYTES];

#if PEER_HAVE_MBEDTLS

/* mbedTLS's generator callback: the HMAC-DRBG, which has no way to fail. */
static int drbg_bytes(void *ctx, unsigned char *out, size_t len)
{
	br_hmac_drbg_generate(ctx, out, len);
	return 0;
}

/* mbedTLS allocates from the heap peer_mbedtls.c gives it. Its load() with a key that is not one (no
   CRT values) makes that heap if the console has not used the library yet, frees the key the library
   holds (the generated key replaces the user's key, which the library would re-import anyway) and
   fails, leaving the whole heap to key generation. */
static void mbedtls_heap_ready(void)
{
	static const rsa_key no_key;
	static const uint32_t no_input[BN_MAX_WORDS];

	peer_mbedtls.load(&no_key, RSA_OP_PUBLIC, no_input);
}

static int export_mpi(uint32_t *r, unsigned words, const mbedtls_mpi *x)
{
	if (mbedtls_mpi_write_binary(x, value, 4 * words))
		return -1;
	peer_from_bytes(r, words, value, 4 * words);
	return 0;
}

static int mbedtls_keygen(unsigned bits, rsa_key *k, uint64_t *cycles, int *lib_code)
{
	static mbedtls_rsa_context ctx;
	unsigned nw = BN_WORDS(bits), pw = nw / 2;
	timed_region t;
	int err;

	mbedtls_heap_ready();
	mbedtls_rsa_init(&ctx, MBEDTLS_RSA_PKCS_V15, 0);
	t = timed_start();
	err = mbedtls_rsa_gen_key(&ctx, drbg_bytes, &drbg, bits, KEYGEN_PUBLIC_EXPONENT);
	*cycles = timed_stop(t);
	if (!err && (export_mpi(k->n, nw, &ctx.N) || export_mpi(k->e, nw, &ctx.E) || export_mpi(k->d, nw, &ctx.D)
	             || export_mpi(k->p, pw, &ctx.P) || export_mpi(k->q, pw, &ctx.Q)
	             || export_mpi(k->dp, pw, &ctx.DP) || export_mpi(k->dq, pw, &ctx.DQ)
	             || export_mpi(k->qinv, pw, &ctx.QP)))
		err = -1;    /* a value longer than the size asked for */
	mbedtls_rsa_free(&ctx);
	*lib_code = err;
	return err ? PEER_KEYGEN_ERR_LIBRARY : KEYGEN_OK;
}

#endif /* PEER_HAVE_MBEDTLS */

static int bearssl_keygen(unsigned bits, rsa_key *k, uint64_t *cycles, int *lib_code)
{
	static unsigned char kbuf_priv[BR_RSA_KBUF_PRIV_SIZE(BN_MAX_BITS)], kbuf_pub[BR_RSA_KBUF_PUB_SIZE(BN_MAX_BITS)];
	br_rsa_private_key sk;
	br_rsa_public_key pk;
	unsigned nw = BN_WORDS(bits), pw = nw / 2;
	timed_region t;
	uint32_t made;
	size_t dlen = 0;

	t = timed_start();
	made = br_rsa_i31_keygen(&drbg.vtable, &sk, kbuf_priv, &pk, kbuf_pub, bits, KEYGEN_PUBLIC_EXPONENT);
	*cycles = timed_stop(t);
	/* d is not part of BearSSL's private key: computed from p, q and e, as the library offers it. */
	if (made && sk.n_bitlen == bits)
		dlen = br_rsa_i31_compute_privexp(value, &sk, KEYGEN_PUBLIC_EXPONENT);
	*lib_code = made ? 0 : 1;
	if (!dlen) {
		memset(kbuf_priv, 0, sizeof(kbuf_priv));
		return PEER_KEYGEN_ERR_LIBRARY;
	}
	peer_from_bytes(k->d, nw, value, dlen);
	peer_from_bytes(k->n, nw, pk.n, pk.nlen);
	peer_from_bytes(k->e, nw, pk.e, pk.elen);
	peer_from_bytes(k->p, pw, sk.p, sk.plen);
	peer_from_bytes(k->q, pw, sk.q, sk.qlen);
	peer_from_bytes(k->dp, pw, sk.dp, sk.dplen);
	peer_from_bytes(k->dq, pw, sk.dq, sk.dqlen);
	peer_from_bytes(k->qinv, pw, sk.iq, sk.iqlen);
	memset(kbuf_priv, 0, sizeof(kbuf_priv));
	return KEYGEN_OK;
}

int peer_keygen(enum peer_keygen_lib lib, unsigned bits, const unsigned char *seed, size_t seed_len, rsa_key *k,
                uint64_t *cycles, int *lib_code)
{
	int err = PEER_KEYGEN_ERR_LIBRARY;

	memset(k, 0, sizeof(*k));
	*cycles = 0;
	*lib_code = 0;
	br_hmac_drbg_init(&drbg, &br_sha256_vtable, seed, seed_len);
	if (lib == PEER_KEYGEN_BEARSSL)
		err = bearssl_keygen(bits, k, cycles, lib_code);
#if PEER_HAVE_MBEDTLS
	else
		err = mbedtls_keygen(bits, k, cycles, lib_code);
#endif
	memset(&drbg, 0, sizeof(drbg));
	memset(value, 0, sizeof(value));
	if (err) {
		memset(k, 0, sizeof(*k));
		return err;
	}
	k->bits = bits;
	k->has_crt = 1;
	return KEYGEN_OK;
}

#else /* no BearSSL: no generator for either library */

int peer_keygen(enum peer_keygen_lib lib, unsigned bits, const unsigned char *seed, size_t seed_len, rsa_key *k,
                uint64_t *cycles, int *lib_code)
{
	(void)lib, (void)bits, (void)seed, (void)seed_len;
	memset(k, 0, sizeof(*k));
	*cycles = 0;
	*lib_code = 0;
	return KEYGEN_ERR_UNAVAILABLE;
}

#endif
