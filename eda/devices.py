"""The FPGA parts we size the peripheral and the SoC against: one table for every tool (the design-space
sweep's fit columns, the whole-SoC report's utilisation and margins).

Figures from AMD's Zynq-7000 SoC product table (DS190, "Zynq-7000 SoC Data Sheet: Overview"): LUTs, flip-flops,
DSP48E1 slices and 36 Kb block RAMs of the programmable logic."""

#: part -> {resource: count}
DEVICES = {
    "xc7z010": {"dsp": 80, "lut": 17_600, "ff": 35_200, "bram36": 60},
    "xc7z020": {"dsp": 220, "lut": 53_200, "ff": 106_400, "bram36": 140},
}
