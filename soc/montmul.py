"""LiteX wrapper of the Amaranth Montgomery peripheral: its command and status ports become CSRs, its
data port a word on the Wishbone bus.

The peripheral is converted to Verilog when the SoC is built (`gateware.tools.verilog.generate_verilog`)
and instantiated as a black box. Register map (generated into `csr.h`, never copied by hand):

- `cmd`    write: a command word (layout in `gateware/interface.py`); the write issues it.
- `status` read: busy, done, error code of the last command or data access.
- `ctrl`   write: `reset` resets the peripheral (its registers: the moduli in force, the pointers, every
           engine; not the operand memories), as the system reset does. The driver's way out when the
           peripheral stays busy past the longest any command takes (a fault), and its clean start
           before each operation.
- `ev_*`   the `done` interrupt: a command finished or was refused.

The data window (`DataWindow`), one 32-bit word of the bus in an uncached region (its address in
LiteX's `mem.h`: `MONTMUL_DATA_BASE`), moves an operand word in one bus access:

- a store writes the next 32-bit word of the slot selected by the last WRITE command (least significant
  first; the write pointer moves on). It is acknowledged in the cycle it is made.
- a load returns the current 32-bit word of the slot selected by the last READ command and moves the
  read pointer on. The peripheral's `rdata` follows the pointer two cycles after it moves (or after a
  command, a store, a reset or the end of a command that ran): the window holds a load's acknowledge
  until then, so a load never returns a word of before, however fast the bus master.

Accesses are whole words (the byte enables are ignored). As with the peripheral's ports, a store or
load while a command runs is refused (status error BUSY; a load then returns no operand word).

For simulation only (`idle_clock_gate=True`, sim/build.py), the peripheral's clock stops while it
has nothing to do: no command running and no access to it (soc/sim_clock_gate.py). Board builds keep
the plain clock.
"""

import functools
from pathlib import Path

from amaranth.lib import data
from migen import If, Instance, ClockSignal, ResetSignal, Signal

from litex.gen import LiteXModule
from litex.soc.integration.soc import SoCRegion
from litex.soc.interconnect import wishbone
from litex.soc.interconnect.csr import CSRField, CSRStatus, CSRStorage
from litex.soc.interconnect.csr_eventmanager import EventManager, EventSourcePulse

from gateware.interface import Command, ErrorCode, PeripheralConfig, Status
from soc import sim_clock_gate

# Field positions come from the interface's layouts, never from numbers written here.
_COMMAND = data.Layout.cast(Command)
_STATUS = data.Layout.cast(Status)


def _status_bits(word, name):
    """Field ``name`` of the status word ``word`` (a Migen signal)."""
    field = _STATUS[name]
    return word[field.offset:field.offset + field.width]


def _status_csr_field(name, description=None, csr_name=None):
    field = _STATUS[name]
    return CSRField(csr_name or name, size=field.width, offset=field.offset, description=description)


class DataWindow(LiteXModule):
    """The peripheral's data port as one word of a Wishbone bus (see the module's docstring).

    Towards the peripheral: ``wdata``/``wdata_stb`` (a store, registered: it reaches the peripheral in
    the cycle after its acknowledge), ``rdata_stb`` (a load, in the cycle it is answered, so that the
    peripheral refuses it exactly when the word answered is not an operand's) and ``rdata`` back.
    ``moved``: the peripheral's other inputs that move a pointer or change a word (a command strobe,
    a reset), in the cycle the peripheral sees them; ``busy``: its busy flag."""

    #: Cycles from a strobe the peripheral samples to the first cycle its ``rdata`` shows the word it
    #: leads to: the pointer moves on that edge, the operand memory reads it on the next.
    RDATA_LATENCY = 2

    def __init__(self):
        self.bus = bus = wishbone.Interface(data_width=32, address_width=32, addressing="word")
        self.wdata = Signal(32)
        self.wdata_stb = Signal()
        self.rdata = Signal(32)
        self.rdata_stb = Signal()
        self.moved = Signal()
        self.busy = Signal()

        # # #

        store, load, load_ack = Signal(), Signal(), Signal()
        self.comb += [store.eq(bus.cyc & bus.stb & bus.we), bus.ack.eq(store | load_ack)]
        self.sync += [self.wdata_stb.eq(store), If(store, self.wdata.eq(bus.dat_w))]

        # Cycles since the last change that reaches rdata, up to RDATA_LATENCY: a load is answered once
        # rdata has followed every change (at once while busy: the peripheral refuses it).
        change = Signal()
        since = Signal(max=self.RDATA_LATENCY + 1, reset=self.RDATA_LATENCY)
        self.comb += change.eq(self.moved | self.busy | self.wdata_stb | self.rdata_stb)
        self.sync += If(change, since.eq(1)).Elif(since != self.RDATA_LATENCY, since.eq(since + 1))
        settled = (since == self.RDATA_LATENCY) & ~(self.moved | self.wdata_stb)
        self.comb += [load.eq(bus.cyc & bus.stb & ~bus.we & ~load_ack & (settled | self.busy)),
                      self.rdata_stb.eq(load)]
        self.sync += [load_ack.eq(load), If(load, bus.dat_r.eq(self.rdata))]


