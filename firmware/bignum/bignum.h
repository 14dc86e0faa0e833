/*
 * Fixed-size big-number arithmetic and Montgomery modular arithmetic on 32-bit limbs.
 *
 * Numbers are little-endian arrays of uint32_t limbs (limb 0 is least significant) with an explicit
 * limb count. There is no dynamic allocation; every buffer is at most BN_MAX_WORDS limbs (double that
 * for full products), and the largest operand size is fixed by the build with -DBN_MAX_BITS=<bits>.
 *
 * The same source builds for the host (unit tests against Python) and for rv32im (VexRiscv firmware).
 *
 * Side channels: everything that touches a modulus or an exponent used by the private RSA operations
 * (mont_mul, mont_sqr, mont_to*, mont_from, mont_exp_ladder, mont_exp_fixed, the modular helpers) runs
 * a sequence of instructions and memory accesses that depends only on the limb count and the given
 * exponent length, not on the values. mont_exp_window is faster and variable-time: use it for public
 * exponents only.
 *
 * Memory: the exponentiations keep their window table (16 entries of BN_MAX_WORDS limbs, or 32 of
 * half that; 8 KiB at BN_MAX_BITS=4096) in a static buffer, so they are not re-entrant (the firmware
 * is single-threaded). Everything else is on the stack: the deepest chain (an exponentiation calling
 * a product) takes about 3.3 KiB at 4096 bits (tests/firmware/test_rv32_build.py checks the frames).
 *
 * Speed: measured on the simulated SoC (VexRiscv "full", cycle counter), `python -m sim run
 * "bench 512"`: one 512-bit mont_mul takes about 7,100 cycles (the `mul sw` line; other sizes with
 * `bench <bits>`).
 */
#ifndef BIGNUM_H
#define BIGNUM_H

#include <stddef.h>
#include <stdint.h>

#ifndef BN_MAX_BITS
#error "BN_MAX_BITS must be defined by the build (e.g. -DBN_MAX_BITS=4096)"
#endif
#if (BN_MAX_BITS) % 64 != 0 || (BN_MAX_BITS) < 64
#error "BN_MAX_BITS must be a positive multiple of 64 (RSA primes take BN_MAX_BITS/2 bits)"
#endif

#define BN_MAX_WORDS (BN_MAX_BITS / 32)
/* The 32-bit words that hold `bits` bits. */
#define BN_WORDS(bits) (((bits) + 31) / 32)

/* Per-modulus Montgomery constants, R = 2^(32*words). Filled by mont_init. */
typedef struct {
	uint32_t n[BN_MAX_WORDS];   /* modulus, odd */
	uint32_t rr[BN_MAX_WORDS];  /* R^2 mod n, R = 2^(32*words) */
	uint32_t one[BN_MAX_WORDS]; /* R mod n (Montgomery form of 1) */
	uint32_t n0inv;             /* -n^-1 mod 2^32 */
	unsigned words;             /* limbs in use */
	uint32_t id;                /* different for every mont_init: who loaded a modulus can tell it is
	                               still the same one (the peripheral backend keeps it loaded) */
} mont_ctx;

/* ---- Plain big-number helpers (variable length, no modulus) ---- */

/* Parse len hex digits (no prefix, either case; leading zeros allowed) into r[0..words-1].
 * Returns 0 on success, -1 on a non-hex character or len == 0, -2 if the value needs more than
 * words limbs. r is cleared on error. */
int bn_from_hex(uint32_t *r, unsigned words, const char *hex, size_t len);

/* Write a as minimal lowercase hex ("0" for zero) plus a terminating NUL into out[0..outlen-1].
 * Returns the number of digits (excluding the NUL), or -1 if outlen is too small. */
int bn_to_hex(char *out, size_t outlen, const uint32_t *a, unsigned words);

/* Number of significant bits of a (0 for zero). */
unsigned bn_bits(const uint32_t *a, unsigned words);

