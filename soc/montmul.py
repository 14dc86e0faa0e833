"""LiteX wrapper of the Amaranth Montgomery peripheral: its plain ports become CSRs.

The peripheral is converted to Verilog when the SoC is built (`gateware.montmul.generate_verilog`)
and instantiated as a black box. Register map (generated into `csr.h`, never copied by hand):

- `cmd`    write: a command word (layout in `gateware/interface.py`); the write issues it.
- `wdata`  write: the next 32-bit word of the operand selected by a WRITE command.
- `rdata`  read: the current 32-bit word of the operand selected by a READ command; reading it
           moves on to the next word.
- `status` read: busy, done, error code of the last command.
- `ev_*`   the `done` interrupt: a command finished or was refused.
"""

import functools
from pathlib import Path

from amaranth.lib import data
from migen import Instance, ClockSignal, ResetSignal, Signal

from litex.gen import LiteXModule
from litex.soc.interconnect.csr import CSRField, CSRStatus, CSRStorage
from litex.soc.interconnect.csr_eventmanager import EventManager, EventSourcePulse

from gateware.interface import Command, ErrorCode, Status, PeripheralConfig

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


@functools.lru_cache(maxsize=4)
def _verilog(config, name):
    """The peripheral's Verilog; a board build elaborates the SoC twice, convert once."""
    from gateware.montmul import generate_verilog
    return generate_verilog(config, name=name)


class MontgomeryCSR(LiteXModule):
    def __init__(self, platform, config=None, name="montmul"):
        self.config = config = config or PeripheralConfig()
        layout = ", ".join(f"{name} [{f.offset + f.width - 1}:{f.offset}]" for name, f in _COMMAND)
        self.cmd = CSRStorage(32, description=f"Command word; writing it issues the command ({layout}).")
        self.wdata = CSRStorage(32, description="Operand data in: the next 32-bit word of the slot "
                                                "selected by the last WRITE command (least significant first).")
        self.rdata = CSRStatus(32, description="Operand data out: the current 32-bit word of the slot "
                                               "selected by the last READ command; reading advances to the next.")
        errors = ", ".join(f"{e.value} {e.name}" for e in ErrorCode)
        self.status = CSRStatus(fields=[
            _status_csr_field("busy", "A command is running."),
            _status_csr_field("done", "The last command completed successfully."),
            _status_csr_field("_rsv0", csr_name="reserved"),
            _status_csr_field("error", f"Why the last command or data access was refused: {errors}."),
        ], description="Peripheral status.")
        self.ev = EventManager()
        self.ev.done = EventSourcePulse(description="A command finished or was refused.")
        self.ev.finalize()

        # # #

        irq = Signal()
        status = Signal(32)
        self.specials += Instance(name,
            i_clk       = ClockSignal("sys"),
            i_rst       = ResetSignal("sys"),
            i_cmd       = self.cmd.storage,
            i_cmd_stb   = self.cmd.re,
            i_wdata     = self.wdata.storage,
            i_wdata_stb = self.wdata.re,
            o_rdata     = self.rdata.status,
            i_rdata_stb = self.rdata.we,       # the CSR bank's read strobe
            o_status    = status,
            o_irq       = irq,
        )
        self.comb += [getattr(self.status.fields, name).eq(_status_bits(status, name))
                      for name in ("busy", "done", "error")]
        self.comb += self.ev.done.trigger.eq(irq)
        self.busy = Signal()
        self.comb += self.busy.eq(_status_bits(status, "busy"))
        self._platform, self._name = platform, name

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
