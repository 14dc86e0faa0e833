"""Facts about the SoC that several parts of the project share (one place for each)."""

SYS_CLK_FREQ = int(100e6)

# VexRiscv variant, chosen by measured firmware speed (see README, "Choice of CPU variant").
CPU_TYPE = "vexriscv"
CPU_VARIANT = "full"

# Firmware runs in place from the integrated ROM; data, bss and stack live in the integrated SRAM.
ROM_SIZE = 0x20000
SRAM_SIZE = 0x10000

# Console line buffer: long enough for `modexp` with three 4096-bit hex operands.
CONSOLE_LINE_MAX = 4096
