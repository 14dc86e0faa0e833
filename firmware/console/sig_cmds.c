/* Console commands for RSA as devices use it, on one of our implementations (hw_seq by default): key
   generation (keygen.h), whose key becomes the user's key (rsa_cmds.c's `key`); with that key, sign
   and verify (PKCS#1 v1.5, PSS) and OAEP encrypt and decrypt with SHA-256 (rsa_padding.h). Refused
   input gives one `error=` line and leaves the key as it was. Hex arguments may be EMPTY_HEX for no
   bytes (the console splits its line at spaces). `sha256` chooses the SHA-256 they (and the generators, and
   the TLS server) hash with. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/cycles.h"
#include "bignum/hex_digit.h"
#include "hash/sha256_select.h"
#include "keygen/keygen.h"
#include "drivers/montmul_drv.h"
#include "peers/peer_common.h"
#include "peers/peer_keygen.h"
#include "console/entropy_cmds.h"
#include "console/rsa_cmds.h"
#include "rsa/rsa_hw.h"
#include "rsa/rsa_impls.h"
#include "pad/rsa_padding.h"
#include "rand/rng.h"
#include "console/sig_cmds.h"

#if PEER_HAVE_BEARSSL

/* A message fills at most the console line, two hex digits a byte. */
#define SIG_MESSAGE_MAX (CONSOLE_LINE_MAX / 2)
/* The OAEP commands' label goes after the message (at most the modulus' length: oaep_decrypt's
   result, oaep_encrypt's message) in the same buffer. */
#define SIG_LABEL (sig_message + PAD_MAX_BYTES)
#define SIG_LABEL_MAX (SIG_MESSAGE_MAX - PAD_MAX_BYTES)
_Static_assert(SIG_MESSAGE_MAX > PAD_MAX_BYTES, "no room for a label after the message");

static unsigned char sig_message[SIG_MESSAGE_MAX], sig_block[PAD_MAX_BYTES];
static char sig_hex[2 * PAD_MAX_BYTES + 1];      /* a result: at most the modulus' length */
static char n_hex[2 * PAD_MAX_BYTES + 1], e_hex[16];   /* keygen's public key */

static const char hex_digits[] = "0123456789abcdef";

/* A signature or ciphertext: exactly the modulus' length in bytes. */
static int parse_block(const char *name, const char *text, const rsa_key *k)
{
	size_t len;

	if (console_hex_bytes(name, text, sig_block, sizeof(sig_block), &len))
		return -1;
	if (len != pad_key_bytes(k)) {
		printf(ERR_BAD_LENGTH " arg=%s bytes=%u expected=%u\n", name, (unsigned)len, (unsigned)pad_key_bytes(k));
		return -1;
	}
	return 0;
}

/* Bytes as hex digits, EMPTY_HEX for none (as typed). */
static const char *to_hex(const unsigned char *bytes, size_t len)
{
	size_t i;

	if (len == 0)
		return EMPTY_HEX;
	if (len > PAD_MAX_BYTES)
		len = PAD_MAX_BYTES;
	for (i = 0; i < len; i++) {
		sig_hex[2 * i] = hex_digits[bytes[i] >> 4];
		sig_hex[2 * i + 1] = hex_digits[bytes[i] & 15];
	}
	sig_hex[2 * len] = 0;
	return sig_hex;
}

/* An implementation's name: one of ours; else prints the error line, NULL. */
static const rsa_backend *find_backend(const char *name)
{
	const struct rsa_impl *impl = rsa_impl_find(name);
	unsigned i;

	if (impl && impl->backend)
		return impl->backend;
	printf(ERR_UNKNOWN_IMPL " impl=%s choices=", name);
	for (i = 0; rsa_impls[i].name; i++)
		if (rsa_impls[i].backend)
			printf("%s%s", i ? "," : "", rsa_impls[i].name);
	printf("\n");
	return NULL;
}

/* The optional arguments after a command's own, in any order: at most one implementation (hw_seq
   by default) and each option at most once. */
struct sig_options {
	const rsa_backend *backend;
	const char *salt;       /* OPT_SALT's value, NULL when not given */
	const char *label;      /* OPT_LABEL's value, NULL when not given */
};

enum { TAKES_SALT = 1, TAKES_LABEL = 2 };

