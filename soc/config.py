"""Facts about the SoC that several parts of the project share (one place for each)."""

SYS_CLK_FREQ = int(100e6)

# The Montgomery peripheral the SoC carries is the peripheral's default configuration,
# gateware.interface.PeripheralConfig() (32 lanes of 32-bit words, operands up to 4096 bits).

# VexRiscv variant, chosen by measured firmware speed (see README, "Choice of CPU variant").
CPU_TYPE = "vexriscv"
CPU_VARIANT = "full"

# The softcores the benchmark supports (LiteX `cpu_type` -> its variants that build and simulate
# here, smallest first), the Python package with each one's sources, and the set `python -m sim cpus all` runs.
# soc/cpus.py parses and checks "type:variant" against this.
CPUS = {
    "vexriscv": ("minimal", "lite", "standard", "full"),
    "picorv32": ("minimal", "standard"),
    "serv":     ("standard",),
}
CPU_PACKAGES = {
    "vexriscv": "pythondata-cpu-vexriscv",
    "picorv32": "pythondata-cpu-picorv32",
    "serv":     "pythondata-cpu-serv",
}
CPUS_ALL = ("vexriscv:minimal", "vexriscv:lite", "vexriscv:standard", "vexriscv:full",
            "picorv32:minimal", "picorv32:standard", "serv:standard")

# Memory map, as on a LiteX board without DRAM: the LiteX BIOS runs from the integrated ROM (its data
# and stack in the small SRAM); the firmware runs from integrated main RAM, either preloaded (the
# bitstream's RAM init, the simulation's `.init` file: the BIOS boots it after its serial-boot
# window) or loaded over the UART by the BIOS's serial boot (`litex_term --kernel`).
ROM_SIZE = 0x10000          # the BIOS; LiteX trims the ROM to the BIOS image
SRAM_SIZE = 0x2000          # the BIOS's data and stack
MAIN_RAM_BASE = 0x40000000  # LiteX's usual `main_ram` origin
# The entropy source's CSR location: the last of the CSR space's eight (16 KiB in 2 KiB pages), so that
# the CSRs LiteX places itself (ctrl, identifier, the peripheral, the timer, the UART) keep the
# addresses they had without it, and the timed code its bytes.
ENTROPY_CSR_LOCATION = 7
# The SHA-256 engine's (soc/sha256.py): pinned too, after the ones LiteX places (the last is the UART's,
# 4), leaving 5 to the next CSR LiteX places itself; every CSR keeps the address it had without it.
SHA256_CSR_LOCATION = 6
# Its bus window's address (an uncached I/O region): pinned, so that the SoC without the Montgomery
# peripheral has it where the one with it does (one firmware image runs on both), and the peripheral's
# data window keeps the address LiteX gives it (the first of the I/O region's).
SHA256_WINDOW_BASE = 0x80010000
# The firmware image with both peer libraries (mbedTLS, BearSSL; README "Peer libraries"): text,
# data, bss and a stack in main RAM. The simulation runs this one. A power of two: the bus decodes a
# power-of-two window onto it, and Verilator's model of a smaller RAM reads past its array on an
# access above the RAM's end (320 KiB crashed it). Grown by multiples of 64 KiB only: the stack sits at
# the top, and such a shift leaves every stack address's place in the (direct-mapped, at most 64 KiB)
# caches as it was, so no count moves. 512 KiB: room for the key generation's code and buffers.
MAIN_RAM_SIZE = 0x80000
# A board's main RAM is the board's own (its module in boards/, MAIN_RAM_SIZE).
# Stack the firmware reserves above its bss (checked when it is linked): three times the deepest it
# has been seen to reach in the simulation, 3,928 bytes (`info` after `bench hw 4096`, `keygen 2048`,
# `keygen 512 ... sw`). Not more: the board's image, with the key generation's console code, has no
# room for a 16 KiB stack.
STACK_SIZE = 0x3000
# The console's UART, on the board (the simulated UART has no baud rate).
UART_BAUDRATE = 115200

# Console line buffer: long enough for `modexp` with three 4096-bit hex operands.
CONSOLE_LINE_MAX = 4096

# Benchmark keys built into the firmware, and the sizes `make bench` runs by default.
KEY_SIZES = (512, 1024, 1536, 2048, 3072, 4096)
BENCH_SIZES = (512, 1024, 2048)
PUBLIC_EXPONENT = 65537
# Seed of the benchmark key generator: the same keys (and so the same cycle counts) on every machine.
KEY_SEED = 20261122
