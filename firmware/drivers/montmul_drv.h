/* Driver of the Montgomery peripheral: commands over its CSRs, operand words through its data window.
   The register map comes from LiteX's generated csr.h, the window's address from its mem.h
   (MONTMUL_DATA_BASE), the command encoding from the generated montmul.h (gateware/interface.py):
   nothing is copied by hand.

   Every wait on the peripheral is bounded: a command may keep it busy for at most the cycles
   montmul.h gives (gateware.model.wait_bounds), and a wait polls the status MM_WAIT_MARGIN times
   that often (a poll takes at least a cycle). A peripheral still busy then is stuck (a fault): the
   driver resets it (the `ctrl` register's reset) and the call returns MM_ERR_STUCK. */
#ifndef MONTMUL_DRV_H
#define MONTMUL_DRV_H

#include <stdint.h>
#include <generated/csr.h>
#include <generated/mem.h>

#include "montmul.h"
#include "drivers/profile.h"

/* The data window (soc/montmul.py), one uncached bus word: a store is the next word of the slot the
   last WRITE selected, a load the current word of the slot the last READ selected (and moves on).
   Through LiteX's bus accessors (hw/common.h, which csr.h includes). */
static inline void mm_data_write(uint32_t word)
{
	csr_write_simple(word, MONTMUL_DATA_BASE);
}

static inline uint32_t mm_data_read(void)
{
	return csr_read_simple(MONTMUL_DATA_BASE);
}

/* Peripheral sizes are counted in MONTMUL_WORD_BITS-bit words; firmware numbers in 32-bit limbs. */
#define MM_SIZE_WORDS(limbs) ((limbs) * 32 / MONTMUL_WORD_BITS)

/* Not a peripheral error code (those fit the status' 8-bit field): the peripheral stayed busy past the
   bound of a wait, and the driver has reset it. */
#define MM_ERR_STUCK 0x100u
/* Polls of the status a wait makes per cycle the command may take at most. */
#define MM_WAIT_MARGIN 2u

/* Resets the peripheral (its registers: no modulus is in force afterwards; the operand memories keep
   their words: montmul_wipe() clears them) and forgets the sizes it had. */
void mm_reset(void);

/* CLEAR: zeroes every operand slot (hidden ones too), both modulus banks and the core's memories and
   registers, in MONTMUL_CLEAR_CYCLES cycles whatever they held; no modulus is in force afterwards.
   Returns 0, the peripheral's error code (MONTMUL_ERR_BUSY if a command still runs), or MM_ERR_STUCK.
   Defined in montmul_wipe.c, which the Makefile links after the timed code. */
int montmul_wipe(void);

/* mm_reset(), then MM_ERR_STUCK: the end of a wait that ran out. */
unsigned mm_stuck(void);
/* The rest of mm_wait_polls once its first read found the peripheral busy (out of line: most accesses
   find it idle at once). */
unsigned mm_wait_busy(uint32_t polls);

/* Waits while the peripheral is busy, at most `polls` reads of its status; returns the error code of
   the last command (0: none), or MM_ERR_STUCK (the peripheral reset) when it stays busy. */
static inline unsigned mm_status_wait(uint32_t polls)
{
	uint32_t status = montmul_status_read();

	if (status & MONTMUL_STATUS_BUSY)
		return mm_wait_busy(polls);
	return (status >> MONTMUL_STATUS_ERROR_SHIFT) & MONTMUL_STATUS_ERROR_MASK;
}

/* mm_status_wait, as the instrumented build's split counts it (drivers/profile.h). */
static inline unsigned mm_wait_polls(uint32_t polls)
{
	unsigned err;

	profile_enter(PROFILE_WAIT);
	err = mm_status_wait(polls);
	profile_leave();
	return err;
}

/* Waits for any command but an exponentiation (or a data access) to end. */
static inline unsigned mm_wait(void)
{
	return mm_wait_polls(MM_WAIT_MARGIN * MONTMUL_CMD_CYCLES_MAX);
}

/* Issues a command and waits for it; returns its error code. */
static inline unsigned mm_run(uint32_t cmd)
{
	montmul_cmd_write(cmd);
	return mm_wait();
}

/* MUL: the CPU loop (rsa_hw_cpu) waits on one for every product, so its whole wait is inline. */
static inline unsigned mm_mul(unsigned dst, unsigned a, unsigned b)
{
	uint32_t status, polls = MM_WAIT_MARGIN * MONTMUL_CMD_CYCLES_MAX;

	montmul_cmd_write(montmul_cmd(MONTMUL_OP_MUL, dst, a, b, 0));
	profile_enter(PROFILE_WAIT);
	while ((status = montmul_status_read()) & MONTMUL_STATUS_BUSY)
		if (--polls == 0) {
			profile_leave();
			return mm_stuck();
		}
	profile_leave();
	return (status >> MONTMUL_STATUS_ERROR_SHIFT) & MONTMUL_STATUS_ERROR_MASK;
}

static inline unsigned mm_mul_pair(unsigned dst, unsigned a, unsigned b)
{
	return mm_run(montmul_cmd(MONTMUL_OP_MUL_PAIR, dst, a, b, 0));
}

/* dst = (a + b) mod N and dst = (a - b) mod N over bank 0's modulus N, for a, b < N. */
static inline unsigned mm_add(unsigned dst, unsigned a, unsigned b)
{
	return mm_run(montmul_cmd(MONTMUL_OP_ADD, dst, a, b, 0));
}

static inline unsigned mm_sub(unsigned dst, unsigned a, unsigned b)
{
	return mm_run(montmul_cmd(MONTMUL_OP_SUB, dst, a, b, 0));
}

/* dst = context ctx's operand of slot a (row ctx, its words below bank ctx's size) as a single
   operand, every other word of dst zero. */
static inline unsigned mm_copy(unsigned dst, unsigned a, unsigned ctx)
{
	return mm_run(montmul_cmd(MONTMUL_OP_COPY, dst, a, 0, ctx));
}

/* EQUAL: *same = all ones if slots a and b hold the same words below bank 0's size, else 0 (a mask
   from the status bit, not a branch). Returns the error code. */
unsigned mm_equal(unsigned a, unsigned b, uint32_t *same);

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
/* The status polls an exponentiation of `ebits` bits may take (op: as mm_exp's), from the modulus
   sizes the driver set last (the largest size when it does not know them). */
uint32_t mm_exp_polls(unsigned op, unsigned ebits);

/* dst = base^e (Montgomery domain; dst must hold R mod N), e = the low `ebits` bits of slot `e`, with
   op one of MONTMUL_OP_EXP_WINDOW, MONTMUL_OP_EXP_FIXED, MONTMUL_OP_EXP_LADDER, or
   MONTMUL_OP_EXP_FIXED_PAIR (both contexts). */
static inline unsigned mm_exp(unsigned op, unsigned dst, unsigned base, unsigned e, unsigned ebits)
{
	montmul_cmd_write(montmul_cmd(op, dst, base, e, ebits));
	return mm_wait_polls(mm_exp_polls(op, ebits));
}

#endif
