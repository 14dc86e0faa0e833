/*
 * The SoC's free-running 64-bit cycle counter (LiteX timer uptime, counts sys_clk cycles), and timed
 * regions that count exactly: timed_start() masks the CPU's interrupts (the UART's interrupt would
 * otherwise add its handler's cycles whenever a character moves) and invalidates both caches, so a
 * region starts from the same state whatever ran before it; timed_stop() reads the counter and
 * restores the interrupts. Nothing may print inside a timed region (with interrupts masked the
 * UART's transmit queue does not drain).
 */
#ifndef CYCLES_H
#define CYCLES_H

#include <stdint.h>
#include <generated/csr.h>
#include <generated/soc.h>
#include <irq.h>
#include <system.h>

static inline uint64_t cycles_now(void)
{
	timer0_uptime_latch_write(1);
	return timer0_uptime_cycles_read();
}

typedef struct { uint64_t start; unsigned ie; } timed_region;

static inline timed_region timed_start(void)
{
	timed_region t;

#ifdef CONFIG_CPU_HAS_INTERRUPT
	t.ie = irq_getie();
	irq_setie(0);
#else
	t.ie = 0;       /* a CPU without interrupts in LiteX (SERV): nothing to mask */
#endif
	flush_cpu_icache();
	flush_cpu_dcache();
	t.start = cycles_now();
	return t;
}

/* The cycles since timed_start(t). */
static inline uint64_t timed_stop(timed_region t)
{
	uint64_t cycles = cycles_now() - t.start;

#ifdef CONFIG_CPU_HAS_INTERRUPT
	irq_setie(t.ie);
#endif
	return cycles;
}

#endif
