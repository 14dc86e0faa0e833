"""LiteX wrapper of the device's entropy source (gateware/entropy/source.py): its ports become CSRs.

The source is converted to Verilog when the SoC is built and instantiated as a black box, with its
noise: where its raw bits come from is the one thing that differs between builds (`NOISE`):

- `simulated`         pads of the simulated board (boards/sim.py), driven by the Verilator harness from
                      a seeded generator (sim/harness/main.cpp; link.transport.SimEntropy has its arguments). The pad
                      `entropy_ready` tells the harness when the source has a word waiting: it offers no
                      sample then, so that the source takes the generator's bits one after the other
                      whenever the firmware reads, and a run with the same seed gives the same words;
- `ring_oscillators`  the board's free-running rings (gateware/entropy/ring.py, RingOscillatorBits), with
                      the constraints they need (`ring_xdc`, added to the board's platform);
- `deterministic`     the board's LFSR stand-in (LFSRBits): a build option, never the default.

Register map (generated into `csr.h`, never copied by hand):

- `status` read: ready, failed (sticky), rct_failed, apt_failed, startup (fields from the contract's
           `Status` layout, gateware/entropy/interface.py).
- `data`   read: the waiting word of 32 raw bits (valid while `ready`); reading it hands the word out
           (the CSR's read strobe is the source's `data_stb`).
- `ctrl`   write: `restart` clears a health-test failure and reruns the start-up tests.

The SoC also gets `ENTROPY_SEED_WORDS` (soc.h): the raw words the firmware conditions into one seed.
"""

import functools
from pathlib import Path

from amaranth import Module
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out
from migen import ClockSignal, Instance, ResetSignal, Signal

from litex.gen import LiteXModule
from litex.soc.interconnect.csr import CSRField, CSRStatus, CSRStorage

from gateware.entropy.interface import SEED_RAW_WORDS, WORD_BITS, Status
from soc import config

#: Where the raw bits come from, by build.
SIMULATED, RING_OSCILLATORS, DETERMINISTIC = "simulated", "ring_oscillators", "deterministic"
NOISE = (SIMULATED, RING_OSCILLATORS, DETERMINISTIC)
#: The simulated board's pads: the raw sample, its strobe, and the source's `ready` back to the harness.
PADS = "entropy"
_STATUS = data.Layout.cast(Status)
#: The status fields the firmware reads, in the register as in the contract.
STATUS_FIELDS = {
    "ready": "A word of raw bits waits in `data`.",
    "failed": "A health test failed; no word is given until `ctrl.restart` (sticky).",
    "rct_failed": "The repetition count test failed (sticky).",
    "apt_failed": "The adaptive proportion test failed (sticky).",
    "startup": "The start-up tests are running: no word yet.",
}


class _NoisySource(wiring.Component):
    """The source with its noise inside (a board build): only the bus side is a port."""
    data: Out(WORD_BITS)
    data_stb: In(1)
    restart: In(1)
    status: Out(32)

    def __init__(self, noise):
        self._noise = noise
        super().__init__()

    def elaborate(self, platform):
        from gateware.entropy import EntropySource
        m = Module()
        m.submodules.noise = noise = self._noise
        m.submodules.source = source = EntropySource()
        m.d.comb += [source.raw.eq(noise.raw), source.raw_valid.eq(noise.raw_valid),
                     source.data_stb.eq(self.data_stb), source.restart.eq(self.restart),
                     self.data.eq(source.data), self.status.eq(source.status)]
        return m


def _component(noise):
    from gateware.entropy import EntropySource
    if noise == SIMULATED:
        return EntropySource()
    from gateware.entropy import ring
    return _NoisySource(ring.RingOscillatorBits() if noise == RING_OSCILLATORS else ring.LFSRBits())


@functools.lru_cache(maxsize=4)
def _verilog(noise, name):
    """The source's Verilog; a board build elaborates the SoC twice, convert once."""
    from eda.synth import amaranth_verilog
    return amaranth_verilog(_component(noise), name=name)


def ring_constraints():
    """The XDC constraints the ring oscillators need (kept cells, the loops allowed): the board adds them."""
    from gateware.entropy.ring import ring_xdc
    return ring_xdc()


class EntropyCSR(LiteXModule):
    def __init__(self, platform, noise=SIMULATED, name="entropy_source"):
        assert noise in NOISE, noise
        self.status = CSRStatus(fields=[
            CSRField(field, size=_STATUS[field].width, offset=_STATUS[field].offset, description=text)
            for field, text in STATUS_FIELDS.items()], description="Entropy source status.")
        self.data = CSRStatus(WORD_BITS, description="The waiting word of raw bits, the first sample in bit 0 "
                                                     "(valid while `status.ready`); reading it takes the word.")
        self.ctrl = CSRStorage(fields=[
            CSRField("restart", size=1, pulse=True, description="Write 1: clear a health-test failure and "
                                                                "rerun the start-up tests."),
        ], description="Entropy source control.")

        # # #

        status = Signal(32)
        ports = dict(
            i_clk      = ClockSignal("sys"),
            i_rst      = ResetSignal("sys"),
            o_data     = self.data.status,
            i_data_stb = self.data.we,          # the CSR bank's read strobe
            i_restart  = self.ctrl.fields.restart,
            o_status   = status,
        )
        if noise == SIMULATED:
            pads = platform.request(PADS)
            ports.update(i_raw=pads.raw, i_raw_valid=pads.raw_valid)
            self.comb += pads.ready.eq(status[_STATUS["ready"].offset])
        self.specials += Instance(name, **ports)
        self.comb += [getattr(self.status.fields, field).eq(status[_STATUS[field].offset])
                      for field in STATUS_FIELDS]
        self._platform, self._name, self._noise = platform, name, noise

    def do_finalize(self):
        # The builder has chosen the output directory by now: convert the source there.
        out_dir = Path(getattr(self._platform, "output_dir", None) or "build") / "gateware"
        out_dir.mkdir(parents=True, exist_ok=True)
        path = out_dir / f"{self._name}.v"
        text = _verilog(self._noise, self._name)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        self._platform.add_source(str(path.resolve()))


def add_entropy_source(soc, noise):
    """The source in `soc` (its CSRs `entropy_*`) and the constants the firmware reads: the raw words a
    seed takes, and where the bits come from (RSA_BENCH_SIMULATION, RSA_BENCH_DETERMINISTIC_ENTROPY)."""
    soc.csr.add("entropy", n=config.ENTROPY_CSR_LOCATION)
    soc.entropy = EntropyCSR(soc.platform, noise)
    soc.add_constant("ENTROPY_SEED_WORDS", SEED_RAW_WORDS)
    if noise == SIMULATED:
        soc.add_constant("RSA_BENCH_SIMULATION", 1)
    elif noise == DETERMINISTIC:
        soc.add_constant("RSA_BENCH_DETERMINISTIC_ENTROPY", 1)
