#include <string.h>

#include "console_protocol.h"   /* generated: the operations' and implementations' names */
#include "drivers/cycles.h"
#include "drivers/profile.h"
#include "rsa/rsa_hw.h"
#include "rsa/rsa_impls.h"

const struct rsa_op rsa_ops[] = {
	{ OP_PUBLIC, rsa_public, 0, RSA_OP_PUBLIC },
	{ OP_PRIVATE, rsa_private, 1, RSA_OP_PRIVATE },
	{ OP_PRIVATE_CRT, rsa_private_crt, 1, RSA_OP_PRIVATE_CRT },
	{ NULL, NULL, 0, 0 },
};

const struct rsa_impl rsa_impls[] = {
	{ IMPL_SW, &rsa_sw, IMPL_SW_CONSTANT_TIME, NULL },
	{ IMPL_HW_CPU, &rsa_hw_cpu, IMPL_HW_CPU_CONSTANT_TIME, NULL },
#define SCHEME_IMPL(impl, IMPL, op, pair_op, constant_time) { IMPL_##IMPL, &rsa_##impl, IMPL_##IMPL##_CONSTANT_TIME, NULL },
	MONTMUL_SCHEME_IMPLS(SCHEME_IMPL)
#undef SCHEME_IMPL
#define PEER_IMPL(name, NAME) { IMPL_##NAME, NULL, IMPL_##NAME##_CONSTANT_TIME, &peer_##name },
	PEER_LIST(PEER_IMPL)
#undef PEER_IMPL
	{ NULL, NULL, 0, NULL },
};

const struct rsa_op *rsa_op_find(const char *name)
{
	const struct rsa_op *op;
	for (op = rsa_ops; op->name; op++)
		if (strcmp(op->name, name) == 0)
			return op;
	return NULL;
}

const struct rsa_impl *rsa_impl_find(const char *name)
{
	const struct rsa_impl *impl;
	for (impl = rsa_impls; impl->name; impl++)
		if (strcmp(impl->name, name) == 0)
			return impl;
	return NULL;
}

uint64_t rsa_timed(const struct rsa_op *op, const struct rsa_impl *impl, const rsa_key *k, const rsa_ctx *c,
                   uint32_t *out, const uint32_t *in, int *err)
{
	timed_region t;
	uint64_t cycles;

	if (impl->peer) {
		if (!impl->peer->built) {
			*err = RSA_ERR_PEER_MISSING;
			return 0;
		}
		if ((*err = impl->peer->load(k, op->id, in)) != RSA_OK)
			return 0;
		t = timed_start();
		*err = impl->peer->run(op->id);
		cycles = timed_stop(t);
		impl->peer->store(out);
		return cycles;
	}
	rsa_hw_forget();
	t = timed_start();
	profile_start();
	*err = op->run(impl->backend, k, c, out, in);
	profile_stop();
	return timed_stop(t);
}

uint64_t sw_mul_timed(const mont_ctx *n, uint32_t *r, const uint32_t *a, const uint32_t *b, unsigned reps)
{
	timed_region t = timed_start();
	unsigned i;
	for (i = 0; i < reps; i++)
		mont_mul(n, r, a, b);
	return timed_stop(t) / reps;
}
