/*
 * The peripheral backends of rsa.h:
 *   rsa_hw_cpu         the CPU runs the exponent loop and issues one MUL command per product: fixed
 *                      windows of CPU_FIXED_BITS bits for secret exponents (the whole table in user
 *                      slots; a window's digit only changes the slot field of a command word),
 *                      a sliding window for public ones;
 *   rsa_hw_seq         one EXP_FIXED command for secret exponents, EXP_WINDOW for public ones, and
 *                      both exponentiations of a CRT at once where the factors fit the pair
 *                      commands (seq_crt_exp: p in modulus bank 0, q in bank 1);
 *   rsa_hw_seq_window  EXP_WINDOW for both (not constant-time).
 * The peripheral's products take the same cycles whatever their operands, and its register file has
 * no cache, so a secret slot index costs the same as any other.
 */
#include "rsa/rsa_hw.h"
#include "drivers/cycles.h"
#include "bignum/exp_window.h"
#include "drivers/montmul_drv.h"
#include "drivers/profile.h"
#include "bignum/ct.h"

/* Slot plan: the modulus, the constants, the exponent, and from S_T0 on the CPU loop's table (odd
   powers base^1 .. base^15 for the sliding window; base^0 .. base^7 for the fixed window). */
enum {
	S_N = 0, S_RR = 1, S_A = 2, S_ACC = 3, S_IN = 4, S_EXP = 5, S_UNIT = 6, S_TMP = 7, S_T0 = 8,
};
#define CPU_WINDOW_BITS 4
#define CPU_FIXED_BITS 3
_Static_assert(S_T0 + (1 << (CPU_WINDOW_BITS - 1)) <= MONTMUL_NUM_SLOTS, "the odd powers need more slots");
_Static_assert(S_T0 + (1 << CPU_FIXED_BITS) <= MONTMUL_NUM_SLOTS, "the fixed window's table needs more slots");

enum exp_kind { EXP_CPU, EXP_SEQ_FIXED, EXP_SEQ_WINDOW };

unsigned rsa_hw_error;

static const uint32_t unit_limb = 1;

/* What the peripheral holds from earlier calls (public facts only: which context, not its value).
   loaded_id: the mont_ctx id whose modulus is in S_N and set (0: none); unit_limbs: S_UNIT holds 1
   followed by zeros up to this many limbs (right at any size up to it). Both are cleared when a
   command fails, and by rsa_hw_forget. */
static uint32_t loaded_id, loaded_id1;   /* loaded_id1: bank 1's (set from S_TMP) */
static unsigned unit_limbs;

static void forget_loaded(void)
{
	loaded_id = 0;
	loaded_id1 = 0;
	unit_limbs = 0;
}

/* Before an operation: the peripheral reset, whatever an earlier one left in it (a fault may leave an
   engine running while the peripheral reads idle, and every later command refused), nothing taken as
   loaded, no error. */
void rsa_hw_forget(void)
{
	mm_reset();
	forget_loaded();
	rsa_hw_error = 0;
}

/* Runs a driver call (montmul_drv.h); on a refused command (or a stuck peripheral, which the driver
   has reset), keeps the error code in rsa_hw_error, forgets what the peripheral was holding and
   returns RSA_ERR_HW. */
#define HW_TRY(x) do { unsigned err_ = (x); if (err_) { rsa_hw_error = err_; forget_loaded(); \
                                                 return RSA_ERR_HW; } } while (0)

static int load_modulus(const mont_ctx *m)
{
	if (loaded_id == m->id && m->id != 0)
		return RSA_OK;
	loaded_id = 0;
	HW_TRY(mm_write(S_N, m->n, m->words, m->words));
	HW_TRY(mm_setmod(S_N, m->words));
	loaded_id = m->id;
	return RSA_OK;
}

static int load_unit(unsigned limbs)
{
	if (unit_limbs < limbs) {
		HW_TRY(mm_write(S_UNIT, &unit_limb, 1, limbs));
		unit_limbs = limbs;
	}
	return RSA_OK;
}

