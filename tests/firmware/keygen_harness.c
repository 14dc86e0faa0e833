/* Host-test harness for firmware/keygen/keygen.c: the file is included whole, so that its static arithmetic
   helpers can be called from Python (ctypes) through the kh_* wrappers below. Built into the test
   library instead of keygen.c (test_keygen.py), never into the firmware. */
/* GCC 12 at -O2 thinks times_2_32_mod's `top` may be used uninitialized (it is set on the last pass of the
   loop, which always runs): a false alarm that -Werror would turn into a failed build. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "keygen/keygen.c"
#pragma GCC diagnostic pop

#if PEER_HAVE_BEARSSL

uint32_t kh_reduce_e(int32_t r) { return reduce_e(r); }
uint32_t kh_mod_e_small(uint64_t x) { return mod_e_small(x); }
uint32_t kh_mod_e(const uint32_t *a, unsigned words) { return mod_e(a, words); }
uint32_t kh_inv_mod_e(uint32_t x) { return inv_mod_e(x); }

void kh_inv_e_mod(uint32_t *r, const uint32_t *m, unsigned words) { inv_e_mod(r, m, words); }
void kh_double_mod(uint32_t *r, const uint32_t *n, unsigned words) { double_mod(r, n, words); }
int kh_far_apart(const uint32_t *a, const uint32_t *b, unsigned words, unsigned bits)
{
	return far_apart(a, b, words, bits);
}

uint32_t kh_div_64_32(uint64_t n, uint32_t d) { return div_64_32(n, d); }

void kh_times_2_32_mod(uint32_t *k, const uint32_t *a, const uint32_t *c, unsigned words)
{
	times_2_32_mod(k, a, c, words);
}

/* keygen.c's work space (everything keygen_wipe clears), for a check that it is cleared. */
const void *kh_work(void) { return &ks; }
size_t kh_work_size(void) { return sizeof(ks); }

/* mod_small needs the table's reciprocal: p and floor(2^32 / p) are both given by the caller. */
uint32_t kh_mod_small(uint32_t x, uint32_t p, uint32_t recip) { return mod_small(x, p, recip); }

/* The sieve's table, for a check against Python's primes. */
unsigned kh_small_primes(uint16_t *primes, uint16_t *inv4, uint32_t *recip, uint16_t *pow32, unsigned max)
{
	keygen_prepare();
	for (unsigned i = 0; i < small_count && i < max; i++) {
		primes[i] = small_primes[i];
		inv4[i] = small_inv4[i];
		recip[i] = small_recip[i];
		pow32[i] = small_2_32[i];
	}
	return small_count;
}

/* A software backend with pair commands, so that keygen's pair pre-test (times_2_32_mod's constants,
   two candidates at once) runs on the host. Its crt_exp checks each k against 2^(32 (xw + words))
   mod m with bn_mod, counts the mismatches, and computes both powers with the software exp over a
   context of its own (the candidates' contexts have no R^2 on this path). */
unsigned kh_pair_k_mismatches, kh_pair_calls;

static int pair_one(const mont_ctx *m, uint32_t *r, const uint32_t *e, const uint32_t *k, const uint32_t *x,
                    unsigned xw, unsigned ebits)
{
	static uint32_t power[BN_MAX_WORDS + 2], want[BN_MAX_WORDS], base[BN_MAX_WORDS];
	static mont_ctx own;
	unsigned w = m->words;

	bn_zero(power, w + xw + 1);
	power[w + xw] = 1;
	if (bn_mod(want, w, power, w + xw + 1, m->n, w) || mont_init(&own, m->n, w))
		return RSA_ERR_FAULT;
	if (bn_cmp(want, k, w) != 0)
		kh_pair_k_mismatches++;
	bn_zero(base, w);
	bn_copy(base, x, xw);
	return rsa_sw.exp(&own, r, base, e, ebits, 1);
}

static int pair_crt_exp(const mont_ctx *m0, uint32_t *r0, const uint32_t *e0, const uint32_t *k0,
                        const mont_ctx *m1, uint32_t *r1, const uint32_t *e1, const uint32_t *k1,
                        const uint32_t *x, unsigned xw, unsigned ebits)
{
	int err;

	kh_pair_calls++;
	if ((err = pair_one(m0, r0, e0, k0, x, xw, ebits)))
		return err;
	return pair_one(m1, r1, e1, k1, x, xw, ebits);
}

static int pair_mul(const mont_ctx *m, uint32_t *r, const uint32_t *a, const uint32_t *b)
{
	return rsa_sw.mul(m, r, a, b);
}

static int pair_exp(const mont_ctx *m, uint32_t *r, const uint32_t *base, const uint32_t *e, unsigned ebits,
                    int secret)
{
	return rsa_sw.exp(m, r, base, e, ebits, secret);
}

const rsa_backend kh_pair_backend = { pair_mul, pair_exp, pair_crt_exp, BN_MAX_WORDS / 2, NULL };

/* Backends that answer every exponentiation alike, so that the search's walk over the sieve's survivors
   can be followed from Python: `reject` makes every number composite (r = 0: the search visits every
   survivor of its 64 starts, one pre-test each, and fails), `accept` makes every number prime (r = 1:
   p and q are the first survivors the search meets). */
static int fixed_mul(const mont_ctx *m, uint32_t *r, const uint32_t *a, const uint32_t *b)
{
	(void)a; (void)b;
	bn_zero(r, m->words);
	return 0;
}

static int reject_exp(const mont_ctx *m, uint32_t *r, const uint32_t *base, const uint32_t *e, unsigned ebits,
                      int secret)
{
	(void)base; (void)e; (void)ebits; (void)secret;
	bn_zero(r, m->words);
	return 0;
}

static int accept_exp(const mont_ctx *m, uint32_t *r, const uint32_t *base, const uint32_t *e, unsigned ebits,
                      int secret)
{
	(void)base; (void)e; (void)ebits; (void)secret;
	bn_zero(r, m->words);
	r[0] = 1;
	return 0;
}

const rsa_backend kh_reject_backend = { fixed_mul, reject_exp, NULL, 0, NULL };
const rsa_backend kh_accept_backend = { fixed_mul, accept_exp, NULL, 0, NULL };

#endif
