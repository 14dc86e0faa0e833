/*
 * BearSSL's key generation (peer_keygen.h): br_rsa_i31_keygen, which gives p, q, dp, dq and
 * q^-1 mod p; d is computed afterwards (untimed) by its br_rsa_i31_compute_privexp,
 * e^-1 mod (p-1)(q-1). Its modules are the archive libkeygen_bearssl.a (firmware/Makefile), placed
 * after the timed region.
 */
#include <string.h>

#include "drivers/cycles.h"
#include "keygen/keygen.h"
#include "peers/peer_common.h"
#include "peers/peer_keygen.h"

#if PEER_HAVE_BEARSSL

#include "bearssl_rsa.h"

int peer_bearssl_keygen(unsigned bits, void *rng, rsa_key *k, uint64_t *cycles, int *lib_code)
{
	static unsigned char kbuf_priv[BR_RSA_KBUF_PRIV_SIZE(BN_MAX_BITS)], kbuf_pub[BR_RSA_KBUF_PUB_SIZE(BN_MAX_BITS)];
	static unsigned char d[PEER_MAX_BYTES];
	br_rsa_private_key sk;
	br_rsa_public_key pk;
	unsigned nw = BN_WORDS(bits), pw = nw / 2;
	timed_region t;
	uint32_t made;
	size_t dlen = 0;

	t = timed_start();
	made = br_rsa_i31_keygen(rng, &sk, kbuf_priv, &pk, kbuf_pub, bits, KEYGEN_PUBLIC_EXPONENT);
	*cycles = timed_stop(t);
	/* d is not part of BearSSL's private key: computed from p, q and e, as the library offers it. */
	if (made && sk.n_bitlen == bits)
		dlen = br_rsa_i31_compute_privexp(d, &sk, KEYGEN_PUBLIC_EXPONENT);
	*lib_code = made ? 0 : 1;
	if (dlen) {
		peer_from_bytes(k->d, nw, d, dlen);
		peer_from_bytes(k->n, nw, pk.n, pk.nlen);
		peer_from_bytes(k->e, nw, pk.e, pk.elen);
		peer_from_bytes(k->p, pw, sk.p, sk.plen);
		peer_from_bytes(k->q, pw, sk.q, sk.qlen);
		peer_from_bytes(k->dp, pw, sk.dp, sk.dplen);
		peer_from_bytes(k->dq, pw, sk.dq, sk.dqlen);
		peer_from_bytes(k->qinv, pw, sk.iq, sk.iqlen);
	}
	memset(kbuf_priv, 0, sizeof(kbuf_priv));
	memset(d, 0, sizeof(d));
	return dlen ? KEYGEN_OK : PEER_KEYGEN_ERR_LIBRARY;
}

#endif
