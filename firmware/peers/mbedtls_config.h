/*
 * Our configuration of mbedTLS 2.28.3 for the benchmark (MBEDTLS_CONFIG_FILE, replacing the library's
 * full config.h): big numbers and RSA only, nothing else. The arithmetic options are the library's
 * defaults (MBEDTLS_MPI_WINDOW_SIZE stays at its shipped 2, no assembly: bn_mul.h has none for
 * RISC-V, so the portable C with 64-bit products is what any rv32 user gets).
 *
 * Memory: mbedTLS allocates its big numbers on a heap; the firmware gives it a static pool through
 * the library's own buffer allocator (memory_buffer_alloc.c), so nothing depends on libc's malloc
 * (MBEDTLS_PLATFORM_NO_STD_FUNCTIONS: the library names no libc allocator, printf or exit).
 * MBEDTLS_PKCS1_V15 and MBEDTLS_OID_C are declared because check_config.h requires RSA to come with a
 * padding; the benchmark is raw RSA and calls no padding function, so the padding code (and the
 * oid.c and md.c it would need) is dropped at link time and those modules are not compiled.
 */
#ifndef PEER_MBEDTLS_CONFIG_H
#define PEER_MBEDTLS_CONFIG_H

#define MBEDTLS_BIGNUM_C
#define MBEDTLS_RSA_C
#define MBEDTLS_OID_C
#define MBEDTLS_PKCS1_V15
/* mbedtls_rsa_gen_key and the prime search, for `keygen ... mbedtls` (peer_keygen.c): compiled into
   bignum.c and rsa.c only (firmware/Makefile defines PEER_MBEDTLS_KEYGEN for those two). Elsewhere the
   option would change timed code: rsa_internal.c's mbedtls_rsa_validate_params, which the key import
   runs, would test p and q for primality, and grow. */
#ifdef PEER_MBEDTLS_KEYGEN
#define MBEDTLS_GENPRIME
#endif

#define MBEDTLS_PLATFORM_C
#define MBEDTLS_PLATFORM_MEMORY
#define MBEDTLS_PLATFORM_NO_STD_FUNCTIONS
#define MBEDTLS_MEMORY_BUFFER_ALLOC_C

#include "mbedtls/check_config.h"

#endif
