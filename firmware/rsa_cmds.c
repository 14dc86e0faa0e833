/* Console commands of the RSA benchmark: bench, modexp, key, encrypt, decrypt, vectors.
   Results are machine-readable lines of key=value pairs; refused input gives one `error=` line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <generated/soc.h>

#include "bignum.h"
#include "cycles.h"
#include "keys.h"
#include "rsa_cmds.h"
#include "rsa_hw.h"
#include "rsa_sw.h"

#define HEX_MAX (BN_MAX_WORDS * 8 + 1)

static rsa_ctx ctx;
static rsa_hw_ctx hw_ctx;
static rsa_key user_key;
static int user_key_set, user_key_private;
static uint32_t buf_in[BN_MAX_WORDS], buf_sw[BN_MAX_WORDS], buf_hw[BN_MAX_WORDS], buf_x[BN_MAX_WORDS];
static char hex[HEX_MAX];

static void print_hex(const char *label, const uint32_t *a, unsigned words)
{
	bn_to_hex(hex, sizeof(hex), a, words);
	printf("%s=%s", label, hex);
}

/* The result line of modexp, encrypt and decrypt: both results, both cycle counts, agreement. */
static void print_comparison(unsigned words, uint64_t sw_cycles, uint64_t hw_cycles)
{
	print_hex("sw", buf_sw, words);
	printf(" ");
	print_hex("hw", buf_hw, words);
	printf(" sw_cycles=%llu hw_cycles=%llu match=%s\n", (unsigned long long)sw_cycles,
	       (unsigned long long)hw_cycles, bn_cmp(buf_sw, buf_hw, words) == 0 ? "yes" : "no");
}

/* Parses a hex argument into `words` limbs; prints the error line and returns -1 on bad input. */
static int parse_hex(const char *name, const char *text, uint32_t *r, unsigned words)
{
	int err = bn_from_hex(r, words, text, strlen(text));
	if (err == -1) {
		printf("error=bad_hex arg=%s (hex digits only, no prefix)\n", name);
		return -1;
	}
	if (err) {
		printf("error=too_large arg=%s max_bits=%d\n", name, BN_MAX_BITS);
		return -1;
	}
	return 0;
}

/* ---- bench ---- */

struct measurement { const char *op, *impl; uint64_t cycles; int ok; };
#define MAX_MEASUREMENTS 12
static struct measurement table[MAX_MEASUREMENTS];
static unsigned table_len;

static void report(unsigned bits, const char *op, const char *impl, uint64_t cycles, int ok)
{
	printf("result bits=%u op=%s impl=%s cycles=%llu ok=%d\n", bits, op, impl,
	       (unsigned long long)cycles, ok);
	if (table_len < MAX_MEASUREMENTS)
		table[table_len++] = (struct measurement){ op, impl, cycles, ok };
}

static uint32_t prng_state = 0x2545f491u;
static uint32_t prng(void)
{
	prng_state ^= prng_state << 13;
	prng_state ^= prng_state >> 17;
	prng_state ^= prng_state << 5;
	return prng_state;
}

/* A message below n: random limbs, the top one below n's top limb. */
static void random_below(uint32_t *r, const uint32_t *n, unsigned words)
{
	unsigned i;
	for (i = 0; i < words; i++)
		r[i] = prng();
	r[words - 1] %= n[words - 1];
}

static const rsa_key *find_key(unsigned bits)
{
	unsigned i;
	for (i = 0; i < BENCH_KEY_COUNT; i++)
		if (bench_keys[i].bits == bits)
			return &bench_keys[i];
	return NULL;
}

typedef int (*sw_op)(const rsa_key *, const rsa_ctx *, uint32_t *, const uint32_t *);

static uint64_t time_sw(sw_op op, const rsa_key *k, uint32_t *out, const uint32_t *in, int *err)
{
	uint64_t t0 = cycles_now();
	*err = op(k, &ctx, out, in);
	return cycles_now() - t0;
}

static uint64_t time_hw(const char *op, const rsa_key *k, uint32_t *out, const uint32_t *in,
                        enum hw_mode mode, int *err)
{
	uint64_t t0 = cycles_now();
	if (op[0] == 'p' && op[1] == 'u')
		*err = rsa_hw_public(k, &ctx, out, in, mode);
	else if (strcmp(op, "private") == 0)
		*err = rsa_hw_private(k, &ctx, out, in, mode);
	else
		*err = rsa_hw_private_crt(k, &ctx, &hw_ctx, out, in, mode);
	return cycles_now() - t0;
}