/* argv[first..argc) into o, taking the options `takes` names; else prints the error line, -1. */
static int parse_options(int argc, char **argv, int first, int takes, struct sig_options *o)
{
	const char *impl = NULL, **slot;
	int i;

	o->salt = o->label = NULL;
	for (i = first; i < argc; i++) {
		if (strncmp(argv[i], OPT_SALT, strlen(OPT_SALT)) == 0)
			slot = takes & TAKES_SALT ? &o->salt : NULL;
		else if (strncmp(argv[i], OPT_LABEL, strlen(OPT_LABEL)) == 0)
			slot = takes & TAKES_LABEL ? &o->label : NULL;
		else
			slot = &impl;
		if (!slot || *slot) {           /* an option this command does not take, or a second one */
			console_usage(argv[0]);
			printf(" arg=%s\n", argv[i]);
			return -1;
		}
		*slot = slot == &impl ? argv[i] : strchr(argv[i], '=') + 1;
	}
	o->backend = find_backend(impl ? impl : IMPL_HW_SEQ);
	return o->backend ? 0 : -1;
}

/* The PSS salt length of OPT_SALT's value: a byte count up to what the key has room for, or SALT_ANY
   where `any` allows it; PAD_SALT_HASH when absent. Else prints the error line, -1. */
static int parse_salt(const char *text, const rsa_key *k, int any, int *salt_len)
{
	int max = pad_pss_max_salt(k);
	long n;

	if (!text) {
		*salt_len = PAD_SALT_HASH;
		return 0;
	}
	if (any && strcmp(text, SALT_ANY) == 0) {
		*salt_len = PAD_SALT_ANY;
		return 0;
	}
	n = console_decimal(text);
	if (max < 0 || n < 0 || n > max) {
		printf(ERR_BAD_SALT_LENGTH " salt=%s max_bytes=%d (a byte count%s)\n", text, max < 0 ? 0 : max,
		       any ? ", or " SALT_ANY " for any" : "");
		return -1;
	}
	*salt_len = (int)n;
	return 0;
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

/* The line of a result refused because the SHA-256 engine faulted under it. */
static void hash_engine_failed(void)
{
	printf(ERR_HASH_ENGINE " (nothing released)\n");
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
	case PAD_ERR_RANDOM:
		entropy_print_error(rng_stopped() ? RNG_ERR_HEALTH : RNG_ERR_TIMEOUT);
		break;
	case PAD_ERR_SALT_LENGTH:
		printf(ERR_BAD_SALT_LENGTH " (no room for this salt in the modulus)\n");
		break;
	case PAD_ERR_HASH:
		hash_engine_failed();
		break;
	default:
		if (rsa_hw_error == MM_ERR_STUCK)
			printf(ERR_PERIPHERAL_STUCK " (the driver reset it)\n");
		else
			printf(ERR_OPERATION_FAILED " peripheral_code=%u\n", rsa_hw_error);
		break;
	}
}

/* Checks common to the commands: argument count, the key. */
static const rsa_key *start(int argc, char **argv, int min_args, int max_args, int private_key,
                            const rsa_ctx **ctx)
{
	if (argc < min_args || argc > max_args) {
		console_usage(argv[0]);
		printf("\n");
		return NULL;
	}
	return rsa_cmds_key(private_key, ctx);
}

/* sign pkcs1|pss <message> [impl] [salt=<n>]: the whole signature is timed (SHA-256, padding, private
   CRT). */
static void cmd_sign(int argc, char **argv)
{
	const rsa_ctx *ctx;
	const rsa_key *k;
	enum pad_scheme scheme;
	struct sig_options o;
	size_t msg_len;
	timed_region t;
	uint64_t cycles;
	int err, salt_len = PAD_SALT_HASH;

	if (!(k = start(argc, argv, 3, 5, 1, &ctx)) || parse_scheme(argv[1], &scheme)
	    || parse_options(argc, argv, 3, scheme == PAD_PSS ? TAKES_SALT : 0, &o)
	    || parse_salt(o.salt, k, 0, &salt_len)
	    || console_hex_bytes("message", argv[2], sig_message, sizeof(sig_message), &msg_len))
		return;
	if (scheme == PAD_PSS && (err = pad_random_init()) != PAD_OK) {     /* a fresh seed, before the timed region */
		pad_failed(err);
		return;
	}
	rsa_hw_forget();
	t = timed_start();
	err = pad_sign(scheme, o.backend, k, ctx, sig_message, msg_len, salt_len, sig_block);
	cycles = timed_stop(t);
	if (err) {
		pad_failed(err);
		return;
	}
	printf(SIGNATURE_LINE, to_hex(sig_block, pad_key_bytes(k)), (unsigned long long)cycles);
}

