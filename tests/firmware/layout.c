/* The layout of the structures the tests fill through ctypes (tests/firmware/bnlib.py), from the
   same compiler run as the library: the ctypes mirrors are checked against it, field by field. */
#include <stddef.h>

#include "rsa/rsa.h"

struct layout_entry { const char *name; size_t offset, size; };

#define STRUCT(type) { #type, 0, sizeof(type) }
#define FIELD(type, field) { #type "." #field, offsetof(type, field), sizeof(((type *)0)->field) }

const struct layout_entry test_layout[] = {
	STRUCT(mont_ctx),
	FIELD(mont_ctx, n), FIELD(mont_ctx, rr), FIELD(mont_ctx, one), FIELD(mont_ctx, n0inv),
	FIELD(mont_ctx, words), FIELD(mont_ctx, id),
	STRUCT(rsa_key),
	FIELD(rsa_key, bits), FIELD(rsa_key, n), FIELD(rsa_key, e), FIELD(rsa_key, d), FIELD(rsa_key, p),
	FIELD(rsa_key, q), FIELD(rsa_key, dp), FIELD(rsa_key, dq), FIELD(rsa_key, qinv), FIELD(rsa_key, has_crt),
	STRUCT(rsa_ctx),
	FIELD(rsa_ctx, n), FIELD(rsa_ctx, p), FIELD(rsa_ctx, q), FIELD(rsa_ctx, p_wide), FIELD(rsa_ctx, q_wide),
	FIELD(rsa_ctx, qinv_m), FIELD(rsa_ctx, q_m), FIELD(rsa_ctx, p_k), FIELD(rsa_ctx, q_k),
	{ NULL, 0, 0 },
};
