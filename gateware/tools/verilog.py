"""The peripheral's Verilog: what the LiteX wrapper, the synthesis reports and the Verilator bench
convert.  Here, next to the other tools, so that the RTL in ``gateware.montmul`` stays free of the
converter and ``eda`` free of the peripheral."""

from __future__ import annotations

from eda.synth import amaranth_verilog
from gateware.interface import PeripheralConfig
from gateware.montmul import MontgomeryPeripheral

__all__ = ["generate_verilog"]


def generate_verilog(config=None, name: str = "montmul") -> str:
    """Verilog of the Montgomery peripheral (``PeripheralConfig()`` by default); top-level ports
    ``clk``, ``rst``, ``cmd``, ``cmd_stb``, ..."""
    return amaranth_verilog(MontgomeryPeripheral(config or PeripheralConfig()), name=name)