/* verify pkcs1|pss <message> <signature> [impl] [salt=<n>|salt=auto] */
static void cmd_verify(int argc, char **argv)
{
	const rsa_ctx *ctx;
	const rsa_key *k;
	enum pad_scheme scheme;
	struct sig_options o;
	size_t msg_len;
	timed_region t;
	uint64_t cycles;
	int valid, salt_len = PAD_SALT_HASH;

	if (!(k = start(argc, argv, 4, 6, 0, &ctx)) || parse_scheme(argv[1], &scheme)
	    || parse_options(argc, argv, 4, scheme == PAD_PSS ? TAKES_SALT : 0, &o)
	    || parse_salt(o.salt, k, 1, &salt_len)
	    || console_hex_bytes("message", argv[2], sig_message, sizeof(sig_message), &msg_len)
	    || parse_block("signature", argv[3], k))
		return;
	rsa_hw_forget();
	t = timed_start();
	valid = pad_verify(scheme, o.backend, k, ctx, sig_message, msg_len, salt_len, sig_block);
	cycles = timed_stop(t);
	if (valid < 0) {
		pad_failed(valid);
		return;
	}
	printf(VALID_LINE, valid ? "yes" : "no", (unsigned long long)cycles);
}

/* The OAEP label: OPT_LABEL's hex (SIG_LABEL), empty when not given. */
static int parse_label(const char *text, size_t *label_len)
{
	*label_len = 0;
	return text ? console_hex_bytes("label", text, SIG_LABEL, SIG_LABEL_MAX, label_len) : 0;
}

/* oaep_encrypt <message> [impl] [label=<hex>] */
static void cmd_oaep_encrypt(int argc, char **argv)
{
	const rsa_ctx *ctx;
	const rsa_key *k;
	struct sig_options o;
	size_t msg_len, label_len;
	int err;

	if (!(k = start(argc, argv, 2, 4, 0, &ctx)) || parse_options(argc, argv, 2, TAKES_LABEL, &o)
	    || console_hex_bytes("message", argv[1], sig_message, PAD_MAX_BYTES, &msg_len)
	    || parse_label(o.label, &label_len))
		return;
	if ((err = pad_random_init()) != PAD_OK) {
		pad_failed(err);
		return;
	}
	err = pad_oaep_encrypt(o.backend, k, ctx, SIG_LABEL, label_len, sig_message, msg_len, sig_block);
	if (err != PAD_OK) {
		pad_failed(err);
		return;
	}
	printf(CIPHERTEXT_LINE, to_hex(sig_block, pad_key_bytes(k)));
}

/* oaep_decrypt <ciphertext> [impl] [label=<hex>]: every failure of the decryption itself (not below
   the modulus, fault check, padding, label) gives the same line, with the cycles a success takes, so
   the console is no padding oracle. */
static void cmd_oaep_decrypt(int argc, char **argv)
{
	const rsa_ctx *ctx;
	const rsa_key *k;
	struct sig_options o;
	size_t msg_len, label_len, len;
	timed_region t;
	uint64_t cycles;
	int err;

	if (!(k = start(argc, argv, 2, 4, 1, &ctx)) || parse_options(argc, argv, 2, TAKES_LABEL, &o)
	    || parse_block("ciphertext", argv[1], k) || parse_label(o.label, &label_len))
		return;
	len = pad_key_bytes(k);
	rsa_hw_forget();
	t = timed_start();
	err = pad_oaep_decrypt(o.backend, k, ctx, SIG_LABEL, label_len, sig_block, sig_message, &msg_len);
	cycles = timed_stop(t);
	if (err == PAD_ERR_DECRYPT)
		printf(DECRYPTION_FAILED_LINE, (unsigned long long)cycles);
	else if (err != PAD_OK)
		pad_failed(err);
	else
		printf(MESSAGE_LINE, to_hex(sig_message + len - msg_len, msg_len), (unsigned long long)cycles);
	memset(sig_message, 0, len);
}

/* The key keygen made, checked untimed as a device would before using it (a pairwise consistency
   test: x^e^d = x with CRT, on the same implementation b), then the user's key. 1 when it passed. */
static int keygen_check(const rsa_backend *b, const rsa_key *k)
{
	static uint32_t x[BN_MAX_WORDS], y[BN_MAX_WORDS];
	const rsa_ctx *ctx;
	unsigned nw = k->bits / 32;
	int ok = rsa_cmds_set_key(k) == 0 && rsa_cmds_key(1, &ctx) != NULL;

	if (ok) {
		bn_zero(x, BN_MAX_WORDS);
		x[0] = 0x5ca1ab1e;
		x[nw / 2] = 0x600dc0de;
		ok = rsa_public(b, k, ctx, y, x) == RSA_OK && rsa_private_crt(b, k, ctx, y, y) == RSA_OK
		     && bn_cmp(x, y, nw) == 0;
	}
	bn_wipe(y, sizeof(y));
	return ok;
}

