/*
 * The peripheral backends of rsa.h (rsa_hw_cpu, and one per exponent scheme the firmware runs on the
 * sequencer: rsa_hw_seq, rsa_hw_seq_window) and what the console asks of the peripheral directly. Every product and exponentiation loads what it needs (modulus,
 * constants, exponent, operands) and reads its result back: the cycles counted include all operand
 * transfers.
 */
#ifndef RSA_HW_H
#define RSA_HW_H

#include <stdint.h>

#include "montmul.h"      /* generated: MONTMUL_SCHEME_IMPLS, the schemes the firmware runs */
#include "rsa/rsa.h"

/* The sequencer's backends, rsa_<impl> for each exponent scheme the firmware runs (MONTMUL_SCHEME_IMPLS,
   from gateware/interface.py's EXPONENT_SCHEMES), defined in rsa_hw.c. */
#define RSA_SCHEME_DECLARE(impl, IMPL, op, pair_op, constant_time) extern const rsa_backend rsa_##impl;
MONTMUL_SCHEME_IMPLS(RSA_SCHEME_DECLARE)
#undef RSA_SCHEME_DECLARE

/* The peripheral's error code of the last command it refused (MONTMUL_ERR_*), or MM_ERR_STUCK when
   it stayed busy and the driver reset it, when a backend function returned RSA_ERR_HW; 0 after
   rsa_hw_forget. */
extern unsigned rsa_hw_error;

/* Within an operation the backends load a modulus once for consecutive calls on it, and the unit
   operand once; this makes the next call load everything again (the benchmark starts each timed
   operation from nothing loaded, so no figure depends on what ran before it). It also resets the
   peripheral and clears rsa_hw_error: every operation starts from a peripheral in a known state,
   whatever a fault left in it before. Call it before an operation, outside its timed region. */
void rsa_hw_forget(void);

/* Average cycles of one MUL issued by the CPU (command write + wait), and of one product inside the
   sequencer (an EXP_LADDER of known length divided by its 2*ebits products), at m's size. 0 or
   RSA_ERR_HW. */
int hw_mul_cycles(const mont_ctx *m, uint32_t *cpu_cycles, uint32_t *seq_cycles);

#endif
