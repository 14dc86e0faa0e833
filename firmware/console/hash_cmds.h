/* `hash <sw|hw> <hex> [repeat=<n>]`: SHA-256 through BearSSL's hash class, BearSSL's own or the engine's,
   the message n times over, timed. */
#ifndef HASH_CMDS_H
#define HASH_CMDS_H

#include "console/console.h"

extern const struct console_command hash_commands[];

#endif
