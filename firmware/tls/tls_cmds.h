#ifndef TLS_CMDS_H
#define TLS_CMDS_H

#include "console/console.h"

extern const struct console_command tls_commands[];

#endif
