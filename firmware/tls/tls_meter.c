#include <string.h>

#include "drivers/cycles.h"
#include "tls/tls_meter.h"

static struct tls_meter meter;
static enum tls_part current = TLS_OTHER;
static uint64_t since;

static void charge(void)
{
	uint64_t now = cycles_now();
	meter.cycles[current] += now - since;
	since = now;
}

void tls_meter_start(void)
{
	memset(&meter, 0, sizeof(meter));
	current = TLS_OTHER;
	since = cycles_now();
}

enum tls_part tls_meter_enter(enum tls_part part)
{
	enum tls_part previous = current;
	charge();
	current = part;
	return previous;
}

void tls_meter_leave(enum tls_part previous)
{
	charge();
	current = previous;
}

void tls_meter_read(struct tls_meter *out)
{
	charge();
	*out = meter;
}

uint64_t tls_meter_busy(const struct tls_meter *m)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < TLS_IO_WAIT; i++)
		sum += m->cycles[i];
	return sum;
}
