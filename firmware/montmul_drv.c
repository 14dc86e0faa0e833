#include "montmul_drv.h"

unsigned mm_load(unsigned slot, const uint32_t *a, unsigned limbs, unsigned total)
{
	unsigned i = 0, err = mm_run(montmul_cmd(MONTMUL_OP_WRITE, slot, 0, 0, 0));
	if (err)
		return err;
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
	return mm_wait();
}

unsigned mm_store(unsigned slot, uint32_t *r, unsigned limbs)
{
	unsigned i = 0, err = mm_run(montmul_cmd(MONTMUL_OP_READ, 0, slot, 0, 0));
	if (err)
		return err;
	for (; i + 4 <= limbs; i += 4) {
		r[i] = montmul_rdata_read();
		r[i + 1] = montmul_rdata_read();
		r[i + 2] = montmul_rdata_read();
		r[i + 3] = montmul_rdata_read();
	}
	for (; i < limbs; i++)
		r[i] = montmul_rdata_read();
	return mm_wait();
}

unsigned mm_setmod(unsigned slot, unsigned limbs)
{
	return mm_run(montmul_cmd(MONTMUL_OP_SETMOD, 0, slot, 0, MM_SIZE_WORDS(limbs)));
}