static int hw_mul(const mont_ctx *m, uint32_t *r, const uint32_t *a, const uint32_t *b)
{
	unsigned w = m->words;
	int err = load_modulus(m);

	if (err)
		return err;
	HW_TRY(mm_write(S_A, a, w, w));
	HW_TRY(mm_write(S_TMP, b, w, w));
	HW_TRY(mm_mul(S_ACC, S_A, S_TMP));
	HW_TRY(mm_read(S_ACC, r, w));
	return RSA_OK;
}

/* Left-to-right sliding window over odd powers (exp_window.h). The base (Montgomery form) is in
   S_T0, the accumulator S_ACC holds R mod n (Montgomery 1). */
static int cpu_exp_window(const uint32_t *e, unsigned ebits)
{
	unsigned width = ebits > 64 ? CPU_WINDOW_BITS : 1, j, squarings, index;
	exp_window_scan scan;
	enum exp_window_step step;

	if (width > 1) {
		HW_TRY(mm_mul(S_TMP, S_T0, S_T0));
		for (j = 1; j < (1u << (width - 1)); j++)
			HW_TRY(mm_mul(S_T0 + j, S_T0 + j - 1, S_TMP));
	}
	exp_window_start(&scan, e, ebits, width);
	do {
		step = exp_window_next(&scan, &squarings, &index);
		while (squarings--)
			HW_TRY(mm_mul(S_ACC, S_ACC, S_ACC));
		if (step != EXP_WINDOW_END)
			HW_TRY(mm_mul(S_ACC, S_ACC, S_T0 + index));
	} while (step != EXP_WINDOW_END);
	return RSA_OK;
}

/* Fixed windows of CPU_FIXED_BITS bits over all ebits bits, the top one taking the leftover bits.
   The table base^0 .. base^7 (Montgomery form) is S_T0 .. S_T0+7, base^1 already in S_T0 + 1 and
   base^0 made as S_ACC * S_ACC (R * R * R^-1 = R mod n, as S_ACC holds R mod n). Every window costs
   CPU_FIXED_BITS squarings and one product, whatever its digit (0 multiplies by base^0). */
static int cpu_exp_fixed(const uint32_t *e, unsigned ebits)
{
	const unsigned k = CPU_FIXED_BITS;
	unsigned j, pos;

	HW_TRY(mm_mul(S_T0, S_ACC, S_ACC));
	HW_TRY(mm_mul(S_T0 + 2, S_T0 + 1, S_T0 + 1));
	for (j = 3; j < (1u << k); j++)
		HW_TRY(mm_mul(S_T0 + j, S_T0 + j - 1, S_T0 + 1));
	pos = exp_fixed_top(ebits, k);
	HW_TRY(mm_mul(S_ACC, S_ACC, S_T0 + exp_bits(e, ebits, pos, ebits - pos)));
	while (pos > 0) {
		pos -= k;
		for (j = 0; j < k; j++)
			HW_TRY(mm_mul(S_ACC, S_ACC, S_ACC));
		HW_TRY(mm_mul(S_ACC, S_ACC, S_T0 + exp_bits(e, ebits, pos, k)));
	}
	return RSA_OK;
}

/* r = base^e mod m: load, make the Montgomery one from R^2 (a product is cheaper than its bus words),
   convert the base (to S_T0, or S_T0 + 1 for the CPU's fixed window), exponentiate into S_ACC,
   convert back, read. */
static int hw_exp(const mont_ctx *m, uint32_t *r, const uint32_t *base, const uint32_t *e, unsigned ebits,
                  enum exp_kind kind, int secret)
{
	unsigned w = m->words, ew = BN_WORDS(ebits);
	unsigned base_slot = kind == EXP_CPU && secret ? S_T0 + 1 : S_T0;
	int err = load_modulus(m);

