/* Host stand-in for LiteX's generated soc.h: no CONFIG_CPU_HAS_INTERRUPT (firmware/drivers/cycles.h). */
