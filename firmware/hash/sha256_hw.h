/* Driver of the SHA-256 engine (soc/sha256.py around gateware/sha256/engine.py), and a BearSSL hash class
   over it. The registers, the status fields, the command codes, a block's cycles and the window's address
   and word offsets come from LiteX's generated csr.h, soc.h and mem.h: nothing is copied by hand.

   The engine holds one chaining state and a message buffer it copies at each BLOCK. Whole blocks that are
   word-aligned in main RAM go in one command of its DMA, which reads each block while the engine
   compresses the one before; others the CPU writes into the window while the engine compresses the last. A context keeps its own state
   (with its buffer and byte count); the driver remembers whose state the engine holds (the context's
   address and a serial number it gives each call that compresses) and loads a context's state only when
   the engine holds another. It reads the state back once at the end of each call that compressed blocks.
   Contexts interleave freely. A wait on the engine is bounded (SHA256_HW_MAX_POLLS reads of the status):
   an engine that stays busy fails the hash instead of hanging the console. */
#ifndef SHA256_HW_H
#define SHA256_HW_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_HW_OK            0
#define SHA256_HW_ERR_TIMEOUT (-1)   /* busy after SHA256_HW_MAX_POLLS polls */
#define SHA256_HW_ERR_REFUSED (-2)   /* the engine refused a command or a state write (its status's error bits) */

#define SHA256_HW_BLOCK_WORDS 16
#define SHA256_HW_STATE_WORDS 8

/* Status polls a wait takes at most, a block: a poll is a CSR read, several cycles, and a block keeps
   the engine busy SHA256_BLOCK_CYCLES cycles (its DMA a cycle more); the bound is far beyond that. A wait
   on the DMA's n blocks takes n times as many. */
#define SHA256_HW_MAX_POLLS (64u * SHA256_BLOCK_CYCLES)

#include "peer_build.h"       /* generated: which BearSSL this firmware has */
#if PEER_HAVE_BEARSSL || TLS_HAVE_BEARSSL
#include "bearssl_hash.h"

/* A context of sha256_hw_vtable: as br_sha256_context, plus the first engine error it met and the tag of
   its state in the engine. */
typedef struct {
	const br_hash_class *vtable;
	_Alignas(sizeof(uint32_t)) unsigned char buf[64];   /* aligned: a whole block goes to the engine as words */
	uint64_t count;                          /* bytes hashed */
	uint32_t val[SHA256_HW_STATE_WORDS];     /* the chaining state */
	uint32_t serial;                         /* the driver's serial of the call that left val; 0: none */
	int err;                                 /* SHA256_HW_OK, or the first engine error */
} sha256_hw_context;

/* The descriptor of BearSSL's br_sha256_vtable (sha2small.c), which this class and the selection's share:
   SHA-256's ID, its 32-byte output and state, 64-byte blocks, Merkle-Damgard padding with a big-endian
   length. */
#define SHA256_HW_DESC (BR_HASHDESC_ID(br_sha256_ID) | BR_HASHDESC_OUT(32) | BR_HASHDESC_STATE(32) \
                        | BR_HASHDESC_LBLEN(6) | BR_HASHDESC_MD_PADDING | BR_HASHDESC_MD_PADDING_BE)

/* SHA-256 on the engine, as BearSSL's br_sha256_vtable (same output, state and padding descriptor). */
extern const br_hash_class sha256_hw_vtable;

/* Leaves nothing of any hash in the engine: its state and message buffer zero, one block compressed from
   them (the schedule and the working variables then hold what zeros give, not a function of a secret
   state that the rounds, run backwards, would undo), and INIT. The engine then holds no context's state.
   SHA256_HW_OK, or the engine's error. */
int sha256_hw_wipe(void);

/* SHA256_HW_OK, or the first engine error since the context's init or set_state, out() included: the
   digest is then wrong. */
int sha256_hw_error(const sha256_hw_context *ctx);
#endif

#endif