@functools.lru_cache(maxsize=4)
def _verilog(config, name):
    """The peripheral's Verilog; a board build elaborates the SoC twice, convert once."""
    from gateware.tools.verilog import generate_verilog
    return generate_verilog(config, name=name)


class MontgomeryCSR(LiteXModule):
    def __init__(self, platform, config=None, name="montmul", idle_clock_gate=False):
        self.config = config = config or PeripheralConfig()
        layout = ", ".join(f"{name} [{f.offset + f.width - 1}:{f.offset}]" for name, f in _COMMAND)
        self.cmd = CSRStorage(32, description=f"Command word; writing it issues the command ({layout}).")
        errors = ", ".join(f"{e.value} {e.name}" for e in ErrorCode)
        described = {
            "busy": "A command is running.",
            "done": "The last command completed successfully.",
            "equal": "The last EQUAL found its two operands equal.",
            "error": f"Why the last command or data access was refused: {errors}.",
        }
        # every field of the interface's status word, in its order, up to its last named one (the
        # reserved ones named so)
        names = [name for name, _ in _STATUS]
        names = names[:max(i for i, name in enumerate(names) if not name.startswith("_")) + 1]
        self.status = CSRStatus(fields=[
            _status_csr_field(name, csr_name=f"reserved{name[4:]}") if name.startswith("_")
            else _status_csr_field(name, described[name]) for name in names
        ], description="Peripheral status.")
        self.ctrl = CSRStorage(fields=[
            CSRField("reset", size=1, pulse=True, description="Write 1: reset the peripheral (its registers; "
                                                              "the operand memories keep their words)."),
        ], description="Peripheral control.")
        self.ev = EventManager()
        self.ev.done = EventSourcePulse(description="A command finished or was refused.")
        self.ev.finalize()

        # # #

        irq = Signal()
        status = Signal(32)
        reset = Signal()
        self.comb += reset.eq(ResetSignal("sys") | self.ctrl.fields.reset)
        self.window = window = DataWindow()
        self.comb += [window.moved.eq(reset | self.cmd.re), window.busy.eq(_status_bits(status, "busy"))]
        clk = ClockSignal("sys")
        inputs = [reset, self.cmd.storage, self.cmd.re, window.wdata, window.wdata_stb, window.rdata_stb]
        if idle_clock_gate:
            clk, inputs = sim_clock_gate.gate(self, inputs, reset | self.cmd.re | window.wdata_stb
                                              | window.rdata_stb | _status_bits(status, "busy"))
        rst, cmd, cmd_stb, wdata, wdata_stb, rdata_stb = inputs
        self.specials += Instance(name,
            i_clk       = clk,
            i_rst       = rst,
            i_cmd       = cmd,
            i_cmd_stb   = cmd_stb,
            i_wdata     = wdata,
            i_wdata_stb = wdata_stb,
            o_rdata     = window.rdata,
            i_rdata_stb = rdata_stb,
            o_status    = status,
            o_irq       = irq,
        )
        self.comb += [getattr(self.status.fields, name).eq(_status_bits(status, name))
                      for name in described]
        self.comb += self.ev.done.trigger.eq(irq)
        self.busy = Signal()
        self.comb += self.busy.eq(_status_bits(status, "busy"))
        self._platform, self._name, self._idle_clock_gate = platform, name, idle_clock_gate

    def add_to_bus(self, soc, name=None):
        """Adds the data window to ``soc``'s bus, as an uncached region LiteX places (``mem.h``:
        ``<NAME>_DATA_BASE``)."""
        soc.bus.add_slave(f"{name or self._name}_data", self.window.bus,
                          SoCRegion(size=self.window.bus.data_width // 8, cached=False))

    def do_finalize(self):
        # The builder has chosen the output directory by now: convert the peripheral there.
        platform, name = self._platform, self._name
        out_dir = Path(getattr(platform, "output_dir", None) or "build") / "gateware"
        out_dir.mkdir(parents=True, exist_ok=True)
        path = out_dir / f"{name}.v"
        text = _verilog(self.config, name)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        platform.add_source(str(path.resolve()))
        if self._idle_clock_gate:
            sim_clock_gate.add_source(platform, out_dir)
