/* Console commands on the built-in keys and test vectors (keys.h): bench, vectors.
   Results are machine-readable lines (console_protocol.h); refused input gives one `error=` line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <generated/soc.h>

#include "bench_cmds.h"
#include "bignum.h"
#include "cycles.h"
#include "keys.h"
#include "rsa_hw.h"
#include "rsa_sw.h"

static rsa_ctx ctx;
static rsa_hw_ctx hw_ctx;
static uint32_t buf_in[BN_MAX_WORDS], buf_sw[BN_MAX_WORDS], buf_hw[BN_MAX_WORDS], buf_x[BN_MAX_WORDS];

/* ---- bench ---- */

struct measurement { const char *op, *impl; uint64_t cycles; int ok; };
#define MAX_MEASUREMENTS 12
static struct measurement table[MAX_MEASUREMENTS];
static unsigned table_len;

static void report(unsigned bits, const char *op, const char *impl, uint64_t cycles, int ok)
{
	printf(RESULT_LINE, bits, op, impl, (unsigned long long)cycles, ok);
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

static void refuse_size(const char *bits)
{
	unsigned i;
	printf(ERR_UNKNOWN_SIZE " bits=%s sizes=", bits);
	for (i = 0; i < BENCH_KEY_COUNT; i++)
		printf("%s%u", i ? "," : "", bench_keys[i].bits);
	printf("\n");
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
	else if (strcmp(op, OP_PRIVATE) == 0)
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

/* The human-readable table after the result lines: ms, operations per second, speedup over sw. */
static void print_table(unsigned bits)
{
	unsigned i, j;
	printf("\nRSA-%u, cycles at %lu MHz (" IMPL_LEGEND ")\n", bits,
	       (unsigned long)(CONFIG_CLOCK_FREQUENCY / 1000000));
	printf("  %-12s %-7s %12s %12s %10s %9s %3s\n", "op", "impl", "cycles", "ms", "ops/s", "speedup", "ok");
	for (i = 0; i < table_len; i++) {
		uint64_t sw = 0, per_s = table[i].cycles ? CONFIG_CLOCK_FREQUENCY * 10ull / table[i].cycles : 0;
		for (j = 0; j < table_len; j++)
			if (strcmp(table[j].op, table[i].op) == 0 && strcmp(table[j].impl, IMPL_SW) == 0)
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

static void bench_size(const rsa_key *k, int with_sw)
{
	static const char *const ops[] = { OP_PUBLIC, OP_PRIVATE, OP_PRIVATE_CRT };
	static const sw_op sw_ops[] = { rsa_public, rsa_private, rsa_private_crt };
	static const char *const impls[] = { IMPL_HW_CPU, IMPL_HW_SEQ };
	unsigned bits = k->bits, nw = (bits + 31) / 32, op, impl, i;
	uint32_t mul_cpu = 0, mul_seq = 0;
	uint64_t t0, t1;
	int err;

	if (rsa_ctx_init(&ctx, k) != RSA_OK || rsa_hw_init(&hw_ctx, k, &ctx) != RSA_OK) {
		printf(ERR_BAD_KEY " bits=%u\n", bits);
		return;
	}
	table_len = 0;
	random_below(buf_in, k->n, nw);
	printf(BENCH_START_LINE, bits);
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
			report(bits, ops[op], IMPL_SW, cycles, ok);
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
		report(bits, OP_MUL, IMPL_SW, (t1 - t0) / 4, 1);
	err = hw_mul_cycles(&ctx.n, &mul_cpu, &mul_seq);
	report(bits, OP_MUL, IMPL_HW_CPU, mul_cpu, err == 0);
	report(bits, OP_MUL, IMPL_HW_SEQ, mul_seq, err == 0);
	print_table(bits);
}

static void cmd_bench(int argc, char **argv)
{
	int i, first = 1, with_sw = 1;
	const rsa_key *keys[CONSOLE_MAX_ARGS];
	unsigned count = 0;
	if (argc > 1 && strcmp(argv[1], "hw") == 0) {
		with_sw = 0;            /* hardware only: software RSA-4096 takes minutes of simulation */
		first = 2;
	}
	for (i = first; i < argc; i++) {
		char *end;
		unsigned long b = strtoul(argv[i], &end, 10);
		if (*end || !(keys[count] = find_key((unsigned)b))) {
			refuse_size(argv[i]);
			return;
		}
		count++;
	}
	if (!count)
		for (i = 0; i < (int)(sizeof(bench_default_sizes) / sizeof(bench_default_sizes[0])); i++)
			keys[count++] = find_key(bench_default_sizes[i]);
	for (i = 0; i < (int)count; i++)
		bench_size(keys[i], with_sw);
	printf(BENCH_DONE_LINE);
}

/* ---- vectors ---- */

static const char *pass(int ok)
{
	return ok ? "ok" : "FAIL";
}

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
			console_usage(argv[0]);
			printf(" indexes=0..%u\n", (unsigned)VECTOR_COUNT - 1);
			return;
		}
		selected[index] = 1;
	}
	for (i = 0; i < VECTOR_COUNT; i++) {
		const struct rsa_vector *v = &vectors[i];
		const rsa_key *k = &vector_keys[v->key];
		unsigned nw = (k->bits + 31) / 32;
		int key_ok, sw_ok = 0, hw_ok = 0, cpu_ok = 0, pub_ok = 0;
		if (!selected[i])
			continue;
		run++;
		key_ok = rsa_ctx_init(&ctx, k) == RSA_OK && rsa_hw_init(&hw_ctx, k, &ctx) == RSA_OK;
		if (key_ok) {
			sw_ok = rsa_private_crt(k, &ctx, buf_sw, v->c) == RSA_OK && bn_cmp(buf_sw, v->em, nw) == 0;
			hw_ok = rsa_hw_private_crt(k, &ctx, &hw_ctx, buf_hw, v->c, HW_SEQ) == RSA_OK
			        && bn_cmp(buf_hw, v->em, nw) == 0;
			cpu_ok = rsa_hw_private(k, &ctx, buf_hw, v->c, HW_CPU) == RSA_OK && bn_cmp(buf_hw, v->em, nw) == 0;
			pub_ok = rsa_hw_public(k, &ctx, buf_hw, v->em, HW_SEQ) == RSA_OK && bn_cmp(buf_hw, v->c, nw) == 0
			         && rsa_public(k, &ctx, buf_sw, v->em) == RSA_OK && bn_cmp(buf_sw, v->c, nw) == 0;
		}
		printf(VECTOR_LINE, i, k->bits, pass(sw_ok), pass(hw_ok), pass(cpu_ok), pass(pub_ok),
		       sw_ok && hw_ok && cpu_ok && pub_ok);
		passed += sw_ok && hw_ok && cpu_ok && pub_ok;
	}
	printf(VECTORS_DONE_LINE, run, passed);
}

const struct console_command bench_commands[] = {
	{ CMD_BENCH, cmd_bench },
	{ CMD_VECTORS, cmd_vectors },
	{ NULL, NULL, NULL, NULL },
};