/* The error line of a failed generation. */
static void keygen_failed(int err, int lib_code)
{
	if (err == PEER_KEYGEN_ERR_LIBRARY)
		printf(ERR_OPERATION_FAILED " library_code=%d\n", lib_code);
	else if (err == KEYGEN_ERR_HASH)
		hash_engine_failed();
	else if (err == KEYGEN_ERR_SEARCH)
		printf(ERR_OPERATION_FAILED " (no prime found: an exponentiation gives wrong results)\n");
	else
		printf(ERR_OPERATION_FAILED " peripheral_code=%u\n", rsa_hw_error);
}

/* keygen <bits> <seed> [impl]: the generation is timed (keygen.h; a peer library's, peer_keygen.h);
   the key is then checked (keygen_check) and becomes the user's key. Its public part is printed, the
   rest only by `key export`. Whatever the outcome, the seed, the generator and every intermediate of
   the search are wiped after the timed region, and so is this command's copy of the key. */
static void cmd_keygen(int argc, char **argv)
{
	static rsa_key k;
	static unsigned char seed[KEYGEN_SEED_MAX];
	const rsa_backend *b;
	struct keygen_stats stats = { 0, 0, 0 };
	unsigned bits;
	size_t seed_len;
	timed_region t;
	uint64_t cycles;
	const struct peer_keygen *peer;
	int err, ok, lib_code;

	/* keygen <bits> [<seed-hex>] [impl]: a word naming an implementation is the impl, not a seed */
	int seeded = argc > 2 && !rsa_impl_find(argv[2]) && !peer_keygen_find(argv[2]);
	const char *impl = argc > 2 + seeded ? argv[2 + seeded] : IMPL_HW_SEQ;

	if (argc < 2 || argc > 3 + seeded) {
		console_usage(argv[0]);
		printf("\n");
		return;
	}
	long typed = console_decimal(argv[1]);
	bits = typed < 0 ? 0 : (unsigned)typed;
	if (bits % 64 || bits < KEYGEN_MIN_BITS || bits > BN_MAX_BITS) {
		printf(ERR_UNKNOWN_SIZE " bits=%s (a multiple of 64 from %d to %d)\n", argv[1], KEYGEN_MIN_BITS,
		       BN_MAX_BITS);
		return;
	}
	peer = peer_keygen_find(impl);
	if (peer)
		b = &rsa_sw;
	else if (!(b = find_backend(impl)))
		return;
	if (seeded) {
		if (console_hex_bytes("seed", argv[2], seed, sizeof(seed), &seed_len))
			return;
		if (seed_len < KEYGEN_MIN_SEED) {
			bn_wipe(seed, sizeof(seed));
			printf(ERR_SHORT_SEED " bytes=%u min=%d (the seed is the key's only secret)\n", (unsigned)seed_len,
			       KEYGEN_MIN_SEED);
			return;
		}
	} else {
		/* no seed typed: one from the device's generator, reseeded from the entropy source first */
		seed_len = KEYGEN_MIN_SEED;
		uint32_t faults = sha256_sel_faults();

		if ((err = rng_reseed()) != RNG_OK || (err = rng_generate(seed, seed_len)) != RNG_OK) {
			bn_wipe(seed, sizeof(seed));
			entropy_print_error(err);
			return;
		}
		if (sha256_sel_faults() != faults) {
			bn_wipe(seed, sizeof(seed));
			hash_engine_failed();
			return;
		}
	}
	if (peer) {
		err = peer_keygen(peer, bits, seed, seed_len, &k, &cycles, &lib_code);
	} else {
		keygen_prepare();
		rsa_hw_forget();
		t = timed_start();
		err = keygen(b, bits, seed, seed_len, &k, &stats);
		cycles = timed_stop(t);
	}
	keygen_wipe();
	bn_wipe(seed, sizeof(seed));
	if (err) {
		bn_wipe(&k, sizeof(k));
		keygen_failed(err, lib_code);
		return;
	}
	ok = keygen_check(b, &k);
	printf(KEYGEN_LINE, bits, impl, (unsigned long long)cycles, stats.candidates,
	       stats.mr_rounds, ok);
	bn_to_hex(n_hex, sizeof(n_hex), k.n, bits / 32);
	bn_to_hex(e_hex, sizeof(e_hex), k.e, 1);
	printf(KEY_PUBLIC_LINE, n_hex, e_hex);
	bn_wipe(&k, sizeof(k));
}

