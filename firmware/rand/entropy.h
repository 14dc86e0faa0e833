/* Driver of the device's entropy source (soc/entropy.py around gateware/entropy/source.py): raw
   32-bit words of noise bits, each word handed out only while the source's continuous health tests
   (SP 800-90B's repetition count and adaptive proportion tests, in hardware) hold. The register map
   and the status fields come from LiteX's generated csr.h, the raw words a seed takes from soc.h:
   nothing is copied by hand.

   A health-test failure is sticky in the source: every read fails until entropy_restart(). A wait for
   a word is bounded (ENTROPY_MAX_POLLS reads of the status): a source that stops producing, on a board
   whose oscillators do not run, fails the read instead of hanging the console. */
#ifndef ENTROPY_H
#define ENTROPY_H

#include <stddef.h>
#include <stdint.h>

#define ENTROPY_OK            0
#define ENTROPY_ERR_HEALTH  (-1)   /* the source failed a health test (sticky until entropy_restart) */
#define ENTROPY_ERR_TIMEOUT (-2)   /* no word within ENTROPY_MAX_POLLS polls of the status */

/* Status polls a read waits for one word at most: a poll is a CSR read, tens of cycles; the bound is
   some milliseconds, far beyond the startup tests and the word time of a working source. */
#define ENTROPY_MAX_POLLS (1u << 20)

/* The source's health, for `info`: */
enum entropy_health {
	ENTROPY_HEALTH_OK,          /* words flow */
	ENTROPY_HEALTH_STARTUP,     /* the start-up tests are running (after reset or restart) */
	ENTROPY_HEALTH_RCT_FAILED,  /* the repetition count test failed */
	ENTROPY_HEALTH_APT_FAILED,  /* the adaptive proportion test failed */
	ENTROPY_HEALTH_FAILED,      /* failed, neither flag set (both tests' flags are read at once) */
};

/* words raw words into out, in the order the source gave them: ENTROPY_OK, or an ENTROPY_ERR_* (out
   then holds zeros). */
int entropy_read(uint32_t *out, size_t words);

enum entropy_health entropy_health(void);

/* Whether the source has failed a health test since its last restart. */
int entropy_failed(void);

/* Restarts the source: health tests and start-up tests from the beginning, the failure cleared. */
void entropy_restart(void);

#endif
