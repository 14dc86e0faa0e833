"""Timing arcs of a DSP48E1, chosen per configuration (multiplier use, pre-adder, pattern detector,
pipeline registers) the way the ``specify`` section of Yosys' DSP48E1 cell model chooses them."""

from dataclasses import dataclass

from .arcs import Arcs, param, pins
from .delays import DELAYS_PS

__all__ = ["dsp_arcs"]


_REGISTERS = ("AREG", "BREG", "CREG", "DREG", "ADREG", "MREG", "PREG", "OPMODEREG", "ALUMODEREG",
              "INMODEREG", "CARRYINREG", "CARRYINSELREG")


@dataclass(frozen=True)
class _Config:
    """The parameters that choose a DSP48E1's arcs."""
    reg: dict           # register parameter -> 0 or 1
    mode: str           # "MULT", "DPORT" or "NOMULT"
    mult: bool          # the multiplier is in use ("DYNAMIC" is charged as a multiplier)
    use_dport: bool
    pd: str             # "_PATDET" with the pattern detector on: some setups differ


def _config(cell):
    reg = {name: int(param(cell, name, 1)) for name in _REGISTERS}
    mult = param(cell, "USE_MULT", "MULTIPLY") != "NONE"
    use_dport = param(cell, "USE_DPORT", "FALSE") == "TRUE"
    patdet = param(cell, "USE_PATTERN_DETECT", "NO_PATDET") != "NO_PATDET"
    mode = "NOMULT" if not mult else ("DPORT" if use_dport else "MULT")
    return _Config(reg, mode, mult, use_dport, "_PATDET" if patdet else "")


def _pick(table, *keys):
    for key in keys:
        if key in table:
            return table[key]
    raise KeyError(keys)


def _required(t, c):
    """Setup time of each data input, by port, where a register (inside or after it) captures it."""
    AREG, BREG, CREG, DREG, ADREG, MREG, PREG = (c.reg[k] for k in ("AREG", "BREG", "CREG", "DREG", "ADREG",
                                                                   "MREG", "PREG"))
    mode, pd = c.mode, c.pd
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
        required["A"] = _pick(t["A.required"], {"MULT": "PREG" + pd, "DPORT": "DPORT_PREG",
                                                "NOMULT": "NOMULT_PREG" + pd}[mode])
    if BREG:
        required["B"] = t["B.required"]["BREG"]
    elif MREG and c.mult:
        required["B"] = t["B.required"]["MREG"]
    elif PREG:
        required["B"] = t["B.required"][("NOMULT_" if not c.mult else "") + "PREG" + pd]
    if CREG:
        required["C"] = t["C.required"]["CREG"]
    elif PREG:
        required["C"] = t["C.required"]["PREG" + pd]
    if c.use_dport:
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
    return required


def _combinational(arcs, cell, t, c):
    """Arcs from the data inputs that no register captures to P and PCOUT."""
    reg, mode, conns = c.reg, c.mode, cell["connections"]
    outs = [port for port in ("P", "PCOUT") if port in conns]
    comb_sources = []
    if not (reg["PREG"] or reg["MREG"] or reg["AREG"] or reg["ADREG"]):
        comb_sources.append(("A", t["A.P.comb"][mode], t["A.PCOUT.comb"][mode]))
    if not (reg["PREG"] or (reg["MREG"] and c.mult) or reg["BREG"]):
        comb_sources.append(("B", t["B.P.comb"][mode], t["B.PCOUT.comb"][mode]))
    if not (reg["PREG"] or reg["CREG"]):
        comb_sources.append(("C", t["C.P.comb"], t["C.PCOUT.comb"]))
    if c.use_dport and not (reg["PREG"] or reg["MREG"] or reg["ADREG"] or reg["DREG"]):
        comb_sources.append(("D", t["D.P.comb"], t["D.PCOUT.comb"]))
    if not reg["PREG"]:
        comb_sources.append(("PCIN", t["PCIN.P.comb"], t["PCIN.PCOUT.comb"]))
    for port, to_p, to_pcout in comb_sources:
        if port not in conns:
            continue
        for src in pins(cell, port):
            for out in outs:
                delay = to_p if out == "P" else to_pcout
                arcs.combs.extend((src, dst, delay) for dst in pins(cell, out))


def _clock_to_out(arcs, cell, t, c):
    """P and PCOUT leave from the last register on their way (none: no start point), and the flag and
    carry outputs with P when PREG is on."""
    p, mode, mult, conns = c.reg, c.mode, c.mult, cell["connections"]
    if not any(p[k] for k in ("AREG", "BREG", "CREG", "DREG", "ADREG", "MREG", "PREG")):
        return
    for out, key in (("P", "P.arrival"), ("PCOUT", "PCOUT.arrival")):
        table = t[key]
        if p["PREG"]:
            delay = table["PREG"]
        elif p["CREG"] or (p["MREG"] and mult):
            delay = table["CREG"] if p["CREG"] else table["MREG"]
            if p["CREG"] and p["MREG"] and mult:
                delay = max(table["CREG"], table["MREG"])
        elif mode == "DPORT":
            delay = max([table["DPORT_" + k] for k in ("AREG", "DREG", "ADREG") if p[k]]
                        + [table["BREG"]] * p["BREG"])
        else:
            prefix = "NOMULT_" if mode == "NOMULT" else ""
            delay = max([table[prefix + k] for k in ("AREG", "BREG") if p[k]] or [table["PREG"]])
        if out in conns:
            arcs.starts.extend((pin, delay) for pin in pins(cell, out))
    if p["PREG"]:
        for out in ("CARRYOUT", "CARRYCASCOUT", "PATTERNDETECT", "PATTERNBDETECT", "MULTSIGNOUT",
                    "OVERFLOW", "UNDERFLOW"):
            if out in conns:
                arcs.starts.extend((pin, t["P.arrival"]["PREG"]) for pin in pins(cell, out))


def _control_inputs(arcs, cell, t, c):
    """OPMODE, ALUMODE, INMODE and the carry-in selection: set up at their own register, else at P's,
    else combinational to P; every clock enable and reset is set up at its register."""
    p, conns = c.reg, cell["connections"]
    ctrl = {"OPMODE": "OPMODEREG", "ALUMODE": "ALUMODEREG", "INMODE": "INMODEREG",
            "CARRYIN": "CARRYINREG", "CARRYINSEL": "CARRYINSELREG"}
    for port, reg in ctrl.items():
        if port not in conns:
            continue
        if p[reg]:
            arcs.ends.extend((pin, t["ctrl.required"]) for pin in pins(cell, port))
        elif p["PREG"]:
            arcs.ends.extend((pin, t["C.required"]["PREG" + c.pd]) for pin in pins(cell, port))
        else:
            for src in pins(cell, port):
                for dst in pins(cell, "P") if "P" in conns else []:
                    arcs.combs.append((src, dst, t["C.P.comb"]))
    for port in conns:
        if port.startswith(("CE", "RST")):
            arcs.ends.extend((pin, t["ctrl.required"]) for pin in pins(cell, port))


def dsp_arcs(cell):
    """Arcs of one DSP48E1 for its parameters (the models' ``generate`` over the register parameters)."""
    t = DELAYS_PS["DSP48E1"]
    c = _config(cell)
    arcs = Arcs("CLK")
    for port, setup in _required(t, c).items():
        if port in cell["connections"]:
            arcs.ends.extend((pin, setup) for pin in pins(cell, port))
    _combinational(arcs, cell, t, c)
    _clock_to_out(arcs, cell, t, c)
    _control_inputs(arcs, cell, t, c)
    return arcs
