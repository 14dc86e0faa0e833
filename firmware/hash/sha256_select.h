/* The SHA-256 the firmware's own users hash with (the padding's digest and MGF1, the device's HMAC-DRBG, key
   generation's HMAC-DRBG, the TLS server's transcript hash and PRF): BearSSL's software class or the
   engine's (sha256_hw.h), chosen at run time (`sha256 sw|hw`), the engine by default. The peers' own key
   generation (peers/peer_keygen.c) stays on software: it is the comparison.

   The choice lives in one dispatching br_hash_class, sha256_sel_vtable, rather than in each user: a
   context takes the current choice when it is initialised or given a state (init, set_state), and keeps
   it until the next. BearSSL's HMAC and HMAC-DRBG, and its multi-hasher, start a context with one of the
   two for every MAC and every block, so a switch takes effect at the next HMAC without any user being
   told; a context half way through a message finishes it on the class it started with. The two classes
   have the same state and padding, so a state saved by one is resumed by the other.

   Engine faults: a context on the engine keeps its first fault (sha256_hw_error), but HMAC's outer hash
   and the multi-hasher's contexts live on BearSSL's stack and are gone before anyone could ask. So the
   dispatcher counts every fault it sees in a context it runs on the engine, and a user brackets what it
   releases with sha256_sel_faults(): a changed count means some hash inside was wrong. */
#ifndef SHA256_SELECT_H
#define SHA256_SELECT_H

#include <stdint.h>

enum sha256_impl { SHA256_IMPL_SW, SHA256_IMPL_HW };

/* The class contexts take from now on. */
void sha256_select(enum sha256_impl impl);
enum sha256_impl sha256_selected(void);

/* Engine faults seen by sha256_sel_vtable's contexts since start-up (wraps; compare, do not subtract). */
uint32_t sha256_sel_faults(void);

/* When a context of the class ran on the engine since the last call: the engine wiped (sha256_hw_wipe). Its registers keep the last block and chaining value,
   which for HMAC-DRBG are the generator's secrets (its key's padded blocks, its V); the console calls
   this after every command, outside every timed region. */
void sha256_sel_wipe(void);

#include "peer_build.h"       /* generated: which BearSSL this firmware has */
#if PEER_HAVE_BEARSSL || TLS_HAVE_BEARSSL
#include "bearssl_hash.h"
#include "hash/sha256_hw.h"

/* A context of sha256_sel_vtable: the chosen class's context after our own vtable pointer. */
typedef struct {
	const br_hash_class *vtable;
	union {
		const br_hash_class *vtable;     /* the chosen class: the first field of either context */
		br_sha256_context sw;
		sha256_hw_context hw;
	} impl;
} sha256_sel_context;

/* SHA-256 on the selected class, with br_sha256_vtable's descriptor (HMAC and the TLS engine take it as
   SHA-256). */
extern const br_hash_class sha256_sel_vtable;
#endif

#endif
