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

/* The table lives in main.c; a NULL name ends it. */
extern const struct console_command console_commands[];

void console_run(void) __attribute__((noreturn));
void console_print_help(void);

#endif
