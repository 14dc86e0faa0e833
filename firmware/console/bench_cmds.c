/* Console commands on the built-in keys and test vectors (keys.h): bench, vectors.
   Results are machine-readable lines (console_protocol.h); refused input gives one `error=` line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <generated/soc.h>

#include "console/bench_cmds.h"
#include "bignum/bignum.h"
#include "drivers/cycles.h"
#include "keys.h"
#include "rsa/rsa_hw.h"
#include "rsa/rsa_impls.h"

static rsa_ctx ctx;
static uint32_t buf_in[BN_MAX_WORDS], buf_sw[BN_MAX_WORDS], buf_hw[BN_MAX_WORDS], buf_x[BN_MAX_WORDS];

/* ---- bench ---- */

struct measurement { const char *op, *impl; uint64_t cycles; int ok; };
/* A size's rows: at most one per operation (rsa_ops' three and mul) and implementation (our four and
   the peers). */
#define PEER_ONE(name, NAME) + 1
#define MAX_MEASUREMENTS (4 * (4 PEER_LIST(PEER_ONE)))
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

const rsa_key *bench_key(unsigned bits)
{
	return find_key(bits);
}

static void refuse_size(const char *bits)
{
	unsigned i;
	printf(ERR_UNKNOWN_SIZE " bits=%s sizes=", bits);
	for (i = 0; i < BENCH_KEY_COUNT; i++)
		printf("%s%u", i ? "," : "", bench_keys[i].bits);
	printf("\n");
}

/* `rows=<bits>:<op>:<impl>,...`: the rows this `bench` times (NULL: all). Every size of the command
   still draws its messages, so a row sees the same message as in a run of every row, and its count
   is the same: a bench split over several simulations gives the figures of one run. */
static const char *row_filter;

static int row_selected(unsigned bits, const char *op, const char *impl)
{
	char row[48];
	const char *p = row_filter;
	int n;

	if (!p)
		return 1;
	n = snprintf(row, sizeof(row), "%u:%s:%s", bits, op, impl);
	for (; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, row, n) == 0 && (p[n] == ',' || p[n] == 0))
			return 1;
	return 0;
}

static int size_selected(unsigned bits)
{
	const struct rsa_op *op;
	const struct rsa_impl *impl;
	for (impl = rsa_impls; impl->name; impl++) {
		if (row_selected(bits, OP_MUL, impl->name))
			return 1;
		for (op = rsa_ops; op->name; op++)
			if (row_selected(bits, op->name, impl->name))
				return 1;
	}
	return 0;
}

/* Checks every entry of `rows=` against the sizes, operations and implementations; prints the
   error line for the first that names none and returns 0. */
static int rows_valid(const char *command, const char *rows, const rsa_key *const *keys, unsigned count)
{
	const char *p = rows;
	while (p) {
		const char *end = strchr(p, ',');
		int len = end ? (int)(end - p) : (int)strlen(p);
		char entry[48], *op, *impl;
		long bits;
		unsigned i;
		int size_ok = 0;
		if (len <= 0 || len >= (int)sizeof(entry)) {
			console_usage(command);
			printf(" row=%.*s\n", len > 40 ? 40 : len, p);
			return 0;
		}
		memcpy(entry, p, len);
		entry[len] = 0;
		op = strchr(entry, ':');
		impl = op ? strchr(op + 1, ':') : NULL;
		if (!impl) {
			console_usage(command);
			printf(" row=%s\n", entry);
			return 0;
		}
		*op++ = 0;
		*impl++ = 0;
		bits = console_decimal(entry);
		for (i = 0; i < count; i++)
			size_ok |= keys[i]->bits == bits;
		if (bits < 0 || !size_ok) {
			printf(ERR_UNKNOWN_SIZE " bits=%s row=%.*s\n", entry, len, p);
			return 0;
		}
		if (!rsa_op_find(op) && strcmp(op, OP_MUL) != 0) {
			printf(ERR_UNKNOWN_OP " op=%s row=%.*s\n", op, len, p);
			return 0;
		}
		if (!rsa_impl_find(impl)) {
			printf(ERR_UNKNOWN_IMPL " impl=%s row=%.*s\n", impl, len, p);
			return 0;
		}
		p = end ? end + 1 : NULL;
	}
	return 1;
}

static void print_ms(uint64_t cycles)
{
	uint64_t us = cycles * 1000000ull / CONFIG_CLOCK_FREQUENCY;   /* microseconds */
	printf("%8llu.%03llu", (unsigned long long)(us / 1000), (unsigned long long)(us % 1000));
}

/* a / b with one decimal, right-aligned in a column of `width`; "-" without both. */
static void print_ratio(uint64_t a, uint64_t b, int width)
{
	if (a && b) {
		uint64_t x10 = a * 10 / b;
		printf(" %*llu.%llux", width - 3, (unsigned long long)(x10 / 10), (unsigned long long)(x10 % 10));
	} else {
		printf(" %*s", width, "-");
	}
}

