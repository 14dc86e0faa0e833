/* The device's random generator (rng.h). Not timed code: linker.ld places it after the timed region. */
#include <stdint.h>
#include <string.h>
#include <generated/soc.h>

#include "peer_build.h"       /* generated: which BearSSL this firmware has */
#include "hash/sha256_select.h"
#include "rand/entropy.h"
#include "rand/rng.h"

#if PEER_HAVE_BEARSSL || TLS_HAVE_BEARSSL

#include "bearssl_hash.h"
#include "bearssl_rand.h"

#define SEED_BYTES br_sha256_SIZE

static const char personalization[] = "rsa-bench device HMAC-DRBG";

static br_hmac_drbg_context drbg;
static enum { UNSEEDED, SEEDED, STOPPED } rng_state = UNSEEDED;
static uint32_t requests;      /* since the last seed: SP 800-90A's reseed counter, less one */

static void wipe(void *p, size_t len)
{
	volatile unsigned char *b = p;
	while (len--)
		*b++ = 0;
}

/* A health failure stops the generator; any failure leaves it as it was otherwise. */
static int failed(int entropy_err)
{
	if (entropy_err == ENTROPY_ERR_HEALTH) {
		rng_state = STOPPED;
		wipe(&drbg, sizeof(drbg));
		return RNG_ERR_HEALTH;
	}
	return RNG_ERR_TIMEOUT;
}

/* The conditioner: SHA-256 over ENTROPY_SEED_WORDS raw words (little-endian bytes, as they are in
   memory) into out. */
static int conditioned_seed(unsigned char out[SEED_BYTES])
{
	uint32_t raw[ENTROPY_SEED_WORDS];
	sha256_sel_context h;
	int err = entropy_read(raw, ENTROPY_SEED_WORDS);

	if (err == ENTROPY_OK) {
		sha256_sel_vtable.init(&h.vtable);
		sha256_sel_vtable.update(&h.vtable, raw, sizeof(raw));
		sha256_sel_vtable.out(&h.vtable, out);
		wipe(&h, sizeof(h));
	}
	wipe(raw, sizeof(raw));
	return err;
}

/* Instantiate: entropy input || nonce (a second conditioned seed) || personalization string. */
static int instantiate(void)
{
	unsigned char material[2 * SEED_BYTES + sizeof(personalization) - 1];
	int err;

	if ((err = conditioned_seed(material)) == ENTROPY_OK
	    && (err = conditioned_seed(material + SEED_BYTES)) == ENTROPY_OK) {
		memcpy(material + 2 * SEED_BYTES, personalization, sizeof(personalization) - 1);
		br_hmac_drbg_init(&drbg, &sha256_sel_vtable, material, sizeof(material));
		rng_state = SEEDED;
		requests = 0;
	}
	wipe(material, sizeof(material));
	return err == ENTROPY_OK ? RNG_OK : failed(err);
}

int rng_reseed(void)
{
	unsigned char seed[SEED_BYTES];
	int err;

	if (rng_state == STOPPED)
		return RNG_ERR_HEALTH;
	if (rng_state == UNSEEDED)
		return instantiate();
	/* SP 800-90A's HMAC_DRBG_Reseed is its Update with the new entropy input: BearSSL's update */
	if ((err = conditioned_seed(seed)) == ENTROPY_OK) {
		br_hmac_drbg_update(&drbg, seed, sizeof(seed));
		requests = 0;
	}
	wipe(seed, sizeof(seed));
	return err == ENTROPY_OK ? RNG_OK : failed(err);
}

/* The generator ready for a request: seeded, reseeded when due, the source still healthy. */
static int ready(void)
{
	if (rng_state == SEEDED && entropy_failed())
		return failed(ENTROPY_ERR_HEALTH);
	if (rng_state != SEEDED || requests >= RNG_RESEED_INTERVAL)
		return rng_reseed();
	return RNG_OK;
}

int rng_generate(void *out, size_t len)
{
	unsigned char *p = out;
	size_t chunk;
	int err;

	while (len) {
		if ((err = ready()) != RNG_OK) {
			memset(out, 0, (size_t)(p - (unsigned char *)out) + len);
			return err;
		}
		chunk = len < RNG_MAX_REQUEST ? len : RNG_MAX_REQUEST;
		br_hmac_drbg_generate(&drbg, p, chunk);
		requests++;
		p += chunk;
		len -= chunk;
	}
	return RNG_OK;
}

/* SP 800-90A's additional input, given ahead of the next request: HMAC_DRBG_Generate would run the
   same Update on it first. */
int rng_add_input(const void *data, size_t len)
{
	int err = ready();

	if (err == RNG_OK)
		br_hmac_drbg_update(&drbg, data, len);
	return err;
}

int rng_stopped(void)
{
	return rng_state == STOPPED;
}

void rng_restart(void)
{
	entropy_restart();
	wipe(&drbg, sizeof(drbg));
	rng_state = UNSEEDED;
}

#else

int rng_generate(void *out, size_t len)
{
	memset(out, 0, len);
	return RNG_ERR_UNAVAILABLE;
}

int rng_add_input(const void *data, size_t len)
{
	(void)data; (void)len;
	return RNG_ERR_UNAVAILABLE;
}

int rng_reseed(void)
{
	return RNG_ERR_UNAVAILABLE;
}

int rng_stopped(void)
{
	return 0;
}

void rng_restart(void)
{
	entropy_restart();
}

#endif
