/* `hash_mct <sw|hw> <seed-hex> [index]`: NIST's SHA-256 Monte Carlo test (CAVP's SHA256Monte.txt) through
   the same BearSSL hash classes as `hash`, one timed line per checkpoint. */
#ifndef HASH_MCT_H
#define HASH_MCT_H

#include "console/console.h"

extern const struct console_command hash_mct_commands[];

#endif
