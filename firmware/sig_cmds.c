/* Console commands for RSA as devices use it, on one of our implementations (hw_seq by default): key
   generation (keygen.h), whose key becomes the user's key (rsa_cmds.c's `key`); with that key, sign
   and verify (PKCS#1 v1.5, PSS) and OAEP encrypt and decrypt with SHA-256 (rsa_padding.h). Refused
   input gives one `error=` line and leaves the key as it was. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cycles.h"
#include "hex_digit.h"
#include "keygen.h"
#include "montmul_drv.h"
#include "peer_common.h"
#include "peer_keygen.h"
#include "rsa_cmds.h"
#include "rsa_hw.h"
#include "rsa_impls.h"
#include "rsa_padding.h"
#include "sig_cmds.h"

/* A message fills at most the console line, two hex digits a byte. */
#define SIG_MESSAGE_MAX (CONSOLE_LINE_MAX / 2)

static unsigned char sig_message[SIG_MESSAGE_MAX], sig_block[PAD_MAX_BYTES];
static char sig_hex[2 * PAD_MAX_BYTES + 1];      /* a result: at most the modulus' length */
static char n_hex[2 * PAD_MAX_BYTES + 1], d_hex[2 * PAD_MAX_BYTES + 1];   /* keygen's key */
static char p_hex[PAD_MAX_BYTES + 1], q_hex[PAD_MAX_BYTES + 1], e_hex[16];

static const char hex_digits[] = "0123456789abcdef";

