/* The device's random generator: BearSSL's HMAC-DRBG (SP 800-90A, HMAC with SHA-256) seeded from the
   device's entropy source (entropy.h), every seed SHA-256 over ENTROPY_SEED_WORDS raw words (the
   conditioner; soc.h has the count, which the source's contract sets for a full-entropy 256-bit seed).

   - Instantiated on first use: entropy input and nonce from two conditioned seeds, with a
     personalization string naming the device.
   - Reseeded from the source (one conditioned seed) every RNG_RESEED_INTERVAL requests, and by
     rng_reseed(), which every console command that draws randomness calls before it does: a command
     never uses output of a state older than the command itself.
   - A health-test failure of the source (seen at a seed or at any request) stops the generator: its
     state is wiped and every request fails with RNG_ERR_HEALTH until rng_restart() (the console's
     `entropy restart`) or a reboot. A source that gives no word in time fails the request
     (RNG_ERR_TIMEOUT); the generator is not used unseeded or past its reseed point.
   - Host-supplied bytes (rng_add_input) are mixed into the state as additional input, never in
     place of the source: the generator is seeded from the source first.

   Every SHA-256 (the conditioner, the DRBG's HMAC) is the selected class's (hash/sha256_select.h): an
   engine fault is counted there, and the commands that release what they drew check that count.

   Needs BearSSL's SHA-256 and HMAC-DRBG (the simulation's image and the board's both have them);
   without them every call returns RNG_ERR_UNAVAILABLE. */
#ifndef RNG_H
#define RNG_H

#include <stddef.h>

#define RNG_OK               0
#define RNG_ERR_HEALTH     (-1)   /* the entropy source failed a health test: stopped until rng_restart */
#define RNG_ERR_TIMEOUT    (-2)   /* the entropy source gave no word in time */
#define RNG_ERR_UNAVAILABLE (-3)  /* no BearSSL in this firmware */

/* Requests between two reseeds at most (SP 800-90A allows 2^48 for HMAC-DRBG). */
#define RNG_RESEED_INTERVAL 1024u
/* Bytes one request gives at most (SP 800-90A: 2^19 bits); rng_generate splits longer ones. */
#define RNG_MAX_REQUEST 4096u

/* len random bytes into out: 0, or a negative RNG_ERR_* (out then holds zeros; the caller prints one
   error line). */
int rng_generate(void *out, size_t len);

/* Mixes len host-supplied bytes into the generator's state (seeding it from the source first): 0, or
   a negative RNG_ERR_*. */
int rng_add_input(const void *data, size_t len);

/* Reseeds the generator from the source now (instantiating it when it is not yet): 0, or RNG_ERR_*. */
int rng_reseed(void);

/* Whether the generator is stopped by a health-test failure. */
int rng_stopped(void);

/* Restarts the entropy source and clears a stop: the next request seeds the generator afresh. */
void rng_restart(void);

#endif
