#include "rsa_hw.h"
#include "cycles.h"
#include "exp_window.h"
#include "montmul_drv.h"

/* Slot plan: the modulus and its constants, the exponent, and (for the CPU-driven loop) a table of
   odd powers base^1, base^3, ..., base^15 in Montgomery form. */
enum {
	S_N = 0, S_RR = 1, S_ONE = 2, S_ACC = 3, S_IN = 4, S_EXP = 5, S_UNIT = 6, S_TMP = 7, S_T0 = 8,
};
#define WINDOW_BITS 4
_Static_assert(S_T0 + (1 << (WINDOW_BITS - 1)) <= MONTMUL_NUM_SLOTS, "the odd powers need more slots");

#define TRY(x) do { unsigned err_ = (x); if (err_) return (int)err_; } while (0)

static const uint32_t unit_limb = 1;
static uint32_t m1[BN_MAX_WORDS], m2[BN_MAX_WORDS], t[BN_MAX_WORDS], check[BN_MAX_WORDS];

/* Left-to-right sliding window over odd powers (exp_window.h), one MUL command per product. The
   base (Montgomery form) is in S_T0, the accumulator S_ACC starts at R mod n (Montgomery 1): the
   first window multiplies it rather than copying a slot. The result (Montgomery form) ends in S_ACC. */
static int cpu_exp(const uint32_t *e, unsigned ebits)
{
	unsigned width = ebits > 64 ? WINDOW_BITS : 1, j, squarings, index;
	exp_window_scan scan;
	enum exp_window_step step;

	if (width > 1) {
		TRY(mm_mul(S_TMP, S_T0, S_T0));
		for (j = 1; j < (1u << (width - 1)); j++)
			TRY(mm_mul(S_T0 + j, S_T0 + j - 1, S_TMP));
	}
	exp_window_start(&scan, e, ebits, width);
	do {
		step = exp_window_next(&scan, &squarings, &index);
		while (squarings--)
			TRY(mm_mul(S_ACC, S_ACC, S_ACC));
		if (step != EXP_WINDOW_END)
			TRY(mm_mul(S_ACC, S_ACC, S_T0 + index));
	} while (step != EXP_WINDOW_END);
	return 0;
}

/* r = base^e mod m where base (normal domain) is already in `base_slot`, the modulus is set to
   m's size and S_UNIT holds 1. */
static int exp_loaded(const mont_ctx *m, uint32_t *r, unsigned base_slot, const uint32_t *e,
                      unsigned ebits, enum hw_mode mode)
{
	unsigned w = m->words, ew = (ebits + 31) / 32;

	TRY(mm_load(S_RR, m->rr, w, w));
	TRY(mm_load(S_ACC, m->one, w, w));
	TRY(mm_mul(S_T0, base_slot, S_RR));
	if (ebits) {
		if (mode == HW_CPU) {
			TRY(cpu_exp(e, ebits));
		} else {
			TRY(mm_load(S_EXP, e, ew, ew));
			TRY(mm_exp(S_ACC, S_T0, S_EXP, ebits, 0));
		}
	}
	TRY(mm_mul(S_ACC, S_ACC, S_UNIT));
	TRY(mm_store(S_ACC, r, w));
	return 0;
}

int hw_modexp(const mont_ctx *m, uint32_t *r, const uint32_t *base, const uint32_t *e, unsigned ebits,
              enum hw_mode mode)
{
	unsigned w = m->words;
	TRY(mm_load(S_N, m->n, w, w));
	TRY(mm_setmod(S_N, w));
	TRY(mm_load(S_UNIT, &unit_limb, 1, w));
	TRY(mm_load(S_IN, base, w, w));
	return exp_loaded(m, r, S_IN, e, ebits, mode);
}

int rsa_hw_init(rsa_hw_ctx *h, const rsa_key *k, const rsa_ctx *c)
{
	unsigned nw = c->n.words, pw = c->p.words, qw = c->q.words;
	static uint32_t rn[BN_MAX_WORDS + 1], wide_q[BN_MAX_WORDS];

	if (!k->has_crt)
		return RSA_ERR_KEY;
	bn_zero(rn, nw + 1);
	rn[nw] = 1;                                        /* 2^(32*nw) */
	if (bn_mod(h->rn_mod_p, pw, rn, nw + 1, k->p, pw) || bn_mod(h->rn_mod_q, qw, rn, nw + 1, k->q, qw))
		return RSA_ERR_KEY;
	mont_to(&c->p, h->qinv_m, k->qinv);
	bn_zero(wide_q, nw);
	bn_copy(wide_q, k->q, qw);
	mont_to(&c->n, h->q_m, wide_q);
	return RSA_OK;
}

static int hw_status(int err)
{
	return err ? RSA_ERR_HW : RSA_OK;
}

int rsa_hw_public(const rsa_key *k, const rsa_ctx *c, uint32_t *out, const uint32_t *in, enum hw_mode mode)
{
	unsigned nw = c->n.words;
	if (bn_cmp(in, k->n, nw) >= 0)
		return RSA_ERR_RANGE;
	return hw_status(hw_modexp(&c->n, out, in, k->e, bn_bits(k->e, nw), mode));
}

int rsa_hw_private(const rsa_key *k, const rsa_ctx *c, uint32_t *out, const uint32_t *in, enum hw_mode mode)
{
	unsigned nw = c->n.words;
	if (bn_cmp(in, k->n, nw) >= 0)
		return RSA_ERR_RANGE;
	return hw_status(hw_modexp(&c->n, out, in, k->d, k->bits, mode));
}

