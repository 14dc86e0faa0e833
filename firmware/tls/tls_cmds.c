/* Console commands of the TLS server (tls_server.h): the server's key (tls_key), its certificate chain
   (cert) and one connection on the UART (tls). Refused input gives one `error=` line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "console/bench_cmds.h"
#include "console/console.h"
#include "console/entropy_cmds.h"
#include "drivers/cycles.h"
#include "bignum/bignum.h"
#include "peers/peer_common.h"
#include "console/rsa_cmds.h"
#include "tls/tls_cmds.h"
#include "tls/tls_server.h"
#include "tls/tls_uart.h"

static void cmd_tls_key(int argc, char **argv)
{
	const rsa_key *k;
	long bits;

	if (argc != 2) {
		console_usage(argv[0]);
		printf("\n");
		return;
	}
	bits = console_decimal(argv[1]);
	if (bits < 0 || !(k = bench_key((unsigned)bits))) {
		printf(ERR_UNKNOWN_SIZE " bits=%s (the sizes `bench` has keys of)\n", argv[1]);
		return;
	}
	if (rsa_cmds_set_key(k)) {
		printf(ERR_BAD_KEY " reason=bench_key_refused\n");
		return;
	}
	printf(KEY_SET_LINE, k->bits, "yes");
}

/* cert: the chain's state, and whether its leaf holds the key's modulus. */
static void print_chain(void)
{
	const rsa_ctx *ctx;
	const rsa_key *k;
	int certs = tls_chain_certs();
	const char *match;

	if (certs < 0) {
		printf(ERR_BAD_CHAIN " bytes=%u (not whole DER certificates: `cert clear` and load it again)\n",
		       (unsigned)tls_chain_bytes());
		return;
	}
	/* rsa_cmds_key prints an error line when there is no key: ask only when there is a chain */
	if (certs == 0)
		match = "no";
	else if ((k = rsa_cmds_key(1, &ctx)) == NULL)
		match = "no_key";
	else
		match = tls_chain_holds_key(k) ? "yes" : "no";
	printf(CHAIN_LINE, (unsigned)certs, (unsigned)tls_chain_bytes(), match);
}

static void cmd_cert(int argc, char **argv)
{
	static unsigned char piece[CONSOLE_LINE_MAX / 2];
	size_t len;

	if (argc == 2 && strcmp(argv[1], "clear") == 0) {
		tls_chain_clear();
	} else if (argc == 3 && strcmp(argv[1], "add") == 0) {
		if (console_hex_bytes("der", argv[2], piece, sizeof(piece), &len))
			return;
		if (tls_chain_append(piece, len)) {
			printf(ERR_TOO_LARGE " arg=der chain_bytes=%u max_bytes=%u\n", (unsigned)tls_chain_bytes(),
			       TLS_CHAIN_MAX);
			return;
		}
	} else if (argc != 1) {
		console_usage(argv[0]);
		printf("\n");
		return;
	}
	print_chain();
}

/* tls's arguments: the implementation and the idle limit by position, the host's bytes as OPT_MIX
   (hex, into mix) anywhere after the name. c's impl and timeout_ms, and *mix_len (0 when none); else
   prints the error line, -1. */
