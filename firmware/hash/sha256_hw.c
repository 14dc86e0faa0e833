/* The SHA-256 engine's driver and its BearSSL hash class (sha256_hw.h). Not timed code: linker.ld places
   it after the timed region. */
#include <string.h>
#include <generated/csr.h>
#include <generated/mem.h>
#include <generated/soc.h>

#include "hash/sha256_hw.h"

/* The driver serves the hash class only: without BearSSL, nothing. */
#if PEER_HAVE_BEARSSL || TLS_HAVE_BEARSSL

#define STATUS_BIT(name) (1u << CSR_SHA256_STATUS_##name##_OFFSET)
#define REFUSED (STATUS_BIT(BUSY_REFUSED) | STATUS_BIT(BAD_COMMAND) | STATUS_BIT(DMA_REFUSED))

/* The engine's window: its message words and its state words, at their offsets. */
#define MESSAGE_WORDS ((volatile uint32_t *)SHA256_WINDOW_BASE + SHA256_WINDOW_MESSAGE)
#define STATE_WORDS ((volatile uint32_t *)SHA256_WINDOW_BASE + SHA256_WINDOW_STATE)

/* A message's 4 bytes loaded as one word, as they lie in memory (the window swaps them into FIPS order);
   may alias the caller's bytes. */
typedef uint32_t __attribute__((may_alias)) message_word;

/* Polls the status until the engine is idle, at most max_polls times: SHA256_HW_OK with that status word
   in *status, or SHA256_HW_ERR_TIMEOUT. */
static int poll_idle(uint32_t *status, uint32_t max_polls)
{
	uint32_t polls;

	for (polls = 0; polls < max_polls; polls++)
		if (!((*status = sha256_status_read()) & STATUS_BIT(BUSY)))
			return SHA256_HW_OK;
	return SHA256_HW_ERR_TIMEOUT;
}

/* Waits until the engine is idle: SHA256_HW_OK, or SHA256_HW_ERR_TIMEOUT. */
static int sha256_hw_wait(void)
{
	uint32_t status;

	return poll_idle(&status, SHA256_HW_MAX_POLLS);
}

/* Waits for the engine to be idle, then says whether it refused anything since its last accepted command
   (the driver issues nothing while it is busy: a refusal is a fault). The idle status word says both.
   blocks: how many blocks the wait may cover (the bound on the polls grows with it). */
static int wait_blocks_unrefused(uint32_t blocks)
{
	uint32_t status;
	int err = poll_idle(&status, SHA256_HW_MAX_POLLS * blocks);

	if (err)
		return err;
	return status & REFUSED ? SHA256_HW_ERR_REFUSED : SHA256_HW_OK;
}

static int wait_idle_unrefused(void)
{
	return wait_blocks_unrefused(1);
}

/* The engine's state := FIPS 180-4's initial hash value (waits for it). */
static int sha256_hw_init(void)
{
	int err = sha256_hw_wait();

	if (err)
		return err;
	sha256_command_write(SHA256_COMMAND_INIT << CSR_SHA256_COMMAND_CODE_OFFSET);
	return wait_idle_unrefused();
}

/* The engine's state := state (H0..H7), once it is idle. */
static int sha256_hw_load(const uint32_t state[SHA256_HW_STATE_WORDS])
{
	unsigned i;
	int err = sha256_hw_wait();

	if (err)
		return err;
	/* the engine is idle: it takes every write (only a state write while busy is refused) */
	for (i = 0; i < SHA256_HW_STATE_WORDS; i++)
		STATE_WORDS[i] = state[i];
	return SHA256_HW_OK;
}

/* state := the engine's state, once it is idle and if it refused nothing since its last command. */
static int sha256_hw_save(uint32_t state[SHA256_HW_STATE_WORDS])
{
	unsigned i;
	int err = wait_idle_unrefused();

	if (err)
		return err;
	for (i = 0; i < SHA256_HW_STATE_WORDS; i++)
		state[i] = STATE_WORDS[i];
	return SHA256_HW_OK;
}

/* The engine's message buffer := block (64 bytes as in the message, 4-byte aligned), busy or not. */
static void sha256_hw_write_block(const unsigned char block[64])
{
	const message_word *words = (const message_word *)block;
	unsigned i;

	/* unrolled: a load and a store a word, nothing else between the window's stores */
#pragma GCC unroll 16
	for (i = 0; i < SHA256_HW_BLOCK_WORDS; i++)
		MESSAGE_WORDS[i] = words[i];
}