static void print_ms(uint64_t cycles)
{
	uint64_t us = cycles * 1000000ull / CONFIG_CLOCK_FREQUENCY;   /* microseconds */
	printf("%8llu.%03llu", (unsigned long long)(us / 1000), (unsigned long long)(us % 1000));
}

static void print_table(unsigned bits)
{
	unsigned i, j;
	printf("\nRSA-%u, cycles at %lu MHz (sw: software on the CPU, hw_cpu: CPU loop + MUL commands,"
	       " hw_seq: peripheral sequencer)\n", bits, (unsigned long)(CONFIG_CLOCK_FREQUENCY / 1000000));
	printf("  %-12s %-7s %12s %12s %10s %9s %3s\n", "op", "impl", "cycles", "ms", "ops/s", "speedup", "ok");
	for (i = 0; i < table_len; i++) {
		uint64_t sw = 0, per_s = table[i].cycles ? CONFIG_CLOCK_FREQUENCY * 10ull / table[i].cycles : 0;
		for (j = 0; j < table_len; j++)
			if (strcmp(table[j].op, table[i].op) == 0 && strcmp(table[j].impl, "sw") == 0)
				sw = table[j].cycles;
		printf("  %-12s %-7s %12llu ", table[i].op, table[i].impl, (unsigned long long)table[i].cycles);
		print_ms(table[i].cycles);
		printf(" %8llu.%llu", (unsigned long long)(per_s / 10), (unsigned long long)(per_s % 10));
		if (sw && table[i].cycles) {
			uint64_t x10 = sw * 10 / table[i].cycles;
			printf(" %7llu.%llux", (unsigned long long)(x10 / 10), (unsigned long long)(x10 % 10));
		} else {
			printf(" %9s", "-");
		}
		printf(" %3s\n", table[i].ok ? "yes" : "NO");
	}
	printf("\n");
}

static void bench_size(unsigned bits, int with_sw)
{
	static const char *const ops[] = { "public", "private", "private_crt" };
	static const sw_op sw_ops[] = { rsa_public, rsa_private, rsa_private_crt };
	static const char *const impls[] = { "hw_cpu", "hw_seq" };
	const rsa_key *k = find_key(bits);
	unsigned nw, op, impl, i;
	uint32_t mul_cpu = 0, mul_seq = 0;
	uint64_t t0, t1;
	int err;

	if (!k) {
		printf("error=unknown_size bits=%u sizes=", bits);
		for (i = 0; i < BENCH_KEY_COUNT; i++)
			printf("%s%u", i ? "," : "", bench_keys[i].bits);
		printf("\n");
		return;
	}
	nw = (bits + 31) / 32;
	if (rsa_ctx_init(&ctx, k) != RSA_OK || rsa_hw_init(&hw_ctx, k, &ctx) != RSA_OK) {
		printf("error=bad_key bits=%u\n", bits);
		return;
	}
	table_len = 0;
	random_below(buf_in, k->n, nw);
	printf("bench bits=%u\n", bits);
	/* public: in -> c; private and private_crt: c -> in (the expected result is the message) */
	/* public: message -> c; private and private_crt: c -> the message again. The software result
	   is the reference the hardware must match; the private ones must also give the message back.
	   Without software (`bench hw`), the CPU-loop result is the reference for the sequencer's. */
	for (op = 0; op < 3; op++) {
		const uint32_t *src = op == 0 ? buf_in : buf_x;
		uint64_t cycles;
		int ok = 1;
		if (with_sw) {
			cycles = time_sw(sw_ops[op], k, buf_sw, src, &err);
			ok = err == RSA_OK && (op == 0 || bn_cmp(buf_sw, buf_in, nw) == 0);
			report(bits, ops[op], "sw", cycles, ok);
		}
		for (impl = 0; impl < 2; impl++) {
			cycles = time_hw(ops[op], k, buf_hw, src, (enum hw_mode)impl, &err);
			if (!with_sw && impl == 0)
				bn_copy(buf_sw, buf_hw, nw);
			report(bits, ops[op], impls[impl], cycles, err == RSA_OK && bn_cmp(buf_hw, buf_sw, nw) == 0 && ok
			       && (op == 0 || bn_cmp(buf_hw, buf_in, nw) == 0));
		}
		if (op == 0)
			bn_copy(buf_x, buf_sw, nw);   /* the ciphertext the private operations start from */
	}
	/* One Montgomery product at this size: software, hardware issued by the CPU, inside the sequencer. */
	random_below(buf_hw, k->n, nw);
	t0 = cycles_now();
	for (i = 0; i < 4; i++)
		mont_mul(&ctx.n, buf_sw, buf_hw, buf_in);
	t1 = cycles_now();
	if (with_sw)
		report(bits, "mul", "sw", (t1 - t0) / 4, 1);
	err = hw_mul_cycles(&ctx.n, &mul_cpu, &mul_seq);
	report(bits, "mul", "hw_cpu", mul_cpu, err == 0);
	report(bits, "mul", "hw_seq", mul_seq, err == 0);
	print_table(bits);
}

