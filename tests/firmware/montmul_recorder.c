/*
 * A recording stand-in for the Montgomery peripheral's CSRs and data window (host_litex/generated/
 * csr.h, mem.h): the firmware's driver (montmul_drv.c) and backends (rsa_hw.c) build for the host
 * unchanged, and every bus access lands in a log instead of a peripheral: each command word, each
 * data word written after a WRITE, each data word read after a READ. The peripheral is always idle without error
 * and reads as zeros, so an operation runs its whole command sequence (its result is wrong, which
 * rsa.c's final check reports). test_rsa_hw_commands.py reads the log.
 */
#include <stdint.h>
#include <stdlib.h>

#include <generated/csr.h>
#include <generated/mem.h>

/* What a log entry is. */
enum { RECORD_CMD = 0, RECORD_WDATA = 1, RECORD_RDATA = 2 };

#define RECORD_MAX 65536

uint32_t record_kind[RECORD_MAX], record_value[RECORD_MAX];
unsigned record_len;
int record_overflow;    /* more accesses than RECORD_MAX: the log is incomplete */

void record_clear(void)
{
	record_len = 0;
	record_overflow = 0;
}

static void record(uint32_t kind, uint32_t value)
{
	if (record_len == RECORD_MAX) {
		record_overflow = 1;
		return;
	}
	record_kind[record_len] = kind;
	record_value[record_len] = value;
	record_len++;
}

void montmul_cmd_write(uint32_t value)
{
	record(RECORD_CMD, value);
}

/* The data window: the driver's only use of LiteX's bus accessors. */
void csr_write_simple(unsigned long value, unsigned long address)
{
	if (address != MONTMUL_DATA_BASE)
		abort();
	record(RECORD_WDATA, (uint32_t)value);
}

unsigned long csr_read_simple(unsigned long address)
{
	if (address != MONTMUL_DATA_BASE)
		abort();
	record(RECORD_RDATA, 0);
	return 0;
}

uint32_t montmul_status_read(void)
{
	return 0;   /* not busy, no error */
}

/* Resets through the `ctrl` register (the driver's mm_reset): counted, not logged. */
unsigned record_resets;

void montmul_ctrl_write(uint32_t value)
{
	if (value & (1u << CSR_MONTMUL_CTRL_RESET_OFFSET))
		record_resets++;
}

void timer0_uptime_latch_write(uint32_t value)
{
	(void)value;
}

uint64_t timer0_uptime_cycles_read(void)
{
	return 0;
}
