/*
 * Big-number and Montgomery arithmetic on 32-bit limbs (see bignum.h for the contract): one file per
 * layer under bignum/, compiled as this one translation unit, in this order:
 *
 *   bignum/mac.c    multiply-accumulate rows (one and two rows per pass)
 *   bignum/plain.c  plain big numbers: hex, compare, add, subtract, product, reduction, wipe
 *   bignum/mont.c   Montgomery arithmetic: the CIOS product, squaring and reduction, the mont_* API
 *   bignum/exp.c    exponentiations: sliding window, ladder, fixed window
 *
 * Why one unit and not one object per layer: GCC emits a unit's functions in call-graph order, which
 * interleaves the layers (exp.c's table_select lands before plain.c's bn_copy, its mont_exp_*_m
 * between mont_mul and mont_to), and it inlines and allocates registers across them. The timed
 * code's addresses, and through the direct-mapped caches the cycle counts, follow that layout
 * (linker.ld); as one unit the layers build to the code and addresses of the single file they were.
 *
 * Where the time goes: every multiply-accumulate is a uint64_t expression that GCC for rv32im turns
 * into mul + mulhu + add/sltu carry pairs, the carries stay in registers, and the loops are unrolled
 * by 4. RV32 has no carry flag, so a 32x32+32+32 step costs about 8 instructions whatever the
 * arrangement; what remains to save is loads, stores and loop overhead, by working on several rows at
 * once: the product runs two CIOS rows per pass over a, n and t (four products per limb loaded), the
 * reduction four rows per pass over n, the squaring's cross products two rows per pass.
 *
 * Portability: no 64-bit division or variable 64-bit shift (they would need libgcc helpers), no
 * builtin that needs a library routine on rv32im (e.g. __builtin_clz), no libc header (the bare rv32
 * toolchain has none, so copies and clears are the small loops of plain.c). 32-bit % only on lengths.
 */
#include "bignum/bignum.h"
#include "bignum/ct.h"
#include "bignum/exp_window.h"
#include "bignum/mul32.h"

#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#define UNROLL4 _Pragma("GCC unroll 4")
#else
#define ALWAYS_INLINE inline
#define UNROLL4
#endif

#include "bignum/mac.c"
#include "bignum/plain.c"
#include "bignum/mont.c"
#include "bignum/exp.c"
