/*
 * Software RSA (raw, no padding) on top of bignum.h: public operation, private operation without
 * and with CRT. The CRT result is checked with the public exponent before it is released.
 *
 * Sizes: the modulus has k->bits bits and nw = ceil(bits/32) limbs; n, e, d, the input and the
 * output all have nw limbs. p and q have ceil(pbits/32) and ceil(qbits/32) limbs (each at most
 * BN_MAX_WORDS/2, they may differ in size and p < q is allowed); dp and qinv have p's limb count,
 * dq has q's. Unused limbs of the key arrays are ignored.
 *
 * The private operations use constant-time fixed-window exponentiation (mont_exp_fixed) over the full
 * bit length of the modulus (or of p/q), the public one the faster sliding window.
 *
 * Memory: intermediate results live in static buffers (5 * BN_MAX_WORDS * 4 bytes, 2.5 KiB at 4096
 * bits) plus the exponentiation's static window table: not re-entrant, single-threaded firmware.
 * Secret intermediates are wiped before returning.
 *
 * Cycles on the simulated SoC (VexRiscv "full"), e = 65537, `python -m sim --run "bench 512"`:
 *     RSA-512: public ~0.13 M, private with CRT ~2.3 M, without CRT ~5.1 M
 * (`bench <bits>` for other sizes; the README has the full table).
 */
#ifndef RSA_SW_H
#define RSA_SW_H

#include <stdint.h>

#include "bignum.h"

#define RSA_OK          0
#define RSA_ERR_RANGE (-1)   /* input not below the modulus */
#define RSA_ERR_KEY   (-2)   /* malformed key, no CRT parameters, or context not made for this key */
#define RSA_ERR_FAULT (-3)   /* CRT result failed the check out^e == in; output cleared */

typedef struct {
	unsigned bits;                  /* modulus size in bits */
	uint32_t n[BN_MAX_WORDS], e[BN_MAX_WORDS], d[BN_MAX_WORDS];
	uint32_t p[BN_MAX_WORDS/2], q[BN_MAX_WORDS/2], dp[BN_MAX_WORDS/2], dq[BN_MAX_WORDS/2], qinv[BN_MAX_WORDS/2];
	int has_crt;                    /* p, q, dp, dq, qinv valid */
} rsa_key;

typedef struct { mont_ctx n, p, q; } rsa_ctx; /* per-key precomputation (mont_init), done once per key */

/*
 * Check the key and precompute the Montgomery constants of n (and of p and q if has_crt).
 * Checks: 16 <= bits <= BN_MAX_BITS, n has exactly bits bits and is odd, e is odd and > 1; with CRT:
 * p, q odd, > 1, at most BN_MAX_BITS/2 bits, and p*q == n. Returns RSA_OK or RSA_ERR_KEY.
 */
int rsa_ctx_init(rsa_ctx *c, const rsa_key *k);

/* out = in^e mod n. RSA_ERR_RANGE if in >= n. out may alias in. */
int rsa_public (const rsa_key *k, const rsa_ctx *c, uint32_t *out, const uint32_t *in);  /* in < n else error */

/* out = in^d mod n without CRT. RSA_ERR_RANGE if in >= n. out may alias in. */
int rsa_private(const rsa_key *k, const rsa_ctx *c, uint32_t *out, const uint32_t *in);

/*
 * out = in^d mod n with CRT (Garner: m = m2 + q*((m1 - m2)*qinv mod p)), then checked: if
 * out^e mod n != in, out is cleared and RSA_ERR_FAULT returned. RSA_ERR_KEY without CRT parameters
 * (or with dp >= p, dq >= q). out may alias in.
 */
int rsa_private_crt(const rsa_key *k, const rsa_ctx *c, uint32_t *out, const uint32_t *in); /* verifies out^e == in, else returns RSA_ERR_FAULT */

#endif /* RSA_SW_H */