static void cmd_bench(int argc, char **argv)
{
	int i, first = 1, with_sw = 1;
	unsigned bits[CONSOLE_MAX_ARGS];
	unsigned count = 0;
	if (argc > 1 && strcmp(argv[1], "hw") == 0) {
		with_sw = 0;            /* hardware only: software RSA-4096 takes minutes of simulation */
		first = 2;
	}
	for (i = first; i < argc; i++) {
		char *end;
		unsigned long b = strtoul(argv[i], &end, 10);
		if (*end || !find_key((unsigned)b)) {
			unsigned j;
			printf("error=unknown_size bits=%s sizes=", argv[i]);
			for (j = 0; j < BENCH_KEY_COUNT; j++)
				printf("%s%u", j ? "," : "", bench_keys[j].bits);
			printf("\n");
			return;
		}
		bits[count++] = (unsigned)b;
	}
	if (!count)
		for (i = 0; i < (int)(sizeof(bench_default_sizes) / sizeof(bench_default_sizes[0])); i++)
			bits[count++] = bench_default_sizes[i];
	for (i = 0; i < (int)count; i++)
		bench_size(bits[i], with_sw);
	printf("bench done\n");
}

/* ---- modexp ---- */

static void cmd_modexp(int argc, char **argv)
{
	static mont_ctx m;
	static uint32_t e[BN_MAX_WORDS];
	unsigned w, ebits;
	uint64_t t0, sw_cycles, hw_cycles;
	int err;

	if (argc != 4) {
		printf("error=usage usage=\"modexp <base> <exp> <mod>\" (hex)\n");
		return;
	}
	if (parse_hex("mod", argv[3], buf_x, BN_MAX_WORDS) || parse_hex("base", argv[1], buf_in, BN_MAX_WORDS)
	    || parse_hex("exp", argv[2], e, BN_MAX_WORDS))
		return;
	w = (bn_bits(buf_x, BN_MAX_WORDS) + 31) / 32;
	if (w == 0) {
		printf("error=zero_modulus\n");
		return;
	}
	if (!(buf_x[0] & 1)) {
		printf("error=even_modulus (Montgomery arithmetic needs an odd modulus)\n");
		return;
	}
	if (bn_cmp(buf_in, buf_x, BN_MAX_WORDS) >= 0) {
		printf("error=base_not_below_modulus\n");
		return;
	}
	ebits = bn_bits(e, BN_MAX_WORDS);
	if (ebits > 32 * w) {
		printf("error=exponent_too_long exp_bits=%u max=%u (at most the modulus size)\n", ebits, 32 * w);
		return;
	}
	mont_init(&m, buf_x, w);
	t0 = cycles_now();
	mont_exp_window(&m, buf_sw, buf_in, e, ebits);
	sw_cycles = cycles_now() - t0;
	t0 = cycles_now();
	err = hw_modexp(&m, buf_hw, buf_in, e, ebits, HW_SEQ);
	hw_cycles = cycles_now() - t0;
	if (err) {
		printf("error=peripheral code=%d\n", err);
		return;
	}
	print_comparison(w, sw_cycles, hw_cycles);
}

/* ---- key, encrypt, decrypt ---- */

