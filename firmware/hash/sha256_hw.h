/* Driver of the SHA-256 engine (soc/sha256.py around gateware/sha256/engine.py), and a BearSSL hash class
   over it. The register map, the status fields, the command codes and a block's cycles come from LiteX's
   generated csr.h and soc.h: nothing is copied by hand.

   The engine holds one chaining state; a context holds its own (with its buffer and byte count) and loads
   it into the engine before every block it compresses, reading it back after: contexts interleave freely.
   A wait on the engine is bounded (SHA256_HW_MAX_POLLS reads of the status): an engine that stays busy
   fails the block instead of hanging the console. */
#ifndef SHA256_HW_H
#define SHA256_HW_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_HW_OK            0
#define SHA256_HW_ERR_TIMEOUT (-1)   /* busy after SHA256_HW_MAX_POLLS polls */
#define SHA256_HW_ERR_REFUSED (-2)   /* the engine refused a command (status error bits after it) */

#define SHA256_HW_BLOCK_WORDS 16
#define SHA256_HW_STATE_WORDS 8

/* Status polls a wait takes at most: a poll is a CSR read, several cycles, and a block keeps the engine
   busy SHA256_BLOCK_CYCLES cycles; the bound is far beyond that. */
#define SHA256_HW_MAX_POLLS (64u * SHA256_BLOCK_CYCLES)

/* The engine's state := FIPS 180-4's initial hash value. */
int sha256_hw_init(void);
/* The engine's state := state (H0..H7). */
int sha256_hw_load(const uint32_t state[SHA256_HW_STATE_WORDS]);
/* state := the engine's state. */
void sha256_hw_save(uint32_t state[SHA256_HW_STATE_WORDS]);
/* Compresses one block (64 bytes, as in the message) into the engine's state. */
int sha256_hw_block(const unsigned char block[64]);
/* Waits until the engine is idle: SHA256_HW_OK, or SHA256_HW_ERR_TIMEOUT. */
int sha256_hw_wait(void);

#include "peer_build.h"       /* generated: which BearSSL this firmware has */
#if PEER_HAVE_BEARSSL || TLS_HAVE_BEARSSL
#include "bearssl_hash.h"

/* A context of sha256_hw_vtable: as br_sha256_context, plus the first engine error it met. */
typedef struct {
	const br_hash_class *vtable;
	unsigned char buf[64];
	uint64_t count;                          /* bytes hashed */
	uint32_t val[SHA256_HW_STATE_WORDS];     /* the chaining state */
	int err;                                 /* SHA256_HW_OK, or the first engine error */
} sha256_hw_context;

/* SHA-256 on the engine, as BearSSL's br_sha256_vtable (same output, state and padding descriptor). */
extern const br_hash_class sha256_hw_vtable;

/* SHA256_HW_OK, or the first engine error since the context's init or set_state, out() included: the
   digest is then wrong. */
int sha256_hw_error(const sha256_hw_context *ctx);
#endif

#endif
