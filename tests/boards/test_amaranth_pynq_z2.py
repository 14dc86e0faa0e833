"""The PYNQ-Z2 for Amaranth: Amaranth's Xilinx flow writes its files for the peripheral bench."""

import re

import pytest

from boards import amaranth_pynq_z2 as board

NAME = "montmul_pynq_z2"
#: A small peripheral: the flow's files are the same, the conversion takes a second, not half a minute.
SMALL = {"max_bits": 512, "lanes": 4, "word_bits": 16}


def locs(xdc):
    return dict((port, pin) for pin, port in re.findall(r'set_property LOC (\w+) \[get_ports "?([\w]+)"?\]', xdc))


@pytest.mark.parametrize("toolchain, tool", [("Vivado", "vivado"), ("Xray", "nextpnr-xilinx")])
def test_build_files(tmp_path, toolchain, tool):
    from gateware.interface import PeripheralConfig
    _, build_dir = board.prepare(tmp_path, toolchain, PeripheralConfig(**SMALL), name=NAME)
    verilog = (build_dir / f"{NAME}.v").read_text()
    assert "module montmul_pynq_z2" in verilog and "DSP48E1" not in verilog   # inferred later
    script = (build_dir / f"build_{NAME}.sh").read_text()
    if toolchain == "Vivado":
        script += (build_dir / f"{NAME}.tcl").read_text()
        assert "xc7z020clg400-1" in script
    assert tool in script
    pins = locs((build_dir / f"{NAME}.xdc").read_text())
    assert pins["clk125_0__io"] == "H16"
    assert [pins[f"led_{i}__io"] for i in range(4)] == ["R14", "P14", "N16", "M14"]
    assert [pins[f"bench_link_0__{s}__io"] for s in ("sck", "copi", "cipo", "cs_n")] == ["Y18", "Y19", "Y16", "Y17"]


def test_cli_without_toolchain(tmp_path, capsys):
    assert board.main(["--toolchain", "Xray", "--build-dir", str(tmp_path), "--build",
                       "--montmul-max-bits", str(SMALL["max_bits"]), "--montmul-lanes", str(SMALL["lanes"]),
                       "--montmul-word-bits", str(SMALL["word_bits"])]) == 1
    err = capsys.readouterr().err
    assert "nextpnr-xilinx" in err and f"build_{NAME}.sh" in err


class SimulatedLink:
    """An SPI master (mode 0, MSB first, sck slow against the clock) bit-banged from a testbench."""

    def __init__(self, ctx, dut):
        self.ctx = ctx
        self.dut = dut

    async def exchange(self, frame):
        ctx, dut = self.ctx, self.dut
        bits, read = int.from_bytes(frame, "big"), 0
        ctx.set(dut.cs_n, 0)
        await ctx.tick().repeat(4)
        for i in reversed(range(8 * len(frame))):
            ctx.set(dut.copi, (bits >> i) & 1)
            await ctx.tick().repeat(3)
            read = read << 1 | ctx.get(dut.cipo)
            ctx.set(dut.sck, 1)
            await ctx.tick().repeat(3)
            ctx.set(dut.sck, 0)
        await ctx.tick().repeat(3)
        ctx.set(dut.cs_n, 1)
        await ctx.tick().repeat(6)
        return read.to_bytes(len(frame), "big")


def test_serial_bridge():
    """The transport's frames give the bridge's strobes and words, and read back status and rdata."""
    from amaranth.sim import Simulator

    dut = board.SerialBridge()
    strobes = []

    async def monitor(ctx):
        async for _, _, cmd_stb, wdata_stb, rdata_stb, word in ctx.tick().sample(
                dut.cmd_stb, dut.wdata_stb, dut.rdata_stb, dut.cmd):
            for name, stb in (("cmd", cmd_stb), ("wdata", wdata_stb), ("rdata", rdata_stb)):
                if stb:
                    strobes.append((name, word))

    async def bench(ctx):
        transport = board.SerialTransport(SimulatedLink(ctx, dut))
        ctx.set(dut.status, 0x0000_0102)
        ctx.set(dut.rdata, 0xCAFE_F00D)
        assert await transport.sample() == (0x0000_0102, 0xCAFE_F00D)
        await transport.strobe("cmd", 0x1234_5678)
        await transport.strobe("wdata", 0x9ABC_DEF0)
        ctx.set(dut.rdata, 0x0BAD_BEEF)
        await transport.strobe("rdata")
        assert await transport.sample() == (0x0000_0102, 0x0BAD_BEEF)

    sim = Simulator(dut)
    sim.add_clock(8e-9)
    sim.add_process(monitor)
    sim.add_testbench(bench)
    sim.run()
    assert strobes == [("cmd", 0x1234_5678), ("wdata", 0x9ABC_DEF0), ("rdata", 0)]


def test_driver_over_the_serial_link():
    """The bench's peripheral and bridge in simulation, driven over the link by gateware.driver: the same
    statuses and slot contents as the model gives."""
    from amaranth.sim import Simulator

    from gateware.driver import Driver, PeripheralModelTransport, complete
    from gateware.interface import ErrorCode, Opcode, PeripheralConfig
    from gateware.model import PeripheralModel, mont_mul

    config = PeripheralConfig(max_bits=64, lanes=4, word_bits=16)
    size, nw = 4, config.bus_words(4)
    n = (1 << 64) - 59
    a, b, e = n // 3, n // 7, 0b1011

    async def scenario(d):
        seen = [(await d.run(Opcode.MUL, 3, 1, 2))[1]]                # no modulus yet
        await d.write_slot(0, n, nw)
        seen.append((await d.setmod(0, size))[1])
        await d.write_slot(1, a, nw)
        await d.write_slot(2, b, nw)
        seen.append((await d.mul(3, 1, 2))[1])
        await d.write_slot(4, e, nw)
        await d.write_slot(5, (1 << (config.word_bits * size)) % n, nw)
        seen.append((await d.exp(5, 1, 4, 4, Opcode.EXP_LADDER))[1])
        seen.append((await d.run(Opcode.READ, a=20))[1])
        seen += [await d.read_slot(slot, nw) for slot in range(6)]
        return seen

    dut = board.LinkedPeripheral(config)
    observed = {}

    async def bench(ctx):
        observed["link"] = await scenario(Driver(board.SerialTransport(SimulatedLink(ctx, dut))))

    sim = Simulator(dut)
    sim.add_clock(8e-9)
    sim.add_testbench(bench)
    sim.run()
    expected = complete(scenario(Driver(PeripheralModelTransport(PeripheralModel(config)))))
    assert observed["link"] == expected
    assert expected[0]["error"] == ErrorCode.NO_MODULUS.value and expected[4]["error"] == ErrorCode.BAD_SLOT.value
    assert expected[1:4] == [{"busy": 0, "done": 1, "error": 0}] * 3
    assert expected[8] == mont_mul(a, b, n, size, config.word_bits)
