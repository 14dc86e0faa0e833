/*
 * A TLS 1.2 server on BearSSL 0.6's engine, one connection at a time over the UART (tls_uart.h), with
 * the server's RSA on one of our implementations or BearSSL's own i31 code, and every part of its
 * work metered (tls_meter.h).
 *
 * Suites: TLS_RSA_WITH_AES_128_GCM_SHA256 and TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 (X25519 or P-256,
 * BearSSL's m31 code), TLS 1.2 only, no renegotiation, no session cache (every handshake is a full
 * one). The connection: the client's handshake, then one request (its bytes up to a newline, at most
 * TLS_REQUEST_MAX), answered with one line (tls_handshake_line), then close_notify. The server's random
 * generator (BearSSL's HMAC-DRBG) is seeded afresh for every connection by tls_seed(). Every SHA-256 (the
 * transcript, the generator, the PRF) is the selected one (hash/sha256_select.h), the PRF our own over it.
 *
 * Secrets: the server's RSA runs on the key store's key in place (ours), or on BearSSL's form of it made
 * for the connection (bearssl); when a connection ends, however it ends, the engine's context (master
 * secret, record keys, the generator's state, the ECDHE scalar), the I/O buffer (the decrypted premaster,
 * every record's plaintext), BearSSL's form of the key and the stack below the server are wiped.
 *
 * Policy: a board's server runs only constant-time RSA (console_protocol.TLS_CONSTANT_TIME_IMPLS) and
 * tells nobody its cycles (TLS_HANDSHAKE_BRIEF); the simulation's (RSA_BENCH_SIMULATION, soc.h) runs
 * every implementation and reports its cycles (TLS_HANDSHAKE).
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
#define TLS_SEED_MAX     64     /* bytes of the generator's seed for one connection, and of the host's mix at most */
#define TLS_SEED_BYTES   32     /* drawn from the device's generator for each connection */

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
	unsigned char seed[TLS_SEED_MAX];       /* tls_seed's: injected into the generator, then wiped */
	size_t seed_len;
	uint32_t timeout_ms;
	/* what happened */
	const char *reason;     /* console_protocol.py TLS_DONE: closed, failed, timeout, aborted */
	int error;              /* BearSSL's last error (0: none) */
	int handshake, answered;
	unsigned suite;         /* the agreed suite's code point; the curve's (0: none) */
	int curve;
	struct tls_meter at_handshake;  /* the meter when the handshake completed */
	uint32_t bytes_in, bytes_out;
	int hash_fault;         /* the SHA-256 engine faulted during the connection (no signature was made after) */
};

/* Draws the seed of c's connection: the one place the server's randomness comes from. The device's
   generator (rand/rng.h) is reseeded from the entropy source, `mix` (mix_len bytes, possibly none: what
   the host sent with the command) mixed in as additional input, never as the seed, and TLS_SEED_BYTES
   drawn. 0, or the generator's negative RNG_ERR_* (the caller prints its error line). */
int tls_seed(struct tls_connection *c, const unsigned char *mix, size_t mix_len);

/* Serves one connection on the UART (which the caller took with tls_uart_begin); every secret of it is
   wiped before this returns, c's seed included. */
void tls_serve(struct tls_connection *c);

/* The line of a completed handshake into buf (at most len bytes, terminated): TLS_HANDSHAKE, its cycles
   and their split, in the simulation; TLS_HANDSHAKE_BRIEF, without them, on a board. */
void tls_handshake_line(char *buf, size_t len, const struct tls_connection *c);

/* 1 when impl can run the server's RSA (console_protocol.TLS_IMPLS). */
int tls_impl_supported(const struct rsa_impl *impl);
/* 1 when this build lets impl run the server's RSA: a board's, constant-time implementations only. */
int tls_impl_allowed(const struct rsa_impl *impl);

#endif
