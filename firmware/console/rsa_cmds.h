#ifndef RSA_CMDS_H
#define RSA_CMDS_H

#include "console/console.h"
#include "rsa/rsa.h"

extern const struct console_command rsa_commands[];

/* The key the `key` command set, and its precomputation; NULL (after printing the error line) when
   there is none, or it has no private part and private_key asks for one. */
const rsa_key *rsa_cmds_key(int private_key, const rsa_ctx **ctx);

/* Makes k (with CRT) the user's key, as `key <n> <e> <d> <p> <q>` would; 0, or -1 when rsa_ctx_init
   refuses it (the user's key is then none). */
int rsa_cmds_set_key(const rsa_key *k);

#endif