	if (err || (err = load_unit(w)))
		return err;
	HW_TRY(mm_write(S_IN, base, w, w));
	HW_TRY(mm_write(S_RR, m->rr, w, w));
	HW_TRY(mm_mul(S_ACC, S_RR, S_UNIT));          /* R^2 * 1 * R^-1: R mod n, the Montgomery one */
	HW_TRY(mm_mul(base_slot, S_IN, S_RR));
	if (ebits) {
		if (kind == EXP_CPU) {
			err = secret ? cpu_exp_fixed(e, ebits) : cpu_exp_window(e, ebits);
			if (err)
				return err;
		} else {
			HW_TRY(mm_write(S_EXP, e, ew, ew));
			HW_TRY(mm_exp(kind == EXP_SEQ_FIXED && secret ? MONTMUL_OP_EXP_FIXED : MONTMUL_OP_EXP_WINDOW,
			           S_ACC, base_slot, S_EXP, ebits));
		}
	}
	HW_TRY(mm_mul(S_ACC, S_ACC, S_UNIT));
	HW_TRY(mm_read(S_ACC, r, w));
	return RSA_OK;
}

static int cpu_exp(const mont_ctx *m, uint32_t *r, const uint32_t *base, const uint32_t *e, unsigned ebits,
                   int secret)
{
	return hw_exp(m, r, base, e, ebits, EXP_CPU, secret);
}

static int seq_exp(const mont_ctx *m, uint32_t *r, const uint32_t *base, const uint32_t *e, unsigned ebits,
                   int secret)
{
	return hw_exp(m, r, base, e, ebits, EXP_SEQ_FIXED, secret);
}

static int seq_window_exp(const mont_ctx *m, uint32_t *r, const uint32_t *base, const uint32_t *e,
                          unsigned ebits, int secret)
{
	return hw_exp(m, r, base, e, ebits, EXP_SEQ_WINDOW, secret);
}

/* Both exponentiations of a CRT at once: m0 in bank 0, m1 in bank 1, every operand a pair (context
   0's in row 0 of the slot, context 1's in row 1). One MUL_PAIR with the shared x reduces it modulo
   both and converts it (x * k_i * 2^(-32*xw) = x*R_i mod m_i), one more makes the Montgomery ones,
   one EXP_FIXED_PAIR, one MUL_PAIR by 1 back out of the Montgomery domain: S_ACC then holds
   x^e0 mod m0 (row 0) and x^e1 mod m1 (row 1), and S_IN still holds x (xw limbs), S_UNIT 1 over xw
   limbs. Nothing but x, the k's and the exponents crosses the bus on the way in. */
static int pair_exp(const mont_ctx *m0, const uint32_t *e0, const uint32_t *k0,
                    const mont_ctx *m1, const uint32_t *e1, const uint32_t *k1,
                    const uint32_t *x, unsigned xw, unsigned ebits)
{
	unsigned w0 = m0->words, w1 = m1->words, ew = BN_WORDS(ebits);
	int err = load_modulus(m0);

	if (err)
		return err;
	if (loaded_id1 != m1->id || m1->id == 0) {
		loaded_id1 = 0;
		HW_TRY(mm_write(S_TMP, m1->n, w1, w1));
		HW_TRY(mm_setmod_bank(S_TMP, w1, 1));
		loaded_id1 = m1->id;
	}
	/* S_UNIT (1, then zeros over xw limbs) as the shared a makes the Montgomery ones from the k's
	   (1 * k_i * 2^(-32*xw) = R_i mod m_i) and, for factors of one size, converts back */
	if ((err = load_unit(xw)))
		return err;
	HW_TRY(mm_write(S_IN, x, xw, xw));
	HW_TRY(mm_write_pair(S_RR, k0, w0, k1, w1, w1));
	HW_TRY(mm_run(montmul_cmd(MONTMUL_OP_MUL_PAIR, S_T0, S_IN, S_RR, MM_SIZE_WORDS(xw))));
	HW_TRY(mm_run(montmul_cmd(MONTMUL_OP_MUL_PAIR, S_ACC, S_UNIT, S_RR, MM_SIZE_WORDS(xw))));
	/* each exponent's limbs above its factor's are zero, up to the declared length */
	HW_TRY(mm_write_pair(S_EXP, e0, w0 < ew ? w0 : ew, e1, w1 < ew ? w1 : ew, ew));
	HW_TRY(mm_exp(MONTMUL_OP_EXP_FIXED_PAIR, S_ACC, S_T0, S_EXP, ebits));
	if (w0 == w1) {
		HW_TRY(mm_run(montmul_cmd(MONTMUL_OP_MUL_PAIR, S_ACC, S_UNIT, S_ACC, MM_SIZE_WORDS(w0))));
	} else {
		HW_TRY(mm_write_pair(S_TMP, &unit_limb, 1, &unit_limb, 1, w1));
		HW_TRY(mm_mul_pair(S_ACC, S_ACC, S_TMP));
	}
	return RSA_OK;
}

