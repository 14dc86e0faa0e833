/* Host stand-in for LiteX's irq.h: nothing (firmware/cycles.h masks no interrupt on the host). */