static uint64_t cycles_of(const char *op, const char *impl)
{
	unsigned j;
	for (j = 0; j < table_len; j++)
		if (strcmp(table[j].op, op) == 0 && strcmp(table[j].impl, impl) == 0)
			return table[j].cycles;
	return 0;
}

/* Each peer library's column (rsa_impls' peers, in order): its heading, `vs <name>`, or the speedup of
   `cycles` over its cycles on `op`. Not inlined: print_table and bench_size are inlined into
   cmd_bench, whose stack frame sets the addresses of the stack the timed regions below it use (the data
   cache is direct-mapped, so the counts depend on them); inlined, these two changed its size. */
#define PEER_COLUMN 10

static __attribute__((noinline)) void print_peer_headings(void)
{
	const struct rsa_impl *impl;
	char heading[32];
	for (impl = rsa_impls; impl->name; impl++)
		if (impl->peer) {
			snprintf(heading, sizeof(heading), "vs %s", impl->name);
			printf(" %*s", PEER_COLUMN, heading);
		}
}

static __attribute__((noinline)) void print_peer_ratios(const char *op, uint64_t cycles)
{
	const struct rsa_impl *impl;
	for (impl = rsa_impls; impl->name; impl++)
		if (impl->peer)
			print_ratio(cycles_of(op, impl->name), cycles, PEER_COLUMN);
}

/* The human-readable table after the result lines: ms, operations per second, and each row's
   speedup over our software and over each peer library on the same operation. */
static void print_table(unsigned bits)
{
	unsigned i;
	printf("\nRSA-%u, cycles at %lu MHz (" IMPL_LEGEND ")\n", bits,
	       (unsigned long)(CONFIG_CLOCK_FREQUENCY / 1000000));
	printf("  %-12s %-13s %12s %12s %10s %9s", "op", "impl", "cycles", "ms", "ops/s", "vs sw");
	print_peer_headings();
	printf(" %3s\n", "ok");
	for (i = 0; i < table_len; i++) {
		uint64_t per_s = table[i].cycles ? CONFIG_CLOCK_FREQUENCY * 10ull / table[i].cycles : 0;
		printf("  %-12s %-13s %12llu ", table[i].op, table[i].impl, (unsigned long long)table[i].cycles);
		print_ms(table[i].cycles);
		printf(" %8llu.%llu", (unsigned long long)(per_s / 10), (unsigned long long)(per_s % 10));
		print_ratio(cycles_of(table[i].op, IMPL_SW), table[i].cycles, 9);
		print_peer_ratios(table[i].op, table[i].cycles);
		printf(" %3s\n", table[i].ok ? "yes" : "NO");
	}
	printf("\n");
}

/*
 * public: message -> c; private and private_crt: c -> the message again. Every implementation runs
 * every operation (hw_seq_window only the private ones: its public operation is hw_seq's). The first
 * implementation's result is the reference the others must match (software; without software,
 * `bench hw`, the CPU loop's, and no peer library: they are software too; `bench ours` leaves the
 * peer libraries out); the private ones must also give the message back. A peer library missing from
 * this firmware gets a `missing` line per row.
 */
static void bench_size(const rsa_key *k, int with_sw, int with_peers)
{
	const struct rsa_op *op;
	const struct rsa_impl *impl;
	unsigned bits = k->bits, nw = BN_WORDS(bits);
	uint32_t mul_cpu = 0, mul_seq = 0;
	uint64_t cycles;
	int err;

	if (!size_selected(bits)) {
		random_below(buf_in, k->n, nw);     /* the messages a full run draws at this size */
		random_below(buf_hw, k->n, nw);
		return;
	}
	if (rsa_ctx_init(&ctx, k) != RSA_OK) {
		printf(ERR_BAD_KEY " bits=%u\n", bits);
		return;
	}
	table_len = 0;
	random_below(buf_in, k->n, nw);
	printf(BENCH_START_LINE, bits);
	for (op = rsa_ops; op->name; op++) {
		const uint32_t *src = op->private_key ? buf_x : buf_in;
		const struct rsa_impl *first = with_sw ? rsa_impls : rsa_impls + 1;
		int have_reference = 0, reference_ok = 0;
		/* The reference row in another simulation (rows=): a private result must be the message; the
		   public one is computed here, untimed, on the reference implementation. */
		if (!row_selected(bits, op->name, first->name)) {
			have_reference = 1;
			if (op->private_key) {
				bn_copy(buf_sw, buf_in, nw);
				reference_ok = 1;
			} else {
				rsa_timed(op, first, k, &ctx, buf_sw, src, &err);
				reference_ok = err == RSA_OK;
			}
		}
		for (impl = first; impl->name; impl++) {
			if (!impl->constant_time && !impl->peer && !op->private_key)
				continue;
			if (!row_selected(bits, op->name, impl->name))
				continue;
			if (impl->peer && (!with_peers || !impl->peer->built)) {
				if (with_peers)
					printf(RESULT_MISSING_LINE, bits, op->name, impl->name);
				continue;
			}
			cycles = rsa_timed(op, impl, k, &ctx, buf_hw, src, &err);
			if (!have_reference) {
				bn_copy(buf_sw, buf_hw, nw);
				have_reference = 1;
				reference_ok = err == RSA_OK && (!op->private_key || bn_cmp(buf_hw, buf_in, nw) == 0);
			}
			report(bits, op->name, impl->name, cycles, reference_ok && err == RSA_OK
			       && bn_cmp(buf_hw, buf_sw, nw) == 0);
		}
		if (!op->private_key)
			bn_copy(buf_x, buf_sw, nw);   /* the ciphertext the private operations start from */
	}
	/* One Montgomery product at this size: software, hardware issued by the CPU, inside the sequencer. */
	random_below(buf_hw, k->n, nw);
	if (with_sw && row_selected(bits, OP_MUL, IMPL_SW)) {  /* rv32i: minutes of simulation */
		report(bits, OP_MUL, IMPL_SW, sw_mul_timed(&ctx.n, buf_sw, buf_hw, buf_in, 4), 1);
	}
	if (row_selected(bits, OP_MUL, IMPL_HW_CPU) || row_selected(bits, OP_MUL, IMPL_HW_SEQ)) {
		err = hw_mul_cycles(&ctx.n, &mul_cpu, &mul_seq);
		if (row_selected(bits, OP_MUL, IMPL_HW_CPU))
			report(bits, OP_MUL, IMPL_HW_CPU, mul_cpu, err == 0);
		if (row_selected(bits, OP_MUL, IMPL_HW_SEQ))
			report(bits, OP_MUL, IMPL_HW_SEQ, mul_seq, err == 0);
	}
	for (impl = rsa_impls; with_peers && impl->name; impl++) {
		int ok;
		if (impl->peer && impl->peer->built && impl->peer->mul_cycles
		    && row_selected(bits, OP_MUL, impl->name)) {
			cycles = impl->peer->mul_cycles(k, &ctx.n, buf_hw, buf_in, &ok);
			report(bits, OP_MUL, impl->name, cycles, ok);
		}
	}
	print_table(bits);
}

