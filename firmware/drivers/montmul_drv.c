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

static void write_limbs(const uint32_t *a, unsigned limbs, unsigned total)
{
	unsigned i = 0;

	/* Four bus writes per pass: the loop's own instructions are a third of a transfer's cycles. */
	for (; i + 4 <= limbs; i += 4) {
		montmul_wdata_write(a[i]);
		montmul_wdata_write(a[i + 1]);
		montmul_wdata_write(a[i + 2]);
		montmul_wdata_write(a[i + 3]);
	}
	for (; i < limbs; i++)
		montmul_wdata_write(a[i]);
	for (; i < total; i++)
		montmul_wdata_write(0);
}

static void read_limbs(uint32_t *r, unsigned limbs)
{
	unsigned i = 0;

	for (; i + 4 <= limbs; i += 4) {
		r[i] = montmul_rdata_read();
		r[i + 1] = montmul_rdata_read();
		r[i + 2] = montmul_rdata_read();
		r[i + 3] = montmul_rdata_read();
	}
	for (; i < limbs; i++)
		r[i] = montmul_rdata_read();
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
		(void)montmul_rdata_read();
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
