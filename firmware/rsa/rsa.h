/*
 * Raw RSA (no padding), written once over a small backend interface: the public operation, the
 * private operation without and with CRT (Garner's recombination), and the check of a CRT result
 * with the public exponent before it is released. A backend supplies two things, a Montgomery
 * product and a modular exponentiation; everything else (input reduction modulo p and q, Garner,
 * recombination, the check, copies) is here, the same for every backend, unless a backend does the
 * whole CRT itself (rsa_backend.crt):
 *   rsa_sw         software on the CPU (bignum.c)                                    rsa_sw.c
 *   rsa_hw_cpu     the CPU runs the exponent loop, one peripheral MUL per product    rsa_hw.c
 *   rsa_hw_seq     the peripheral's sequencer runs each exponentiation, and the whole CRT
 *                  (crt: both halves at once where the factors fit the pair commands, Garner,
 *                  the recombination and the check in the peripheral's slots)           rsa_hw.c
 *   rsa_hw_seq_window  as rsa_hw_seq, but the private exponentiations use the sliding window
 *                  (EXP_WINDOW): faster, NOT constant-time; kept to show what safety costs.
 *
 * Constant time. In rsa_private and rsa_private_crt no branch, loop bound or memory index depends on
 * the message, the key's secret values (d, p, q, dp, dq, qinv) or an intermediate result, on every
 * backend but rsa_hw_seq_window: the exponentiations with a secret exponent use fixed windows over
 * a declared length (the modulus' or the factor's limb count, never the exponent's top bit) and read
 * their table without a secret address (software: a masked scan of the whole table; peripheral: a
 * slot of its register file, which has no cache); products, reductions and subtractions use masks
 * instead of branches; comparisons scan every limb. What may vary: the key's public sizes, the public
 * exponent e, and the outcome of the fault check (a failed check is not a secret). Key set-up
 * (rsa_ctx_init) is not constant-time: it runs once per key.
 *
 * Sizes: the modulus has k->bits bits and nw = ceil(bits/32) limbs; n, e, d, the input and the
 * output all have nw limbs. p and q have ceil(pbits/32) and ceil(qbits/32) limbs (each at most
 * BN_MAX_WORDS/2, they may differ in size and p < q is allowed); dp and qinv have p's limb count,
 * dq has q's. Unused limbs of the key arrays are ignored.
 *
 * Memory: intermediates live in static buffers (single-threaded firmware, not re-entrant) and are
 * wiped before returning.
 */
#ifndef RSA_H
#define RSA_H

#include <stdint.h>

#include "bignum/bignum.h"

#define RSA_OK          0
#define RSA_ERR_RANGE (-1)   /* input not below the modulus */
#define RSA_ERR_KEY   (-2)   /* malformed key, no CRT parameters, or context not made for this key */
#define RSA_ERR_FAULT (-3)   /* CRT result failed the check out^e == in; output cleared */
#define RSA_ERR_HW    (-4)   /* the peripheral refused a command */

#define RSA_HALF_WORDS (BN_MAX_WORDS / 2)

typedef struct {
	unsigned bits;                  /* modulus size in bits */
	uint32_t n[BN_MAX_WORDS], e[BN_MAX_WORDS], d[BN_MAX_WORDS];
	uint32_t p[RSA_HALF_WORDS], q[RSA_HALF_WORDS], dp[RSA_HALF_WORDS], dq[RSA_HALF_WORDS], qinv[RSA_HALF_WORDS];
	int has_crt;                    /* p, q, dp, dq, qinv valid */
} rsa_key;

/*
 * Per-key precomputation (rsa_ctx_init), made once per key. The widened contexts hold p and q with
 * n's limb count: their `one` is 2^(32*nw) mod p, so a product of a value x < 2^(32*nw) with it is
 * x mod p (how an input is reduced modulo the factors, on every backend).
 */
typedef struct {
	mont_ctx n, p, q;
	mont_ctx p_wide, q_wide;          /* p and q with nw limbs (CRT only) */
	uint32_t qinv_m[RSA_HALF_WORDS];  /* qinv * R_p mod p: a product with it multiplies by qinv */
	uint32_t q_m[BN_MAX_WORDS];       /* q * R_n mod n: a product with it multiplies by q */
	uint32_t p_k[RSA_HALF_WORDS];     /* 2^(32*(nw + pw)) mod p and 2^(32*(nw + qw)) mod q: the */
	uint32_t q_k[RSA_HALF_WORDS];     /* constants of a backend's crt_exp (see rsa_backend) */
} rsa_ctx;