static void cmd_bench(int argc, char **argv)
{
	int i, first = 1, with_sw = 1, with_peers = 1;
	const char *rows = NULL;
	const rsa_key *keys[CONSOLE_MAX_ARGS];
	unsigned count = 0;
	if (argc > 1 && strcmp(argv[1], "hw") == 0) {
		with_sw = with_peers = 0;   /* hardware only: software RSA-4096 takes minutes of simulation */
		first = 2;
	} else if (argc > 1 && strcmp(argv[1], "ours") == 0) {
		with_peers = 0;             /* our implementations only: the peer libraries' rows take longest */
		first = 2;
	}
	row_filter = NULL;
	for (i = first; i < argc; i++) {
		long b;
		if (strncmp(argv[i], "rows=", 5) == 0) {
			rows = argv[i] + 5;
			continue;
		}
		b = console_decimal(argv[i]);
		if (b < 0 || !(keys[count] = find_key((unsigned)b))) {
			refuse_size(argv[i]);
			return;
		}
		count++;
	}
	if (!count)
		for (i = 0; i < (int)(sizeof(bench_default_sizes) / sizeof(bench_default_sizes[0])); i++)
			keys[count++] = find_key(bench_default_sizes[i]);
	if (rows && !rows_valid(argv[0], rows, keys, count))
		return;
	row_filter = rows;
	for (i = 0; i < (int)count; i++)
		bench_size(keys[i], with_sw, with_peers);
	row_filter = NULL;
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
		long index = console_decimal(argv[a]);
		if (index < 0 || index >= (long)VECTOR_COUNT) {
			console_usage(argv[0]);
			printf(" vectors=%u (indexes from 0; the board's image has none)\n", (unsigned)VECTOR_COUNT);
			return;
		}
		selected[index] = 1;
	}
	for (i = 0; i < VECTOR_COUNT; i++) {
		const struct rsa_vector *v = &vectors[i];
		const rsa_key *k = &vector_keys[v->key];
		unsigned nw = BN_WORDS(k->bits);
		int key_ok, sw_ok = 0, hw_ok = 0, cpu_ok = 0, pub_ok = 0;
		if (!selected[i])
			continue;
		run++;
		key_ok = rsa_ctx_init(&ctx, k) == RSA_OK;
		if (key_ok) {
			sw_ok = rsa_private_crt(&rsa_sw, k, &ctx, buf_sw, v->c) == RSA_OK && bn_cmp(buf_sw, v->em, nw) == 0;
			hw_ok = rsa_private_crt(&rsa_hw_seq, k, &ctx, buf_hw, v->c) == RSA_OK
			        && bn_cmp(buf_hw, v->em, nw) == 0;
			cpu_ok = rsa_private(&rsa_hw_cpu, k, &ctx, buf_hw, v->c) == RSA_OK && bn_cmp(buf_hw, v->em, nw) == 0;
			pub_ok = rsa_public(&rsa_hw_seq, k, &ctx, buf_hw, v->em) == RSA_OK && bn_cmp(buf_hw, v->c, nw) == 0
			         && rsa_public(&rsa_sw, k, &ctx, buf_sw, v->em) == RSA_OK && bn_cmp(buf_sw, v->c, nw) == 0;
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
