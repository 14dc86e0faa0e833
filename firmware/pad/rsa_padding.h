/*
 * RSA with padding and SHA-256, over our raw RSA (rsa.c, any backend): PKCS#1 v1.5 and PSS signatures,
 * OAEP encryption (MGF1-SHA-256, a label of the caller's). MGF1, HMAC-DRBG, the PKCS#1 v1.5 encodings
 * and the OAEP encoding are BearSSL's (its internal helpers, src/inner.h), around our private and
 * public operations; every SHA-256 is the selected class's (hash/sha256_select.h: software or the
 * engine). Signing on the engine encodes the message twice and compares before the private operation;
 * a fault the engine reports during a call fails it with PAD_ERR_HASH. BearSSL 0.6 has no PSS encoding,
 * so EMSA-PSS (RFC 8017, 9.1) is written here over the hash and BearSSL's MGF1; so is the OAEP decoding, BearSSL's constant-time
 * one without its last step (it moves the message only when the padding is valid: rsa_padding.c).
 *
 * Built only with BearSSL (PEER_HAVE_BEARSSL); without it every call returns PAD_ERR_UNAVAILABLE.
 *
 * Byte strings are big-endian, of the modulus' length in bytes (k) for signatures and ciphertexts.
 * Randomness (the PSS salt, the OAEP seed) comes from the device's generator (rand/rng.h), reseeded
 * from the entropy source by pad_random_init; its failure (the source's health tests) fails the call
 * with PAD_ERR_RANDOM.
 */
#ifndef RSA_PADDING_H
#define RSA_PADDING_H

#include <stddef.h>
#include <stdint.h>

#include "rsa/rsa.h"

#define PAD_OK               0
#define PAD_ERR_UNAVAILABLE (-1)   /* no BearSSL in this firmware */
#define PAD_ERR_KEY_SIZE    (-2)   /* the modulus is too short for this padding */
#define PAD_ERR_TOO_LONG    (-3)   /* the OAEP message does not fit */
#define PAD_ERR_RSA         (-4)   /* the RSA operation failed (signing only: peripheral, fault check) */
#define PAD_ERR_DECRYPT     (-5)   /* OAEP decryption failed, for whatever reason (one code: no oracle) */
#define PAD_ERR_SALT_LENGTH (-6)   /* a PSS salt length this modulus has no room for */
#define PAD_ERR_RANDOM      (-7)   /* the device's generator failed (rng.h: rng_stopped() says whether for good) */
#define PAD_ERR_HASH        (-8)   /* the SHA-256 engine faulted (hash/sha256_select.h): nothing released */

/* A PSS salt length (bytes), or: */
#define PAD_SALT_HASH (-1)   /* the hash's length, or the most the modulus has room for when less */
#define PAD_SALT_ANY  (-2)   /* verifying only: any length (the one the padding shows) */

#define PAD_SHA256_BYTES 32
#define PAD_MAX_BYTES    (BN_MAX_BITS / 8)

enum pad_scheme { PAD_PKCS1, PAD_PSS };

/* Reseeds the device's generator from the entropy source (the commands that draw randomness call it
   before their timed region, which then only runs the DRBG): PAD_OK or PAD_ERR_RANDOM. */
int pad_random_init(void);

/* The longest PSS salt this modulus has room for (em_len - 34 bytes), or PAD_ERR_KEY_SIZE. */
int pad_pss_max_salt(const rsa_key *k);

/* sig (k bytes) = the signature of msg with the private key (CRT); salt_len: PSS only, a length from
   0 to pad_pss_max_salt or PAD_SALT_HASH. */
int pad_sign(enum pad_scheme scheme, const rsa_backend *b, const rsa_key *k, const rsa_ctx *c,
             const unsigned char *msg, size_t msg_len, int salt_len, unsigned char *sig);

/* 1 when sig (k bytes) is a valid signature of msg under the public key, 0 when not; or a PAD_ERR_*.
   salt_len: PSS only, the salt's length (a signature with another is not valid), PAD_SALT_HASH or
   PAD_SALT_ANY. */
int pad_verify(enum pad_scheme scheme, const rsa_backend *b, const rsa_key *k, const rsa_ctx *c,
               const unsigned char *msg, size_t msg_len, int salt_len, const unsigned char *sig);

/* out (k bytes) = OAEP encryption of msg (at most k - 66 bytes) with label (RFC 8017: empty by default). */
int pad_oaep_encrypt(const rsa_backend *b, const rsa_key *k, const rsa_ctx *c,
                     const unsigned char *label, size_t label_len,
                     const unsigned char *msg, size_t msg_len, unsigned char *out);

/* OAEP decryption of in (k bytes) with label: out (k bytes) ends with the message, *msg_len bytes;
   PAD_ERR_DECRYPT whatever failed, in the cycles a success takes (out is then zeros). */
int pad_oaep_decrypt(const rsa_backend *b, const rsa_key *k, const rsa_ctx *c,
                     const unsigned char *label, size_t label_len,
                     const unsigned char *in, unsigned char *out, size_t *msg_len);

/* The modulus' length in bytes. */
static inline size_t pad_key_bytes(const rsa_key *k)
{
	return (k->bits + 7) / 8;
}

#endif
