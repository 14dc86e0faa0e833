/* The SHA-256 engine's driver and its BearSSL hash class (sha256_hw.h). Not timed code: linker.ld places
   it after the timed region. */
#include <string.h>
#include <generated/csr.h>
#include <generated/soc.h>

#include "hash/sha256_hw.h"

#define STATUS_BIT(name) (1u << CSR_SHA256_STATUS_##name##_OFFSET)
#define REFUSED (STATUS_BIT(BUSY_REFUSED) | STATUS_BIT(BAD_COMMAND))

int sha256_hw_wait(void)
{
	uint32_t polls, status;

	for (polls = 0; polls < SHA256_HW_MAX_POLLS; polls++) {
		status = sha256_status_read();
		if (!(status & STATUS_BIT(BUSY)))
			return SHA256_HW_OK;
	}
	return SHA256_HW_ERR_TIMEOUT;
}

/* Issues a command on an idle engine and waits for it. An accepted command clears the status's error bits,
   so set ones after it say that it, or a write in its cycle, was refused. */
static int command(uint32_t code)
{
	int err;

	sha256_command_write(code << CSR_SHA256_COMMAND_CODE_OFFSET);
	if ((err = sha256_hw_wait()))
		return err;
	return sha256_status_read() & REFUSED ? SHA256_HW_ERR_REFUSED : SHA256_HW_OK;
}

int sha256_hw_init(void)
{
	int err = sha256_hw_wait();

	return err ? err : command(SHA256_COMMAND_INIT);
}

int sha256_hw_load(const uint32_t state[SHA256_HW_STATE_WORDS])
{
	unsigned i;
	int err = sha256_hw_wait();

	if (err)
		return err;
	/* the engine is idle: it takes every write (only a write while busy is refused) */
	for (i = 0; i < SHA256_HW_STATE_WORDS; i++) {
		sha256_state_index_write(i);
		sha256_state_data_write(state[i]);
	}
	return SHA256_HW_OK;
}

void sha256_hw_save(uint32_t state[SHA256_HW_STATE_WORDS])
{
	unsigned i;

	for (i = 0; i < SHA256_HW_STATE_WORDS; i++) {
		sha256_state_index_write(i);
		state[i] = sha256_state_read();
	}
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

int sha256_hw_block(const unsigned char block[64])
{
	unsigned i;
	int err = sha256_hw_wait();

	if (err)
		return err;
	for (i = 0; i < SHA256_HW_BLOCK_WORDS; i++) {
		sha256_message_index_write(i);
		sha256_message_data_write(load32be(block + 4 * i));
	}
	return command(SHA256_COMMAND_BLOCK);
}

#if PEER_HAVE_BEARSSL || TLS_HAVE_BEARSSL

/* FIPS 180-4's initial hash value: the engine's INIT gives it; a context keeps its own copy. */
static void initial_state(sha256_hw_context *ctx)
{
	int err = sha256_hw_init();

	if (!err)
		sha256_hw_save(ctx->val);
	if (err && !ctx->err)
		ctx->err = err;
}

/* val := val compressed with block, on the engine (its state loaded first, read back after). */
static void compress(uint32_t val[SHA256_HW_STATE_WORDS], const unsigned char block[64], int *err)
{
	int e = sha256_hw_load(val);

	if (!e)
		e = sha256_hw_block(block);
	if (!e)
		sha256_hw_save(val);
	if (e && !*err)
		*err = e;
}

static void hw_init(const br_hash_class **vtable)
{
	sha256_hw_context *ctx = (sha256_hw_context *)vtable;

	ctx->vtable = &sha256_hw_vtable;
	ctx->count = 0;
	ctx->err = SHA256_HW_OK;
	initial_state(ctx);
}

static void hw_update(const br_hash_class **vtable, const void *data, size_t len)
{
	sha256_hw_context *ctx = (sha256_hw_context *)vtable;
	const unsigned char *in = data;
	size_t used = (size_t)ctx->count & 63, n;

	while (len) {
		n = 64 - used < len ? 64 - used : len;
		memcpy(ctx->buf + used, in, n);
		in += n;
		len -= n;
		ctx->count += n;
		used += n;
		if (used == 64) {
			compress(ctx->val, ctx->buf, &ctx->err);
			used = 0;
		}
	}
}

/* The digest of what the context has taken; the context is left as it was (BearSSL's contract). */
static void hw_out(const br_hash_class *const *vtable, void *dst)
{
	const sha256_hw_context *ctx = (const sha256_hw_context *)vtable;
	unsigned char buf[64];
	uint32_t val[SHA256_HW_STATE_WORDS];
	size_t used = (size_t)ctx->count & 63;
	int err = ctx->err;
	unsigned i;

	memcpy(buf, ctx->buf, used);
	memcpy(val, ctx->val, sizeof(val));
	buf[used++] = 0x80;
	if (used > 56) {
		memset(buf + used, 0, 64 - used);
		compress(val, buf, &err);
		used = 0;
	}
	memset(buf + used, 0, 56 - used);
	store32be(buf + 56, (uint32_t)(ctx->count >> 29));
	store32be(buf + 60, (uint32_t)(ctx->count << 3));
	compress(val, buf, &err);
	for (i = 0; i < SHA256_HW_STATE_WORDS; i++)
		store32be((unsigned char *)dst + 4 * i, val[i]);
	/* out() leaves the hash as it was; only the record of a fault, which makes the digest wrong, is kept
	   (a context is never a const object: the class's functions take the vtable pointer inside it) */
	if (err && !ctx->err)
		((sha256_hw_context *)vtable)->err = err;
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
	ctx->err = SHA256_HW_OK;
}

int sha256_hw_error(const sha256_hw_context *ctx)
{
	return ctx->err;
}

const br_hash_class sha256_hw_vtable = {
	sizeof(sha256_hw_context),
	BR_HASHDESC_ID(br_sha256_ID)
		| BR_HASHDESC_OUT(32)
		| BR_HASHDESC_STATE(32)
		| BR_HASHDESC_LBLEN(6)
		| BR_HASHDESC_MD_PADDING
		| BR_HASHDESC_MD_PADDING_BE,
	hw_init,
	hw_update,
	hw_out,
	hw_state,
	hw_set_state,
};

#endif
