/* The SoC's free-running 64-bit cycle counter (LiteX timer uptime, counts sys_clk cycles). */
#ifndef CYCLES_H
#define CYCLES_H

#include <stdint.h>
#include <generated/csr.h>

static inline uint64_t cycles_now(void)
{
	timer0_uptime_latch_write(1);
	return timer0_uptime_cycles_read();
}

#endif
