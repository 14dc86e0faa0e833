/* The benchmark's operations and implementations by their protocol names (console_protocol.h),
   and one operation run in a timed region (cycles.h). Our implementations run rsa.c over a backend;
   the peer libraries (PEER_LIST, from soc/peer_libs.py) run whole operations through their own API (struct
   rsa_peer, firmware/peers/peer_*.c). */
#ifndef RSA_IMPLS_H
#define RSA_IMPLS_H

#include <stdint.h>

#include "peer_build.h"     /* generated: PEER_LIST, the peer libraries (soc/peer_libs.py) */
#include "rsa/rsa.h"

typedef int (*rsa_op_fn)(const rsa_backend *, const rsa_key *, const rsa_ctx *, uint32_t *, const uint32_t *);

enum rsa_op_id { RSA_OP_PUBLIC, RSA_OP_PRIVATE, RSA_OP_PRIVATE_CRT };

struct rsa_op { const char *name; rsa_op_fn run; int private_key; enum rsa_op_id id; };

/* A peer library's RSA as it ships, fed our keys. Only run() is timed: importing the key (once per
   key, with a first untimed operation of each kind so the library's own per-key caches are filled,
   as they would be in use), converting the input to the library's form and the result back are
   not, as our per-key constants are not. */
struct rsa_peer {
	int built;      /* 0: the library was not fetched, the firmware has none; its rows are missing */
	/* Key k (re-imported only when it changed) and the input; RSA_OK, or an RSA_ERR_* code. */
	int (*load)(const rsa_key *k, enum rsa_op_id op, const uint32_t *in);
	int (*run)(enum rsa_op_id op);
	void (*store)(uint32_t *out);
	/* Cycles of one Montgomery product a*b modulo k->n through the library's bignum (timed inside,
	   the mean of several), *ok when its result agrees with ours; NULL when the API has none. */
	uint64_t (*mul_cycles)(const rsa_key *k, const mont_ctx *n, const uint32_t *a, const uint32_t *b, int *ok);
};

#define RSA_ERR_PEER_MISSING (-10)   /* the library is not in this firmware (fetch failed) */
#define RSA_ERR_PEER         (-11)   /* the library refused or failed the operation */

/* constant_time: its private-key operations claim to be (console_protocol.CONSTANT_TIME_IMPLS).
   Exactly one of backend and peer is set. */
struct rsa_impl { const char *name; const rsa_backend *backend; int constant_time; const struct rsa_peer *peer; };

/* Each peer's glue, firmware/peers/peer_<name>.c, defines peer_<name>. */
#define PEER_DECLARE(name, NAME) extern const struct rsa_peer peer_##name;
PEER_LIST(PEER_DECLARE)
#undef PEER_DECLARE

/* public, private, private_crt; and sw, hw_cpu, the sequencer's (MONTMUL_SCHEME_IMPLS: hw_seq,
   hw_seq_window), then the peers (PEER_LIST); each ends with a NULL name. */
extern const struct rsa_op rsa_ops[];
extern const struct rsa_impl rsa_impls[];

const struct rsa_op *rsa_op_find(const char *name);
const struct rsa_impl *rsa_impl_find(const char *name);

/* out = op(in) on impl, timed with interrupts masked, caches invalidated and nothing loaded in the
   peripheral (rsa_hw_forget); *err gets its result. On a peer library only its run() is timed. */
uint64_t rsa_timed(const struct rsa_op *op, const struct rsa_impl *impl, const rsa_key *k, const rsa_ctx *c,
                   uint32_t *out, const uint32_t *in, int *err);

/* The cycles of one software Montgomery product r = a b R^-1 mod n: the mean of `reps`, timed as
   above. */
uint64_t sw_mul_timed(const mont_ctx *n, uint32_t *r, const uint32_t *a, const uint32_t *b, unsigned reps);

#endif
