/* Host stand-in for LiteX's system.h: the cache flushes of firmware/drivers/cycles.h do nothing here. */
#ifndef HOST_SYSTEM_H
#define HOST_SYSTEM_H

static inline void flush_cpu_icache(void) {}
static inline void flush_cpu_dcache(void) {}

#endif
