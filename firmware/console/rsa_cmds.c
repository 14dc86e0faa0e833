/* Console commands on the user's own numbers: modexp, and a key for encrypt, decrypt and time.
   Results are machine-readable lines (console_protocol.h); refused input gives one `error=` line. */
#include <stdio.h>
#include <string.h>

#include "bignum/bignum.h"
#include "drivers/cycles.h"
#include "drivers/profile.h"
#include "console/rsa_cmds.h"
#include "rsa/rsa_hw.h"
#include "rsa/rsa_impls.h"

#define HEX_MAX (BN_MAX_WORDS * 8 + 1)
#define HALF_HEX_MAX (BN_MAX_WORDS * 4 + 1)

/* `key export`'s hex, and `key`'s p - 1 (then q - 1). Defined before the user's key: GCC lays this
   file's buffers out from the last defined, so these come after it and leave the user's key and the
   buffers of `time` where they were (the counts of `time` depend on their addresses). */
static char export_hex[3 * HEX_MAX + 5 * HALF_HEX_MAX];
static uint32_t key_pm1[BN_MAX_WORDS / 2];

/* The user's key and its precomputation (kept apart from the built-in keys' commands, which
   set up their own). */
static rsa_key user_key;
static rsa_ctx user_ctx;
static int user_key_set, user_key_private;
static uint32_t buf_in[BN_MAX_WORDS], buf_sw[BN_MAX_WORDS], buf_hw[BN_MAX_WORDS], buf_x[BN_MAX_WORDS];
static char hex_sw[HEX_MAX], hex_hw[HEX_MAX];

/* The result line of modexp, encrypt and decrypt: both results, both cycle counts, agreement. */
static void print_comparison(unsigned words, uint64_t sw_cycles, uint64_t hw_cycles)
{
	bn_to_hex(hex_sw, sizeof(hex_sw), buf_sw, words);
	bn_to_hex(hex_hw, sizeof(hex_hw), buf_hw, words);
	printf(COMPARISON_LINE, hex_sw, hex_hw, (unsigned long long)sw_cycles, (unsigned long long)hw_cycles,
	       bn_cmp(buf_sw, buf_hw, words) == 0 ? "yes" : "no");
}

/* Parses a hex argument into `words` limbs; prints the error line and returns -1 on bad input. */
static int parse_hex(const char *name, const char *text, uint32_t *r, unsigned words)
{
	int err = bn_from_hex(r, words, text, strlen(text));
	if (err == -1) {
		printf(ERR_BAD_HEX " arg=%s (hex digits only, no prefix)\n", name);
		return -1;
	}
	if (err) {
		printf(ERR_TOO_LARGE " arg=%s max_bits=%d\n", name, BN_MAX_BITS);
		return -1;
	}
	return 0;
}

/* ---- modexp ---- */

static void cmd_modexp(int argc, char **argv)
{
	static mont_ctx m;
	static uint32_t e[BN_MAX_WORDS];
	unsigned w, ebits;
	uint64_t sw_cycles, hw_cycles;
	timed_region t;
	int err;

	if (argc != 4) {
		console_usage(argv[0]);
		printf(" (hex)\n");
		return;
	}
	if (parse_hex("mod", argv[3], buf_x, BN_MAX_WORDS) || parse_hex("base", argv[1], buf_in, BN_MAX_WORDS)
	    || parse_hex("exp", argv[2], e, BN_MAX_WORDS))
		return;
	w = BN_WORDS(bn_bits(buf_x, BN_MAX_WORDS));
	if (w == 0) {
		printf(ERR_ZERO_MODULUS "\n");
		return;
	}
	if (!(buf_x[0] & 1)) {
		printf(ERR_EVEN_MODULUS " (Montgomery arithmetic needs an odd modulus)\n");
		return;
	}
	if (bn_cmp(buf_in, buf_x, BN_MAX_WORDS) >= 0) {
		printf(ERR_BASE_NOT_BELOW_MODULUS "\n");
		return;
	}
	ebits = bn_bits(e, BN_MAX_WORDS);
	if (ebits > 32 * w) {
		printf(ERR_EXPONENT_TOO_LONG " exp_bits=%u max=%u (at most the modulus size)\n", ebits, 32 * w);
		return;
	}
	mont_init(&m, buf_x, w);
	t = timed_start();
	mont_exp_window(&m, buf_sw, buf_in, e, ebits);
	sw_cycles = timed_stop(t);
	t = timed_start();
	err = rsa_hw_seq.exp(&m, buf_hw, buf_in, e, ebits, 0);
	hw_cycles = timed_stop(t);
	if (err) {
		printf(ERR_PERIPHERAL " code=%u\n", rsa_hw_error);
		return;
	}
	print_comparison(w, sw_cycles, hw_cycles);
}

/* ---- key, encrypt, decrypt ---- */

static int have_key(int private_key);

/* The user's key and its precomputation cleared: none from now on. */
static void forget_key(void)
{
	user_key_set = user_key_private = 0;
	bn_wipe(&user_key, sizeof(user_key));
	bn_wipe(&user_ctx, sizeof(user_ctx));
}

