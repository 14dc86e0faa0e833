/* What the peer-library glue (peer_mbedtls.c, peer_bearssl.c) shares: our limbs to and from the
   big-endian bytes both libraries take, and a fingerprint telling whether a key changed. None of
   it runs in a timed region. */
#ifndef PEER_COMMON_H
#define PEER_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "peer_build.h"     /* generated: PEER_HAVE_MBEDTLS, PEER_HAVE_BEARSSL */
#include "rsa/rsa.h"

#define PEER_MAX_BYTES (BN_MAX_BITS / 8)

/* a (little-endian limbs) -> len big-endian bytes (the low len bytes of a). */
static inline void peer_to_bytes(unsigned char *out, size_t len, const uint32_t *a)
{
	size_t i;
	for (i = 0; i < len; i++)
		out[len - 1 - i] = (unsigned char)(a[i / 4] >> (8 * (i % 4)));
}

/* len big-endian bytes -> words limbs (zero above). */
static inline void peer_from_bytes(uint32_t *r, unsigned words, const unsigned char *in, size_t len)
{
	size_t i;
	for (i = 0; i < words; i++)
		r[i] = 0;
	for (i = 0; i < len && i / 4 < words; i++)
		r[i / 4] |= (uint32_t)in[len - 1 - i] << (8 * (i % 4));
}

/* Bytes of a value of `bits` bits. */
static inline size_t peer_bytes(unsigned bits)
{
	return (bits + 7) / 8;
}

/* a (words limbs) as big-endian bytes without leading zero bytes; returns their count. The libraries
   size their numbers by what they are given: mbedTLS would carry zero limbs through every product. */
static inline size_t peer_to_bytes_trimmed(unsigned char *out, const uint32_t *a, unsigned words)
{
	size_t len = peer_bytes(bn_bits(a, words));
	peer_to_bytes(out, len, a);
	return len;
}

/* FNV-1a over the whole key: a changed key (the console's `key` command rewrites one in place)
   gets a new fingerprint, so the library re-imports it. */
static inline uint32_t peer_key_fingerprint(const rsa_key *k)
{
	const unsigned char *p = (const unsigned char *)k;
	uint32_t h = 2166136261u;
	size_t i;
	for (i = 0; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

#endif
