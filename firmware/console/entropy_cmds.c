/* `entropy raw <words>` and `entropy restart`, and the lines other commands print about randomness
   (entropy_cmds.h). */
#include <stdio.h>
#include <string.h>
#include <generated/soc.h>

#include "console/entropy_cmds.h"
#include "rand/entropy.h"
#include "rand/rng.h"

/* Where randomness comes from: the build says (soc.h's constants, soc/entropy.py). */
#if defined(RSA_BENCH_SIMULATION)
#define ENTROPY_SOURCE ENTROPY_SOURCE_SIMULATED
#elif defined(RSA_BENCH_DETERMINISTIC_ENTROPY)
#define ENTROPY_SOURCE ENTROPY_SOURCE_DETERMINISTIC
#else
#define ENTROPY_SOURCE ENTROPY_SOURCE_RING_OSCILLATORS
#endif

static const char *const health_names[] = ENTROPY_HEALTH_NAMES;
_Static_assert(sizeof(health_names) / sizeof(health_names[0]) == ENTROPY_HEALTH_FAILED + 1,
               "the protocol's ENTROPY_HEALTH and entropy.h's enum differ");

static const char *health_name(void)
{
	return health_names[entropy_health()];
}

void entropy_print_info(void)
{
	printf(INFO_ENTROPY_LINE, ENTROPY_SOURCE, health_name());
}

void entropy_print_error(int rng_err)
{
	switch (rng_err) {
	case RNG_ERR_HEALTH:
		printf(ERR_ENTROPY_FAILED " health=%s (the random generator is stopped until `entropy restart` or "
		       "a reboot)\n", health_name());
		break;
	case RNG_ERR_TIMEOUT:
		printf(ERR_ENTROPY_TIMEOUT " (the entropy source gave no word in time)\n");
		break;
	default:
		printf(ERR_NO_RANDOM_GENERATOR " (BearSSL was not fetched: no HMAC-DRBG in this firmware)\n");
		break;
	}
}

/* Raw words, ENTROPY_RAW_WORDS_PER_LINE a line; a failure ends the output with its error line. */
static void print_raw(unsigned long words)
{
	static const char digits[] = "0123456789abcdef";
	char line[8 * ENTROPY_RAW_WORDS_PER_LINE + 1];
	uint32_t chunk[ENTROPY_RAW_WORDS_PER_LINE];
	unsigned n, i, j;
	int err;

	while (words) {
		n = words < ENTROPY_RAW_WORDS_PER_LINE ? (unsigned)words : ENTROPY_RAW_WORDS_PER_LINE;
		if ((err = entropy_read(chunk, n)) != ENTROPY_OK) {
			entropy_print_error(err == ENTROPY_ERR_HEALTH ? RNG_ERR_HEALTH : RNG_ERR_TIMEOUT);
			return;
		}
		for (i = 0; i < n; i++)
			for (j = 0; j < 8; j++)
				line[8 * i + j] = digits[chunk[i] >> (28 - 4 * j) & 15];
		line[8 * n] = 0;
		printf(ENTROPY_RAW_LINE, line);
		words -= n;
	}
}

/* entropy raw <words> | entropy restart */
static void cmd_entropy(int argc, char **argv)
{
	long words;

	if (argc == 3 && strcmp(argv[1], "raw") == 0) {
		words = console_decimal(argv[2]);
		if (words < 1 || words > ENTROPY_RAW_MAX_WORDS) {
			console_usage(argv[0]);
			printf(" arg=%s (raw words: 1 to %d)\n", argv[2], ENTROPY_RAW_MAX_WORDS);
			return;
		}
		print_raw((unsigned long)words);
	} else if (argc == 2 && strcmp(argv[1], "restart") == 0) {
		rng_restart();
		printf(ENTROPY_RESTARTED_LINE, health_name());
	} else {
		console_usage(argv[0]);
		printf("\n");
	}
}

const struct console_command entropy_commands[] = {
	{ CMD_ENTROPY, cmd_entropy },
	{ NULL, NULL, NULL, NULL },
};
