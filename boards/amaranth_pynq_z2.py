"""The TUL PYNQ-Z2 for Amaranth, and the Montgomery peripheral alone through Amaranth's Xilinx flow.

amaranth-boards has no PYNQ-Z2 (its Arty Z7-20 shares the clock, LEDs and buttons); these
resources follow the same pin facts as `boards/pynq_z2.py` (litex-boards' PYNQ-Z2 platform):
125 MHz on H16, LD0-3, BTN0-3, SW0-1, Arduino AR0/AR1, Pmod JA/JB.

`PeripheralBench` puts the peripheral on the board without a CPU, in the 125 MHz clock domain,
behind a 4-wire serial link on Pmod JA (`SerialBridge`: frames described in its docstring; `SerialTransport`
drives them for `gateware.driver`), so that a vendor place-and-route of the peripheral alone (its timing at
125 MHz) is one command away:

    python -m boards.amaranth_pynq_z2                      # Vivado project files and script
    python -m boards.amaranth_pynq_z2 --toolchain Xray     # yosys + nextpnr-xilinx script
    python -m boards.amaranth_pynq_z2 --build              # run it (needs the toolchain)
"""

import argparse
import sys
from pathlib import Path

from amaranth.build import Attrs, Clock, Connector, Pins, Resource, Subsignal
from amaranth.hdl import Cat, Elaboratable, Module, Signal
from amaranth.lib import io, wiring
from amaranth.lib.cdc import FFSynchronizer
from amaranth.lib.wiring import In, Out
from amaranth.vendor import XilinxPlatform

from common.errors import ProjectError
from gateware.driver import PeripheralError
from gateware.interface import ErrorCode, PeripheralConfig, Status
from gateware.options import add_peripheral_options, peripheral_config

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BUILD_DIR = ROOT / "build" / "amaranth_pynq_z2"

_LVCMOS33 = Attrs(IOSTANDARD="LVCMOS33")


class PynqZ2Platform(XilinxPlatform):
    device      = "xc7z020"
    package     = "clg400"
    speed       = "1"
    default_clk = "clk125"

    resources = [
        Resource("clk125", 0, Pins("H16", dir="i"), Clock(125e6), _LVCMOS33),

        *[Resource("led", i, Pins(pin, dir="o"), _LVCMOS33)
          for i, pin in enumerate("R14 P14 N16 M14".split())],
        *[Resource("button", i, Pins(pin, dir="i"), _LVCMOS33)
          for i, pin in enumerate("D19 D20 L20 L19".split())],
        *[Resource("switch", i, Pins(pin, dir="i"), _LVCMOS33)
          for i, pin in enumerate("M20 M19".split())],

        # A 3.3 V USB-serial adapter on the Arduino header: AR0 is our TX, AR1 our RX.
        Resource("uart", 0,
            Subsignal("tx", Pins("T14", dir="o")),
            Subsignal("rx", Pins("U12", dir="i")),
            _LVCMOS33),
        # A Digilent Pmod USBUART on JB (pins 2 and 3, as litex-boards' `usb_uart`).
        Resource("uart", 1,
            Subsignal("tx", Pins("2", dir="o", conn=("pmod", 1))),
            Subsignal("rx", Pins("3", dir="i", conn=("pmod", 1))),
            _LVCMOS33),
    ]
    connectors = [
        Connector("pmod", 0, "Y18 Y19 Y16 Y17 - - U18 U19 W18 W19 - -"),   # JA
        Connector("pmod", 1, "W14 Y14 T11 T10 - - V16 W16 V12 W13 - -"),   # JB
    ]


#: The bench's serial link on Pmod JA, pins 1-4.
LINK_RESOURCE = Resource("bench_link", 0,
    Subsignal("sck",  Pins("1", dir="i", conn=("pmod", 0))),
    Subsignal("copi", Pins("2", dir="i", conn=("pmod", 0))),
    Subsignal("cipo", Pins("3", dir="o", conn=("pmod", 0))),
    Subsignal("cs_n", Pins("4", dir="i", conn=("pmod", 0))),
    _LVCMOS33)


#: What a frame does at its end, by the 2-bit register it carries ("none": nothing, the frame only reads).
FRAME_REGISTERS = {"cmd": 0, "wdata": 1, "rdata": 2, "none": 3}
#: Bytes of a frame each way, MSB first.  Out: 30 zero bits, the register, 32 data bits.  In: the status
#: word, then rdata.
FRAME_BYTES = 8


