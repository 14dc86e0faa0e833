"""The RSA benchmark SoC: VexRiscv, integrated ROM/SRAM, UART, a 64-bit cycle counter and
(optionally) the Montgomery peripheral. Board targets add a clock/reset generator and pick the UART.
"""

from litex.soc.integration.soc_core import SoCCore

from soc import config


class RSABenchSoC(SoCCore):
    def __init__(self, platform, sys_clk_freq=config.SYS_CLK_FREQ, cpu_type=config.CPU_TYPE,
                 cpu_variant=config.CPU_VARIANT,
                 with_montmul=False, montmul_config=None, rom_init=None, **kwargs):
        kwargs.setdefault("uart_name", "serial")
        # A non-empty ROM image makes LiteX skip its BIOS: our firmware is the ROM. Until it is
        # built, a zero image of the full size keeps the generated Verilog identical (the ROM is
        # loaded from its `.init` file when the simulation starts).
        if rom_init is None:
            rom_init = [0] * (config.ROM_SIZE // 4)
        SoCCore.__init__(self, platform, sys_clk_freq,
            ident                = "RSA benchmark SoC",
            cpu_type             = cpu_type,
            cpu_variant          = cpu_variant,
            integrated_rom_size  = config.ROM_SIZE,
            integrated_rom_init  = rom_init,
            integrated_sram_size = config.SRAM_SIZE,
            timer_uptime         = True,   # 64-bit cycle counter, latched through the timer's CSRs
            **kwargs)

        if with_montmul:
            from soc.montmul import MontgomeryCSR
            self.montmul = MontgomeryCSR(platform, montmul_config)
            if self.irq.enabled:
                self.irq.add("montmul", use_loc_if_exists=True)
