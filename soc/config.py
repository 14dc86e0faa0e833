"""Facts about the SoC that several parts of the project share (one place for each)."""

SYS_CLK_FREQ = int(100e6)

# VexRiscv variant, chosen by measured firmware speed (see README, "Choice of CPU variant").
CPU_TYPE = "vexriscv"
CPU_VARIANT = "full"

# The softcores the benchmark supports (LiteX `cpu_type` -> its variants that build and simulate
# here, smallest first), the Python package with each one's sources, and the set `--cpus all` runs.
# soc/cpus.py parses and checks "type:variant" against this.
CPUS = {
    "vexriscv": ("minimal", "lite", "standard", "full"),
    "picorv32": ("minimal", "standard"),
    "serv":     ("standard", "mdu"),
}
CPU_PACKAGES = {
    "vexriscv": "pythondata-cpu-vexriscv",
    "picorv32": "pythondata-cpu-picorv32",
    "serv":     "pythondata-cpu-serv",
}
CPUS_ALL = ("vexriscv:minimal", "vexriscv:lite", "vexriscv:standard", "vexriscv:full",
            "picorv32:minimal", "picorv32:standard", "serv:standard", "serv:mdu")

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
