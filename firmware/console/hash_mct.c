/* `hash_mct <sw|hw> <seed-hex> [index]` (hash_mct.h): checkpoints 0 to index of NIST's SHA-256 Monte Carlo
   test. A checkpoint starts from MD0 = MD1 = MD2 = its seed (the previous checkpoint; the seed typed for
   the first), hashes MDi = SHA-256(MD(i-3) || MD(i-2) || MD(i-1)) for i = 3 .. 1002, and is MD1002.
   Only in a firmware with BearSSL among its peer libraries (PEER_HAVE_BEARSSL: the simulation's): the
   board's image, which has BearSSL for its TLS server only, has no room left for it (its main RAM), and
   its table is empty there. */
#include <stdio.h>
#include <string.h>

#include "console/hash_mct.h"
#include "drivers/cycles.h"
#include "hash/sha256_hw.h"

#if PEER_HAVE_BEARSSL

/* A context of either class (on the stack: nothing is kept between commands). */
typedef union {
	const br_hash_class *vtable;
	br_sha256_context sw;
	sha256_hw_context hw;
} mct_context;

/* The last three digests as a ring: each hash reads them oldest first and replaces the oldest, so no
   digest is copied. ORDER[oldest] lists the slots oldest first. */
#define RING 3
static const unsigned char ORDER[RING][RING] = { { 0, 1, 2 }, { 1, 2, 0 }, { 2, 0, 1 } };
/* The slot of a checkpoint's last hash: hash i (from 0) lands in slot i mod RING. */
#define LAST_SLOT ((HASH_MCT_ITERATIONS - 1) % RING)

/* One checkpoint's HASH_MCT_ITERATIONS hashes, its seed in every slot of md: 0, or the engine's first
   error (sha256_hw.h) when the class is the engine's. */
static int run_checkpoint(const br_hash_class *cls, mct_context *ctx, int hw, unsigned char md[RING][br_sha256_SIZE])
{
	unsigned oldest = 0, i, k;

	for (i = 0; i < HASH_MCT_ITERATIONS; i++) {
		cls->init(&ctx->vtable);
		for (k = 0; k < RING; k++)
			cls->update(&ctx->vtable, md[ORDER[oldest][k]], br_sha256_SIZE);
		cls->out(&ctx->vtable, md[oldest]);
		if (hw && sha256_hw_error(&ctx->hw))
			return sha256_hw_error(&ctx->hw);
		oldest = ORDER[oldest][1];
	}
	return 0;
}

static void print_checkpoint(const char *impl, long index, uint64_t cycles, const unsigned char *digest)
{
	static const char digits[] = "0123456789abcdef";
	char hex[2 * br_sha256_SIZE + 1];
	int i;

	for (i = 0; i < br_sha256_SIZE; i++) {
		hex[2 * i] = digits[digest[i] >> 4];
		hex[2 * i + 1] = digits[digest[i] & 15];
	}
	hex[2 * br_sha256_SIZE] = 0;
	printf(HASH_MCT_LINE, impl, (unsigned)index, (unsigned long long)cycles, hex);
}

/* The arguments: 0 with *hw (1: the engine's class), the seed in seed[] and the last checkpoint's index
   in *last; -1 after the error line. */
static int parse_arguments(int argc, char **argv, int *hw, unsigned char *seed, long *last)
{
	size_t len;

	if (argc < 3 || argc > 4) {
		console_usage(argv[0]);
		printf("\n");
		return -1;
	}
	if (strcmp(argv[1], HASH_IMPL_SW) == 0)
		*hw = 0;
	else if (strcmp(argv[1], HASH_IMPL_HW) == 0)
		*hw = 1;
	else {
		printf(ERR_UNKNOWN_IMPL " impl=%s (%s or %s)\n", argv[1], HASH_IMPL_SW, HASH_IMPL_HW);
		return -1;
	}
	if (console_hex_bytes("seed", argv[2], seed, HASH_MCT_SEED_BYTES, &len) < 0)
		return -1;
	if (len != HASH_MCT_SEED_BYTES) {
		console_usage(argv[0]);
		printf(" arg=seed bytes=%u (a seed is %d bytes)\n", (unsigned)len, HASH_MCT_SEED_BYTES);
		return -1;
	}
	*last = argc == 4 ? console_decimal(argv[3]) : 0;
	if (*last < 0 || *last >= HASH_MCT_CHECKPOINTS) {
		console_usage(argv[0]);
		printf(" arg=index max=%d\n", HASH_MCT_CHECKPOINTS - 1);
		return -1;
	}
	return 0;
}

static void cmd_hash_mct(int argc, char **argv)
{
	mct_context ctx;
	unsigned char md[RING][br_sha256_SIZE];
	const br_hash_class *cls;
	timed_region t;
	uint64_t cycles;
	long last, index;
	int hw, err, k;

	if (parse_arguments(argc, argv, &hw, md[0], &last) < 0)
		return;
	cls = hw ? &sha256_hw_vtable : &br_sha256_vtable;
	for (index = 0; index <= last; index++) {
		for (k = 1; k < RING; k++)
			memcpy(md[k], md[0], br_sha256_SIZE);
		t = timed_start();
		err = run_checkpoint(cls, &ctx, hw, md);
		cycles = timed_stop(t);
		if (err) {
			printf(ERR_HASH_ENGINE " err=%d checkpoint=%ld (the engine %s)\n", err, index,
			       err == SHA256_HW_ERR_TIMEOUT ? "stayed busy" : "refused a command");
			return;
		}
		if (LAST_SLOT != 0)     /* the next checkpoint's seed in slot 0 */
			memcpy(md[0], md[LAST_SLOT], br_sha256_SIZE);
		print_checkpoint(argv[1], index, cycles, md[0]);
	}
}

const struct console_command hash_mct_commands[] = {
	{ CMD_HASH_MCT, cmd_hash_mct },
	{ NULL, NULL, NULL, NULL },
};

#else

const struct console_command hash_mct_commands[] = {
	{ NULL, NULL, NULL, NULL },
};

#endif
