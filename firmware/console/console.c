/* A line-oriented console on the UART: echo, backspace, an `error=` line for anything it refuses.
   A command that takes secrets on its line (CONSOLE_SECRET_COMMANDS: keys, seeds, entropy) echoes its
   name and the blank after it as typed, then ECHO_MASK for every other character: the host's flow
   control still sees each character arrive (link/console.py waits for every chunk's echo), the secret
   never goes back over the wire. Once its command has run, the line is wiped, and so are LiteX's UART
   rings and whatever the SoC's own wipe covers (console_command_done). */
#include <stdio.h>
#include <string.h>

#include <irq.h>
#include <libbase/console.h>
#include <libbase/uart.h>

#include "console/console.h"
#include "bignum/bignum.h"
#include "bignum/hex_digit.h"

/* LiteX's UART driver's state (libbase/uart.c: its receive and transmit rings and their indices), kept
   together by the linker (linker.ld.in). */
extern char _fuart_bss[], _euart_bss[];

static char line[CONSOLE_LINE_MAX];
static size_t line_used;        /* bytes of `line` written since it was last wiped */

static int secret_command(const char *name, size_t len)
{
	static const char *const names[] = CONSOLE_SECRET_COMMANDS;
	unsigned i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && memcmp(names[i], name, len) == 0)
			return 1;
	return 0;
}

/* What read_line knows of the line's first word: where it starts (-1: not yet typed), where the blank
   after it is (-1: none yet), and whether it names a command with secret arguments. Kept as the line
   is typed and erased, so that each character costs the same whatever the line's length. */
struct first_word {
	int start, end, secret;
};

/* The character c goes to line[len]; returns what to echo for it. */
static char typed(struct first_word *w, int len, char c)
{
	if (c != ' ' && w->start < 0)
		w->start = len;
	else if (c == ' ' && w->start >= 0 && w->end < 0) {
		w->end = len;
		w->secret = secret_command(line + w->start, (size_t)(len - w->start));
		return c;
	}
	return w->secret ? ECHO_MASK : c;
}

/* line[len] was erased. */
static void erased(struct first_word *w, int len)
{
	if (w->end >= len)
		w->end = -1, w->secret = 0;
	if (w->start >= len)
		w->start = -1;
}

/* Reads one line into `line`. Returns its length, or -1 when the line was longer than the buffer
   (the rest of it has then been read and dropped, so the next line starts clean). */
static int read_line(void)
{
	struct first_word w = { -1, -1, 0 };
	int len = 0;
	int overflow = 0;

	for (;;) {
		char c = readchar();
		switch (c) {
		case '\r':
		case '\n':
			putsnonl("\n");
			line[len] = 0;
			if ((size_t)len + 1 > line_used)
				line_used = (size_t)len + 1;
			return overflow ? -1 : len;
		case 0x08:
		case 0x7f:
			if (len > 0 && !overflow) {
				len--;
				erased(&w, len);
				putsnonl("\x08 \x08");
			}
			break;
		default:
			if (c < 0x20 || c > 0x7e)
				break;
			if (len >= (int)sizeof(line) - 1) {
				overflow = 1;
				break;
			}
			if (!overflow) {
				char echo = typed(&w, len, c);
				line[len++] = c;
				if ((size_t)len > line_used)
					line_used = (size_t)len;
				putchar(echo);
			}
			break;
		}
	}
}

static int split(char *s, char **argv)
{
	int argc = 0;
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			return argc;
		if (argc == CONSOLE_MAX_ARGS)
			return -1;
		argv[argc++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = 0;
	}
}

long console_decimal(const char *text)
{
	long value = 0;
	int digits = 0;

	for (; *text >= '0' && *text <= '9' && digits < 9; text++, digits++)
		value = 10 * value + (*text - '0');
	return digits && !*text ? value : -1;
}

int console_hex_bytes(const char *name, const char *text, unsigned char *out, size_t max, size_t *len)
{
	size_t digits = strlen(text), i;

	if (strcmp(text, EMPTY_HEX) == 0) {
		*len = 0;
		return 0;
	}
	for (i = 0; i < digits && hex_value(text[i]) >= 0; i++)
		;
	if (i < digits || digits % 2) {
		printf(ERR_BAD_HEX " arg=%s (hex digits only, two a byte, no prefix)\n", name);
		return -1;
	}
	if (digits / 2 > max) {
		printf(ERR_TOO_LARGE " arg=%s max_bytes=%u\n", name, (unsigned)max);
		return -1;
	}
	for (i = 0; i < digits / 2; i++)
		out[i] = (unsigned char)(hex_value(text[2 * i]) << 4 | hex_value(text[2 * i + 1]));
	*len = digits / 2;
	return 0;
}

void console_print_help(void)
{
	const struct console_command *const *table;
	const struct console_command *cmd;
	for (table = console_tables; *table; table++)
		for (cmd = *table; cmd->name; cmd++) {
			/* name and usage in a column of 30, longer ones in full */
			int width = (int)(strlen(cmd->name) + 1 + strlen(cmd->usage));
			printf("  %s %s%*s %s\n", cmd->name, cmd->usage, width < 30 ? 30 - width : 0, "",
			       cmd->help);
		}
}

static const struct console_command *find_command(const char *name)
{
	const struct console_command *const *table;
	const struct console_command *cmd;
	for (table = console_tables; *table; table++)
		for (cmd = *table; cmd->name; cmd++)
			if (strcmp(cmd->name, name) == 0)
				return cmd;
	return NULL;
}

void console_usage(const char *name)
{
	const struct console_command *cmd = find_command(name);
	printf(ERR_USAGE " usage=\"%s %s\"", name, cmd ? cmd->usage : "");
}

/* Runs one line read by read_line (its length, or -1 when it was too long). */
static void run_line(int len)
{
	char *argv[CONSOLE_MAX_ARGS];
	const struct console_command *cmd;
	int argc;

	if (len < 0) {
		printf(ERR_LINE_TOO_LONG " max=%d\n", (int)sizeof(line) - 1);
		return;
	}
	argc = split(line, argv);
	if (argc < 0) {
		printf(ERR_TOO_MANY_ARGUMENTS " max=%d\n", CONSOLE_MAX_ARGS - 1);
		return;
	}
	if (argc == 0)
		return;
	cmd = find_command(argv[0]);
	if (!cmd) {
		printf(ERR_UNKNOWN_COMMAND " command=%s (type 'help')\n", argv[0]);
		return;
	}
	cmd->run(argc, argv);
}

/* The UART driver keeps the last bytes typed and printed in its rings (a key's hex among them). Once
   everything printed has left and nothing typed waits, zeros everywhere are its state after uart_init
   (empty rings): it is wiped whole, with its interrupt held off. A byte already typed ahead keeps the
   rings as they are until the next command. */
static void wipe_uart_rings(void)
{
	uart_sync();
#ifdef CONFIG_CPU_HAS_INTERRUPT
	unsigned int ie = irq_getie();
	irq_setie(0);
#endif
	if (!uart_read_nonblock())
		bn_wipe(_fuart_bss, (size_t)(_euart_bss - _fuart_bss));
#ifdef CONFIG_CPU_HAS_INTERRUPT
	irq_setie(ie);
#endif
}

void console_run(void)
{
	for (;;) {
		putsnonl(PROMPT);
		run_line(read_line());
		/* the line held the command's arguments (a key's d, p and q, a seed): gone with it; argv
		   pointed into it */
		bn_wipe(line, line_used);
		line_used = 0;
		console_command_done();
		wipe_uart_rings();
	}
}
