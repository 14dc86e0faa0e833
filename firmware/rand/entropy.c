/* The entropy source's driver (entropy.h). */
#include <string.h>
#include <generated/csr.h>

#include "rand/entropy.h"

#define STATUS_BIT(name) (1u << CSR_ENTROPY_STATUS_##name##_OFFSET)

int entropy_failed(void)
{
	return (entropy_status_read() & STATUS_BIT(FAILED)) != 0;
}

enum entropy_health entropy_health(void)
{
	uint32_t status = entropy_status_read();

	if (status & STATUS_BIT(FAILED)) {
		if (status & STATUS_BIT(RCT_FAILED))
			return ENTROPY_HEALTH_RCT_FAILED;
		if (status & STATUS_BIT(APT_FAILED))
			return ENTROPY_HEALTH_APT_FAILED;
		return ENTROPY_HEALTH_FAILED;
	}
	return status & STATUS_BIT(STARTUP) ? ENTROPY_HEALTH_STARTUP : ENTROPY_HEALTH_OK;
}

void entropy_restart(void)
{
	entropy_ctrl_write(1u << CSR_ENTROPY_CTRL_RESTART_OFFSET);
}

/* One word: waits for `ready`, then reads `data` (the read hands the word out: the source moves on). */
static int read_word(uint32_t *word)
{
	uint32_t polls, status;

	for (polls = 0; polls < ENTROPY_MAX_POLLS; polls++) {
		status = entropy_status_read();
		if (status & STATUS_BIT(FAILED))
			return ENTROPY_ERR_HEALTH;
		if (status & STATUS_BIT(READY)) {
			*word = entropy_data_read();
			return ENTROPY_OK;
		}
	}
	return ENTROPY_ERR_TIMEOUT;
}

int entropy_read(uint32_t *out, size_t words)
{
	size_t i;
	int err;

	for (i = 0; i < words; i++) {
		if ((err = read_word(&out[i])) != ENTROPY_OK) {
			memset(out, 0, words * sizeof(*out));
			return err;
		}
	}
	return ENTROPY_OK;
}