class SerialBridge(wiring.Component):
    """The peripheral's bus ports behind a serial link (SPI mode 0, MSB first, sck well below
    the clock: the inputs are synchronised and sampled).

    A frame (cs_n low) carries 34 bits in: a 2-bit register then 32 data bits. At the end of the
    frame the register is written (`FRAME_REGISTERS`): 0 `cmd`, 1 `wdata`, 2 advances `rdata` (a
    read), 3 nothing.
    The 64 bits out are `status` then `rdata`, as they were when the frame started. The same
    contract as the CSRs of `soc/montmul.py` (gateware/interface.py), without a CPU."""

    sck:       In(1)
    copi:      In(1)
    cs_n:      In(1, init=1)
    cipo:      Out(1)

    cmd:       Out(32)
    cmd_stb:   Out(1)
    wdata:     Out(32)
    wdata_stb: Out(1)
    rdata:     In(32)
    rdata_stb: Out(1)
    status:    In(32)

    def elaborate(self, platform):
        m = Module()
        sck, copi, cs_n = Signal(), Signal(), Signal(init=1)
        m.submodules += [FFSynchronizer(self.sck, sck), FFSynchronizer(self.copi, copi),
                         FFSynchronizer(self.cs_n, cs_n, init=1)]
        sck_prev, cs_prev = Signal(), Signal(init=1)
        m.d.sync += [sck_prev.eq(sck), cs_prev.eq(cs_n)]

        shift_in, shift_out = Signal(34), Signal(64)
        word = Signal(32)
        m.d.comb += self.cipo.eq(shift_out[-1])
        with m.If(cs_prev & ~cs_n):                     # frame start
            m.d.sync += shift_out.eq(Cat(self.rdata, self.status))
        with m.Elif(~cs_n & sck & ~sck_prev):           # rising edge of sck
            m.d.sync += [shift_in.eq(Cat(copi, shift_in[:-1])), shift_out.eq(shift_out << 1)]

        register = shift_in[32:]
        strobes = {FRAME_REGISTERS[port]: getattr(self, f"{port}_stb") for port in ("cmd", "wdata", "rdata")}
        m.d.sync += [stb.eq(0) for stb in strobes.values()]
        with m.If(~cs_prev & cs_n):                     # frame end
            m.d.sync += word.eq(shift_in[:32])
            m.d.sync += [stb.eq(register == value) for value, stb in strobes.items()]
        m.d.comb += [self.cmd.eq(word), self.wdata.eq(word)]
        return m


class SerialTransport:
    """``gateware.driver``'s transport over `SerialBridge` frames.  ``await link.exchange(frame)`` sends
    the bytes of one frame with cs_n low and returns the bytes read meanwhile: an SPI master in mode 0
    (or the simulated one of the tests).  A frame lasts far longer than the 2 cycles rdata takes to
    follow the read pointer, so `tick` has nothing to do; neither cycles nor irqs can be seen from here
    (`wait` returns None, `irqs` is None)."""

    irqs = None

    def __init__(self, link):
        self.link = link

    async def _frame(self, register, data=0):
        frame = (FRAME_REGISTERS[register] << 32 | data).to_bytes(FRAME_BYTES, "big")
        answer = int.from_bytes(await self.link.exchange(frame), "big")
        return answer >> 32, answer & 0xffff_ffff

    async def strobe(self, port, value=0):
        await self._frame(port, value)

    async def tick(self, count=1):
        pass

    async def sample(self):
        return await self._frame("none")

    async def wait(self, busy_mask, limit):
        """Polls the status (``limit`` counts polls)."""
        for _ in range(limit):
            status, _ = await self.sample()
            if not status & busy_mask:
                return None
        raise PeripheralError(f"still busy after {limit} status reads")


class LinkedPeripheral(wiring.Component):
    """The Montgomery peripheral behind a `SerialBridge`: the bench without its pins and LEDs."""

    sck:    In(1)
    copi:   In(1)
    cs_n:   In(1, init=1)
    cipo:   Out(1)
    status: Out(Status)

    def __init__(self, config=PeripheralConfig()):
        self.config = config
        super().__init__()

    def elaborate(self, platform):
        from gateware.montmul import MontgomeryPeripheral

        m = Module()
        m.submodules.peripheral = peripheral = MontgomeryPeripheral(self.config)
        m.submodules.bridge = bridge = SerialBridge()
        for name in ("cmd", "cmd_stb", "wdata", "wdata_stb", "rdata_stb"):
            m.d.comb += getattr(peripheral, name).eq(getattr(bridge, name))
        m.d.comb += [bridge.rdata.eq(peripheral.rdata), bridge.status.eq(peripheral.status),
                     self.status.eq(peripheral.status)]
        m.d.comb += [bridge.sck.eq(self.sck), bridge.copi.eq(self.copi), bridge.cs_n.eq(self.cs_n),
                     self.cipo.eq(bridge.cipo)]
        return m


