/* `hash <sw|hw> <hex> [repeat=<n>]` (hash_cmds.h): one hash through a br_hash_class, the message fed to it
   n times, init to out timed, and one line. */
#include <stdio.h>
#include <string.h>

#include "console/hash_cmds.h"
#include "drivers/cycles.h"
#include "hash/sha256_hw.h"

#if PEER_HAVE_BEARSSL || TLS_HAVE_BEARSSL

/* A context of either class. */
static union {
	const br_hash_class *vtable;
	br_sha256_context sw;
	sha256_hw_context hw;
} context;

/* The count of OPT_REPEAT's argument `arg` (1 when there is none); else prints the error line, -1. */
static long parse_repeat(const char *cmd, const char *arg)
{
	long n;

	if (!arg)
		return 1;
	if (strncmp(arg, OPT_REPEAT, strlen(OPT_REPEAT)) != 0) {
		console_usage(cmd);
		printf(" arg=%s\n", arg);
		return -1;
	}
	n = console_decimal(arg + strlen(OPT_REPEAT));
	if (n < 1 || n > HASH_MAX_REPEAT) {
		printf(ERR_BAD_REPEAT " %s (a count from 1 to %d)\n", arg, HASH_MAX_REPEAT);
		return -1;
	}
	return n;
}

static void cmd_hash(int argc, char **argv)
{
	static const char digits[] = "0123456789abcdef";
	const br_hash_class *cls;
	unsigned char *message;
	unsigned char digest[br_sha256_SIZE];
	char hex[2 * br_sha256_SIZE + 1];
	timed_region t;
	uint64_t cycles;
	size_t len;
	long repeat, r;
	int hw, i;

	if (argc != 3 && argc != 4) {
		console_usage(argv[0]);
		printf("\n");
		return;
	}
	if ((repeat = parse_repeat(argv[0], argc == 4 ? argv[3] : NULL)) < 0)
		return;
	if (strcmp(argv[1], HASH_IMPL_SW) == 0)
		hw = 0;
	else if (strcmp(argv[1], HASH_IMPL_HW) == 0)
		hw = 1;
	else {
		printf(ERR_UNKNOWN_IMPL " impl=%s (%s or %s)\n", argv[1], HASH_IMPL_SW, HASH_IMPL_HW);
		return;
	}
	/* the bytes replace their hex in the line's own buffer (byte i is written after digits 2i and 2i + 1
	   are read): no buffer of their own, which the board's image has no room for */
	message = (unsigned char *)argv[2];
	if (console_hex_bytes("message", argv[2], message, HASH_MAX_BYTES, &len) < 0)
		return;
	cls = hw ? &sha256_hw_vtable : &br_sha256_vtable;
	_Static_assert(sizeof(context) >= sizeof(sha256_hw_context) && sizeof(context) >= sizeof(br_sha256_context),
	               "the context holds either class's");

	t = timed_start();
	cls->init(&context.vtable);
	for (r = 0; r < repeat; r++)
		cls->update(&context.vtable, message, len);
	cls->out(&context.vtable, digest);
	cycles = timed_stop(t);

	if (hw && sha256_hw_error(&context.hw)) {
		printf(ERR_HASH_ENGINE " err=%d (the engine %s)\n", sha256_hw_error(&context.hw),
		       sha256_hw_error(&context.hw) == SHA256_HW_ERR_TIMEOUT ? "stayed busy" : "refused a command");
		return;
	}
	for (i = 0; i < br_sha256_SIZE; i++) {
		hex[2 * i] = digits[digest[i] >> 4];
		hex[2 * i + 1] = digits[digest[i] & 15];
	}
	hex[2 * br_sha256_SIZE] = 0;
	printf(HASH_LINE, argv[1], (unsigned)(len * (size_t)repeat), (unsigned long long)cycles, hex);
}

#else

static void cmd_hash(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf(ERR_NO_PADDING_LIBRARY " (BearSSL was not fetched: no hash class in this firmware)\n");
}

#endif

const struct console_command hash_commands[] = {
	{ CMD_HASH, cmd_hash },
	{ NULL, NULL, NULL, NULL },
};
