/*
 * Key generation by the peer libraries, beside ours (keygen.h): BearSSL's br_rsa_i31_keygen and
 * mbedTLS's mbedtls_rsa_gen_key, both with e = 65537 and fed by BearSSL's HMAC-DRBG (SHA-256)
 * instantiated from the command's seed only, so that one seed gives one key. Only the library's call
 * is timed; the generator's instantiation before it and the conversion to our rsa_key after it are
 * not.
 *
 * What each library makes is its own choice: BearSSL gives p, q, dp, dq and q^-1 mod p, and d is
 * computed afterwards (untimed) by its br_rsa_i31_compute_privexp, e^-1 mod (p-1)(q-1); mbedTLS
 * gives d = e^-1 mod lcm(p-1, q-1) and orders p > q. Neither tells how many candidates or
 * Miller-Rabin rounds it spent.
 *
 * Layout: this glue, BearSSL's keygen modules and the mbedTLS functions only key generation uses
 * are placed after the timed region (firmware/linker.ld, firmware/Makefile), so linking them in
 * moves no byte that a benchmark count depends on.
 */
#ifndef PEER_KEYGEN_H
#define PEER_KEYGEN_H

#include <stddef.h>
#include <stdint.h>

#include "rsa.h"

enum peer_keygen_lib { PEER_KEYGEN_MBEDTLS, PEER_KEYGEN_BEARSSL };

#define PEER_KEYGEN_ERR_LIBRARY (-20)   /* the library refused or failed; *lib_code has its code */

/* The library named `name` (an implementation name, "mbedtls" or "bearssl") when this firmware has
   it, else -1 (a name of ours, an unknown one, or a library that was not fetched). */
int peer_keygen_find(const char *name);

/* A key of `bits` bits into k (with CRT values) by library `lib`, from the generator seeded with
   seed[0..seed_len-1]; *cycles gets the library call's cycles. KEYGEN_OK, KEYGEN_ERR_UNAVAILABLE (no
   BearSSL, so no generator) or PEER_KEYGEN_ERR_LIBRARY; on an error k is cleared. bits as keygen()
   takes them (the console checks them). */
int peer_keygen(enum peer_keygen_lib lib, unsigned bits, const unsigned char *seed, size_t seed_len, rsa_key *k,
                uint64_t *cycles, int *lib_code);

#endif
