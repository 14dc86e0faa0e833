#include "montmul_drv.h"

/* Bus words of a slot where context 1's operand starts. */
#define PAIR_LIMBS (MONTMUL_PAIR_OFFSET * MONTMUL_BUS_BITS / 32)

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
	write_limbs(a, limbs, total);
	return mm_wait();
}

unsigned mm_read(unsigned slot, uint32_t *r, unsigned limbs)
{
	unsigned err = mm_run(montmul_cmd(MONTMUL_OP_READ, 0, slot, 0, 0));
	if (err)
		return err;
	read_limbs(r, limbs);
	return mm_wait();
}

unsigned mm_write_pair(unsigned slot, const uint32_t *a0, unsigned limbs0, const uint32_t *a1, unsigned limbs1,
                       unsigned total1)
{
	unsigned err = mm_run(montmul_cmd(MONTMUL_OP_WRITE, slot, 0, 0, 0));
	if (err)
		return err;
	write_limbs(a0, limbs0, PAIR_LIMBS);
	write_limbs(a1, limbs1, total1);
	return mm_wait();
}

unsigned mm_read_pair(unsigned slot, uint32_t *r0, unsigned limbs0, uint32_t *r1, unsigned limbs1)
{
	unsigned i, err = mm_run(montmul_cmd(MONTMUL_OP_READ, 0, slot, 0, 0));
	if (err)
		return err;
	read_limbs(r0, limbs0);
	for (i = limbs0; i < PAIR_LIMBS; i++)
		(void)montmul_rdata_read();
	read_limbs(r1, limbs1);
	return mm_wait();
}

unsigned mm_setmod_bank(unsigned slot, unsigned limbs, unsigned bank)
{
	return mm_run(montmul_cmd(MONTMUL_OP_SETMOD, bank, slot, 0, MM_SIZE_WORDS(limbs)));
}

unsigned mm_setmod(unsigned slot, unsigned limbs)
{
	return mm_setmod_bank(slot, limbs, 0);
}
