"""The RSA benchmark SoC: VexRiscv, the LiteX BIOS in integrated ROM, integrated SRAM and main RAM,
UART, a 64-bit cycle counter, the entropy source (soc/entropy.py; its noise by build: `entropy_noise`),
the SHA-256 engine (soc/sha256.py) and (optionally) the Montgomery peripheral. Board targets add a
clock/reset generator and pick the UART.

The firmware lives in main RAM (soc/config.py, "Memory map"): `main_ram_init` preloads it, and the
BIOS jumps there when no host answers its serial-boot request (`ROM_BOOT_ADDRESS`); a host running
`litex_term --kernel firmware.bin` replaces it over the UART instead.
"""

from litex.soc.integration.soc_core import SoCCore

from soc import config, entropy, sha256


class RSABenchSoC(SoCCore):
    def __init__(self, platform, sys_clk_freq=config.SYS_CLK_FREQ, cpu_type=config.CPU_TYPE,
                 cpu_variant=config.CPU_VARIANT, with_montmul=False, montmul_config=None,
                 main_ram_size=config.MAIN_RAM_SIZE, main_ram_init=None, reserved_csrs=None,
                 idle_clock_gate=False, entropy_noise=entropy.RING_OSCILLATORS, **kwargs):
        kwargs.setdefault("uart_name", "serial")
        kwargs.setdefault("uart_baudrate", config.UART_BAUDRATE)
        # A non-empty init makes LiteX mark main RAM as preloaded (CONFIG_MAIN_RAM_INIT: the BIOS
        # does not overwrite it with its memory test). Until the firmware is built, a zero image of
        # the full size keeps the generated Verilog identical (the simulation loads the RAM from its
        # `.init` file when it starts).
        if main_ram_init is None:
            main_ram_init = [0] * (main_ram_size // 4)
        SoCCore.__init__(self, platform, sys_clk_freq,
            ident                    = "RSA benchmark SoC",
            cpu_type                 = cpu_type,
            cpu_variant              = cpu_variant,
            integrated_rom_size      = config.ROM_SIZE,
            integrated_sram_size     = config.SRAM_SIZE,
            integrated_main_ram_size = main_ram_size,
            integrated_main_ram_init = main_ram_init,
            timer_uptime             = True,   # 64-bit cycle counter, latched through the timer's CSRs
            **kwargs)
        assert self.mem_map["main_ram"] == config.MAIN_RAM_BASE
        # The BIOS's boot sequence: serial boot first, then a jump to the preloaded firmware.
        self.add_constant("ROM_BOOT_ADDRESS", config.MAIN_RAM_BASE)

        # CSR locations kept free ({name: location}): the SoC without the peripheral keeps the map of
        # the one with it, so one firmware image runs on both (sim/build.py, build_bare).
        for name, location in (reserved_csrs or {}).items():
            self.csr.add(name, n=location)

        entropy.add_entropy_source(self, entropy_noise)
        sha256.add_sha256_engine(self, idle_clock_gate)

        if with_montmul:
            from soc.montmul import MontgomeryCSR
            self.montmul = MontgomeryCSR(platform, montmul_config, idle_clock_gate=idle_clock_gate)
            self.montmul.add_to_bus(self)
            if self.irq.enabled:
                self.irq.add("montmul", use_loc_if_exists=True)