/* Compare a and b: -1 if a < b, 0 if equal, 1 if a > b. Runs in time independent of the values. */
int bn_cmp(const uint32_t *a, const uint32_t *b, unsigned words);
/* An argument check's two comparisons in one pass, n read once: returns 1 if x < n, else 0, and sets
   *same to all ones if n == m, else 0. Constant time: every limb read, no branch on them (cheaper
   than bn_cmp where these answers are all that is wanted). */
int bn_less_same(const uint32_t *x, const uint32_t *n, const uint32_t *m, unsigned words, uint32_t *same);

/* r = a + b (mod 2^(32*words)), returns the carry out (0 or 1). r may alias a and/or b. */
uint32_t bn_add(uint32_t *r, const uint32_t *a, const uint32_t *b, unsigned words);

/* r = a - b (mod 2^(32*words)), returns the borrow out (0 or 1). r may alias a and/or b. */
uint32_t bn_sub(uint32_t *r, const uint32_t *a, const uint32_t *b, unsigned words);

/* r[0..2*words-1] = a * b. r must not overlap a or b. */
void bn_mul(uint32_t *r, const uint32_t *a, const uint32_t *b, unsigned words);

/* r[0..rwords-1] = a mod n for any odd or even n. a has awords limbs (any count), n has nwords limbs
 * (nwords <= BN_MAX_WORDS; leading zero limbs allowed). Constant-time shift-and-subtract in the
 * value of a and n (the loop count depends on the bit lengths). r may alias a.
 * Returns 0 on success, -1 if n == 0, -2 if nwords > BN_MAX_WORDS or rwords is smaller than the
 * significant limbs of n. */
int bn_mod(uint32_t *r, unsigned rwords, const uint32_t *a, unsigned awords,
           const uint32_t *n, unsigned nwords);

/* r = a (limb copy; r may equal a, must not otherwise overlap it) and r = 0. */
void bn_copy(uint32_t *r, const uint32_t *a, unsigned words);
void bn_zero(uint32_t *r, unsigned words);

/* Overwrite len bytes at p with zeros in a way the compiler does not elide (secret clean-up). */
void bn_wipe(void *p, size_t len);

/* ---- Montgomery arithmetic modulo ctx->n; all operands have ctx->words limbs ---- */

/* Precompute the constants for the odd modulus n[0..words-1]. Leading zero limbs are allowed
 * (R is then larger than needed, which is correct but slower). Returns 0, or -1 if n is even or
 * words is 0 or larger than BN_MAX_WORDS. */
int mont_init(mont_ctx *ctx, const uint32_t *n, unsigned words);

/* r = a * b * R^-1 mod n, fully reduced (r < n). Needs a < n and b < n (more generally a*b < n*R).
 * r may alias a and/or b. Coarsely integrated operand scanning (CIOS), two rows (two limbs of b and
 * their two reduction multipliers) per pass, inner loop unrolled by 4, constant-time final subtraction. */
void mont_mul(const mont_ctx *ctx, uint32_t *r, const uint32_t *a, const uint32_t *b);

/* r = a * a * R^-1 mod n (a < n), fully reduced; r may alias a. The full square with each cross
 * product a[i]*a[j] computed once and doubled, then a separate Montgomery reduction (four rows per
 * pass): 3/4 of mont_mul's multiplies, ~0.89x its time on rv32im (the reduction dominates). */
void mont_sqr(const mont_ctx *ctx, uint32_t *r, const uint32_t *a);

/* r = a * R mod n (to the Montgomery domain). Any a < R (not only a < n). r may alias a. */
void mont_to(const mont_ctx *ctx, uint32_t *r, const uint32_t *a);

/* r = a * R mod n for an a of any length awords (e.g. a 2048-bit value modulo a 1024-bit prime),
 * using two Montgomery products per ctx->words limbs of a. r (ctx->words limbs) must not overlap a. */
void mont_to_wide(const mont_ctx *ctx, uint32_t *r, const uint32_t *a, unsigned awords);

