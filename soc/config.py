"""Facts about the SoC that several parts of the project share (one place for each)."""

SYS_CLK_FREQ = int(100e6)

# VexRiscv variant, chosen by measured firmware speed (see README, "Choice of CPU variant").
CPU_TYPE = "vexriscv"
CPU_VARIANT = "full"

# Firmware runs in place from the integrated ROM; data, bss and stack live in the integrated SRAM.
# Sized for the firmware with both peer libraries (mbedTLS, BearSSL; README "Peer libraries"): it
# needs 133 KB of ROM and 81 KB of static RAM plus its stack, against 95 KB and 45 KB without them.
ROM_SIZE = 0x40000
SRAM_SIZE = 0x20000

# Console line buffer: long enough for `modexp` with three 4096-bit hex operands.
CONSOLE_LINE_MAX = 4096

# Benchmark keys built into the firmware, and the sizes `make bench` runs by default.
KEY_SIZES = (512, 1024, 1536, 2048, 3072, 4096)
BENCH_SIZES = (512, 1024, 2048)
PUBLIC_EXPONENT = 65537
# Seed of the benchmark key generator: the same keys (and so the same cycle counts) on every machine.
KEY_SEED = 20261122
