/* Host stand-in for LiteX's generated mem.h: the Montgomery peripheral's data window, at an address
   only the stand-ins of the bus accessors (generated/csr.h) compare against; the SHA-256 engine's window,
   the array of its stand-in (sha256_model.c), which the driver's loads and stores reach directly; main
   RAM, where that stand-in's DMA reads, what a test sets (unless the build says). */
#ifndef MONTMUL_DATA_BASE
#define MONTMUL_DATA_BASE 0x80000000L
#endif
#ifndef SHA256_WINDOW_BASE
#include <stdint.h>
extern volatile uint32_t sha256_model_window[];
#define SHA256_WINDOW_BASE ((unsigned long)sha256_model_window)
#endif
#ifndef MAIN_RAM_BASE
extern unsigned long sha256_model_ram_base;
#define MAIN_RAM_BASE sha256_model_ram_base
#endif
#ifndef MAIN_RAM_SIZE
extern unsigned long sha256_model_ram_size;
#define MAIN_RAM_SIZE sha256_model_ram_size
#endif