/* rsa_backend.crt_exp: pair_exp, and both results read. */
static int seq_crt_exp(const mont_ctx *m0, uint32_t *r0, const uint32_t *e0, const uint32_t *k0,
                       const mont_ctx *m1, uint32_t *r1, const uint32_t *e1, const uint32_t *k1,
                       const uint32_t *x, unsigned xw, unsigned ebits)
{
	int err = pair_exp(m0, e0, k0, m1, e1, k1, x, xw, ebits);

	if (err)
		return err;
	HW_TRY(mm_read_pair(S_ACC, r0, m0->words, r1, m1->words));
	return RSA_OK;
}

/* rsa_backend.crt: the whole private operation with CRT on the peripheral, every value in its slots
   from the input to the signature:
     halves             m1 = x^dp mod p, m2 = x^dq mod q: with the pair commands (pair_halves: both at
                        once, S_ACC's rows 0 and 1, then S_M2 = m2 alone by COPY), or one after the other
                        (single_halves: x reduced by a product in the widened factor's context, EXP_FIXED,
                        into S_M1 and S_M2, zeroed over n's limbs first);
     Garner (bank 0 p)  S_H = m1 * qinv, S_T = m2 * qinv (products with qinv * R_p, which also reduce
                        m2 < q <= R_p modulo p); S_H = S_H - S_T mod p: h = (m1 - m2) * qinv mod p,
                        alone in its slot above p's words (COPY with pairs; zeroed first without);
     recombination      SETMOD n into bank 0; S_S = h * q (a product with q * R_n mod n: h * q < n,
     (bank 0 n)         so exact); S_S = S_S + m2 mod n: the signature s = m2 + q*h (< n);
     check              x written afresh, s read out and written back: the check compares what the CPU
                        holds, so that a fault on the way in or out is caught as one in the arithmetic
                        is; R mod n and s*R from R^2 mod n, s^e mod n (EXP_WINDOW over e's bits, a
                        product by 1) against x by EQUAL; s masked with its answer.
   Only the key's constants, x (twice) and s (out and back) cross the bus. Every command's cycles
   depend only on the sizes, and the answer of EQUAL is a mask: a failed check takes the cycles of a
   passed one. For q with no more limbs than p and at least half of n's (rsa.c asks no more). */
enum { S_M2 = S_T0 + 1, S_H = S_T0 + 2, S_T = S_T0 + 3, S_QI = S_T0 + 4, S_S = S_T0 + 5, S_M1 = S_T0 + 6 };
_Static_assert(S_M1 < MONTMUL_NUM_SLOTS, "the CRT's slots");

static const uint32_t no_limb = 0;

/* Both halves at once: S_ACC row 0 m1, S_M2 m2 alone; bank 0 p. Garner's m1 slot: S_ACC. */
static int pair_halves(const rsa_key *k, const rsa_ctx *c, const uint32_t *in, unsigned *m1_slot)
{
	const unsigned pw = c->p.words, qw = c->q.words;
	int err = pair_exp(&c->p, k->dp, c->p_k, &c->q, k->dq, c->q_k, in, c->n.words, 32 * (pw > qw ? pw : qw));

	if (err)
		return err;
	HW_TRY(mm_copy(S_M2, S_ACC, 1));
	*m1_slot = S_ACC;
	return RSA_OK;
}

