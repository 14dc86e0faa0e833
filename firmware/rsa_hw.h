/*
 * RSA with the Montgomery peripheral, in two forms:
 *   HW_CPU  the CPU runs the exponent loop (sliding window) and issues one MUL command per step;
 *   HW_SEQ  the peripheral's own sequencer runs the whole exponentiation (EXP_WINDOW).
 * Every operation loads what it needs into the peripheral (modulus, constants, exponent, message)
 * and reads the result back: the cycles counted include all operand transfers.
 *
 * Per-key constants (R^2 mod n and the like) are computed once per key, in software, by
 * rsa_ctx_init and rsa_hw_init, as a library would cache them.
 */
#ifndef RSA_HW_H
#define RSA_HW_H

#include <stdint.h>

#include "rsa_sw.h"

enum hw_mode { HW_CPU = 0, HW_SEQ = 1 };

typedef struct {
	uint32_t rn_mod_p[BN_MAX_WORDS];   /* 2^(32*nw) mod p: reduces a value of n's size modulo p */
	uint32_t rn_mod_q[BN_MAX_WORDS];
	uint32_t qinv_m[BN_MAX_WORDS];     /* qinv * R_p mod p */
	uint32_t q_m[BN_MAX_WORDS];        /* q * R_n mod n */
} rsa_hw_ctx;

int rsa_hw_init(rsa_hw_ctx *h, const rsa_key *k, const rsa_ctx *c);

/* r = base^e mod m (normal domain, base < m), on the peripheral. Returns 0 or a peripheral error
   code (> 0). */
int hw_modexp(const mont_ctx *m, uint32_t *r, const uint32_t *base, const uint32_t *e, unsigned ebits,
              enum hw_mode mode);

/* As rsa_public / rsa_private / rsa_private_crt, on the peripheral. A peripheral error is returned
   as RSA_ERR_HW. */
#define RSA_ERR_HW (-4)
int rsa_hw_public(const rsa_key *k, const rsa_ctx *c, uint32_t *out, const uint32_t *in, enum hw_mode mode);
int rsa_hw_private(const rsa_key *k, const rsa_ctx *c, uint32_t *out, const uint32_t *in, enum hw_mode mode);
int rsa_hw_private_crt(const rsa_key *k, const rsa_ctx *c, const rsa_hw_ctx *h, uint32_t *out,
                       const uint32_t *in, enum hw_mode mode);

/* Average cycles of one MUL issued by the CPU (command write + wait), and of one product inside the
   sequencer (an EXP_LADDER of known length divided by its 2*ebits products), at m's size. */
int hw_mul_cycles(const mont_ctx *m, uint32_t *cpu_cycles, uint32_t *seq_cycles);

#endif