static void cmd_key(int argc, char **argv)
{
	static mont_ctx mp;
	static uint32_t pm1[BN_MAX_WORDS / 2];
	static const uint32_t two[BN_MAX_WORDS / 2] = { 2 };
	unsigned nw, pw, qw;

	if (argc != 3 && argc != 6) {
		printf("error=usage usage=\"key <n> <e> [<d> <p> <q>]\" (hex)\n");
		return;
	}
	user_key_set = user_key_private = 0;
	memset(&user_key, 0, sizeof(user_key));
	if (parse_hex("n", argv[1], user_key.n, BN_MAX_WORDS) || parse_hex("e", argv[2], user_key.e, BN_MAX_WORDS))
		return;
	user_key.bits = bn_bits(user_key.n, BN_MAX_WORDS);
	nw = (user_key.bits + 31) / 32;
	if (argc == 6) {
		if (parse_hex("d", argv[3], user_key.d, BN_MAX_WORDS)
		    || parse_hex("p", argv[4], user_key.p, BN_MAX_WORDS / 2)
		    || parse_hex("q", argv[5], user_key.q, BN_MAX_WORDS / 2))
			return;
		pw = (bn_bits(user_key.p, BN_MAX_WORDS / 2) + 31) / 32;
		qw = (bn_bits(user_key.q, BN_MAX_WORDS / 2) + 31) / 32;
		if (!pw || !qw || !(user_key.p[0] & 1) || !(user_key.q[0] & 1)) {
			printf("error=bad_key reason=p_and_q_must_be_odd_primes\n");
			return;
		}
		/* dp = d mod (p-1), dq = d mod (q-1), qinv = q^(p-2) mod p (p prime) */
		bn_copy(pm1, user_key.p, pw);
		pm1[0] ^= 1;
		bn_mod(user_key.dp, pw, user_key.d, nw, pm1, pw);
		bn_copy(pm1, user_key.q, qw);
		pm1[0] ^= 1;
		bn_mod(user_key.dq, qw, user_key.d, nw, pm1, qw);
		bn_sub(pm1, user_key.p, two, pw);
		if (mont_init(&mp, user_key.p, pw)) {
			printf("error=bad_key reason=p_even\n");
			return;
		}
		bn_mod(buf_x, pw, user_key.q, qw, user_key.p, pw);
		mont_exp_window(&mp, user_key.qinv, buf_x, pm1, bn_bits(pm1, pw));
		user_key.has_crt = 1;
	}
	if (user_key.bits < 16) {
		printf("error=bad_key reason=modulus_too_small\n");
		return;
	}
	if (rsa_ctx_init(&ctx, &user_key) != RSA_OK) {
		printf("error=bad_key reason=%s\n", argc == 6 ? "inconsistent (n odd, e odd > 1, p*q == n)"
		                                             : "n must be odd, e odd and > 1");
		return;
	}
	if (user_key.has_crt && rsa_hw_init(&hw_ctx, &user_key, &ctx) != RSA_OK) {
		printf("error=bad_key reason=crt_setup\n");
		return;
	}
	user_key_set = 1;
	user_key_private = argc == 6;
	printf("key bits=%u private=%s\n", user_key.bits, user_key_private ? "yes" : "no");
}

static void encrypt_or_decrypt(int argc, char **argv, int decrypt)
{
	unsigned nw;
	uint64_t t0, sw_cycles, hw_cycles;
	int sw_err, hw_err;

	if (argc != 2) {
		printf("error=usage usage=\"%s <hex>\"\n", decrypt ? "decrypt" : "encrypt");
		return;
	}
	if (!user_key_set || (decrypt && !user_key_private)) {
		printf("error=no_key (set one with: key <n> <e>%s)\n", decrypt ? " <d> <p> <q>" : "");
		return;
	}
	if (parse_hex("message", argv[1], buf_in, BN_MAX_WORDS))
		return;
	nw = (user_key.bits + 31) / 32;
	if (bn_bits(buf_in, BN_MAX_WORDS) > 32 * nw || bn_cmp(buf_in, user_key.n, nw) >= 0) {
		printf("error=message_not_below_modulus\n");
		return;
	}
	t0 = cycles_now();
	sw_err = decrypt ? rsa_private_crt(&user_key, &ctx, buf_sw, buf_in) : rsa_public(&user_key, &ctx, buf_sw, buf_in);
	sw_cycles = cycles_now() - t0;
	t0 = cycles_now();
	hw_err = decrypt ? rsa_hw_private_crt(&user_key, &ctx, &hw_ctx, buf_hw, buf_in, HW_SEQ)
	                 : rsa_hw_public(&user_key, &ctx, buf_hw, buf_in, HW_SEQ);
	hw_cycles = cycles_now() - t0;
	if (sw_err || hw_err) {
		printf("error=%s sw=%d hw=%d\n", sw_err == RSA_ERR_FAULT || hw_err == RSA_ERR_FAULT ? "crt_check_failed"
		       : "operation_failed", sw_err, hw_err);
		return;
	}
	print_comparison(nw, sw_cycles, hw_cycles);
}

