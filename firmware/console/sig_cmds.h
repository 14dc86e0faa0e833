#ifndef SIG_CMDS_H
#define SIG_CMDS_H

#include "console/console.h"

extern const struct console_command sig_commands[];

#endif
