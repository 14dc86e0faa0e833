/* The instrumented build's split of an operation's cycles (profile.h). Compiled in every build, empty
   without RSA_PROFILE. */
#include "drivers/profile.h"

#ifdef RSA_PROFILE
#include <stdint.h>
#include <stdio.h>

#include "console_protocol.h"     /* generated: PROFILE_PREFIX */

static uint32_t cycles[PROFILE_STEP_COUNT][PROFILE_PARTS];
static enum profile_step step;
static enum profile_part part;
static uint32_t since;
static int running;

static inline uint32_t mcycle(void)
{
	uint32_t value;

	__asm__ volatile ("csrr %0, mcycle" : "=r"(value));
	return value;
}

/* Charges the cycles since the last stamp to the current step and part. */
static void charge(void)
{
	uint32_t now = mcycle();

	if (running)
		cycles[step][part] += now - since;
	since = now;
}

void profile_start(void)
{
	unsigned i, j;

	for (i = 0; i < PROFILE_STEP_COUNT; i++)
		for (j = 0; j < PROFILE_PARTS; j++)
			cycles[i][j] = 0;
	step = PROFILE_ARGS;
	part = PROFILE_CPU;
	running = 1;
	since = mcycle();
}

void profile_step(enum profile_step next)
{
	charge();
	step = next;
	part = PROFILE_CPU;
}

void profile_enter(enum profile_part next)
{
	charge();
	part = next;
}

void profile_leave(void)
{
	charge();
	part = PROFILE_CPU;
}

void profile_stop(void)
{
	charge();
	running = 0;
}

void profile_print(void)
{
#define PROFILE_STEP_NAME(id, name) name,
	static const char *const names[] = { PROFILE_STEPS(PROFILE_STEP_NAME) };
#undef PROFILE_STEP_NAME
	unsigned i;

	printf(PROFILE_PREFIX);
	for (i = 0; i < PROFILE_STEP_COUNT; i++)
		printf(" %s=%lu,%lu,%lu", names[i], (unsigned long)cycles[i][PROFILE_CPU],
		       (unsigned long)cycles[i][PROFILE_TRANSFER], (unsigned long)cycles[i][PROFILE_WAIT]);
	printf("\n");
}
#endif
