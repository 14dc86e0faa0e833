"""The PYNQ-Z2 for Amaranth: Amaranth's Xilinx flow writes its files for the peripheral bench."""

import re

import pytest

from boards import amaranth_pynq_z2 as board

NAME = "montmul_pynq_z2"


def locs(xdc):
    return dict((port, pin) for pin, port in re.findall(r'set_property LOC (\w+) \[get_ports "?([\w]+)"?\]', xdc))


@pytest.mark.parametrize("toolchain, tool", [("Vivado", "vivado"), ("Xray", "nextpnr-xilinx")])
def test_build_files(tmp_path, toolchain, tool):
    _, build_dir = board.prepare(tmp_path, toolchain, name=NAME)
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
    assert board.main(["--toolchain", "Xray", "--build-dir", str(tmp_path), "--build"]) == 1
    err = capsys.readouterr().err
    assert "nextpnr-xilinx" in err and f"build_{NAME}.sh" in err
