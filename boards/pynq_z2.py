"""TUL PYNQ-Z2 (xc7z020clg400-1): the benchmark SoC in the Zynq's programmable logic.

Only the fabric is used (the PS7 is not instantiated): the 125 MHz oscillator on H16 feeds a PLL
that makes the system clock, BTN0 resets the SoC, LD0 is a heartbeat and LD1 lights while the
Montgomery peripheral is busy. The board's own USB-UART is wired to the PS, so the console is one
of (`--uart`):

- `usb-pmod`  a Digilent Pmod USBUART on JB (litex-boards' `usb_uart` resource);
- `arduino`   a 3.3 V USB-serial adapter on the Arduino header: AR0 (T14) is the SoC's TX,
              AR1 (U12) its RX;
- `jtag`      LiteX's JTAG-UART (a BSCANE2 in the fabric), reached through the board's USB/JTAG.

The entropy source's raw bits come from ring oscillators in the fabric, with the constraints they need
(kept cells, the combinational loops allowed); `--deterministic-entropy` puts an LFSR in their place
for reproducible runs, which the firmware's `info` then reports (soc/entropy.py).

IOs come from litex-boards' PYNQ-Z2 platform; unlike its target, ours honours `--toolchain` and
`--uart`. Runnable, as litex-boards' targets are (the flow is in `soc/board_build.py`):

    python -m boards.pynq_z2                  # generate Verilog, constraints, firmware
    python -m boards.pynq_z2 --report         # + Yosys utilisation and timing estimate of the whole SoC
    python -m boards.pynq_z2 --build --load   # + bitstream (Vivado by default), program it
    python -m boards.pynq_z2 --help           # every option (LiteX's usual target flags)
"""

import os
import shutil

from migen import ClockDomain, If, Signal

from litex.gen import LiteXModule
from litex.build.xilinx import Xilinx7SeriesPlatform
from litex.build.xilinx.yosys_nextpnr import XilinxYosysNextpnrToolchain
from litex.build.yosys_nextpnr_toolchain import YosysNextPNRToolchain
from litex.soc.cores.clock import S7PLL

from litex_boards.platforms import tul_pynq_z2 as _stock

from common.errors import reports_errors
from common.paths import BUILD_DIR
from gateware.options import add_peripheral_options, peripheral_config
from soc import config, entropy
from soc.soc import RSABenchSoC

#: The FPGA part (eda/devices.py has its resources: the report's utilisation and margins).
DEVICE = "xc7z020clg400-1"
#: Main RAM: the image leaves the peer libraries and the PKCS#1 vectors out to stay within the board's
#: BRAM budget, and has the TLS server and the device's random generator (docs/pynq_z2.md, docs/tls.md);
#: this is sized for that firmware (about 213 KiB with its stack) with a little room: 54 BRAM36, which keeps
#: the SoC within its BRAM budget (eda/devices.py).
MAIN_RAM_SIZE = 0x36000
CLK125_FREQ = 125e6

#: `--uart` choice -> LiteX `uart_name` (a platform resource, or the JTAG-UART).
UARTS = {
    "usb-pmod": "usb_uart",
    "arduino":  "serial",
    "jtag":     "jtag_uart",
}
DEFAULT_UART = "usb-pmod"

#: The programs each open `--toolchain`'s build script calls.
OPEN_TOOLS = {
    "yosys+nextpnr": ("yosys", "nextpnr-xilinx", "fasm2frames.py", "xc7frames2bit"),
    "openxc7":       ("yosys", "nextpnr-xilinx", "fasm2frames", "xc7frames2bit"),
}


# Platform -----------------------------------------------------------------------------------------

