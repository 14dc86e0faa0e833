"""The PYNQ-Z2 for Amaranth: Amaranth's Xilinx flow writes its files for the peripheral bench."""

import re

import pytest

from boards import amaranth_pynq_z2 as board

NAME = "montmul_pynq_z2"
#: A small peripheral: the flow's files are the same, the conversion takes a second, not half a minute.
SMALL = {"max_bits": 512, "lanes": 4}


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
                       "--max-bits", str(SMALL["max_bits"]), "--lanes", str(SMALL["lanes"])]) == 1
    err = capsys.readouterr().err
    assert "nextpnr-xilinx" in err and f"build_{NAME}.sh" in err


def test_serial_bridge():
    from amaranth.sim import Simulator

    dut = board.SerialBridge()
    strobes = []

    async def spi_frame(ctx, register, data):
        """A 64-bit frame: (register, data) in its last 34 bits; returns the 64 bits read."""
        bits, read = (register << 32) | data, 0
        ctx.set(dut.cs_n, 0)
        await ctx.tick().repeat(4)
        for i in reversed(range(64)):
            ctx.set(dut.copi, (bits >> i) & 1)
            await ctx.tick().repeat(3)
            read = read << 1 | ctx.get(dut.cipo)
            ctx.set(dut.sck, 1)
            await ctx.tick().repeat(3)
            ctx.set(dut.sck, 0)
        await ctx.tick().repeat(3)
        ctx.set(dut.cs_n, 1)
        await ctx.tick().repeat(6)
        return read

    async def monitor(ctx):
        async for _, _, cmd_stb, wdata_stb, rdata_stb, word in ctx.tick().sample(
                dut.cmd_stb, dut.wdata_stb, dut.rdata_stb, dut.cmd):
            for name, stb in (("cmd", cmd_stb), ("wdata", wdata_stb), ("rdata", rdata_stb)):
                if stb:
                    strobes.append((name, word))

    async def bench(ctx):
        ctx.set(dut.status, 0x0000_0102)
        ctx.set(dut.rdata, 0xCAFE_F00D)
        assert await spi_frame(ctx, 0, 0x1234_5678) == 0x0000_0102_CAFE_F00D
        await spi_frame(ctx, 1, 0x9ABC_DEF0)
        ctx.set(dut.rdata, 0x0BAD_BEEF)
        assert await spi_frame(ctx, 2, 0) & 0xFFFF_FFFF == 0x0BAD_BEEF
        await spi_frame(ctx, 3, 0xFFFF_FFFF)

    sim = Simulator(dut)
    sim.add_clock(8e-9)
    sim.add_process(monitor)
    sim.add_testbench(bench)
    sim.run()
    assert strobes == [("cmd", 0x1234_5678), ("wdata", 0x9ABC_DEF0), ("rdata", 0)]