/* keygen_step pretest|round <candidate> [impl]: one constant-time step of the prime search on the
   candidate (big-endian hex, a whole number of 32-bit words), timed (keygen.h, keygen_step_run);
   the leak test compares its cycles over candidates. */
_Static_assert(KEYGEN_STEP_PRETEST == 0 && KEYGEN_STEP_ROUND == 1, "KEYGEN_STEP_NAMES is in this order");

static void cmd_keygen_step(int argc, char **argv)
{
	static const char *const names[] = KEYGEN_STEP_NAMES;
	static uint32_t c[RSA_HALF_WORDS];
	const rsa_backend *b;
	timed_region t;
	uint64_t cycles;
	size_t len;
	unsigned step = 0;
	int pass;

	if (argc >= 3 && argc <= 4)
		while (step < 2 && strcmp(argv[1], names[step]) != 0)
			step++;
	if (argc < 3 || argc > 4 || step == 2) {
		console_usage(argv[0]);
		printf("\n");
		return;
	}
	if (!(b = find_backend(argc > 3 ? argv[3] : IMPL_HW_SEQ))
	    || console_hex_bytes("candidate", argv[2], sig_message, 4 * RSA_HALF_WORDS, &len))
		return;
	bn_zero(c, RSA_HALF_WORDS);
	peer_from_bytes(c, len / 4, sig_message, len);
	if (len % 4 || keygen_step_load(c, len / 4) != KEYGEN_OK) {
		printf(ERR_BAD_CANDIDATE " (top two bits set, 3 mod 4, a multiple of 32 bits from %d to %d)\n",
		       KEYGEN_MIN_BITS / 2, BN_MAX_BITS / 2);
		return;
	}
	rsa_hw_forget();
	t = timed_start();
	pass = keygen_step_run(b, (int)step);
	cycles = timed_stop(t);
	keygen_wipe();
	if (pass < 0) {
		printf(ERR_OPERATION_FAILED " peripheral_code=%u\n", rsa_hw_error);
		return;
	}
	printf(KEYGEN_STEP_LINE, names[step], argc > 3 ? argv[3] : IMPL_HW_SEQ, 32 * (unsigned)(len / 4),
	       (unsigned long long)cycles, pass);
}

#else

/* Without BearSSL (a board's image, whose TLS server brings only its own part of it) these commands can do
   nothing but say so, and their parsers and buffers would take room the board's main RAM does not have. */
static void no_padding_library(int argc, char **argv)
{
	(void)argc; (void)argv;
	printf(ERR_NO_PADDING_LIBRARY " (BearSSL was not fetched: no SHA-256 or padding in this firmware)\n");
}

static void no_random_generator(int argc, char **argv)
{
	(void)argc; (void)argv;
	printf(ERR_NO_RANDOM_GENERATOR " (BearSSL was not fetched: no HMAC-DRBG in this firmware)\n");
}

#define cmd_sign no_padding_library
#define cmd_verify no_padding_library
#define cmd_oaep_encrypt no_padding_library
#define cmd_oaep_decrypt no_padding_library
#define cmd_keygen no_random_generator
#define cmd_keygen_step no_random_generator

#endif

/* sha256 [hw|sw]: the SHA-256 the padding, the generators and the TLS server take from the next hash on
   (hash/sha256_select.h); without an argument, which one it is. */
static void cmd_sha256(int argc, char **argv)
{
	if (argc > 2) {
		console_usage(argv[0]);
		printf("\n");
		return;
	}
	if (argc == 2) {
		if (strcmp(argv[1], SHA256_USERS_HW) == 0)
			sha256_select(SHA256_IMPL_HW);
		else if (strcmp(argv[1], SHA256_USERS_SW) == 0)
			sha256_select(SHA256_IMPL_SW);
		else {
			printf(ERR_UNKNOWN_IMPL " impl=%s choices=%s,%s\n", argv[1], SHA256_USERS_HW, SHA256_USERS_SW);
			return;
		}
	}
	printf(SHA256_USERS_LINE, sha256_selected() == SHA256_IMPL_HW ? SHA256_USERS_HW : SHA256_USERS_SW);
}

const struct console_command sig_commands[] = {
	{ CMD_SIGN, cmd_sign },
	{ CMD_VERIFY, cmd_verify },
	{ CMD_OAEP_ENCRYPT, cmd_oaep_encrypt },
	{ CMD_OAEP_DECRYPT, cmd_oaep_decrypt },
	{ CMD_KEYGEN, cmd_keygen },
	{ CMD_KEYGEN_STEP, cmd_keygen_step },
	{ CMD_SHA256, cmd_sha256 },
	{ NULL, NULL, NULL, NULL },
};
