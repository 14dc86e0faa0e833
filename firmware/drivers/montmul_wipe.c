/* CLEAR, apart from the rest of the driver: only the console runs it, so it is linked after the timed
   code (the Makefile's UNTIMED list) and moves none of it. */
#include "drivers/montmul_drv.h"

int montmul_wipe(void)
{
	/* CLEAR keeps the peripheral busy for MONTMUL_CLEAR_CYCLES, within mm_wait's bound
	   (MONTMUL_CMD_CYCLES_MAX counts it). The sizes the driver keeps for its waits may stay: with no
	   modulus in force a product is refused at once, and the next SETMOD sets them again. */
	return (int)mm_run(montmul_cmd(MONTMUL_OP_CLEAR, 0, 0, 0, 0));
}
