"""The PYNQ-Z2 LiteX platform and its pieces, without building a SoC."""

from pathlib import Path

import pytest
from migen import Signal
from migen.sim import run_simulation

from boards import pynq_z2


def test_status_leds():
    busy, heartbeat, busy_led = Signal(), Signal(), Signal()
    dut = pynq_z2.StatusLeds(heartbeat, busy_led, busy, sys_clk_freq=40, hold_s=0.25)  # 20-cycle half period, 10-cycle hold
    trace = []

    def bench():
        for cycle in range(90):
            yield busy.eq(5 <= cycle < 8)
            yield
            trace.append(((yield heartbeat), (yield busy_led)))

    run_simulation(dut, bench())
    beats = [h for h, _ in trace]
    toggles = [i for i in range(1, len(beats)) if beats[i] != beats[i - 1]]
    periods = [b - a for a, b in zip(toggles, toggles[1:])]
    assert len(periods) >= 3 and set(periods) == {20}
    lit = [i for i, (_, led) in enumerate(trace) if led]
    assert lit[0] <= 7 and len(lit) >= 10            # a 3-cycle busy pulse shows for the hold time


def test_platform_resources():
    platform = pynq_z2.Platform()
    assert platform.device == "xc7z020clg400-1"
    for uart, resource in pynq_z2.UARTS.items():
        if resource != "jtag_uart":
            pads = platform.request(resource)
            assert hasattr(pads, "tx") and hasattr(pads, "rx"), uart


@pytest.mark.parametrize("toolchain, expected", [
    ("vivado", {"vivado"}),
    ("openxc7", {"yosys", "nextpnr-xilinx", "fasm2frames", "xc7frames2bit", "nextpnr-xilinx chip database", "prjxray-db"}),
    ("yosys+nextpnr", {"yosys", "nextpnr-xilinx", "fasm2frames.py", "xc7frames2bit", "nextpnr-xilinx chip database", "prjxray-db"}),
])
def test_missing_tools(monkeypatch, toolchain, expected):
    for var in ("PATH", "CHIPDB", "PRJXRAY_DB_DIR", "LITEX_ENV_VIVADO"):
        monkeypatch.delenv(var, raising=False)
    platform = pynq_z2.Platform(toolchain=toolchain)
    assert {tool for tool, _ in platform.missing_tools()} == expected


def test_openocd_config(tmp_path):
    text = Path(pynq_z2.write_openocd_config(tmp_path)).read_text()
    assert "zynq_7000" in text          # LiteX's JTAG stream then addresses the PL's TAP
    assert "0x0403 0x6010" in text
