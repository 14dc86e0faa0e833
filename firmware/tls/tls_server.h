/*
 * A TLS 1.2 server on BearSSL 0.6's engine, one connection at a time over the UART (tls_uart.h), with
 * the server's RSA on one of our implementations or BearSSL's own i31 code, and every part of its
 * work metered (tls_meter.h).
 *
 * Suites: TLS_RSA_WITH_AES_128_GCM_SHA256 and TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 (X25519 or P-256,
 * BearSSL's m31 code), TLS 1.2 only, no renegotiation, no session cache (every handshake is a full
 * one). The connection: the client's handshake, then one request (its bytes up to a newline, at most
 * TLS_REQUEST_MAX), answered with one line (console_protocol.h TLS_HANDSHAKE_LINE: the handshake's
 * cycles and their split), then close_notify. The server's random generator (BearSSL's HMAC-DRBG) is
 * seeded with the entropy the host sends with the command, fresh for every connection.
 *
 * Built only with BearSSL (TLS_HAVE_BEARSSL: the simulation's image, and the board's, which has it without
 * the bench's peer libraries); without it the console answers error=no_tls_library.
 */
#ifndef TLS_SERVER_H
#define TLS_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "rsa/rsa.h"
#include "rsa/rsa_impls.h"
#include "tls/tls_meter.h"

#define TLS_CHAIN_MAX    4096   /* bytes of DER certificates: a leaf and an intermediate or two */
#define TLS_CHAIN_CERTS  4
#define TLS_REQUEST_MAX  256
#define TLS_LINE_MAX     320    /* the longest TLS_HANDSHAKE line, with room to spare */

/* The certificate chain, leaf first, as DER bytes appended in pieces. */
void tls_chain_clear(void);
/* Appends bytes; -1 (nothing appended) when they do not fit. */
int tls_chain_append(const unsigned char *der, size_t len);
/* The bytes held. */
size_t tls_chain_bytes(void);
/* The number of whole DER certificates the bytes make, or -1 when they are not exactly that. */
int tls_chain_certs(void);
/* 1 when the first certificate holds k's modulus (its big-endian bytes), else 0. */
int tls_chain_holds_key(const rsa_key *k);

struct tls_connection {
	/* what the connection runs with */
	const struct rsa_impl *impl;            /* one of ours (backend) or BearSSL's (peer_bearssl) */
	const rsa_key *key;
	const rsa_ctx *ctx;
	const unsigned char *entropy;
	size_t entropy_len;
	uint32_t timeout_ms;
	/* what happened */
	const char *reason;     /* console_protocol.py TLS_DONE: closed, failed, timeout, aborted */
	int error;              /* BearSSL's last error (0: none) */
	int handshake, answered;
	unsigned suite;         /* the agreed suite's code point; the curve's (0: none) */
	int curve;
	struct tls_meter at_handshake;  /* the meter when the handshake completed */
	uint32_t bytes_in, bytes_out;
};

/* Serves one connection on the UART (which the caller took with tls_uart_begin). */
void tls_serve(struct tls_connection *c);

/* The TLS_HANDSHAKE line of a completed handshake into buf (at most len bytes, terminated). */
void tls_handshake_line(char *buf, size_t len, const struct tls_connection *c);

/* 1 when impl can run the server's RSA (console_protocol.TLS_IMPLS). */
int tls_impl_supported(const struct rsa_impl *impl);

#endif