class PeripheralBench(Elaboratable):
    """The Montgomery peripheral on the board without a CPU, in the 125 MHz domain, driven over
    `SerialBridge` on Pmod JA pins 1-4 (sck, copi, cipo, cs_n).
    LD0 blinks, LD1 busy (held 50 ms), LD2 done, LD3 error."""

    def __init__(self, config=None):
        self.config = config

    def elaborate(self, platform):
        m = Module()
        m.submodules.linked = linked = LinkedPeripheral(self.config or PeripheralConfig())

        platform.add_resources([LINK_RESOURCE])
        link = platform.request("bench_link", 0, dir="-")
        for name in ("sck", "copi", "cipo", "cs_n"):
            m.submodules[f"link_{name}"] = pad = io.Buffer("o" if name == "cipo" else "i", getattr(link, name))
            if name == "cipo":
                m.d.comb += pad.o.eq(linked.cipo)
            else:
                m.d.comb += getattr(linked, name).eq(pad.i)

        # LEDs.
        clk_freq = int(platform.default_clk_frequency)
        blink, hold = Signal(range(clk_freq // 2)), Signal(range(clk_freq // 20 + 1))
        heartbeat = Signal()
        with m.If(blink == 0):
            m.d.sync += [blink.eq(clk_freq // 2 - 1), heartbeat.eq(~heartbeat)]
        with m.Else():
            m.d.sync += blink.eq(blink - 1)
        with m.If(linked.status.busy):
            m.d.sync += hold.eq(clk_freq // 20)
        with m.Elif(hold != 0):
            m.d.sync += hold.eq(hold - 1)
        leds = []
        for i in range(4):
            m.submodules[f"led{i}"] = led = io.Buffer("o", platform.request("led", i, dir="-"))
            leds.append(led.o)
        m.d.comb += [leds[0].eq(heartbeat), leds[1].eq(hold != 0),
                     leds[2].eq(linked.status.done), leds[3].eq(linked.status.error != ErrorCode.NONE)]
        return m


TOOLCHAINS = ("Vivado", "Xray")


def prepare(build_dir=DEFAULT_BUILD_DIR, toolchain="Vivado", config=None, name="montmul_pynq_z2"):
    """Writes the Verilog, constraints and build script of `PeripheralBench` for `toolchain`
    (Amaranth's `build(..., do_build=False)` plan, extracted); returns (platform, build_dir)."""
    from eda.synth import amaranth_uses_yowasp

    platform = PynqZ2Platform(toolchain=toolchain)
    with amaranth_uses_yowasp():      # Amaranth writes its Verilog with Yosys
        plan = platform.build(PeripheralBench(config), name=name, do_build=False)
    build_dir = Path(build_dir)
    plan.extract(build_dir)
    return platform, build_dir


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m boards.amaranth_pynq_z2",
                                     description="The Montgomery peripheral alone on the PYNQ-Z2 (Amaranth's Xilinx flow).")
    parser.add_argument("--toolchain", choices=TOOLCHAINS, default="Vivado")
    parser.add_argument("--build-dir", type=Path, default=DEFAULT_BUILD_DIR)
    parser.add_argument("--build", action="store_true", help="run the toolchain's script")
    add_peripheral_options(parser.add_argument_group("peripheral configuration"))
    args = parser.parse_args(argv)
    try:
        config = peripheral_config(args)
    except ProjectError as error:
        parser.error(str(error))
    name = "montmul_pynq_z2"
    platform, build_dir = prepare(args.build_dir, args.toolchain, config, name=name)
    print(f"generated in {build_dir}: {name}.v, {name}.xdc, build_{name}.sh")
    if args.build:
        if not platform.has_required_tools():
            missing = [tool for tool in platform.required_tools if not _has_tool(tool)]
            print(f"error: cannot build with {args.toolchain}: {', '.join(missing)} not found "
                  f"(or set {platform._toolchain_env_var}); the script is {build_dir}/build_{name}.sh",
                  file=sys.stderr)
            return 1
        import subprocess
        return subprocess.call(["sh", f"build_{name}.sh"], cwd=build_dir)
    return 0


def _has_tool(name):
    from amaranth._toolchain import has_tool
    return has_tool(name)


if __name__ == "__main__":
    sys.exit(main())