/* S_T0 = x * R_f mod f, x in S_IN over n's limbs (nw), f's modulus in force (fw limbs, S_RR holding
   R_f^2 mod f): with x = x_lo + R_f * x_hi, x_lo * R_f^2 and x_hi * R_f^3 (each a product divided by
   R_f) added mod f. x_hi (the limbs above f's, fewer than fw: nw <= 2 fw) comes over the bus; R_f^3 is
   the product of R_f^2 with itself. */
static int reduce_split(const uint32_t *x, unsigned nw, unsigned fw)
{
	HW_TRY(mm_write(S_A, x + fw, nw - fw, fw));
	HW_TRY(mm_mul(S_T, S_RR, S_RR));              /* R_f^3 mod f */
	HW_TRY(mm_mul(S_T, S_A, S_T));                /* x_hi * R_f^2 */
	HW_TRY(mm_mul(S_T0, S_IN, S_RR));             /* x_lo * R_f (the product reads x's low fw limbs) */
	HW_TRY(mm_add(S_T0, S_T0, S_T));
	return RSA_OK;
}

/* dst = x^e mod f (normal domain; x in S_IN over n's limbs, S_UNIT 1 over them; dst zeroed above f's
   limbs): x into f's Montgomery domain (reduce_split), then EXP_FIXED over f's limb count. Leaves f in
   bank 0. */
static int single_half(const mont_ctx *f, const uint32_t *e, const uint32_t *x, unsigned nw, unsigned dst)
{
	const unsigned fw = f->words;
	int err = load_modulus(f);

	if (err)
		return err;
	HW_TRY(mm_write(S_RR, f->rr, fw, fw));
	if ((err = reduce_split(x, nw, fw)))
		return err;
	HW_TRY(mm_mul(S_ACC, S_RR, S_UNIT));          /* R_f mod f */
	HW_TRY(mm_write(S_EXP, e, fw, fw));
	HW_TRY(mm_exp(MONTMUL_OP_EXP_FIXED, S_ACC, S_T0, S_EXP, 32 * fw));
	HW_TRY(mm_write(dst, &no_limb, 0, nw));       /* zero over n's limbs: the product writes f's rows */
	HW_TRY(mm_mul(dst, S_ACC, S_UNIT));
	return RSA_OK;
}

/* The halves one after the other (factors wider than the pair commands take): S_M2, S_M1; bank 0 p. */
static int single_halves(const rsa_key *k, const rsa_ctx *c, const uint32_t *in, unsigned *m1_slot)
{
	const unsigned nw = c->n.words;
	int err;

	if ((err = load_unit(nw)))
		return err;
	HW_TRY(mm_write(S_IN, in, nw, nw));
	if ((err = single_half(&c->q, k->dq, in, nw, S_M2)) || (err = single_half(&c->p, k->dp, in, nw, S_M1)))
		return err;
	*m1_slot = S_M1;
	return RSA_OK;
}

