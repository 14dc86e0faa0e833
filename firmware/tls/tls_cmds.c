/* Console commands of the TLS server (tls_server.h): the server's key (tls_key), its certificate chain
   (cert) and one connection on the UART (tls). Refused input gives one `error=` line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "console/bench_cmds.h"
#include "console/console.h"
#include "drivers/cycles.h"
#include "bignum/hex_digit.h"
#include "peers/peer_common.h"
#include "console/rsa_cmds.h"
#include "tls/tls_cmds.h"
#include "tls/tls_server.h"
#include "tls/tls_uart.h"

#define ENTROPY_MAX 64

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

/* tls <entropy-hex> [impl] [timeout-ms]: one connection, then the console again. */
static void cmd_tls(int argc, char **argv)
{
	static unsigned char entropy[ENTROPY_MAX];
	static char line[TLS_LINE_MAX];
	struct tls_connection c;
	long timeout_ms = TLS_TIMEOUT_MS;
	int certs;

	if (argc < 2 || argc > 4) {
		console_usage(argv[0]);
		printf("\n");
		return;
	}
	if (!TLS_HAVE_BEARSSL) {
		printf(ERR_NO_TLS_LIBRARY " (BearSSL was not fetched: no TLS server in this firmware)\n");
		return;
	}
	if (console_hex_bytes("entropy", argv[1], entropy, sizeof(entropy), &c.entropy_len))
		return;
	if (c.entropy_len < TLS_MIN_ENTROPY) {
		printf(ERR_SHORT_ENTROPY " bytes=%u min=%d (fresh random bytes from the host: they seed the server's "
		       "generator)\n", (unsigned)c.entropy_len, TLS_MIN_ENTROPY);
		return;
	}
	c.entropy = entropy;
	c.impl = rsa_impl_find(argc > 2 ? argv[2] : IMPL_HW_SEQ);
	if (!tls_impl_supported(c.impl)) {
		static const char *const names[] = TLS_IMPL_NAMES;
		unsigned i;
		printf(ERR_UNKNOWN_IMPL " impl=%s choices=", argv[2]);
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			printf("%s%s", i ? "," : "", names[i]);
		printf("\n");
		return;
	}
	if (argc > 3) {
		timeout_ms = console_decimal(argv[3]);
		if (timeout_ms < 1 || timeout_ms > 3600000) {
			console_usage(argv[0]);
			printf(" (timeout-ms: 1 to 3600000)\n");
			return;
		}
	}
	c.timeout_ms = (uint32_t)timeout_ms;
	if (!(c.key = rsa_cmds_key(1, &c.ctx)))
		return;
	certs = tls_chain_certs();
	if (certs == 0) {
		printf(ERR_NO_CHAIN " (load the server's certificate first: cert add <der-hex>)\n");
		return;
	}
	if (certs < 0 || !tls_chain_holds_key(c.key)) {
		print_chain();
		if (certs > 0)
			printf(ERR_CHAIN_KEY_MISMATCH " (the first certificate is not for your key)\n");
		return;
	}

	tls_uart_begin();
	snprintf(line, sizeof(line), TLS_START_LINE, c.impl->name, c.key->bits, (unsigned long)c.timeout_ms);
	tls_uart_write(line, strlen(line));
	tls_serve(&c);
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
	memset(entropy, 0, sizeof(entropy));
}

const struct console_command tls_commands[] = {
	{ CMD_TLS_KEY, cmd_tls_key },
	{ CMD_CERT, cmd_cert },
	{ CMD_TLS, cmd_tls },
	{ NULL, NULL, NULL, NULL },
};
