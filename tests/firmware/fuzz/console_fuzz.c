/*
 * libFuzzer target: the firmware's console (console.c, main.c's help and info, and every command
 * table: bench_cmds.c, rsa_cmds.c, sig_cmds.c) built for the host with AddressSanitizer and
 * UndefinedBehaviorSanitizer, over the host model of the peripheral (montmul_model.c) and the peer
 * libraries (tests/firmware/console_fuzz.py builds it).
 *
 * An input is typed into the console as it would come over the UART, byte by byte through readchar(),
 * then a newline (so its last line runs too); the console loop is left by a longjmp when the input is
 * used up. Its first byte picks the key the console holds before that (typed by the harness as a
 * `key` command, so the state does not depend on earlier inputs), as (byte - '0') % 4:
 *   0 none (a refused `key` clears it), 1 the smallest built-in key with its private part,
 *   2 the largest with its private part, 3 the smallest, public part only.
 * The `key` line is typed only when the console does not hold that key already (as it was after the
 * line was last typed): setting a key costs more than most commands.
 * The UART's output goes to a sink that keeps nothing but the current command's first bytes, and checks
 * the protocol's rule that a command prints at most one `error=` line: a second one aborts (a finding,
 * like a sanitizer report). CONSOLE_FUZZ_ECHO=1 in the environment copies the output to stderr.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libbase/console.h>
#include <libbase/uart.h>

#include "console/console.h"
#include "keys.h"
#include "console/rsa_cmds.h"
#include "rsa/rsa_hw.h"

void montmul_model_reset(void);

/* main.c's linker symbols (the stack's extent for `info`), given by --defsym to this array. */
unsigned int fuzz_stack_space[2048];

static const uint8_t *input;
static size_t input_len, input_pos;
static const char *prelude;
static int newline_sent;
static jmp_buf input_done;

/* The key each choice leaves the console with, once its line was typed (has[choice]: it was). */
static rsa_key held[4];
static int has[4], choice;
static FILE *null_out;

/* The console's key (NULL: none), without the error line rsa_cmds_key prints when there is none. */
static const rsa_key *console_key(void)
{
	const rsa_ctx *ctx;
	const rsa_key *k;
	FILE *out = stdout;

	stdout = null_out;
	k = rsa_cmds_key(0, &ctx);
	stdout = out;
	return k;
}

char readchar(void)
{
	if (prelude && *prelude)
		return *prelude++;
	if (prelude) {          /* the key line has run: what it leaves */
		const rsa_key *k = console_key();
		prelude = NULL;
		has[choice] = 1;
		if (k)
			held[choice] = *k;
	}
	if (input_pos < input_len)
		return (char)input[input_pos++];
	if (!newline_sent) {
		newline_sent = 1;
		return '\n';
	}
	longjmp(input_done, 1);
}

void uart_init(void)
{
}

/* The UART driver's state the console wipes after every command (linker.ld.in's _fuart_bss.._euart_bss,
   given by --defsym to this array): nothing waits to be sent, and typed bytes come from readchar. */
unsigned char fuzz_uart_state[64];

void uart_sync(void)
{
}

int uart_read_nonblock(void)
{
	return 0;
}

/* ---- the output sink ---- */

#define KEEP 2048                       /* bytes of a command's output kept for a report */

static char answer[KEEP + 1];
static size_t answer_len;
static int at_line_start = 1, line_is_error, errors_in_answer;
static size_t line_col;
static int echo;

static void report_and_abort(const char *what)
{
	answer[answer_len] = 0;
	fprintf(stderr, "console_fuzz: protocol violation: %s; the command and its output (first %d bytes):\n%s\n",
	        what, KEEP, answer);
	abort();
}

static ssize_t sink_write(void *cookie, const char *buf, size_t size)
{
	static const char prefix[] = "error=";
	size_t i;

	(void)cookie;
	if (echo)
		fwrite(buf, 1, size, stderr);
	for (i = 0; i < size; i++) {
		char c = buf[i];
		if (answer_len < KEEP)
			answer[answer_len++] = c;
		if (c == '\n') {
			if (line_is_error && ++errors_in_answer > 1)
				report_and_abort("a command printed more than one error= line");
			at_line_start = 1;
			line_col = 0;
			continue;
		}
		if (at_line_start) {
			line_is_error = 1;
			at_line_start = 0;
		}
		if (line_col < sizeof(prefix) - 1 && c != prefix[line_col])
			line_is_error = 0;
		line_col++;
	}
	return (ssize_t)size;
}

/* The prompt starts the next command's answer. */
void putsnonl(const char *s)
{
	if (strcmp(s, PROMPT) == 0) {
		fflush(stdout);
		answer_len = 0;
		errors_in_answer = 0;
	}
	fputs(s, stdout);
}

/* ---- set-up and one input ---- */

static char key_lines[4][4 * 2 * BN_MAX_WORDS * 8 + 64];

static void hex(char *out, size_t room, const uint32_t *a, unsigned words)
{
	if (bn_to_hex(out, room, a, words) < 0)
		abort();
}

/* "key <n> <e> [<d> <p> <q>]\n" of a built-in key. */
static void key_line(char *out, const rsa_key *k, int private_part)
{
	char n[8 * BN_MAX_WORDS + 1], e[8 * BN_MAX_WORDS + 1], d[8 * BN_MAX_WORDS + 1], p[8 * RSA_HALF_WORDS + 1],
	     q[8 * RSA_HALF_WORDS + 1];
	unsigned nw = BN_WORDS(k->bits);

	hex(n, sizeof(n), k->n, nw);
	hex(e, sizeof(e), k->e, nw);
	if (!private_part) {
		sprintf(out, "key %s %s\n", n, e);
		return;
	}
	hex(d, sizeof(d), k->d, nw);
	hex(p, sizeof(p), k->p, RSA_HALF_WORDS);
	hex(q, sizeof(q), k->q, RSA_HALF_WORDS);
	sprintf(out, "key %s %s %s %s %s\n", n, e, d, p, q);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static cookie_io_functions_t sink = { NULL, sink_write, NULL, NULL };
	FILE *out = fopencookie(NULL, "w", sink);

	(void)argc; (void)argv;
	null_out = fopen("/dev/null", "w");
	if (!out || !null_out)
		abort();
	stdout = out;
	echo = getenv("CONSOLE_FUZZ_ECHO") != NULL;
	strcpy(key_lines[0], "key 0 3\n");
	key_line(key_lines[1], &bench_keys[0], 1);
	key_line(key_lines[2], &bench_keys[BENCH_KEY_COUNT - 1], 1);
	key_line(key_lines[3], &bench_keys[0], 0);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	const rsa_key *k;

	montmul_model_reset();
	rsa_hw_forget();
	choice = (uint8_t)(data[0] - '0') % 4;
	k = console_key();
	if (has[choice] && (choice == 0 ? k == NULL : k && memcmp(k, &held[choice], sizeof(*k)) == 0))
		prelude = NULL;
	else
		prelude = key_lines[choice];
	input = data + 1;
	input_len = size - 1;
	input_pos = 0;
	newline_sent = 0;
	if (setjmp(input_done) == 0)
		console_run();
	fflush(stdout);
	return 0;
}