static int seq_crt(const rsa_key *k, const rsa_ctx *c, uint32_t *out, const uint32_t *in)
{
	const unsigned nw = c->n.words, pw = c->p.words;
	const unsigned ebits = bn_bits(k->e, nw), ew = BN_WORDS(ebits);
	const int pairs = pw <= MM_PAIR_MAX_LIMBS && c->q.words <= MM_PAIR_MAX_LIMBS;
	unsigned m1_slot = 0, h_slot = pairs ? S_T : S_H;
	uint32_t same = 0;
	int err = pairs ? pair_halves(k, c, in, &m1_slot) : single_halves(k, c, in, &m1_slot);

	if (err)
		return err;
	profile_step(PROFILE_GARNER);
	HW_TRY(mm_write(S_QI, c->qinv_m, pw, pw));
	if (!pairs)
		HW_TRY(mm_write(S_H, &no_limb, 0, nw));   /* zero over n's limbs: h's products write p's rows */
	HW_TRY(mm_mul(S_H, m1_slot, S_QI));
	HW_TRY(mm_mul(S_T, S_M2, S_QI));
	HW_TRY(mm_sub(S_H, S_H, S_T));
	if (pairs)
		HW_TRY(mm_copy(S_T, S_H, 0));              /* h alone: zero above p's words */
	profile_step(PROFILE_RECOMBINE);
	if ((err = load_modulus(&c->n)))
		return err;
	HW_TRY(mm_write(S_QI, c->q_m, nw, nw));
	HW_TRY(mm_mul(S_S, h_slot, S_QI));
	HW_TRY(mm_add(S_S, S_S, S_M2));
	profile_step(PROFILE_CHECK);
	/* x written afresh (before out, which may be in, is written), s out and back in: the check
	   compares the words the CPU holds, so that a fault on the way in or out is caught too */
	HW_TRY(mm_write(S_H, in, nw, nw));
	HW_TRY(mm_read(S_S, out, nw));
	HW_TRY(mm_write(S_S, out, nw, nw));
	HW_TRY(mm_write(S_RR, c->n.rr, nw, nw));
	HW_TRY(mm_mul(S_ACC, S_RR, S_UNIT));           /* R mod n: the Montgomery one */
	HW_TRY(mm_mul(S_T, S_S, S_RR));                /* s * R */
	HW_TRY(mm_write(S_EXP, k->e, ew, ew));
	HW_TRY(mm_exp(MONTMUL_OP_EXP_WINDOW, S_ACC, S_T, S_EXP, ebits));
	HW_TRY(mm_mul(S_T, S_ACC, S_UNIT));            /* s^e mod n */
	HW_TRY(mm_equal(S_T, S_H, &same));             /* against x */
	profile_step(PROFILE_RELEASE);
	for (unsigned i = 0; i < nw; i++)
		out[i] &= same;
	return (int)ct_select_u32(same, (uint32_t)RSA_OK, (uint32_t)RSA_ERR_FAULT);
}

const rsa_backend rsa_hw_cpu = { hw_mul, cpu_exp, NULL, 0, NULL };
const rsa_backend rsa_hw_seq = { hw_mul, seq_exp, seq_crt_exp, MM_PAIR_MAX_LIMBS, seq_crt };
const rsa_backend rsa_hw_seq_window = { hw_mul, seq_window_exp, NULL, 0, NULL };

/* One timing of both figures (hw_mul_cycles). */
static int time_products(uint32_t *cpu_cycles, uint32_t *seq_cycles)
{
	enum { MULS = 32, LADDER_BITS = 64 };
	uint64_t t0, t1;
	unsigned i;

	t0 = cycles_now();
	for (i = 0; i < MULS; i++)
		mm_mul(S_ACC, S_ACC, S_T0);
	t1 = cycles_now();
	HW_TRY(mm_wait());
	*cpu_cycles = (uint32_t)((t1 - t0) / MULS);
	t0 = cycles_now();
	HW_TRY(mm_exp(MONTMUL_OP_EXP_LADDER, S_ACC, S_T0, S_EXP, LADDER_BITS));
	t1 = cycles_now();
	*seq_cycles = (uint32_t)((t1 - t0) / (2 * LADDER_BITS));
	return 0;
}

int hw_mul_cycles(const mont_ctx *m, uint32_t *cpu_cycles, uint32_t *seq_cycles)
{
	static const uint32_t exponent[2] = { 0x9e3779b9u, 0x7f4a7c15u };
	unsigned w = m->words;
	int err = load_modulus(m);

	if (err)
		return err;
	HW_TRY(mm_write(S_ACC, m->one, w, w));
	HW_TRY(mm_write(S_T0, m->rr, w, w));
	HW_TRY(mm_write(S_EXP, exponent, 2, 2));
	/* Timed twice, the first run's figures dropped: the second finds the issuing code in the
	 * instruction cache whatever ran before it, so the figures do not depend on the rows before. */
	HW_TRY(time_products(cpu_cycles, seq_cycles));
	return time_products(cpu_cycles, seq_cycles);
}