/* What an implementation supplies. Both return 0, or RSA_ERR_HW when the peripheral refused. */
typedef struct rsa_backend {
	/* r = a * b * R^-1 mod m->n, R = 2^(32*m->words), fully reduced; a < R and b < m->n. All
	   operands have m->words limbs. Constant time. */
	int (*mul)(const mont_ctx *m, uint32_t *r, const uint32_t *a, const uint32_t *b);
	/* r = base^e mod m->n (normal domain, base < m->n, m->words limbs), with e's low ebits bits.
	   secret: constant time in base and e, the work set by ebits alone. Otherwise the time may
	   depend on e (never on base). */
	int (*exp)(const mont_ctx *m, uint32_t *r, const uint32_t *base, const uint32_t *e, unsigned ebits,
	           int secret);
	/* Optional (NULL: none): both secret exponentiations of a CRT at once, from the unreduced input x
	   (xw limbs): r0 = x^e0 mod m0 and r1 = x^e1 mod m1, each exponent's low ebits bits. k0 =
	   2^(32*(xw + m0->words)) mod m0 (so that x*k0*2^(-32*xw) is x mod m0 in Montgomery form), k1
	   likewise. Constant time as exp's secret case; for moduli of at most pair_max_limbs limbs each
	   (larger ones are reduced and go through exp one after the other). */
	int (*crt_exp)(const mont_ctx *m0, uint32_t *r0, const uint32_t *e0, const uint32_t *k0,
	               const mont_ctx *m1, uint32_t *r1, const uint32_t *e1, const uint32_t *k1,
	               const uint32_t *x, unsigned xw, unsigned ebits);
	unsigned pair_max_limbs;
	/* Optional (NULL: none): the whole of rsa_private_crt after its argument checks, in the backend:
	   both exponentiations, Garner's step, the recombination and the check with e, so that only the
	   key's constants, the input and the result cross the bus. out = in^d mod n and RSA_OK; or
	   RSA_ERR_FAULT when out^e != in (out zeroed: nothing unchecked is released); or RSA_ERR_HW.
	   Constant time as crt_exp. For q of no more limbs than p and at least half of n's (rsa_private_crt
	   takes the general path otherwise). */
	int (*crt)(const rsa_key *k, const rsa_ctx *c, uint32_t *out, const uint32_t *in);
} rsa_backend;

/* The sequencer's backends, one per exponent scheme the firmware runs, are declared in rsa_hw.h. */
extern const rsa_backend rsa_sw, rsa_hw_cpu;

/*
 * Check the key and make its precomputation. Checks: 16 <= bits <= BN_MAX_BITS, n has exactly bits
 * bits and is odd, e is odd and > 1; with CRT: p, q odd, > 1, at most BN_MAX_BITS/2 bits, p*q == n,
 * dp < p, dq < q, qinv < p. Returns RSA_OK or RSA_ERR_KEY.
 */
int rsa_ctx_init(rsa_ctx *c, const rsa_key *k);

/* out = in^e mod n. RSA_ERR_RANGE if in >= n. out may alias in. Variable time in e only. */
int rsa_public(const rsa_backend *b, const rsa_key *k, const rsa_ctx *c, uint32_t *out, const uint32_t *in);

/* out = in^d mod n without CRT, over n's full length. RSA_ERR_RANGE if in >= n. out may alias in. */
int rsa_private(const rsa_backend *b, const rsa_key *k, const rsa_ctx *c, uint32_t *out, const uint32_t *in);

/*
 * out = in^d mod n with CRT: m1 = in^dp mod p, m2 = in^dq mod q, h = (m1 - m2)*qinv mod p,
 * out = m2 + q*h; then checked: if out^e mod n != in, out is cleared and RSA_ERR_FAULT returned.
 * RSA_ERR_KEY without CRT parameters. out may alias in.
 */
int rsa_private_crt(const rsa_backend *b, const rsa_key *k, const rsa_ctx *c, uint32_t *out,
                    const uint32_t *in);

#endif /* RSA_H */
