/* RSA benchmark firmware: boots straight into the console menu. */
#include <stdio.h>
#include <string.h>

#include <irq.h>
#include <libbase/uart.h>
#include <generated/csr.h>
#include <generated/mem.h>
#include <generated/soc.h>

#include "bench_cmds.h"
#include "console.h"
#include "cycles.h"
#include "rsa_cmds.h"

static void cmd_help(int argc, char **argv)
{
	(void)argc; (void)argv;
	puts("Commands:");
	console_print_help();
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
}

static const struct console_command base_commands[] = {
	{ CMD_HELP, cmd_help },
	{ CMD_INFO, cmd_info },
	{ NULL, NULL, NULL, NULL },
};

const struct console_command *const console_tables[] = { base_commands, bench_commands, rsa_commands, NULL };

int main(void)
{
#ifdef CONFIG_CPU_HAS_INTERRUPT
	irq_setmask(0);
	irq_setie(1);
#endif
	uart_init();
	printf("\nRSA benchmark firmware (%s, %lu MHz). Type 'help'.\n",
	       CONFIG_CPU_HUMAN_NAME, (unsigned long)(CONFIG_CLOCK_FREQUENCY / 1000000));
	console_run();
}