/* Once the engine is idle (and if it refused nothing), issues BLOCK on its buffer without waiting for it. */
static int sha256_hw_block(void)
{
	int err = wait_idle_unrefused();

	if (!err)
		sha256_command_write(SHA256_COMMAND_BLOCK << CSR_SHA256_COMMAND_CODE_OFFSET);
	return err;
}

static uint32_t load32be(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void store32be(unsigned char *p, uint32_t x)
{
	p[0] = (unsigned char)(x >> 24);
	p[1] = (unsigned char)(x >> 16);
	p[2] = (unsigned char)(x >> 8);
	p[3] = (unsigned char)x;
}

/* Whose state the engine holds: the context and the serial number the driver gave the call that left it
   there (a context's `serial` says which call left its `val`). A copied context is elsewhere, a context
   given a state by set_state has serial 0, and a context copied back over one the engine has since moved
   on carries an older serial: none of them matches. No context: the engine's state is nobody's. */
static const sha256_hw_context *holder;
static uint32_t holder_serial;
static uint32_t last_serial;

static int engine_holds(const sha256_hw_context *ctx)
{
	return holder == ctx && ctx->serial != 0 && ctx->serial == holder_serial;
}

/* The engine's state is ctx's, read back into ctx->val and tagged with a new serial. */
static int take_state(sha256_hw_context *ctx)
{
	int err = sha256_hw_save(ctx->val);

	holder = NULL;
	if (err)
		return err;
	if (++last_serial == 0)          /* 0 is no call's */
		last_serial = 1;
	ctx->serial = holder_serial = last_serial;
	holder = ctx;
	return SHA256_HW_OK;
}

static void record(sha256_hw_context *ctx, int err)
{
	if (err && !ctx->err)
		ctx->err = err;
}

/* FIPS 180-4's initial hash value: the engine's INIT gives it; the context keeps its own copy. */
static void initial_state(sha256_hw_context *ctx)
{
	int err = sha256_hw_init();

	holder = NULL;
	record(ctx, err ? err : take_state(ctx));
}

/* Before a call's first block: the engine gets ctx's state unless it holds it already. */
static int begin(const sha256_hw_context *ctx)
{
	return engine_holds(ctx) ? SHA256_HW_OK : sha256_hw_load(ctx->val);
}

/* Whether the engine's DMA can read `blocks` whole blocks at `in`: word-aligned and all in main RAM
   (which the DMA reads; the data cache is write-through, so RAM holds what the CPU wrote). */
static int dma_reaches(const unsigned char *in, size_t blocks)
{
	uintptr_t offset = (uintptr_t)in - MAIN_RAM_BASE;

	return (uintptr_t)in % sizeof(uint32_t) == 0 && offset < MAIN_RAM_SIZE
	       && blocks <= (MAIN_RAM_SIZE - offset) / 64;
}

/* Once the engine is idle (and if it refused nothing), its DMA compresses `blocks` blocks at `in`
   (dma_reaches); waits until the last is done. */
static int sha256_hw_dma(const unsigned char *in, size_t blocks)
{
	int err = wait_idle_unrefused();

	if (err)
		return err;
	sha256_dma_address_write((uint32_t)(uintptr_t)in);
	sha256_dma_blocks_write((uint32_t)blocks);
	return wait_blocks_unrefused((uint32_t)blocks);
}

/* Compresses `blocks` whole blocks from `in`: through the DMA when it reaches them, else streamed into the
   window, each block's words while the engine may still run the one before, then BLOCK once it is idle
   (a block at an unaligned address through `buf`, aligned, 64 bytes). Stops at the first error. */
static int stream(const unsigned char *in, size_t blocks, unsigned char *buf)
{
	int err = SHA256_HW_OK;

	if (dma_reaches(in, blocks))
		return sha256_hw_dma(in, blocks);
	for (; blocks && !err; blocks--, in += 64) {
		const unsigned char *block = in;

		if ((uintptr_t)in % sizeof(uint32_t) != 0)
			block = memcpy(buf, in, 64);
		sha256_hw_write_block(block);
		err = sha256_hw_block();
	}
	return err;
}

static void hw_init(const br_hash_class **vtable)
{
	sha256_hw_context *ctx = (sha256_hw_context *)vtable;

	ctx->vtable = &sha256_hw_vtable;
	ctx->count = 0;
	ctx->serial = 0;
	ctx->err = SHA256_HW_OK;
	initial_state(ctx);
}

static void hw_update(const br_hash_class **vtable, const void *data, size_t len)
{
	sha256_hw_context *ctx = (sha256_hw_context *)vtable;
	const unsigned char *in = data;
	size_t used = (size_t)ctx->count & 63, n;
	int started = 0, err = SHA256_HW_OK;

	ctx->count += len;
	if (used) {                          /* fill the buffered block first */
		n = 64 - used < len ? 64 - used : len;
		memcpy(ctx->buf + used, in, n);
		in += n;
		len -= n;
		if (used + n < 64)
			return;
		started = 1;
		if (!(err = begin(ctx)))
			err = stream(ctx->buf, 1, ctx->buf);
	}
	if (len >= 64) {
		/* whole blocks from the caller's bytes */
		if (!started) {
			started = 1;
			err = begin(ctx);
		}
		if (!err)
			err = stream(in, len / 64, ctx->buf);
		in += len & ~(size_t)63;
		len &= 63;
	}
	memcpy(ctx->buf, in, len);
	if (started)
		record(ctx, err ? err : take_state(ctx));
	if (err)
		holder = NULL;
}

/* The digest of what the context has taken; the context is left as it was (BearSSL's contract). */
static void hw_out(const br_hash_class *const *vtable, void *dst)
{
	const sha256_hw_context *ctx = (const sha256_hw_context *)vtable;
	_Alignas(sizeof(uint32_t)) unsigned char buf[64];
	uint32_t val[SHA256_HW_STATE_WORDS];
	size_t used = (size_t)ctx->count & 63;
	int err = begin(ctx);
	unsigned i;

	memcpy(val, ctx->val, sizeof(val));      /* what a failed engine leaves in the digest */
	memcpy(buf, ctx->buf, used);
	buf[used++] = 0x80;
	if (used > 56) {
		memset(buf + used, 0, 64 - used);
		if (!err)
			err = stream(buf, 1, buf);
		used = 0;
	}
	memset(buf + used, 0, 56 - used);
	store32be(buf + 56, (uint32_t)(ctx->count >> 29));
	store32be(buf + 60, (uint32_t)(ctx->count << 3));
	if (!err)
		err = stream(buf, 1, buf);
	if (!err)
		err = sha256_hw_save(val);
	/* the engine now holds a state no context has */
	holder = NULL;
	for (i = 0; i < SHA256_HW_STATE_WORDS; i++)
		store32be((unsigned char *)dst + 4 * i, val[i]);
	/* out() leaves the hash as it was; only the record of a fault, which makes the digest wrong, is kept
	   (a context is never a const object: the class's functions take the vtable pointer inside it) */
	record((sha256_hw_context *)vtable, err);
}

static uint64_t hw_state(const br_hash_class *const *vtable, void *dst)
{
	const sha256_hw_context *ctx = (const sha256_hw_context *)vtable;
	unsigned i;

	for (i = 0; i < SHA256_HW_STATE_WORDS; i++)
		store32be((unsigned char *)dst + 4 * i, ctx->val[i]);
	return ctx->count;
}

static void hw_set_state(const br_hash_class **vtable, const void *stb, uint64_t count)
{
	sha256_hw_context *ctx = (sha256_hw_context *)vtable;
	unsigned i;

	for (i = 0; i < SHA256_HW_STATE_WORDS; i++)
		ctx->val[i] = load32be((const unsigned char *)stb + 4 * i);
	ctx->count = count;
	ctx->serial = 0;            /* a state of its own: the engine's is not it */
	ctx->err = SHA256_HW_OK;
}

int sha256_hw_wipe(void)
{
	static const uint32_t zeros[SHA256_HW_STATE_WORDS];
	unsigned i;
	int err = sha256_hw_load(zeros);

	for (i = 0; i < SHA256_HW_BLOCK_WORDS; i++)
		MESSAGE_WORDS[i] = 0;
	if (!err)
		err = sha256_hw_block();
	if (!err)
		err = sha256_hw_init();
	holder = NULL;
	return err;
}

int sha256_hw_error(const sha256_hw_context *ctx)
{
	return ctx->err;
}

const br_hash_class sha256_hw_vtable = {
	sizeof(sha256_hw_context),
	SHA256_HW_DESC,
	hw_init,
	hw_update,
	hw_out,
	hw_state,
	hw_set_state,
};

#endif
