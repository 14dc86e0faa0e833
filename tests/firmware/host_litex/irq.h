/* Host stand-in for LiteX's irq.h: nothing (firmware/drivers/cycles.h masks no interrupt on the host). */
