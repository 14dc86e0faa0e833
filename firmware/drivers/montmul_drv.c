#include "drivers/montmul_drv.h"

/* Bus words of a slot where context 1's operand starts. */
#define PAIR_LIMBS (MONTMUL_PAIR_OFFSET * MONTMUL_BUS_BITS / 32)

/* The rows (lanes of W-bit words each) of the modulus in force in each bank, as the last accepted
   SETMOD set it; 0: not known (after a reset, or before any). They bound exponentiations' waits. */
static unsigned bank_rows[MONTMUL_NUM_BANKS];
static const uint32_t mul_cycles_by_rows[] = MONTMUL_MUL_CYCLES_BY_ROWS;

void mm_reset(void)
{
	unsigned i;

	montmul_ctrl_write(1u << CSR_MONTMUL_CTRL_RESET_OFFSET);
	for (i = 0; i < MONTMUL_NUM_BANKS; i++)
		bank_rows[i] = 0;
}

unsigned mm_stuck(void)
{
	mm_reset();
	return MM_ERR_STUCK;
}

unsigned mm_wait_busy(uint32_t polls)
{
	uint32_t status;

	while (--polls)
		if (!((status = montmul_status_read()) & MONTMUL_STATUS_BUSY))
			return (status >> MONTMUL_STATUS_ERROR_SHIFT) & MONTMUL_STATUS_ERROR_MASK;
	return mm_stuck();
}

uint32_t mm_exp_polls(unsigned op, unsigned ebits)
{
	unsigned rows = bank_rows[0] ? bank_rows[0] : MONTMUL_ROWS_MAX;
	uint32_t mul = op == MONTMUL_OP_EXP_FIXED_PAIR ? MONTMUL_PAIR_MUL_CYCLES_MAX : mul_cycles_by_rows[rows];

	return MM_WAIT_MARGIN * (ebits + MONTMUL_EXP_EXTRA_PRODUCTS) * MONTMUL_EXP_PRODUCTS_PER_BIT
	       * (mul + MONTMUL_EXP_PRODUCT_OVERHEAD);
}

/* Keeps the compiler from interleaving the RAM accesses of a pass with its window accesses: VexRiscv
   (full) takes window accesses in a row faster than each after a RAM access (on the simulated SoC, a
   word written in about 5 cycles with eight a pass against 7 interleaved, a zero in 2). */
#define MM_IN_REGISTERS(...) __asm__ volatile ("" : __VA_ARGS__)

static void write_limbs(const uint32_t *a, unsigned limbs, unsigned total)
{
	unsigned i = 0;

	/* Eight words loaded, then eight stores in a row. */
	for (; i + 8 <= limbs; i += 8) {
		uint32_t w0 = a[i], w1 = a[i + 1], w2 = a[i + 2], w3 = a[i + 3];
		uint32_t w4 = a[i + 4], w5 = a[i + 5], w6 = a[i + 6], w7 = a[i + 7];

		MM_IN_REGISTERS("+r"(w0), "+r"(w1), "+r"(w2), "+r"(w3), "+r"(w4), "+r"(w5), "+r"(w6), "+r"(w7));
		mm_data_write(w0);
		mm_data_write(w1);
		mm_data_write(w2);
		mm_data_write(w3);
		mm_data_write(w4);
		mm_data_write(w5);
		mm_data_write(w6);
		mm_data_write(w7);
	}
	for (; i < limbs; i++)
		mm_data_write(a[i]);
	/* Four stores a pass: the loop's own instructions would otherwise take as long as the stores. */
	for (; i + 4 <= total; i += 4) {
		mm_data_write(0);
		mm_data_write(0);
		mm_data_write(0);
		mm_data_write(0);
	}
	for (; i < total; i++)
		mm_data_write(0);
}

static void read_limbs(uint32_t *r, unsigned limbs)
{
	unsigned i = 0;

	/* Four loads from the window in a row, then four stores to RAM. */
	for (; i + 4 <= limbs; i += 4) {
		uint32_t w0 = mm_data_read(), w1 = mm_data_read(), w2 = mm_data_read(), w3 = mm_data_read();

		MM_IN_REGISTERS("+r"(w0), "+r"(w1), "+r"(w2), "+r"(w3));
		r[i] = w0;
		r[i + 1] = w1;
		r[i + 2] = w2;
		r[i + 3] = w3;
	}
	for (; i < limbs; i++)
		r[i] = mm_data_read();
}

unsigned mm_write(unsigned slot, const uint32_t *a, unsigned limbs, unsigned total)
{
	unsigned err = mm_run(montmul_cmd(MONTMUL_OP_WRITE, slot, 0, 0, 0));
	if (err)
		return err;
	profile_enter(PROFILE_TRANSFER);
	write_limbs(a, limbs, total);
	profile_leave();
	return mm_wait();
}

unsigned mm_read(unsigned slot, uint32_t *r, unsigned limbs)
{
	unsigned err = mm_run(montmul_cmd(MONTMUL_OP_READ, 0, slot, 0, 0));
	if (err)
		return err;
	profile_enter(PROFILE_TRANSFER);
	read_limbs(r, limbs);
	profile_leave();
	return mm_wait();
}

unsigned mm_write_pair(unsigned slot, const uint32_t *a0, unsigned limbs0, const uint32_t *a1, unsigned limbs1,
                       unsigned total1)
{
	unsigned err = mm_run(montmul_cmd(MONTMUL_OP_WRITE, slot, 0, 0, 0));
	if (err)
		return err;
	profile_enter(PROFILE_TRANSFER);
	write_limbs(a0, limbs0, PAIR_LIMBS);
	write_limbs(a1, limbs1, total1);
	profile_leave();
	return mm_wait();
}

unsigned mm_read_pair(unsigned slot, uint32_t *r0, unsigned limbs0, uint32_t *r1, unsigned limbs1)
{
	unsigned i, err = mm_run(montmul_cmd(MONTMUL_OP_READ, 0, slot, 0, 0));
	if (err)
		return err;
	profile_enter(PROFILE_TRANSFER);
	read_limbs(r0, limbs0);
	for (i = limbs0; i < PAIR_LIMBS; i++)
		(void)mm_data_read();
	read_limbs(r1, limbs1);
	profile_leave();
	return mm_wait();
}

unsigned mm_setmod_bank(unsigned slot, unsigned limbs, unsigned bank)
{
	unsigned words = MM_SIZE_WORDS(limbs), err = mm_run(montmul_cmd(MONTMUL_OP_SETMOD, bank, slot, 0, words));

	/* a refused SETMOD leaves the bank's modulus as it was */
	if (!err && bank < MONTMUL_NUM_BANKS)
		bank_rows[bank] = (words + MONTMUL_LANES - 1) / MONTMUL_LANES;
	return err;
}

unsigned mm_setmod(unsigned slot, unsigned limbs)
{
	return mm_setmod_bank(slot, limbs, 0);
}

unsigned mm_equal(unsigned a, unsigned b, uint32_t *same)
{
	unsigned err = mm_run(montmul_cmd(MONTMUL_OP_EQUAL, 0, a, b, 0));

	*same = 0u - ((montmul_status_read() >> MONTMUL_STATUS_EQUAL_SHIFT) & MONTMUL_STATUS_EQUAL_MASK);
	return err;
}
