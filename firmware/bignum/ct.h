/*
 * Constant-time helpers on 32-bit words: masks made from secret conditions, and selections by mask,
 * with no branch and no secret-dependent address. A mask is 0 or all ones. Written once here, so
 * that every use says what it does instead of spelling out the bit trick.
 *
 * Macros rather than static inline functions: a macro expands to the very expression it replaced,
 * so the code GCC makes, and with it the timed code's addresses and cycle counts (linker.ld), stays
 * as it was; as inline functions GCC schedules and allocates bn_cmp, bn_mod and the final
 * subtraction differently. Arguments may be evaluated more than once: pass no side effects.
 */
#ifndef CT_H
#define CT_H

#include <stdint.h>

/* All ones if `bit` is 1, 0 if it is 0 (`bit` must be 0 or 1). */
#define ct_mask_from_bit(bit) ((uint32_t)0 - (uint32_t)(bit))

/* All ones if x == y, else 0: x ^ y is 0 exactly when (x ^ y) | -(x ^ y) has no top bit. */
#define ct_eq_mask(x, y) \
	(((((uint32_t)(x) ^ (uint32_t)(y)) | ((uint32_t)0 - ((uint32_t)(x) ^ (uint32_t)(y)))) >> 31) - 1)

/* a where `mask` is all ones, b where it is 0. */
#define ct_select_u32(mask, a, b) (((a) & (mask)) | ((b) & ~(mask)))

#endif