class Platform(Xilinx7SeriesPlatform):
    default_clk_name   = "clk125"
    default_clk_period = 1e9 / CLK125_FREQ
    # The toolchains this target knows how to check and run (LiteX also lists f4pga: not wired up).
    _supported_toolchains = {"7series": ["vivado", *OPEN_TOOLS]}

    def __init__(self, toolchain="vivado"):
        Xilinx7SeriesPlatform.__init__(self, DEVICE, _stock._io, _stock._connectors,
                                       toolchain=toolchain, name="pynq_z2")
        self.add_extension(_stock._usb_uart_pmod_io)
        self.toolchain_name = toolchain
        if toolchain in OPEN_TOOLS:
            self.toolchain = _OpenXilinxToolchain(toolchain)
            self.toolchain.platform = self      # known before a build: missing_tools() asks it

    def do_finalize(self, fragment):
        Xilinx7SeriesPlatform.do_finalize(self, fragment)
        self.add_period_constraint(self.lookup_request("clk125", loose=True), 1e9 / CLK125_FREQ)

    def missing_tools(self):
        """What the chosen toolchain needs to turn the generated files into a bitstream and this
        machine lacks, as (what, hint) pairs; empty when the build can run."""
        if self.toolchain_name == "vivado":
            if shutil.which("vivado") or os.getenv("LITEX_ENV_VIVADO"):
                return []
            return [("vivado", "put Vivado on PATH or set LITEX_ENV_VIVADO to its settings directory")]
        if self.toolchain_name in OPEN_TOOLS:
            missing = [(tool, "not on PATH") for tool in OPEN_TOOLS[self.toolchain_name]
                       if shutil.which(tool) is None]
            chipdb, prjxray_db = self.toolchain.databases()
            if not os.path.isfile(chipdb):
                missing.append(("nextpnr-xilinx chip database", chipdb))
            if not os.path.isdir(prjxray_db):
                missing.append(("prjxray-db", prjxray_db))
            return missing
        return [(self.toolchain_name, "toolchain not supported by this target")]

    def create_programmer(self, programmer="auto"):
        """`vivado` (hardware manager; the PL is device 1 behind the ARM DAP) or `openfpgaloader`
        (`--board pynq_z2`). `auto` takes the first one installed."""
        if programmer == "auto":
            programmer = "vivado" if shutil.which("vivado") else "openfpgaloader"
        if programmer == "vivado":
            from litex.build.xilinx import VivadoProgrammer
            return VivadoProgrammer(), "vivado", {"device": 1}
        from litex.build.openfpgaloader import OpenFPGALoader
        return OpenFPGALoader(board="pynq_z2"), "openFPGALoader", {}


class _OpenXilinxToolchain(XilinxYosysNextpnrToolchain):
    """LiteX 2024.12 exits in `finalize()` when nextpnr-xilinx's chip database or prjxray-db is
    missing, before it writes the constraints and the build script, even when nothing is to be
    run. Without them we write the same options, pointing where the databases are expected;
    `Platform.missing_tools()` then says what is missing before anything runs."""

    def databases(self):
        self._check_properties()
        if self.is_openxc7:
            chipdb_dir = os.environ.get("CHIPDB") or "$CHIPDB"
            prjxray_db = (os.environ.get("PRJXRAY_DB_DIR")
                          or "/snap/openxc7/current/opt/nextpnr-xilinx/external/prjxray-db/")
        else:
            chipdb_dir = "/usr/share/nextpnr/xilinx-chipdb"
            prjxray_db = "/usr/share/nextpnr/prjxray-db/"
        return os.path.join(chipdb_dir, self.dbpart + ".bin"), prjxray_db

    def finalize(self):
        chipdb, prjxray_db = self.databases()
        # openxc7 generates a missing chip database itself when its tools are there.
        can_make_chipdb = self.is_openxc7 and os.environ.get("CHIPDB") and shutil.which("bbasm")
        if os.path.isdir(prjxray_db) and (os.path.isfile(chipdb) or can_make_chipdb):
            return super().finalize()
        top = self._build_name
        db_root = os.path.join(prjxray_db, self._xc7family)
        self._pnr_opts += f"--chipdb {chipdb} --write {top}_routed.json"
        self._pre_packer_opts[self._pre_packer_cmd[0]] = (
            f"--part {self.device} --db-root {db_root} {top}.fasm > {top}.frames")
        self._packer_opts += (f"--part_file {db_root}/{self.device}/part.yaml --part_name {self.device} "
                              f"--frm_file {top}.frames --output_file {top}.bit")
        return YosysNextPNRToolchain.finalize(self)


