/* Big numbers by a single limb, for key generation (keygen.c): r = a*m + c, and exact division by an
   odd limb. Compiled as an object of its own (bn_divexact.o), which linker.ld places after the timed
   region with the console: the bench's code does not use it. */
#include "bignum/bignum.h"

/* r = a * m + c (words limbs of a; r has words + 1). */
void bn_mul_limb_add(uint32_t *r, const uint32_t *a, unsigned words, uint32_t m, uint32_t c)
{
	uint64_t acc = c;
	for (unsigned i = 0; i < words; i++) {
		acc += (uint64_t)a[i] * m;
		r[i] = (uint32_t)acc;
		acc >>= 32;
	}
	r[words] = (uint32_t)acc;
}

/* q = a / d for an odd d that divides a exactly: multiplication by d^-1 mod 2^32 limb by limb, with
   the borrow carried up (exact division, as in GMP's divexact_1). No branch, no division. */
void bn_divexact_odd(uint32_t *q, const uint32_t *a, unsigned words, uint32_t d)
{
	uint32_t inv = d, c = 0;
	for (int i = 0; i < 4; i++)
		inv *= 2 - d * inv;
	for (unsigned i = 0; i < words; i++) {
		uint32_t s = a[i], l = s - c;
		c = l > s;
		l *= inv;
		q[i] = l;
		c += (uint32_t)(((uint64_t)l * d) >> 32);
	}
}
