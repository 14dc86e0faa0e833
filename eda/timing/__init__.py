"""Static timing estimate for a Yosys ``synth_xilinx`` netlist (7-series, speed grade -1).

There is no place-and-route here, so this is an estimate: per-cell logic delays from one table
(``delays``) plus a fixed routing allowance for every net a path crosses, except the dedicated
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
  nodes, cell arcs are edges). Combinational loops are cut at DFS back edges and reported; cells
  with no model cut the paths through them and are reported too.

Paths are timed within each clock domain (cells sharing the net on their clock pin) and get one
full period; paths between different clock nets are left out. Clock skew, clock
uncertainty, fanout-dependent net delay, placement and the pin swapping Vivado does (moving a late
signal to a fast LUT input) are not modelled: the worst LUT pin in Yosys' assignment is charged.

Modules: ``delays`` (the figures), ``arcs`` / ``cells`` / ``dsp`` (the arcs of one cell),
``netlist`` (netlist -> timing graph), ``paths`` (loop cutting, longest path), ``analysis``
(``analyze``), ``result`` (``TimingResult``, ``format_report``).
"""

from .analysis import analyze, analyze_netlist
from .arcs import Arcs
from .cells import cell_arcs
from .delays import DELAYS_PS, ROUTE_PS
from .netlist import TimingError
from .result import PathStep, TimingResult, format_report

__all__ = [
    "ROUTE_PS", "DELAYS_PS", "Arcs", "PathStep", "TimingResult", "TimingError",
    "analyze", "analyze_netlist", "cell_arcs", "format_report",
]
