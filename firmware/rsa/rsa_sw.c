/* The software backend of rsa.h: the Montgomery arithmetic of bignum.c on the CPU. */
#include "rsa/rsa.h"

static int sw_mul(const mont_ctx *m, uint32_t *r, const uint32_t *a, const uint32_t *b)
{
	mont_mul(m, r, a, b);
	return RSA_OK;
}

/* Secret exponents: fixed windows over ebits bits with a masked table scan (mont_exp_fixed);
   public ones: the faster sliding window. */
static int sw_exp(const mont_ctx *m, uint32_t *r, const uint32_t *base, const uint32_t *e, unsigned ebits,
                  int secret)
{
	if (secret)
		mont_exp_fixed(m, r, base, e, ebits);
	else
		mont_exp_window(m, r, base, e, ebits);
	return RSA_OK;
}

const rsa_backend rsa_sw = { sw_mul, sw_exp, NULL, 0, NULL };
