/* The serial console: line editing, tokenising and the command table. The prompt, the command
   names and help, the output lines and the error codes come from the generated console_protocol.h
   (soc/console_protocol.py), which the simulation runner and the tests parse with. */
#ifndef CONSOLE_H
#define CONSOLE_H

#include <stddef.h>

#include "console_protocol.h"

#define CONSOLE_MAX_ARGS 8

/* An entry is { CMD_<NAME>, function }: CMD_<NAME> gives the name, usage and help. */
struct console_command {
	const char *name;
	const char *usage;      /* arguments, "" when none */
	const char *help;       /* one line */
	void (*run)(int argc, char **argv);
};

/* Command tables, each ended by a NULL name; the list of tables (in main.c) ends with NULL. */
extern const struct console_command *const console_tables[];

void console_run(void) __attribute__((noreturn));
/* Called after every line has run (main.c): the wipe of what a command may have left in the SoC. */
void console_command_done(void);
void console_print_help(void);
/* Starts the error line for wrong arguments to the command `name`, with its usage; the caller
   adds any details and the newline. */
void console_usage(const char *name);
/* A hex argument (two digits a byte; EMPTY_HEX, "-", for none) into out, at most max bytes: 0 and its
   length in *len, or -1 after printing the error line naming the argument `name`. */
int console_hex_bytes(const char *name, const char *text, unsigned char *out, size_t max, size_t *len);
/* A decimal argument as typed: 1 to 9 digits and nothing else (no sign, blank or base prefix, which
   strtoul would take: "-4294966784" wraps to 512 there). Its value, or -1. */
long console_decimal(const char *text);

#endif
