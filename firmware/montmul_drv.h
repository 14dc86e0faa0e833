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

/* Writes `limbs` 32-bit words into `slot`, then zeros up to `total` limbs. Returns the error code. */
unsigned mm_load(unsigned slot, const uint32_t *a, unsigned limbs, unsigned total);
/* Reads `limbs` 32-bit words of `slot`. Returns the error code. */
unsigned mm_store(unsigned slot, uint32_t *r, unsigned limbs);
/* Takes the modulus from `slot`, `limbs` 32-bit limbs wide. */
unsigned mm_setmod(unsigned slot, unsigned limbs);
/* dst = base^e (Montgomery domain; dst must hold R mod N), e = the low `ebits` bits of slot `e`, with
   op one of MONTMUL_OP_EXP_WINDOW, MONTMUL_OP_EXP_FIXED, MONTMUL_OP_EXP_LADDER. */
static inline unsigned mm_exp(unsigned op, unsigned dst, unsigned base, unsigned e, unsigned ebits)
{
	return mm_run(montmul_cmd(op, dst, base, e, ebits));
}

#endif
