/* Host stand-in for the entropy source's CSRs (soc/entropy.py), for the firmware's driver and generator
   (firmware/rand/) on the host: words from a seeded xorshift64*, always ready; or, stuck, a source whose
   repetition count test has failed (as the gateware's does within its cutoff of a constant bit). The
   status fields' positions and the seed size come from the contract as -D flags (bnlib.entropy_defines). */
#include <stdint.h>
#include <generated/csr.h>

static uint64_t model_state = 1;
static int model_stuck;
static unsigned model_words, model_restarts;

void entropy_model_set(uint64_t seed, int stuck)
{
	model_state = seed ? seed : 1;
	model_stuck = stuck;
	model_words = model_restarts = 0;
}

unsigned entropy_model_words(void)
{
	return model_words;
}

unsigned entropy_model_restarts(void)
{
	return model_restarts;
}

uint32_t entropy_status_read(void)
{
	if (model_stuck)
		return 1u << CSR_ENTROPY_STATUS_FAILED_OFFSET | 1u << CSR_ENTROPY_STATUS_RCT_FAILED_OFFSET;
	return 1u << CSR_ENTROPY_STATUS_READY_OFFSET;
}

uint32_t entropy_data_read(void)
{
	if (model_stuck)
		return 0;
	model_state ^= model_state >> 12;
	model_state ^= model_state << 25;
	model_state ^= model_state >> 27;
	model_words++;
	return (uint32_t)((model_state * 0x2545f4914f6cdd1dull) >> 32);
}

void entropy_ctrl_write(uint32_t value)
{
	if (value & 1u << CSR_ENTROPY_CTRL_RESTART_OFFSET)
		model_restarts++;
}