/* `key export`: the key held, every private value, as hex. The hex goes through one buffer, wiped
   after the line. */
static void key_export(void)
{
	const uint32_t *full[] = { user_key.n, user_key.e, user_key.d };
	const uint32_t *half[] = { user_key.p, user_key.q, user_key.dp, user_key.dq, user_key.qinv };
	char *hex[8], *at = export_hex;
	unsigned i;

	if (!have_key(1))
		return;
	for (i = 0; i < 8; i++) {
		size_t room = i < 3 ? HEX_MAX : HALF_HEX_MAX;
		hex[i] = at;
		bn_to_hex(at, room, i < 3 ? full[i] : half[i - 3], i < 3 ? BN_MAX_WORDS : BN_MAX_WORDS / 2);
		at += room;
	}
	printf(KEY_EXPORT_LINE, hex[0], hex[1], hex[2], hex[3], hex[4], hex[5], hex[6], hex[7]);
	bn_wipe(export_hex, sizeof(export_hex));
}

/* The key of `key`'s arguments into user_key (and its CRT values): 0, or -1 after the error line. */
static int load_key(int argc, char **argv)
{
	uint32_t *pm1 = key_pm1;
	unsigned nw, pw, qw;

	if (parse_hex("n", argv[1], user_key.n, BN_MAX_WORDS) || parse_hex("e", argv[2], user_key.e, BN_MAX_WORDS))
		return -1;
	user_key.bits = bn_bits(user_key.n, BN_MAX_WORDS);
	nw = BN_WORDS(user_key.bits);
	if (argc == 6) {
		if (parse_hex("d", argv[3], user_key.d, BN_MAX_WORDS)
		    || parse_hex("p", argv[4], user_key.p, BN_MAX_WORDS / 2)
		    || parse_hex("q", argv[5], user_key.q, BN_MAX_WORDS / 2))
			return -1;
		pw = BN_WORDS(bn_bits(user_key.p, BN_MAX_WORDS / 2));
		qw = BN_WORDS(bn_bits(user_key.q, BN_MAX_WORDS / 2));
		if (!pw || !qw || !(user_key.p[0] & 1) || !(user_key.q[0] & 1)) {
			printf(ERR_BAD_KEY " reason=p_and_q_must_be_odd_primes\n");
			return -1;
		}
		/* dp = d mod (p-1), dq = d mod (q-1), qinv = q^-1 mod p (divsteps: constant time) */
		bn_copy(pm1, user_key.p, pw);
		pm1[0] ^= 1;
		bn_mod(user_key.dp, pw, user_key.d, nw, pm1, pw);
		bn_copy(pm1, user_key.q, qw);
		pm1[0] ^= 1;
		bn_mod(user_key.dq, qw, user_key.d, nw, pm1, qw);
		bn_mod(buf_x, pw, user_key.q, qw, user_key.p, pw);
		if (bn_modinv_odd(user_key.qinv, buf_x, user_key.p, pw, 32 * pw) != 0) {
			printf(ERR_BAD_KEY " reason=p_and_q_must_be_odd_primes\n");
			return -1;
		}
		user_key.has_crt = 1;
	}
	if (user_key.bits < 16) {
		printf(ERR_BAD_KEY " reason=modulus_too_small\n");
		return -1;
	}
	if (rsa_ctx_init(&user_ctx, &user_key) != RSA_OK) {
		printf(ERR_BAD_KEY " reason=%s\n", argc == 6 ? "inconsistent (n odd, e odd > 1, p*q == n)"
		                                             : "n must be odd, e odd and > 1");
		return -1;
	}
	return 0;
}

/* key <n> <e> [<d> <p> <q>]: the key from now on. A refused key leaves none (the previous one is
   dropped as the command starts) and nothing of itself: what it had written is wiped, and so are the
   buffers of its CRT values (p - 1, q - 1, q mod p) either way. key export: see key_export. */
static void cmd_key(int argc, char **argv)
{
	int loaded;

	if (argc == 2 && strcmp(argv[1], KEY_EXPORT_WORD) == 0) {
		key_export();
		return;
	}
	if (argc != 3 && argc != 6) {
		console_usage(argv[0]);
		printf(" (hex)\n");
		return;
	}
	forget_key();
	loaded = load_key(argc, argv) == 0;
	bn_wipe(key_pm1, sizeof(key_pm1));
	bn_wipe(buf_x, sizeof(buf_x));
	if (!loaded) {
		forget_key();
		return;
	}
	user_key_set = 1;
	user_key_private = argc == 6;
	printf(KEY_SET_LINE, user_key.bits, user_key_private ? "yes" : "no");
}

/* The user's key is set (with its private part when `private_key`); else prints the error line. */
static int have_key(int private_key)
{
	if (!user_key_set || (private_key && !user_key_private)) {
		printf(ERR_NO_KEY " (set one with: key <n> <e>%s)\n", private_key ? " <d> <p> <q>" : "");
		return 0;
	}
	return 1;
}

const rsa_key *rsa_cmds_key(int private_key, const rsa_ctx **ctx)
{
	if (!have_key(private_key))
		return NULL;
	*ctx = &user_ctx;
	return &user_key;
}

