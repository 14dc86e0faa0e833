/* Host stand-in for LiteX's generated mem.h: the Montgomery peripheral's data window, at an address
   only the stand-ins of the bus accessors (generated/csr.h) compare against. */
#ifndef MONTMUL_DATA_BASE
#define MONTMUL_DATA_BASE 0x80000000L
#endif
