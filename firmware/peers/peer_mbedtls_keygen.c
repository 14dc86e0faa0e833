/*
 * mbedTLS's key generation (peer_keygen.h): mbedtls_rsa_gen_key, which gives d = e^-1 mod
 * lcm(p-1, q-1) and orders p > q. Its functions that only key generation uses live in bignum.c and
 * rsa.c beside the timed code: firmware/Makefile renames their sections so that linker.ld places them
 * after the timed region.
 */
#include <string.h>

#include "drivers/cycles.h"
#include "keygen/keygen.h"
#include "peers/peer_common.h"
#include "peers/peer_keygen.h"
#include "rsa/rsa_impls.h"

#if PEER_HAVE_MBEDTLS && PEER_HAVE_BEARSSL

#include "bearssl_rand.h"
#include "mbedtls/rsa.h"

/* Big-endian bytes of one key value on its way into an rsa_key. */
static unsigned char value[PEER_MAX_BYTES];

/* mbedTLS's generator callback: BearSSL's generator, which has no way to fail. */
static int random_bytes(void *rng, unsigned char *out, size_t len)
{
	const br_prng_class **prng = rng;

	(*prng)->generate(prng, out, len);
	return 0;
}

/* mbedTLS allocates from the heap peer_mbedtls.c gives it. Its load() with a key that is not one (no
   CRT values) makes that heap if the console has not used the library yet, frees the key the library
   holds (the generated key replaces the user's key, which the library would re-import anyway) and
   fails, leaving the whole heap to key generation. */
static void heap_ready(void)
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

int peer_mbedtls_keygen(unsigned bits, void *rng, rsa_key *k, uint64_t *cycles, int *lib_code)
{
	static mbedtls_rsa_context ctx;
	unsigned nw = BN_WORDS(bits), pw = nw / 2;
	timed_region t;
	int err;

	heap_ready();
	mbedtls_rsa_init(&ctx, MBEDTLS_RSA_PKCS_V15, 0);
	t = timed_start();
	err = mbedtls_rsa_gen_key(&ctx, random_bytes, rng, bits, KEYGEN_PUBLIC_EXPONENT);
	*cycles = timed_stop(t);
	if (!err && (export_mpi(k->n, nw, &ctx.N) || export_mpi(k->e, nw, &ctx.E) || export_mpi(k->d, nw, &ctx.D)
	             || export_mpi(k->p, pw, &ctx.P) || export_mpi(k->q, pw, &ctx.Q)
	             || export_mpi(k->dp, pw, &ctx.DP) || export_mpi(k->dq, pw, &ctx.DQ)
	             || export_mpi(k->qinv, pw, &ctx.QP)))
		err = -1;    /* a value longer than the size asked for */
	mbedtls_rsa_free(&ctx);
	memset(value, 0, sizeof(value));
	*lib_code = err;
	return err ? PEER_KEYGEN_ERR_LIBRARY : KEYGEN_OK;
}

#endif
