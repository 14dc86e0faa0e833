#ifndef BENCH_CMDS_H
#define BENCH_CMDS_H

#include "console.h"

extern const struct console_command bench_commands[];

#endif