/* r = a * R^-1 mod n (out of the Montgomery domain), fully reduced. Any a < R. r may alias a. */
void mont_from(const mont_ctx *ctx, uint32_t *r, const uint32_t *a);

/* r = a + b mod n and r = a - b mod n for a, b < n, constant time. r may alias a and/or b. mont_sub
   holds for any a and b of the context's limbs with -n <= a - b < n: so mont_sub(ctx, r, a, ctx->n)
   reduces an a < 2n. */
void mont_add(const mont_ctx *ctx, uint32_t *r, const uint32_t *a, const uint32_t *b);
void mont_sub(const mont_ctx *ctx, uint32_t *r, const uint32_t *a, const uint32_t *b);

/*
 * Modular exponentiation r = base^e mod n, base and r in the normal domain, base < n, e has
 * ceil(ebits/32) limbs and only its low ebits bits are used (ebits == 0 means e = 0: r = 1 mod n).
 * r may alias base; r must not alias e.
 *
 * mont_exp_window: left-to-right sliding window over odd powers, window width 1..5 chosen by the
 *   exponent length. Variable time (public exponents).
 * mont_exp_ladder: Montgomery ladder, one product and one square per exponent bit for all ebits
 *   bits, operands swapped with masks (no secret-dependent branch or address).
 * mont_exp_fixed: fixed 4- or 5-bit windows over all ebits bits, table entries read with a masked
 *   full-table scan (no secret-dependent branch or address); about the speed of mont_exp_window.
 *   The software RSA private operations use this one.
 */
void mont_exp_window(const mont_ctx *ctx, uint32_t *r, const uint32_t *base, const uint32_t *e, unsigned ebits);
void mont_exp_ladder(const mont_ctx *ctx, uint32_t *r, const uint32_t *base, const uint32_t *e, unsigned ebits);
void mont_exp_fixed(const mont_ctx *ctx, uint32_t *r, const uint32_t *base, const uint32_t *e, unsigned ebits);

/* As above with base and r in the Montgomery domain (base*R mod n in, base^e*R mod n out). */
void mont_exp_window_m(const mont_ctx *ctx, uint32_t *r, const uint32_t *base_m, const uint32_t *e, unsigned ebits);
void mont_exp_ladder_m(const mont_ctx *ctx, uint32_t *r, const uint32_t *base_m, const uint32_t *e, unsigned ebits);
void mont_exp_fixed_m(const mont_ctx *ctx, uint32_t *r, const uint32_t *base_m, const uint32_t *e, unsigned ebits);

/* ---- Key generation's primitives (bignum/gcd.c, bignum/divexact.c; not in the timed region) ---- */

/* a = gcd(a, b) for odd a (words limbs, a and b below 2^bits); b is destroyed (wiped). A fixed number
 * of Bernstein-Yang divsteps for `bits`: no branch or address depends on the values. */
void bn_gcd_odd(uint32_t *a, uint32_t *b, unsigned words, unsigned bits);

/* r = a^-1 mod m for odd m and a < m (words limbs each, below 2^bits), in [0, m); 0, or -1 when
 * gcd(a, m) != 1 (r is then no inverse), -2 when m is even or longer than key generation's halves
 * (BN_MAX_BITS / 2). Bernstein-Yang divsteps, a fixed number for `bits`: no branch or address depends
 * on the values (only the returned verdict). */
int bn_modinv_odd(uint32_t *r, const uint32_t *a, const uint32_t *m, unsigned words, unsigned bits);

/* r = a * m + c (words limbs of a; r has words + 1 limbs). */
void bn_mul_limb_add(uint32_t *r, const uint32_t *a, unsigned words, uint32_t m, uint32_t c);

/* q = a / d for an odd d that divides a exactly (words limbs; q may alias a). No branch, no division. */
void bn_divexact_odd(uint32_t *q, const uint32_t *a, unsigned words, uint32_t d);

#endif /* BIGNUM_H */
