/* RSA benchmark firmware: boots straight into the console menu. */
#include <stdio.h>
#include <string.h>

#include <irq.h>
#include <libbase/uart.h>
#include <generated/csr.h>
#include <generated/mem.h>
#include <generated/soc.h>

#include "console/bench_cmds.h"
#include "console/console.h"
#include "console/entropy_cmds.h"
#include "console/hash_cmds.h"
#include "console/hash_mct.h"
#include "drivers/cycles.h"
#include "drivers/montmul_drv.h"
#include "hash/sha256_select.h"
#include "montmul.h"
#include "rsa/rsa_hw.h"
#include "console/rsa_cmds.h"
#include "console/sig_cmds.h"
#include "tls/tls_cmds.h"

/* Stack depth: at start-up the top of the stack's space is painted; `info` reports how deep the stack
   has reached since (the lowest changed word), against the space there is. The linker reserves
   STACK_SIZE (soc/config.py); this is what the firmware really uses. Only the top 2 * STACK_SIZE is
   painted: a depth up to that reads exactly, a stack that went deeper reads as all of it, more than
   the reservation either way. The whole space (over 200 KiB above the simulation's firmware) took
   SERV about 17 M cycles to scan in every `info` and half as many to paint at every boot. */
#define STACK_PAINT 0x5ac3a53cu
extern unsigned int _end[], _fstack[];
extern char STACK_SIZE[];       /* a linker symbol (--defsym): its address is the size */

/* The lowest painted word. */
static unsigned int *paint_floor(void)
{
	unsigned long room = (unsigned long)((char *)_fstack - (char *)_end);
	unsigned long depth = 2 * (unsigned long)STACK_SIZE;
	return depth < room ? (unsigned int *)((char *)_fstack - depth) : _end;
}

static void stack_paint(void)
{
	unsigned int *sp = (unsigned int *)__builtin_frame_address(0);
	for (unsigned int *p = paint_floor(); p < sp - 64; p++)
		*p = STACK_PAINT;
}

static unsigned long stack_used(void)
{
	unsigned int *p = paint_floor();
	while (p < _fstack && *p == STACK_PAINT)
		p++;
	return (unsigned long)((char *)_fstack - (char *)p);
}

static void cmd_help(int argc, char **argv)
{
	(void)argc; (void)argv;
	puts("Commands:");
	console_print_help();
	puts(HEX_NOTE);
}

static void cmd_info(int argc, char **argv)
{
	uint64_t t0, t1;
	volatile int spin;
	(void)argc; (void)argv;

	printf(INFO_SOC_LINE, CONFIG_CPU_HUMAN_NAME, (unsigned long)CONFIG_CLOCK_FREQUENCY,
	       (unsigned long)ROM_SIZE, (unsigned long)SRAM_SIZE, (unsigned long)MAIN_RAM_SIZE);
	printf(INFO_LIMITS_LINE, BN_MAX_BITS, CONSOLE_LINE_MAX - 1);
	/* The cycle counter must advance, and by a plausible amount for a short busy loop. */
	t0 = cycles_now();
	for (spin = 0; spin < 1000; spin++)
		;
	t1 = cycles_now();
	printf(INFO_COUNTER_LINE, (t1 > t0 && t1 - t0 < 1000000) ? "ok" : "broken",
	       (unsigned long)t1, (unsigned long)(t1 - t0));
	printf(INFO_STACK_LINE, (unsigned long)((char *)_fstack - (char *)_end), stack_used());
	printf(INFO_PERIPHERAL_LINE, MONTMUL_LANES, MONTMUL_WORD_BITS, MONTMUL_MAX_BITS, MONTMUL_NUM_SLOTS);
	entropy_print_info();
}

static const struct console_command base_commands[] = {
	{ CMD_HELP, cmd_help },
	{ CMD_INFO, cmd_info },
	{ NULL, NULL, NULL, NULL },
};

const struct console_command *const console_tables[] = { base_commands, bench_commands, rsa_commands, sig_commands,
                                                     entropy_commands, hash_commands, hash_mct_commands,
                                                     tls_commands, NULL };

/* After every command: the peripheral's memories cleared (CLEAR: constant-time, outside every timed
   region; on the SoC without the peripheral its registers read idle and this returns at once), the
   RSA driver told that nothing is loaded any more, and the SHA-256 engine's registers cleared when the
   firmware's hashing used it (the generators' chaining values). */
void console_command_done(void)
{
	(void)montmul_wipe();
	rsa_hw_forget();
	sha256_sel_wipe();
}

int main(void)
{
	stack_paint();
#ifdef CONFIG_CPU_HAS_INTERRUPT
	irq_setmask(0);
	irq_setie(1);
#endif
	uart_init();
	printf("\nRSA benchmark firmware (%s, %lu MHz). Type 'help'.\n",
	       CONFIG_CPU_HUMAN_NAME, (unsigned long)(CONFIG_CLOCK_FREQUENCY / 1000000));
	console_run();
}