# CRG ----------------------------------------------------------------------------------------------

class _CRG(LiteXModule):
    def __init__(self, platform, sys_clk_freq):
        self.rst    = Signal()
        self.cd_sys = ClockDomain()

        # # #

        self.pll = pll = S7PLL(speedgrade=-1)
        self.comb += pll.reset.eq(platform.request("user_btn", 0) | self.rst)
        pll.register_clkin(platform.request("clk125"), CLK125_FREQ)
        pll.create_clkout(self.cd_sys, sys_clk_freq)
        # The SoC's reset reaches back into the PLL: not a timed path.
        platform.add_false_path_constraints(self.cd_sys.clk, pll.clkin)


# LEDs ---------------------------------------------------------------------------------------------

class StatusLeds(LiteXModule):
    """`heartbeat` blinks at 1 Hz while the system clock runs; `busy` lights while the peripheral
    is busy, held for at least `hold_s` so that a single product (microseconds) is visible."""
    def __init__(self, heartbeat, busy_led, busy, sys_clk_freq, hold_s=0.05):
        half_period = int(sys_clk_freq // 2)
        hold        = int(sys_clk_freq * hold_s)
        blink_count = Signal(max=half_period)
        hold_count  = Signal(max=hold + 1)

        # # #

        self.sync += [
            If(blink_count == 0,
                blink_count.eq(half_period - 1),
                heartbeat.eq(~heartbeat),
            ).Else(
                blink_count.eq(blink_count - 1),
            ),
            If(busy,
                hold_count.eq(hold),
            ).Elif(hold_count != 0,
                hold_count.eq(hold_count - 1),
            ),
        ]
        self.comb += busy_led.eq(hold_count != 0)


# BaseSoC ------------------------------------------------------------------------------------------

class BaseSoC(RSABenchSoC):
    """The benchmark SoC on the PYNQ-Z2; `main_ram_init` is the firmware image (see soc/board_build.py)."""
    def __init__(self, toolchain="vivado", sys_clk_freq=config.SYS_CLK_FREQ, uart=DEFAULT_UART,
                 with_montmul=True, deterministic_entropy=False, **kwargs):
        platform = Platform(toolchain=toolchain)
        sys_clk_freq = int(sys_clk_freq)

        # CRG --------------------------------------------------------------------------------------
        self.crg = _CRG(platform, sys_clk_freq)

        # SoC --------------------------------------------------------------------------------------
        kwargs.setdefault("uart_name", UARTS[uart])
        kwargs.setdefault("main_ram_size", MAIN_RAM_SIZE)
        noise = entropy.DETERMINISTIC if deterministic_entropy else entropy.RING_OSCILLATORS
        RSABenchSoC.__init__(self, platform, sys_clk_freq, with_montmul=with_montmul, entropy_noise=noise, **kwargs)
        if noise == entropy.RING_OSCILLATORS:
            platform.add_platform_command(entropy.ring_constraints())

        # LEDs (without the peripheral, for its cost in `python -m sim cpus` reports: LD1 stays dark) ----------
        self.leds = StatusLeds(
            heartbeat    = platform.request("user_led", 0),
            busy_led     = platform.request("user_led", 1),
            busy         = self.montmul.busy if with_montmul else 0,
            sys_clk_freq = sys_clk_freq)


# OpenOCD (JTAG-UART) ------------------------------------------------------------------------------

#: The board's USB/JTAG is channel A of its FT2232HQ; the Zynq's chain holds the PL's TAP and the
#: ARM DAP (OpenOCD's `target/zynq_7000.cfg`). LiteX's OpenOCD stream recognises "zynq_7000" in
#: the file and addresses the `zynq_pl.bs` TAP.
OPENOCD_CONFIG = """\
# PYNQ-Z2 on-board USB/JTAG (FT2232HQ channel A), Zynq-7000 chain: for `litex_term jtag`.
adapter driver ftdi
ftdi vid_pid 0x0403 0x6010
ftdi channel 0
ftdi layout_init 0x0088 0x008b
reset_config none
adapter speed 10000
source [find target/zynq_7000.cfg]
"""


def write_openocd_config(directory):
    path = os.path.join(directory, "openocd_pynq_z2.cfg")
    os.makedirs(directory, exist_ok=True)
    with open(path, "w") as f:
        f.write(OPENOCD_CONFIG)
    return path


# Build --------------------------------------------------------------------------------------------

#: soc_core arguments the benchmark SoC fixes itself (soc/config.py) or takes from our options.
_FIXED_SOC_ARGS = ("cpu_type", "cpu_variant", "integrated_rom_size", "integrated_rom_init",
                   "integrated_sram_size", "integrated_main_ram_size", "integrated_main_ram_init",
                   "timer_uptime", "uart_name", "ident")


def argument_parser(prog="python -m boards.pynq_z2"):
    # LiteX 2024.12: importing litex.build.parser first is a circular import; the builder first.
    from litex.soc.integration import builder as _builder  # noqa: F401
    from litex.build.parser import LiteXArgumentParser

    parser = LiteXArgumentParser(platform=Platform)
    # LiteXArgumentParser hands its keyword arguments to argparse as one positional (the prog): set them here
    parser.prog, parser.description = prog, "RSA benchmark SoC on the TUL PYNQ-Z2."
    parser.add_target_argument("--sys-clk-freq", default=config.SYS_CLK_FREQ, type=float,
                               help="System clock frequency.")
    parser.add_target_argument("--uart", default=DEFAULT_UART, choices=list(UARTS),
                               help="Console: Pmod USBUART on JB, USB-serial adapter on AR0/AR1, "
                                    "or JTAG-UART.")
    parser.add_target_argument("--programmer", default="auto", choices=("auto", "vivado", "openfpgaloader"),
                               help="Tool for --load (auto: vivado if installed, else openFPGALoader).")
    parser.add_target_argument("--deterministic-entropy", action="store_true",
                               help="An LFSR in place of the entropy source's ring oscillators: reproducible "
                                    "runs, no secret randomness (the firmware's `info` says so).")
    parser.add_target_argument("--report", action="store_true",
                               help="Synthesise the whole SoC with Yosys for xc7z020: utilisation and timing estimate.")
    add_peripheral_options(parser.target_group)     # `python -m gateware --sweep` compares lane counts
    parser.set_defaults(cpu_type=config.CPU_TYPE, cpu_variant=None,
                        output_dir=str(BUILD_DIR / "pynq_z2"))
    return parser


@reports_errors
def main(argv=None, prog="python -m boards.pynq_z2"):
    from soc import board_build

    parser = argument_parser(prog)
    args = parser.parse_args(argv)
    from soc import cpus
    cpu = cpus.parse(args.cpu_type, variant=args.cpu_variant)       # one-line error if unsupported
    cpus.require_sources(cpu)

    montmul_config = peripheral_config(args)
    soc_kwargs = {k: v for k, v in parser.soc_argdict.items() if k not in _FIXED_SOC_ARGS}
    if args.uart_name != "serial":      # an explicit --uart-name wins over --uart
        soc_kwargs["uart_name"] = args.uart_name

    def make_soc(main_ram_init=None):
        return BaseSoC(toolchain=args.toolchain, sys_clk_freq=args.sys_clk_freq, uart=args.uart,
                       cpu_type=cpu.type, cpu_variant=cpu.variant, montmul_config=montmul_config,
                       deterministic_entropy=args.deterministic_entropy, main_ram_init=main_ram_init, **soc_kwargs)

    board_build.run(
        make_soc,
        build_dir      = args.output_dir,
        builder_kwargs = {k: v for k, v in parser.builder_argdict.items()
                          if k not in ("output_dir", "compile_software", "compile_gateware")},
        build_kwargs   = parser.toolchain_argdict,
        build          = args.build,
        load           = args.load,
        report         = args.report,
        programmer     = args.programmer,
        extra_files    = {"OpenOCD cfg": write_openocd_config} if args.uart == "jtag" else {},
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
