"""Timing arcs of the fabric cells: LUTs, wide muxes, the carry chain, flip-flops, distributed RAM,
shift registers, block RAM and buffers; ``cell_arcs`` picks the builder for any mapped cell."""

import re

from .arcs import Arcs, param, pins
from .delays import (BRAM, BRAM_PORT_A, BUFFERS, DELAYS_PS, FLIP_FLOPS, IGNORED, LUT6_PS,
                     LUTRAM_DUAL, LUTRAM_MULTI, LUTRAM_SINGLE, SRL)
from .dsp import dsp_arcs

__all__ = ["cell_arcs"]


def _lut_arcs(cell, table):
    arcs = Arcs()
    for pin, delay in table.items():
        arcs.combs.append((pin, "O", delay))
    return arcs


def _carry4_arcs(cell):
    arcs = Arcs()
    for (src, dst), delay in DELAYS_PS["CARRY4"].items():
        arcs.combs.append((src, dst, delay))
    return arcs


def _ff_arcs(cell):
    table = DELAYS_PS["FF"]
    arcs = Arcs()
    arcs.starts.append(("Q", table["clk_to_q"]))
    for pin, setup in table["setup"].items():
        if pin in cell["connections"]:
            arcs.ends.append((pin, setup))
    return arcs


def _lutram_arcs(cell, kind):
    table = DELAYS_PS["LUTRAM"]
    arcs = Arcs("WCLK")
    conns = cell["connections"]
    addr = table["addr"]
    deep = kind.startswith(("RAM128", "RAM256", "RAM512"))
    clk_to_out = table["clk_to_out"] + (table["f7_extra"] if deep else 0)
    addr_setup = table["setup"]["ADDR_DEEP" if deep else "ADDR"]

    def read_arcs(address_pins: list[str], out: str):
        for i, pin in enumerate(address_pins):
            if i < 6:
                delay = addr[i] + (table["f7_extra"] if deep else 0)
            else:
                delay = table["f7_select"]
            arcs.combs.append((pin, out, delay))

    if kind in LUTRAM_MULTI:
        outputs = [p for p in ("DOA", "DOB", "DOC", "DOD", "DOE", "DOF", "DOG", "DOH") if p in conns]
        for out_port in outputs:
            letter = out_port[-1]
            for out in pins(cell, out_port):
                arcs.starts.append((out, clk_to_out))
                read_arcs(pins(cell, "ADDR" + letter), out)
        for port in conns:
            if port.startswith("DI"):
                arcs.ends.extend((pin, table["setup"]["D"]) for pin in pins(cell, port))
        arcs.ends.extend((pin, addr_setup) for pin in pins(cell, "ADDRD") if "ADDRD" in conns)
    else:
        # Single-bit address pins are A0..An / DPRA0..n, or a bus A / DPRA for the deep parts.
        def address(prefix):
            if prefix in conns:
                return pins(cell, prefix)
            return sorted((p for p in conns if re.fullmatch(prefix + r"\d+", p)),
                          key=lambda p: int(p[len(prefix):]))
        write_addr = address("A")
        for out, addr_pins in (("SPO", write_addr), ("DPO", address("DPRA")), ("O", write_addr)):
            if out in conns:
                arcs.starts.append((out, clk_to_out))
                read_arcs(addr_pins, out)
        arcs.ends.extend((pin, addr_setup) for pin in write_addr)
        if "D" in conns:
            arcs.ends.append(("D", table["setup"]["D"]))
    if "WE" in conns:
        arcs.ends.append(("WE", table["setup"]["WE"]))
    return arcs


def _srl_arcs(cell):
    table = DELAYS_PS["SRL"]
    arcs = Arcs("CLK")
    conns = cell["connections"]
    arcs.starts.append(("Q", table["clk_to_q"]))
    if "Q31" in conns:
        arcs.starts.append(("Q31", table["clk_to_q31"]))
    if "A" in conns:
        addr_pins, addr = pins(cell, "A"), table["addr32"]
    else:
        addr_pins, addr = [f"A{i}" for i in range(4) if f"A{i}" in conns], table["addr16"]
    for pin, delay in zip(addr_pins, addr):
        arcs.combs.append((pin, "Q", delay))
    for pin, setup in table["setup"].items():
        if pin in conns:
            arcs.ends.append((pin, setup))
    return arcs


def _bram_arcs(cell):
    table = DELAYS_PS["BRAM"]
    conns = cell["connections"]
    # Port A is clocked by CLKARDCLK, port B by CLKBWRCLK.
    arcs = Arcs({port: ("CLKARDCLK" if port in BRAM_PORT_A else "CLKBWRCLK") for port in conns})
    for side, regparam in (("A", "DOA_REG"), ("B", "DOB_REG")):
        delay = table["clk_to_out_reg"] if param(cell, regparam, 0) else table["clk_to_out"]
        for port in (f"DO{side}DO", f"DOP{side}DOP"):
            if port in conns:
                arcs.starts.extend((pin, delay) for pin in pins(cell, port))
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
        arcs.ends.extend((pin, setup[kind]) for pin in pins(cell, port))
    return arcs

def _buffer_arcs(cell):
    arcs = Arcs()
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


def cell_arcs(cell: dict) -> Arcs | None:
    """The timing arcs of one mapped cell, or None when the cell type is not modelled."""
    kind = cell["type"]
    if kind in ("LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6", "INV", "MUXF7", "MUXF8"):
        return _lut_arcs(cell, DELAYS_PS[kind])
    if kind == "LUT6_2":
        arcs = Arcs()
        arcs.combs += [(pin, "O6", d) for pin, d in LUT6_PS.items()]
        arcs.combs += [(pin, "O5", d) for pin, d in DELAYS_PS["LUT5"].items()]
        return arcs
    if kind == "CARRY4":
        return _carry4_arcs(cell)
    if kind in FLIP_FLOPS:
        return _ff_arcs(cell)
    if kind in LUTRAM_DUAL or kind in LUTRAM_SINGLE or kind in LUTRAM_MULTI:
        return _lutram_arcs(cell, kind)
    if kind in SRL:
        return _srl_arcs(cell)
    if kind in BRAM:
        return _bram_arcs(cell)
    if kind == "DSP48E1":
        return dsp_arcs(cell)
    if kind in BUFFERS:
        return _buffer_arcs(cell)
    if kind in IGNORED:
        return Arcs()
    return None
