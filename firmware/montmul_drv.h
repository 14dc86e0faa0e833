/* Driver of the Montgomery peripheral: operand transfers and commands over its CSRs.
   The register map comes from LiteX's generated csr.h, the command encoding from the generated
   montmul.h (gateware/interface.py): nothing is copied by hand. */
#ifndef MONTMUL_DRV_H
#define MONTMUL_DRV_H

#include <stdint.h>
#include <generated/csr.h>

#include "montmul.h"

/* Peripheral sizes are counted in MONTMUL_WORD_BITS-bit words; firmware numbers in 32-bit limbs. */
#define MM_SIZE_WORDS(limbs) ((limbs) * 32 / MONTMUL_WORD_BITS)

/* Waits while the peripheral is busy; returns the error code of the last command (0: none). */
static inline unsigned mm_wait(void)
{
	uint32_t status;
	do
		status = montmul_status_read();
	while (status & MONTMUL_STATUS_BUSY);
	return (status >> MONTMUL_STATUS_ERROR_SHIFT) & MONTMUL_STATUS_ERROR_MASK;
}

/* Issues a command and waits for it; returns its error code. */
static inline unsigned mm_run(uint32_t cmd)
{
	montmul_cmd_write(cmd);
	return mm_wait();
}

static inline unsigned mm_mul(unsigned dst, unsigned a, unsigned b)
{
	return mm_run(montmul_cmd(MONTMUL_OP_MUL, dst, a, b, 0));
}

static inline unsigned mm_mul_pair(unsigned dst, unsigned a, unsigned b)
{
	return mm_run(montmul_cmd(MONTMUL_OP_MUL_PAIR, dst, a, b, 0));
}

/* The pair commands (MONTMUL_OP_MUL_PAIR, MONTMUL_OP_EXP_FIXED_PAIR) work on moduli of at most this
   many 32-bit limbs (0: the peripheral has none). */
#define MM_PAIR_MAX_LIMBS (MONTMUL_PAIR_MAX_WORDS * MONTMUL_WORD_BITS / 32)

/* Writes `limbs` 32-bit words into `slot`, then zeros up to `total` limbs. Returns the error code. */
unsigned mm_write(unsigned slot, const uint32_t *a, unsigned limbs, unsigned total);
/* Reads `limbs` 32-bit words of `slot`. Returns the error code. */
unsigned mm_read(unsigned slot, uint32_t *r, unsigned limbs);
/* Takes the modulus of bank 0 (every command's) from `slot`, `limbs` 32-bit limbs wide. */
unsigned mm_setmod(unsigned slot, unsigned limbs);
/* The same for `bank` (1: context 1 of the pair commands). */
unsigned mm_setmod_bank(unsigned slot, unsigned limbs, unsigned bank);
/* A pair operand into `slot`: a0 (limbs0 limbs, then zeros to the end of its row) as context 0's,
   a1 (limbs1 limbs, then zeros up to total1 limbs) as context 1's. */
unsigned mm_write_pair(unsigned slot, const uint32_t *a0, unsigned limbs0, const uint32_t *a1, unsigned limbs1,
                       unsigned total1);
/* Reads a pair operand of `slot`: context 0's limbs0 limbs into r0, context 1's limbs1 into r1. */
unsigned mm_read_pair(unsigned slot, uint32_t *r0, unsigned limbs0, uint32_t *r1, unsigned limbs1);
/* dst = base^e (Montgomery domain; dst must hold R mod N), e = the low `ebits` bits of slot `e`, with
   op one of MONTMUL_OP_EXP_WINDOW, MONTMUL_OP_EXP_FIXED, MONTMUL_OP_EXP_LADDER, or
   MONTMUL_OP_EXP_FIXED_PAIR (both contexts). */
static inline unsigned mm_exp(unsigned op, unsigned dst, unsigned base, unsigned e, unsigned ebits)
{
	return mm_run(montmul_cmd(op, dst, base, e, ebits));
}

#endif
