/* The serial console: line editing, tokenising and the command table. */
#ifndef CONSOLE_H
#define CONSOLE_H

#define CONSOLE_MAX_ARGS 8

struct console_command {
	const char *name;
	const char *usage;      /* arguments, "" when none */
	const char *help;       /* one line */
	void (*run)(int argc, char **argv);
};

/* Command tables, each ended by a NULL name; the list of tables (in main.c) ends with NULL. */
extern const struct console_command *const console_tables[];

void console_run(void) __attribute__((noreturn));
void console_print_help(void);

#endif
