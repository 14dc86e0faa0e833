"""The simulated board: a clock, a reset and a byte-stream serial port for Verilator.

The serial pads are the stream interface LiteX's `serial2console` simulation module drives;
`uart_name="sim"` connects the SoC's UART to them. The entropy pads carry the entropy source's raw
samples from the harness, and its `ready` back (soc/entropy.py, sim/harness/main.cpp).
"""

from migen.genlib.io import CRG as _PORCRG

from litex.build.generic_platform import Pins, Subsignal
from litex.build.sim import SimPlatform

_io = [
    ("sys_clk", 0, Pins(1)),
    ("sys_rst", 0, Pins(1)),
    ("serial", 0,
        Subsignal("source_valid", Pins(1)),
        Subsignal("source_ready", Pins(1)),
        Subsignal("source_data",  Pins(8)),
        Subsignal("sink_valid",   Pins(1)),
        Subsignal("sink_ready",   Pins(1)),
        Subsignal("sink_data",    Pins(8)),
    ),
    ("entropy", 0,
        Subsignal("raw",       Pins(1)),
        Subsignal("raw_valid", Pins(1)),
        Subsignal("ready",     Pins(1)),
    ),
]


class Platform(SimPlatform):
    def __init__(self):
        SimPlatform.__init__(self, "SIM", _io)


class CRG(_PORCRG):
    """The simulation drives `sys_clk`; a power-on reset holds the SoC in reset for its first cycle."""
    def __init__(self, platform):
        _PORCRG.__init__(self, platform.request("sys_clk"))
