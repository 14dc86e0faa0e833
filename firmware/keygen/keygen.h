/*
 * RSA key generation on the softcore, written once over the RSA backend interface (rsa.h), like
 * rsa.c: the same seed gives the same key on every backend, which differ in time only.
 *
 * What it makes: e = 65537; p and q of bits/2 bits each, the top two bits set (so n has exactly
 * `bits` bits) and p = q = 3 mod 4; gcd(e, p-1) = gcd(e, q-1) = 1; |p - q| > 2^(bits/2 - 100);
 * d = e^-1 mod lcm(p-1, q-1) with d > 2^(bits/2); dp, dq, qinv; p > q.
 *
 * How a prime is found: a random odd start x (3 mod 4) from the generator, then the numbers x + 4i,
 * i < KEYGEN_SPAN, sieved at once by the odd primes below KEYGEN_SIEVE_BOUND (and by e: a number
 * with e | c - 1 is struck out too), so that no exponentiation is spent on a number with a small
 * factor. Each survivor gets a pre-test, a Miller-Rabin round to base 2, which throws out nearly
 * every composite for one exponentiation and no random bytes; on a backend with pair commands two
 * survivors take it at once (crt_exp). A survivor of that gets the FIPS 186-5 Table B.1
 * number of rounds with random bases from the generator (keygen_mr_rounds). Because c = 3 mod 4,
 * c - 1 = 2m with m odd, and a round is one exponentiation b^m mod c tested against 1 and c - 1:
 * no squaring loop whose length depends on the candidate.
 *
 * Randomness: BearSSL's HMAC-DRBG over the selected SHA-256 (hash/sha256_select.h), instantiated from the caller's seed only, so a seed
 * gives one key (what the tests and the bench need). On a board the seed must come from an entropy
 * source, or from the host over the console, never a constant; the console takes seeds of at least
 * KEYGEN_MIN_SEED bytes (console_protocol.h).
 *
 * Side channels. Constant time, as rsa.c's private operations: every Miller-Rabin exponentiation
 * (backend exp with secret = 1, over the candidate's full length), the Montgomery set-up of a
 * candidate, the gcd of p - 1 and q - 1 (Bernstein-Yang divsteps, a fixed count for the size), d, dp,
 * dq (products and exact divisions, no branch on the values) and qinv (q^(p-2) mod p, a secret
 * exponentiation). As compiled, too: tests/firmware/test_ct_disassembly.py finds no conditional
 * branch but the loops' in those helpers, and the leak test (`python -m sim leak`, keygen_step below)
 * times a candidate's pre-test and a round on fixed against random candidates. Not constant time: the
 * sieve (its marks depend on the start's residues) and the search's length (how many candidates and
 * rounds ran, printed by the console), which tell where in its interval the prime lies; the draws of
 * a Miller-Rabin base, redrawn when not below the candidate; the rare rejections (a q too close to
 * p, a gcd of p - 1 and q - 1 over 32 bits, d too small), which draw again.
 *
 * Secrets: every buffer that held something of p, q or d lives in one structure in keygen.c, which
 * keygen_wipe clears; keygen itself leaves it to the caller, so that the wipe stays out of the
 * generation's timed region.
 *
 * Needs BearSSL (PEER_HAVE_BEARSSL): without it keygen returns KEYGEN_ERR_UNAVAILABLE.
 */
#ifndef KEYGEN_H
#define KEYGEN_H

#include <stddef.h>
#include <stdint.h>

#include "rsa/rsa.h"

#define KEYGEN_PUBLIC_EXPONENT 65537u
#define KEYGEN_MIN_BITS        512
#define KEYGEN_SPAN            2048   /* candidates x + 4i sieved at once */
#define KEYGEN_SIEVE_BOUND     2048   /* trial division by the odd primes below this */
#define KEYGEN_SEED_MAX        64     /* bytes */
#define KEYGEN_MR_ROUNDS_MAX   16     /* the most keygen_mr_rounds gives (256-bit primes) */

#define KEYGEN_OK                0
#define KEYGEN_ERR_UNAVAILABLE (-1)   /* no BearSSL (no generator) in this firmware */
#define KEYGEN_ERR_SIZE        (-2)   /* bits not a multiple of 64 in [KEYGEN_MIN_BITS, BN_MAX_BITS] */
#define KEYGEN_ERR_HW          (-3)   /* the peripheral refused a command (rsa_hw_error) */
#define KEYGEN_ERR_SEARCH      (-5)   /* no prime in 64 starts: a fault (a wrong exponentiation), not luck */
#define KEYGEN_ERR_CANDIDATE   (-6)   /* keygen_step: not a candidate the search could make, or none loaded */
#define KEYGEN_ERR_HASH        (-7)   /* the SHA-256 engine faulted under the generator: no key */

/* The steps keygen_step_run times. */
#define KEYGEN_STEP_PRETEST    0      /* the candidate's Montgomery set-up and its pre-test (base 2) */
#define KEYGEN_STEP_ROUND      1      /* its R^2 and one Miller-Rabin round to a random base */

struct keygen_stats {
	unsigned candidates;    /* numbers looked at: struck out by the sieve, or given an exponentiation */
	unsigned mr_rounds;     /* Miller-Rabin rounds run (pre-tests and random bases), one exponentiation each */
	unsigned restarts;      /* keys thrown away whole (|p - q|, d, gcd; rare) */
};

/* Miller-Rabin rounds with random bases for a prime of `bits` bits: FIPS 186-5 Table B.1's for
   1024 bits (5) and for 1536 and 2048 bits (4); below 1024 bits, which the table does not cover
   (keys under 2048 bits), what its Appendix C.1 bound gives for an error of 2^-100 (7 at 512 bits,
   16 at 256). */
unsigned keygen_mr_rounds(unsigned prime_bits);

/* Untimed set-up, once: the sieve's table of small primes (keygen makes it if it was not). */
void keygen_prepare(void);

/* A key of `bits` bits (a multiple of 64, KEYGEN_MIN_BITS..BN_MAX_BITS) into k (with CRT), from the
   generator seeded with seed[0..seed_len-1], over backend b. KEYGEN_OK or a KEYGEN_ERR_*; on an error
   k is cleared. */
int keygen(const rsa_backend *b, unsigned bits, const unsigned char *seed, size_t seed_len, rsa_key *k,
           struct keygen_stats *stats);

/* Clears everything keygen (or keygen_step_*) left in its buffers about the primes and d: the
   generator's state, the candidates, the sieve, p - 1, q - 1, lambda, the primes' contexts. The
   caller calls it after every keygen, success or failure, outside its timed region. */
void keygen_wipe(void);

/* The search's constant-time steps one at a time, on a given candidate c (words limbs), for the leak
   test (the console's keygen_step): keygen_step_load checks that c is one the search could make (top
   two bits set, 3 mod 4, a prime's size for a key of KEYGEN_MIN_BITS to BN_MAX_BITS), keeps it and
   draws a Miller-Rabin base for it from a generator seeded with c (the base's draws are not
   constant time, so they are not in the step); KEYGEN_OK or KEYGEN_ERR_CANDIDATE. keygen_step_run runs
   `step` (KEYGEN_STEP_*) on it over backend b, as the search does: 1 when c passed, 0 when it is
   composite, or KEYGEN_ERR_HW / KEYGEN_ERR_CANDIDATE (none loaded). Its time must not depend on c
   beyond its length. keygen_wipe clears the candidate. */
int keygen_step_load(const uint32_t *c, unsigned words);
int keygen_step_run(const rsa_backend *b, int step);

#endif
