#ifndef BENCH_CMDS_H
#define BENCH_CMDS_H

#include "console/console.h"
#include "rsa/rsa.h"

extern const struct console_command bench_commands[];

/* The built-in bench key of `bits` (keys.h), NULL when there is none of that size. */
const rsa_key *bench_key(unsigned bits);

#endif