int rsa_cmds_set_key(const rsa_key *k)
{
	forget_key();
	user_key = *k;
	if (!k->has_crt || rsa_ctx_init(&user_ctx, &user_key) != RSA_OK) {
		forget_key();
		return -1;
	}
	user_key_set = user_key_private = 1;
	return 0;
}

/* Parses the message argument: below the user's modulus, else prints the error line. */
static int parse_message(const char *text)
{
	unsigned nw = BN_WORDS(user_key.bits);

	if (parse_hex("message", text, buf_in, BN_MAX_WORDS))
		return -1;
	if (bn_bits(buf_in, BN_MAX_WORDS) > 32 * nw || bn_cmp(buf_in, user_key.n, nw) >= 0) {
		printf(ERR_MESSAGE_NOT_BELOW_MODULUS "\n");
		return -1;
	}
	return 0;
}

static void failed(int sw_err, int hw_err)
{
	printf("%s sw=%d hw=%d", sw_err == RSA_ERR_FAULT || hw_err == RSA_ERR_FAULT ? ERR_CRT_CHECK_FAILED
	       : ERR_OPERATION_FAILED, sw_err, hw_err);
	if (hw_err == RSA_ERR_HW)
		printf(" peripheral_code=%u", rsa_hw_error);
	printf("\n");
}

/* encrypt: public; decrypt: private with CRT; in software and on the sequencer. */
static void encrypt_or_decrypt(int argc, char **argv, int decrypt)
{
	const struct rsa_op *op = rsa_op_find(decrypt ? OP_PRIVATE_CRT : OP_PUBLIC);
	uint64_t sw_cycles, hw_cycles;
	int sw_err, hw_err;

	if (argc != 2) {
		console_usage(argv[0]);
		printf("\n");
		return;
	}
	if (!have_key(decrypt) || parse_message(argv[1]))
		return;
	sw_cycles = rsa_timed(op, rsa_impl_find(IMPL_SW), &user_key, &user_ctx, buf_sw, buf_in, &sw_err);
	hw_cycles = rsa_timed(op, rsa_impl_find(IMPL_HW_SEQ), &user_key, &user_ctx, buf_hw, buf_in, &hw_err);
	if (sw_err || hw_err) {
		failed(sw_err, hw_err);
		return;
	}
	print_comparison(BN_WORDS(user_key.bits), sw_cycles, hw_cycles);
}

static void cmd_encrypt(int argc, char **argv) { encrypt_or_decrypt(argc, argv, 0); }
static void cmd_decrypt(int argc, char **argv) { encrypt_or_decrypt(argc, argv, 1); }

/* ---- time: one operation on one implementation ---- */

static void list_names(const char *what, const char *given, int ops)
{
	unsigned i;
	printf("%s %s=%s choices=", ops ? ERR_UNKNOWN_OP : ERR_UNKNOWN_IMPL, what, given);
	for (i = 0; ops ? rsa_ops[i].name != NULL : rsa_impls[i].name != NULL; i++)
		printf("%s%s", i ? "," : "", ops ? rsa_ops[i].name : rsa_impls[i].name);
	printf("\n");
}

static void cmd_time(int argc, char **argv)
{
	const struct rsa_op *op;
	const struct rsa_impl *impl;
	unsigned nw;
	uint64_t cycles;
	int err, ok;

	if (argc != 4) {
		console_usage(argv[0]);
		printf("\n");
		return;
	}
	if (!(op = rsa_op_find(argv[1]))) {
		list_names("op", argv[1], 1);
		return;
	}
	if (!(impl = rsa_impl_find(argv[2]))) {
		list_names("impl", argv[2], 0);
		return;
	}
	if (!have_key(op->private_key) || parse_message(argv[3]))
		return;
	nw = BN_WORDS(user_key.bits);
	cycles = rsa_timed(op, impl, &user_key, &user_ctx, buf_hw, buf_in, &err);
	ok = err == RSA_OK;
	if (ok && op->private_key) {   /* after the timed region: the result must map back to the message */
		ok = rsa_public(&rsa_sw, &user_key, &user_ctx, buf_sw, buf_hw) == RSA_OK
		     && bn_cmp(buf_sw, buf_in, nw) == 0;
	}
	if (!ok)        /* nothing but a checked result leaves: not a wrong one, nor an earlier command's */
		bn_zero(buf_hw, nw);
	bn_to_hex(hex_hw, sizeof(hex_hw), buf_hw, nw);
	printf(TIMED_LINE, op->name, impl->name, (unsigned long long)cycles, ok, hex_hw);
	profile_print();        /* the instrumented build's split of those cycles (drivers/profile.h) */
}

const struct console_command rsa_commands[] = {
	{ CMD_MODEXP, cmd_modexp },
	{ CMD_KEY, cmd_key },
	{ CMD_ENCRYPT, cmd_encrypt },
	{ CMD_DECRYPT, cmd_decrypt },
	{ CMD_TIME, cmd_time },
	{ NULL, NULL, NULL, NULL },
};
