/* Key generation by the peer libraries (peer_keygen.h): the generator and the dispatch; each
   library's call is in its peer_<name>_keygen.c. */
#include <string.h>

#include "console_protocol.h"
#include "keygen/keygen.h"
#include "peers/peer_common.h"
#include "peers/peer_keygen.h"

#if PEER_HAVE_BEARSSL
#include "bearssl_hash.h"
#include "bearssl_rand.h"
#define PEER_KEYGEN_ENTRY(name, NAME) { IMPL_##NAME, peer_##name##_keygen },
#else   /* no generator: the libraries are offered, and peer_keygen() says KEYGEN_ERR_UNAVAILABLE */
#define PEER_KEYGEN_ENTRY(name, NAME) { IMPL_##NAME, NULL },
#endif

static const struct peer_keygen keygens[] = {
	PEER_KEYGEN_LIST(PEER_KEYGEN_ENTRY)
	{ NULL, NULL },
};

const struct peer_keygen *peer_keygen_find(const char *name)
{
	const struct peer_keygen *lib;

	for (lib = keygens; lib->name; lib++)
		if (strcmp(lib->name, name) == 0)
			return lib;
	return NULL;
}

int peer_keygen(const struct peer_keygen *lib, unsigned bits, const unsigned char *seed, size_t seed_len,
                rsa_key *k, uint64_t *cycles, int *lib_code)
{
	int err;
#if PEER_HAVE_BEARSSL
	static br_hmac_drbg_context drbg;
#endif

	memset(k, 0, sizeof(*k));
	*cycles = 0;
	*lib_code = 0;
#if PEER_HAVE_BEARSSL
	br_hmac_drbg_init(&drbg, &br_sha256_vtable, seed, seed_len);
	err = lib->run(bits, &drbg.vtable, k, cycles, lib_code);
	memset(&drbg, 0, sizeof(drbg));
#else
	(void)lib, (void)bits, (void)seed, (void)seed_len;
	err = KEYGEN_ERR_UNAVAILABLE;
#endif
	if (err) {
		memset(k, 0, sizeof(*k));
		return err;
	}
	k->bits = bits;
	k->has_crt = 1;
	return KEYGEN_OK;
}
