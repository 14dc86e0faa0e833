/* The device's randomness on the console: `entropy raw|restart`, `info`'s line about it, and the one
   error line of a command whose draw from the generator failed. */
#ifndef ENTROPY_CMDS_H
#define ENTROPY_CMDS_H

#include "console/console.h"

extern const struct console_command entropy_commands[];

/* `info`'s INFO_ENTROPY line: where randomness comes from, the source's health. */
void entropy_print_info(void);

/* The error line of a failed rng_* call (an RNG_ERR_* code). */
void entropy_print_error(int rng_err);

#endif