/* x = in mod prime, on the peripheral at n's size: MUL(in, 2^(32*nw) mod prime) with R = 2^(32*nw).
   Leaves the result in S_TMP and the modulus set to the prime's own size. */
static int reduce_input(const uint32_t *prime, unsigned pw, const uint32_t *rn_mod, unsigned nw)
{
	TRY(mm_load(S_N, prime, pw, nw));
	TRY(mm_setmod(S_N, nw));
	TRY(mm_load(S_RR, rn_mod, pw, nw));
	TRY(mm_mul(S_TMP, S_IN, S_RR));
	TRY(mm_setmod(S_N, pw));
	return 0;
}

/* out = x * cst_m * R^-1 mod m on the peripheral, i.e. x * cst when cst_m = cst * R mod m (mw limbs;
   x has xw <= mw limbs). */
static int mul_by_constant(const uint32_t *m, unsigned mw, const uint32_t *x, unsigned xw,
                           const uint32_t *cst_m, uint32_t *out)
{
	TRY(mm_load(S_N, m, mw, mw));
	TRY(mm_setmod(S_N, mw));
	TRY(mm_load(S_TMP, x, xw, mw));
	TRY(mm_load(S_RR, cst_m, mw, mw));
	TRY(mm_mul(S_TMP, S_TMP, S_RR));
	return (int)mm_store(S_TMP, out, mw);
}

static int crt_core(const rsa_key *k, const rsa_ctx *c, const rsa_hw_ctx *h, uint32_t *out,
                    const uint32_t *in, enum hw_mode mode)
{
	unsigned nw = c->n.words, pw = c->p.words, qw = c->q.words;
	unsigned ebits = bn_bits(k->e, nw);

	TRY(mm_load(S_UNIT, &unit_limb, 1, nw));
	TRY(mm_load(S_IN, in, nw, nw));
	/* m1 = in^dp mod p, m2 = in^dq mod q */
	TRY(reduce_input(k->p, pw, h->rn_mod_p, nw));
	TRY(exp_loaded(&c->p, m1, S_TMP, k->dp, 32 * pw, mode));
	TRY(reduce_input(k->q, qw, h->rn_mod_q, nw));
	TRY(exp_loaded(&c->q, m2, S_TMP, k->dq, 32 * qw, mode));
	/* Garner: h = (m1 - m2) * qinv mod p (subtraction in software, product on the peripheral) */
	if (bn_mod(t, pw, m2, qw, k->p, pw))
		return MONTMUL_ERR_BAD_SIZE;
	mont_sub(&c->p, t, m1, t);
	TRY(mul_by_constant(k->p, pw, t, pw, h->qinv_m, t));
	/* out = m2 + h*q, the product modulo n (h*q < n) on the peripheral */
	TRY(mul_by_constant(k->n, nw, t, pw, h->q_m, out));
	bn_zero(m2 + qw, nw - qw);
	bn_add(out, out, m2, nw);
	/* Check before release: out^e mod n must give the input back. */
	TRY(mm_load(S_TMP, out, nw, nw));
	TRY(exp_loaded(&c->n, check, S_TMP, k->e, ebits, HW_SEQ));
	return 0;
}

int rsa_hw_private_crt(const rsa_key *k, const rsa_ctx *c, const rsa_hw_ctx *h, uint32_t *out,
                       const uint32_t *in, enum hw_mode mode)
{
	unsigned nw = c->n.words;
	int err;
	if (!k->has_crt)
		return RSA_ERR_KEY;
	if (bn_cmp(in, k->n, nw) >= 0)
		return RSA_ERR_RANGE;
	err = crt_core(k, c, h, out, in, mode);
	bn_wipe(m1, sizeof(m1));
	bn_wipe(m2, sizeof(m2));
	bn_wipe(t, sizeof(t));
	if (err) {
		bn_wipe(out, nw * 4);
		return RSA_ERR_HW;
	}
	if (bn_cmp(check, in, nw) != 0) {
		bn_wipe(out, nw * 4);
		return RSA_ERR_FAULT;
	}
	return RSA_OK;
}

int hw_mul_cycles(const mont_ctx *m, uint32_t *cpu_cycles, uint32_t *seq_cycles)
{
	enum { MULS = 32, LADDER_BITS = 64 };
	static const uint32_t exponent[2] = { 0x9e3779b9u, 0x7f4a7c15u };
	unsigned w = m->words, i;
	uint64_t t0, t1;

	TRY(mm_load(S_N, m->n, w, w));
	TRY(mm_setmod(S_N, w));
	TRY(mm_load(S_ACC, m->one, w, w));
	TRY(mm_load(S_T0, m->rr, w, w));
	TRY(mm_load(S_EXP, exponent, 2, 2));
	t0 = cycles_now();
	for (i = 0; i < MULS; i++)
		mm_mul(S_ACC, S_ACC, S_T0);
	t1 = cycles_now();
	TRY(mm_wait());
	*cpu_cycles = (uint32_t)((t1 - t0) / MULS);
	t0 = cycles_now();
	TRY(mm_exp(S_ACC, S_T0, S_EXP, LADDER_BITS, 1));
	t1 = cycles_now();
	*seq_cycles = (uint32_t)((t1 - t0) / (2 * LADDER_BITS));
	return 0;
}