static int parse_tls(int argc, char **argv, struct tls_connection *c, unsigned char *mix, size_t *mix_len)
{
	const char *impl = NULL, *timeout = NULL, *mix_hex = NULL;
	long timeout_ms = TLS_TIMEOUT_MS;
	int i;

	for (i = 1; i < argc; i++) {
		const char **slot = strncmp(argv[i], OPT_MIX, strlen(OPT_MIX)) == 0 ? &mix_hex
		                    : !impl ? &impl : &timeout;
		if (*slot) {                    /* a third word, or a second mix */
			console_usage(argv[0]);
			printf("\n");
			return -1;
		}
		*slot = slot == &mix_hex ? argv[i] + strlen(OPT_MIX) : argv[i];
	}
	*mix_len = 0;
	if (mix_hex && console_hex_bytes("mix", mix_hex, mix, TLS_SEED_MAX, mix_len))
		return -1;
	if (!impl)
		impl = IMPL_HW_SEQ;
	c->impl = rsa_impl_find(impl);
	if (!tls_impl_supported(c->impl)) {
		static const char *const names[] = TLS_IMPL_NAMES;
		unsigned j;
		printf(ERR_UNKNOWN_IMPL " impl=%s choices=", impl);
		for (j = 0; j < sizeof(names) / sizeof(names[0]); j++)
			printf("%s%s", j ? "," : "", names[j]);
		printf("\n");
		return -1;
	}
	if (!tls_impl_allowed(c->impl)) {
		static const char *const names[] = TLS_CONSTANT_TIME_IMPL_NAMES;
		unsigned j;
		printf(ERR_NOT_CONSTANT_TIME " impl=%s choices=", impl);
		for (j = 0; j < sizeof(names) / sizeof(names[0]); j++)
			printf("%s%s", j ? "," : "", names[j]);
		printf(" (a board's server runs constant-time RSA only)\n");
		return -1;
	}
	if (timeout) {
		timeout_ms = console_decimal(timeout);
		if (timeout_ms < 1 || timeout_ms > 3600000) {
			console_usage(argv[0]);
			printf(" (timeout-ms: 1 to 3600000)\n");
			return -1;
		}
	}
	c->timeout_ms = (uint32_t)timeout_ms;
	return 0;
}

/* The server's key and a chain for it; else prints the error line, -1. */
static int server_ready(struct tls_connection *c)
{
	int certs;

	if (!(c->key = rsa_cmds_key(1, &c->ctx)))
		return -1;
	certs = tls_chain_certs();
	if (certs == 0) {
		printf(ERR_NO_CHAIN " (load the server's certificate first: cert add <der-hex>)\n");
		return -1;
	}
	if (certs < 0 || !tls_chain_holds_key(c->key)) {
		print_chain();
		if (certs > 0)
			printf(ERR_CHAIN_KEY_MISMATCH " (the first certificate is not for your key)\n");
		return -1;
	}
	return 0;
}

/* tls [impl] [timeout-ms] [mix=<hex>]: one connection, then the console again. */
static void cmd_tls(int argc, char **argv)
{
	static unsigned char mix[TLS_SEED_MAX];
	static char line[TLS_LINE_MAX];
	static struct tls_connection c;
	size_t mix_len = 0;
	int refused, err;

	if (argc > 4) {
		console_usage(argv[0]);
		printf("\n");
		return;
	}
	if (!TLS_HAVE_BEARSSL) {
		printf(ERR_NO_TLS_LIBRARY " (BearSSL was not fetched: no TLS server in this firmware)\n");
		return;
	}
	refused = parse_tls(argc, argv, &c, mix, &mix_len) || server_ready(&c);
	if (!refused && (err = tls_seed(&c, mix, mix_len)) != 0) {
		entropy_print_error(err);
		refused = 1;
	}
	bn_wipe(mix, sizeof(mix));
	if (refused)
		return;

	tls_uart_begin();
	snprintf(line, sizeof(line), TLS_START_LINE, c.impl->name, c.key->bits, (unsigned long)c.timeout_ms);
	tls_uart_write(line, strlen(line));
	tls_serve(&c);          /* wipes the seed and what the connection held */
	if (c.handshake) {
		tls_handshake_line(line, sizeof(line), &c);
		tls_uart_write(line, strlen(line));
	}
	snprintf(line, sizeof(line), TLS_DONE_LINE, c.reason, c.error, c.handshake, c.answered,
	         (unsigned long)c.bytes_in, (unsigned long)c.bytes_out);
	tls_uart_write(line, strlen(line));
	/* what the client sent after the end (its close_notify, say) is dropped until the host's token */
	tls_uart_wait_token(cycles_now() + (uint64_t)c.timeout_ms * (CONFIG_CLOCK_FREQUENCY / 1000));
	tls_uart_end();
	if (c.hash_fault)
		printf(ERR_HASH_ENGINE " (during the connection)\n");
}

const struct console_command tls_commands[] = {
	{ CMD_TLS_KEY, cmd_tls_key },
	{ CMD_CERT, cmd_cert },
	{ CMD_TLS, cmd_tls },
	{ NULL, NULL, NULL, NULL },
};