static void cmd_encrypt(int argc, char **argv) { encrypt_or_decrypt(argc, argv, 0); }
static void cmd_decrypt(int argc, char **argv) { encrypt_or_decrypt(argc, argv, 1); }

/* ---- vectors ---- */

static void cmd_vectors(int argc, char **argv)
{
	unsigned i, a, run = 0, passed = 0;
	int selected[VECTOR_COUNT];
	for (i = 0; i < VECTOR_COUNT; i++)
		selected[i] = argc == 1;
	for (a = 1; a < (unsigned)argc; a++) {
		char *end;
		unsigned long index = strtoul(argv[a], &end, 10);
		if (*end || *argv[a] == 0 || index >= VECTOR_COUNT) {
			printf("error=usage usage=\"vectors [index ...]\" indexes=0..%u\n", (unsigned)VECTOR_COUNT - 1);
			return;
		}
		selected[index] = 1;
	}
	for (i = 0; i < VECTOR_COUNT; i++) {
		const struct rsa_vector *v = &vectors[i];
		const rsa_key *k = &vector_keys[v->key];
		unsigned nw = (k->bits + 31) / 32;
		int sw_ok, hw_ok, cpu_ok, pub_ok;
		if (!selected[i])
			continue;
		run++;
		if (rsa_ctx_init(&ctx, k) != RSA_OK || rsa_hw_init(&hw_ctx, k, &ctx) != RSA_OK) {
			printf("vector=%u bits=%u ok=0 error=bad_key\n", i, k->bits);
			continue;
		}
		sw_ok = rsa_private_crt(k, &ctx, buf_sw, v->c) == RSA_OK && bn_cmp(buf_sw, v->em, nw) == 0;
		hw_ok = rsa_hw_private_crt(k, &ctx, &hw_ctx, buf_hw, v->c, HW_SEQ) == RSA_OK
		        && bn_cmp(buf_hw, v->em, nw) == 0;
		cpu_ok = rsa_hw_private(k, &ctx, buf_hw, v->c, HW_CPU) == RSA_OK && bn_cmp(buf_hw, v->em, nw) == 0;
		pub_ok = rsa_hw_public(k, &ctx, buf_hw, v->em, HW_SEQ) == RSA_OK && bn_cmp(buf_hw, v->c, nw) == 0
		         && rsa_public(k, &ctx, buf_sw, v->em) == RSA_OK && bn_cmp(buf_sw, v->c, nw) == 0;
		printf("vector=%u bits=%u sw=%s hw_seq=%s hw_cpu=%s public=%s ok=%d\n", i, k->bits,
		       sw_ok ? "ok" : "FAIL", hw_ok ? "ok" : "FAIL", cpu_ok ? "ok" : "FAIL", pub_ok ? "ok" : "FAIL",
		       sw_ok && hw_ok && cpu_ok && pub_ok);
		passed += sw_ok && hw_ok && cpu_ok && pub_ok;
	}
	printf("vectors=%u passed=%u\n", run, passed);
}

const struct console_command rsa_commands[] = {
	{ "bench", "[hw] [bits ...]", "time sw / hw_cpu / hw_seq RSA (public, private, private_crt); hw: no sw", cmd_bench },
	{ "modexp", "<base> <exp> <mod>", "base^exp mod mod (hex) in software and hardware", cmd_modexp },
	{ "key", "<n> <e> [<d> <p> <q>]", "set your own key (hex) for encrypt/decrypt", cmd_key },
	{ "encrypt", "<hex>", "message^e mod n with your key, software and hardware", cmd_encrypt },
	{ "decrypt", "<hex>", "ciphertext^d mod n (CRT) with your key, software and hardware", cmd_decrypt },
	{ "vectors", "[index ...]", "PKCS#1 v2.1 raw RSA vectors on both paths (all by default)", cmd_vectors },
	{ NULL, NULL, NULL, NULL },
};
