/* The host build of the console has no TLS server: firmware/tls/tls_*.c drive the UART's registers and the
   interrupt controller themselves, which the host has neither of. Its command table is empty here, so
   `tls`, `tls_key` and `cert` are unknown commands to the fuzz target (console_fuzz.py leaves
   tls_*.c out). */
#include <stddef.h>

#include "console/console.h"

const struct console_command tls_commands[] = { { NULL, NULL, NULL, NULL } };
