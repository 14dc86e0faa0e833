/*
 * Key generation by the peer libraries, beside ours (keygen.h): each library's own, with e = 65537 and
 * fed by BearSSL's HMAC-DRBG (SHA-256) instantiated from the command's seed only, so that one seed
 * gives one key. Only the library's call is timed; the generator's instantiation before it and the
 * conversion to our rsa_key after it are not. What each library makes is its own choice (d modulo
 * (p-1)(q-1) or lcm(p-1, q-1), the order of p and q); neither tells how many candidates or
 * Miller-Rabin rounds it spent.
 *
 * A peer offers it when soc/peer_libs.py's table says so (its `keygen`): its glue for it,
 * firmware/peers/peer_<name>_keygen.c, defines peer_<name>_keygen (a peer_keygen_fn), and the generated
 * PEER_KEYGEN_LIST names the peers this firmware has that offer it.
 *
 * Layout: this code, the libraries' keygen modules and the mbedTLS functions only key generation uses
 * are placed after the timed region (firmware/linker.ld, firmware/Makefile's UNTIMED list, which takes
 * every peer_*_keygen.o), so linking them in moves no byte that a benchmark count depends on.
 */
#ifndef PEER_KEYGEN_H
#define PEER_KEYGEN_H

#include <stddef.h>
#include <stdint.h>

#include "peer_build.h"     /* generated: PEER_KEYGEN_LIST */
#include "rsa/rsa.h"

#define PEER_KEYGEN_ERR_LIBRARY (-20)   /* the library refused or failed; *lib_code has its code */

/* One library's key generation: a key of `bits` bits into k (n, e, d, p, q and the CRT values; k
   cleared before, its size and has_crt set after) with e = KEYGEN_PUBLIC_EXPONENT, drawing from `rng`
   (BearSSL's `const br_prng_class **`, seeded). Only the library's call is timed: its cycles in
   *cycles. KEYGEN_OK, or PEER_KEYGEN_ERR_LIBRARY with the library's code in *lib_code. Defined only
   when the firmware has both the library and BearSSL (the generator). */
typedef int peer_keygen_fn(unsigned bits, void *rng, rsa_key *k, uint64_t *cycles, int *lib_code);

#define PEER_KEYGEN_DECLARE(name, NAME) peer_keygen_fn peer_##name##_keygen;
PEER_KEYGEN_LIST(PEER_KEYGEN_DECLARE)
#undef PEER_KEYGEN_DECLARE

/* A library's key generation, by its implementation name. */
struct peer_keygen { const char *name; peer_keygen_fn *run; };

/* The library named `name` when this firmware has it and it offers key generation, else NULL (a name
   of ours, an unknown one, or a library that was not fetched). */
const struct peer_keygen *peer_keygen_find(const char *name);

/* A key of `bits` bits into k (with CRT values) by library `lib`, from the generator seeded with
   seed[0..seed_len-1]; *cycles gets the library call's cycles. KEYGEN_OK, KEYGEN_ERR_UNAVAILABLE (no
   BearSSL, so no generator) or PEER_KEYGEN_ERR_LIBRARY; on an error k is cleared. bits as keygen()
   takes them (the console checks them). */
int peer_keygen(const struct peer_keygen *lib, unsigned bits, const unsigned char *seed, size_t seed_len,
                rsa_key *k, uint64_t *cycles, int *lib_code);

#endif
