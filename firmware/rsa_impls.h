/* The benchmark's operations and implementations by their protocol names (console_protocol.h),
   and one operation run in a timed region (cycles.h). */
#ifndef RSA_IMPLS_H
#define RSA_IMPLS_H

#include <stdint.h>

#include "rsa.h"

typedef int (*rsa_op_fn)(const rsa_backend *, const rsa_key *, const rsa_ctx *, uint32_t *, const uint32_t *);

struct rsa_op { const char *name; rsa_op_fn run; int private_key; };
/* constant_time: its private-key operations claim to be (console_protocol.CONSTANT_TIME_IMPLS). */
struct rsa_impl { const char *name; const rsa_backend *backend; int constant_time; };

/* public, private, private_crt; and sw, hw_cpu, hw_seq, hw_seq_window; each ends with a NULL name. */
extern const struct rsa_op rsa_ops[];
extern const struct rsa_impl rsa_impls[];

const struct rsa_op *rsa_op_find(const char *name);
const struct rsa_impl *rsa_impl_find(const char *name);

/* out = op(in) on impl, timed with interrupts masked, caches invalidated and nothing loaded in the
   peripheral (rsa_hw_forget); *err gets its result. */
uint64_t rsa_timed(const struct rsa_op *op, const struct rsa_impl *impl, const rsa_key *k, const rsa_ctx *c,
                   uint32_t *out, const uint32_t *in, int *err);

#endif
