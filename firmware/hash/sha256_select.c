/* The SHA-256 class the firmware's users take (sha256_select.h). Not timed code: linker.ld places it after
   the timed region. */
#include "hash/sha256_hw.h"
#include "hash/sha256_select.h"

static enum sha256_impl selected = SHA256_IMPL_HW;
static uint32_t faults;
#if PEER_HAVE_BEARSSL || TLS_HAVE_BEARSSL
static int engine_used;      /* since the last wipe */
#endif

void sha256_select(enum sha256_impl impl)
{
	selected = impl;
}

enum sha256_impl sha256_selected(void)
{
	return selected;
}

uint32_t sha256_sel_faults(void)
{
	return faults;
}

void sha256_sel_wipe(void)
{
#if PEER_HAVE_BEARSSL || TLS_HAVE_BEARSSL
	if (!engine_used)
		return;
	(void)sha256_hw_wipe();
	engine_used = 0;
#endif
}

#if PEER_HAVE_BEARSSL || TLS_HAVE_BEARSSL

_Static_assert(sizeof(sha256_sel_context) <= sizeof(br_hash_compat_context),
               "BearSSL's HMAC and multi-hasher hold a context in a br_hash_compat_context");

#define SEL(vtable) ((sha256_sel_context *)(vtable))
#define INNER(vtable) (&SEL(vtable)->impl.vtable)

/* The context's class := the current choice (its other fields are the class's init or set_state's). */
static void pick(sha256_sel_context *ctx)
{
	ctx->vtable = &sha256_sel_vtable;
	ctx->impl.vtable = selected == SHA256_IMPL_HW ? &sha256_hw_vtable : &br_sha256_vtable;
	engine_used |= selected == SHA256_IMPL_HW;
}

/* Counts a fault of a context on the engine; a context keeps its first one, so each call after it counts
   again, which only makes the count change. */
static void __attribute__((noinline)) check(const sha256_sel_context *ctx)
{
	if (ctx->impl.vtable == &sha256_hw_vtable && sha256_hw_error(&ctx->impl.hw))
		faults++;
}

/* FIPS 180-4's initial hash value, as a state (H0..H7 big-endian). */
static const unsigned char initial_state[32] = {
	0x6a, 0x09, 0xe6, 0x67, 0xbb, 0x67, 0xae, 0x85, 0x3c, 0x6e, 0xf3, 0x72, 0xa5, 0x4f, 0xf5, 0x3a,
	0x51, 0x0e, 0x52, 0x7f, 0x9b, 0x05, 0x68, 0x8c, 0x1f, 0x83, 0xd9, 0xab, 0x5b, 0xe0, 0xcd, 0x19,
};

/* A fresh context is the initial value with nothing hashed: set as a state, which costs the engine's class
   no command (its init has the engine make the value and reads it back, ~20 register accesses, and MGF1
   starts a context for every 32 bytes of mask). */
static void sel_set_state(const br_hash_class **vtable, const void *stb, uint64_t count);

static void sel_init(const br_hash_class **vtable)
{
	sel_set_state(vtable, initial_state, 0);
}

static void sel_update(const br_hash_class **vtable, const void *data, size_t len)
{
	(*INNER(vtable))->update(INNER(vtable), data, len);
	check(SEL(vtable));
}

static void sel_out(const br_hash_class *const *vtable, void *dst)
{
	const sha256_sel_context *ctx = (const sha256_sel_context *)vtable;

	ctx->impl.vtable->out(&ctx->impl.vtable, dst);
	check(ctx);
}

static uint64_t sel_state(const br_hash_class *const *vtable, void *dst)
{
	const sha256_sel_context *ctx = (const sha256_sel_context *)vtable;
	uint64_t count = ctx->impl.vtable->state(&ctx->impl.vtable, dst);

	check(ctx);
	return count;
}

/* BearSSL's multi-hasher calls this on a context nobody initialised: it sets the whole context. */
static void sel_set_state(const br_hash_class **vtable, const void *stb, uint64_t count)
{
	pick(SEL(vtable));
	(*INNER(vtable))->set_state(INNER(vtable), stb, count);
}

const br_hash_class sha256_sel_vtable = {
	sizeof(sha256_sel_context),
	SHA256_HW_DESC,
	sel_init,
	sel_update,
	sel_out,
	sel_state,
	sel_set_state,
};

#endif