/* Hex digits (two a byte) into out; prints the error line and returns -1 on bad input. */
static int parse_bytes(const char *name, const char *text, unsigned char *out, size_t max, size_t *len)
{
	size_t digits = strlen(text), i;

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

/* A signature or ciphertext: exactly the modulus' length in bytes. */
static int parse_block(const char *name, const char *text, const rsa_key *k)
{
	size_t len;

	if (parse_bytes(name, text, sig_block, sizeof(sig_block), &len))
		return -1;
	if (len != pad_key_bytes(k)) {
		printf(ERR_BAD_LENGTH " arg=%s bytes=%u expected=%u\n", name, (unsigned)len, (unsigned)pad_key_bytes(k));
		return -1;
	}
	return 0;
}

static const char *to_hex(const unsigned char *bytes, size_t len)
{
	size_t i;

	if (len > PAD_MAX_BYTES)
		len = PAD_MAX_BYTES;
	for (i = 0; i < len; i++) {
		sig_hex[2 * i] = hex_digits[bytes[i] >> 4];
		sig_hex[2 * i + 1] = hex_digits[bytes[i] & 15];
	}
	sig_hex[2 * len] = 0;
	return sig_hex;
}

/* The implementation argument (default hw_seq): one of ours; else prints the error line, NULL. */
static const rsa_backend *parse_impl(int argc, char **argv, int index)
{
	const struct rsa_impl *impl;
	unsigned i;

	impl = rsa_impl_find(argc > index ? argv[index] : IMPL_HW_SEQ);
	if (impl && impl->backend)
		return impl->backend;
	printf(ERR_UNKNOWN_IMPL " impl=%s choices=", argv[index]);
	for (i = 0; rsa_impls[i].name; i++)
		if (rsa_impls[i].backend)
			printf("%s%s", i ? "," : "", rsa_impls[i].name);
	printf("\n");
	return NULL;
}

static int parse_scheme(const char *text, enum pad_scheme *scheme)
{
	if (strcmp(text, "pkcs1") == 0)
		*scheme = PAD_PKCS1;
	else if (strcmp(text, "pss") == 0)
		*scheme = PAD_PSS;
	else {
		printf(ERR_UNKNOWN_PADDING " padding=%s choices=pkcs1,pss\n", text);
		return -1;
	}
	return 0;
}

/* The error line of a failed pad_* call (PAD_ERR_DECRYPT has its own, in cmd_oaep_decrypt). */
static void pad_failed(int err)
{
	switch (err) {
	case PAD_ERR_UNAVAILABLE:
		printf(ERR_NO_PADDING_LIBRARY " (BearSSL was not fetched: no SHA-256 or padding in this firmware)\n");
		break;
	case PAD_ERR_KEY_SIZE:
		printf(ERR_KEY_TOO_SMALL " (the modulus is too short for this padding with SHA-256)\n");
		break;
	case PAD_ERR_TOO_LONG:
		printf(ERR_MESSAGE_TOO_LONG " (OAEP with SHA-256 carries at most k - 66 bytes)\n");
		break;
	default:
		if (rsa_hw_error == MM_ERR_STUCK)
			printf(ERR_PERIPHERAL_STUCK " (the driver reset it)\n");
		else
			printf(ERR_OPERATION_FAILED " peripheral_code=%u\n", rsa_hw_error);
		break;
	}
}

/* Checks common to the commands: argument count, the library, the key. */
static const rsa_key *start(int argc, char **argv, int min_args, int max_args, int private_key,
                            const rsa_ctx **ctx)
{
	if (argc < min_args || argc > max_args) {
		console_usage(argv[0]);
		printf("\n");
		return NULL;
	}
	if (!PEER_HAVE_BEARSSL) {
		pad_failed(PAD_ERR_UNAVAILABLE);
		return NULL;
	}
	return rsa_cmds_key(private_key, ctx);
}

/* sign pkcs1|pss <message> [impl]: the whole signature is timed (SHA-256, padding, private CRT). */
static void cmd_sign(int argc, char **argv)
{
	const rsa_ctx *ctx;
	const rsa_key *k;
	const rsa_backend *b;
	enum pad_scheme scheme;
	size_t msg_len;
	timed_region t;
	uint64_t cycles;
	int err;

	if (!(k = start(argc, argv, 3, 4, 1, &ctx)) || parse_scheme(argv[1], &scheme)
	    || !(b = parse_impl(argc, argv, 3))
	    || parse_bytes("message", argv[2], sig_message, sizeof(sig_message), &msg_len))
		return;
	pad_random_init();
	rsa_hw_forget();
	t = timed_start();
	err = pad_sign(scheme, b, k, ctx, sig_message, msg_len, sig_block);
	cycles = timed_stop(t);
	if (err) {
		pad_failed(err);
		return;
	}
	printf(SIGNATURE_LINE, to_hex(sig_block, pad_key_bytes(k)), (unsigned long long)cycles);
}

/* verify pkcs1|pss <message> <signature> [impl] */
static void cmd_verify(int argc, char **argv)
{
	const rsa_ctx *ctx;
	const rsa_key *k;
	const rsa_backend *b;
	enum pad_scheme scheme;
	size_t msg_len;
	timed_region t;
	uint64_t cycles;
	int valid;

	if (!(k = start(argc, argv, 4, 5, 0, &ctx)) || parse_scheme(argv[1], &scheme)
	    || !(b = parse_impl(argc, argv, 4))
	    || parse_bytes("message", argv[2], sig_message, sizeof(sig_message), &msg_len)
	    || parse_block("signature", argv[3], k))
		return;
	rsa_hw_forget();
	t = timed_start();
	valid = pad_verify(scheme, b, k, ctx, sig_message, msg_len, sig_block);
	cycles = timed_stop(t);
	if (valid < 0) {
		pad_failed(valid);
		return;
	}
	printf(VALID_LINE, valid ? "yes" : "no", (unsigned long long)cycles);
}

/* oaep_encrypt <message> [impl] */
static void cmd_oaep_encrypt(int argc, char **argv)
{
	const rsa_ctx *ctx;
	const rsa_key *k;
	const rsa_backend *b;
	size_t msg_len;
	int err;

	if (!(k = start(argc, argv, 2, 3, 0, &ctx)) || !(b = parse_impl(argc, argv, 2))
	    || parse_bytes("message", argv[1], sig_message, sizeof(sig_message), &msg_len))
		return;
	if ((err = pad_oaep_encrypt(b, k, ctx, sig_message, msg_len, sig_block)) != PAD_OK) {
		pad_failed(err);
		return;
	}
	printf(CIPHERTEXT_LINE, to_hex(sig_block, pad_key_bytes(k)));
}

/* oaep_decrypt <ciphertext> [impl]: every failure of the decryption itself (not below the modulus,
   fault check, padding) gives the same line, so the console is no padding oracle. */
static void cmd_oaep_decrypt(int argc, char **argv)
{
	const rsa_ctx *ctx;
	const rsa_key *k;
	const rsa_backend *b;
	size_t msg_len;
	timed_region t;
	uint64_t cycles;
	int err;

	if (!(k = start(argc, argv, 2, 3, 1, &ctx)) || !(b = parse_impl(argc, argv, 2))
	    || parse_block("ciphertext", argv[1], k))
		return;
	rsa_hw_forget();
	t = timed_start();
	err = pad_oaep_decrypt(b, k, ctx, sig_block, sig_message, &msg_len);
	cycles = timed_stop(t);
	if (err != PAD_OK) {
		printf(ERR_DECRYPTION_FAILED "\n");
		return;
	}
	printf(MESSAGE_LINE, to_hex(sig_message, msg_len), (unsigned long long)cycles);
	memset(sig_message, 0, msg_len);
}

/* keygen <bits> <seed> [impl]: the generation is timed (keygen.h; a peer library's, peer_keygen.h);
   the key is then checked untimed, as a device would before using it (a pairwise consistency test:
   x^e^d = x with CRT, on the same implementation, on sw for a peer's key), and becomes the user's key. */
static void cmd_keygen(int argc, char **argv)
{
	static rsa_key k;
	static unsigned char seed[KEYGEN_SEED_MAX];
	static uint32_t x[BN_MAX_WORDS], y[BN_MAX_WORDS];
	const rsa_ctx *ctx;
	const rsa_backend *b;
	struct keygen_stats stats = { 0, 0, 0 };
	unsigned bits, nw, pw;
	size_t seed_len;
	char *end;
	timed_region t;
	uint64_t cycles;
	int err, ok, peer, lib_code;

	if (argc < 3 || argc > 4) {
		console_usage(argv[0]);
		printf("\n");
		return;
	}
	bits = (unsigned)strtoul(argv[1], &end, 10);
	if (*end || end == argv[1] || bits % 64 || bits < KEYGEN_MIN_BITS || bits > BN_MAX_BITS) {
		printf(ERR_UNKNOWN_SIZE " bits=%s (a multiple of 64 from %d to %d)\n", argv[1], KEYGEN_MIN_BITS,
		       BN_MAX_BITS);
		return;
	}
	peer = argc > 3 ? peer_keygen_find(argv[3]) : -1;
	if (peer >= 0)
		b = &rsa_sw;
	else if (!(b = parse_impl(argc, argv, 3)))
		return;
	if (parse_bytes("seed", argv[2], seed, sizeof(seed), &seed_len))
		return;
	if (seed_len == 0) {
		printf(ERR_BAD_LENGTH " arg=seed bytes=0 expected=1..%d\n", KEYGEN_SEED_MAX);
		return;
	}
	if (!PEER_HAVE_BEARSSL) {
		printf(ERR_NO_RANDOM_GENERATOR " (BearSSL was not fetched: no HMAC-DRBG in this firmware)\n");
		return;
	}
	if (peer >= 0) {
		err = peer_keygen((enum peer_keygen_lib)peer, bits, seed, seed_len, &k, &cycles, &lib_code);
	} else {
		keygen_prepare();
		rsa_hw_forget();
		t = timed_start();
		err = keygen(b, bits, seed, seed_len, &k, &stats);
		cycles = timed_stop(t);
	}
	memset(seed, 0, sizeof(seed));
	if (err == PEER_KEYGEN_ERR_LIBRARY) {
		printf(ERR_OPERATION_FAILED " library_code=%d\n", lib_code);
		return;
	}
	if (err == KEYGEN_ERR_SEARCH) {
		printf(ERR_OPERATION_FAILED " (no prime found: an exponentiation gives wrong results)\n");
		return;
	}
	if (err) {
		printf(ERR_OPERATION_FAILED " peripheral_code=%u\n", rsa_hw_error);
		return;
	}
	/* The user's key from now on; then the consistency test on it. */
	nw = bits / 32;
	pw = nw / 2;
	ok = rsa_cmds_set_key(&k) == 0 && rsa_cmds_key(1, &ctx) != NULL;
	if (ok) {
		bn_zero(x, BN_MAX_WORDS);
		x[0] = 0x5ca1ab1e;
		x[nw / 2] = 0x600dc0de;
		ok = rsa_public(b, &k, ctx, y, x) == RSA_OK && rsa_private_crt(b, &k, ctx, y, y) == RSA_OK
		     && bn_cmp(x, y, nw) == 0;
	}
	printf(KEYGEN_LINE, bits, argc > 3 ? argv[3] : IMPL_HW_SEQ, (unsigned long long)cycles, stats.candidates,
	       stats.mr_rounds, ok);
	bn_to_hex(n_hex, sizeof(n_hex), k.n, nw);
	bn_to_hex(e_hex, sizeof(e_hex), k.e, 1);
	bn_to_hex(d_hex, sizeof(d_hex), k.d, nw);
	bn_to_hex(p_hex, sizeof(p_hex), k.p, pw);
	bn_to_hex(q_hex, sizeof(q_hex), k.q, pw);
	printf(KEY_LINE, n_hex, e_hex, d_hex, p_hex, q_hex);
	bn_wipe(&k, sizeof(k));
	bn_wipe(d_hex, sizeof(d_hex));
	bn_wipe(p_hex, sizeof(p_hex));
	bn_wipe(q_hex, sizeof(q_hex));
}

const struct console_command sig_commands[] = {
	{ CMD_SIGN, cmd_sign },
	{ CMD_VERIFY, cmd_verify },
	{ CMD_OAEP_ENCRYPT, cmd_oaep_encrypt },
	{ CMD_OAEP_DECRYPT, cmd_oaep_decrypt },
	{ CMD_KEYGEN, cmd_keygen },
	{ NULL, NULL, NULL, NULL },
};
