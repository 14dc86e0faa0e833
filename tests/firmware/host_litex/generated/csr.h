/* Host stand-in for LiteX's generated csr.h: the CSR accessors the peripheral's driver
   (firmware/drivers/montmul_drv.c) and firmware/drivers/cycles.h use, as functions of montmul_recorder.c
   (or fuzz/montmul_model.c), the entropy source's driver (firmware/rand/entropy.c), of entropy_model.c, and
   the SHA-256 engine's (firmware/hash/sha256_hw.c), of sha256_model.c.
   The driver moves operand words with LiteX's bus accessors (hw/common.h, which the real csr.h includes)
   at the peripheral's data window (generated/mem.h): the same stand-ins take them, at that address only. */
#ifndef HOST_CSR_H
#define HOST_CSR_H

#include <stdint.h>

void montmul_cmd_write(uint32_t value);
uint32_t montmul_status_read(void);
void montmul_ctrl_write(uint32_t value);
#define CSR_MONTMUL_CTRL_RESET_OFFSET 0
void csr_write_simple(unsigned long value, unsigned long address);
unsigned long csr_read_simple(unsigned long address);
/* The entropy source's (entropy_model.c); its field positions come as -D flags (bnlib.entropy_defines). */
uint32_t entropy_status_read(void);
uint32_t entropy_data_read(void);
void entropy_ctrl_write(uint32_t value);
/* The SHA-256 engine's (sha256_model.c; its window is in generated/mem.h); its field positions come as -D
   flags (bnlib.sha256_defines). */
void sha256_command_write(uint32_t value);
uint32_t sha256_status_read(void);
void sha256_dma_address_write(uint32_t value);
void sha256_dma_blocks_write(uint32_t value);
void timer0_uptime_latch_write(uint32_t value);
uint64_t timer0_uptime_cycles_read(void);

#endif
