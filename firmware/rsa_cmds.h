#ifndef RSA_CMDS_H
#define RSA_CMDS_H

#include "console.h"

extern const struct console_command rsa_commands[];

#endif
