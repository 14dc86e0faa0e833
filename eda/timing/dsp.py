"""Timing arcs of a DSP48E1, chosen per configuration (multiplier use, pre-adder, pattern detector,
pipeline registers) the way the ``specify`` section of Yosys' DSP48E1 cell model chooses them."""

from .arcs import Arcs, param, pins
from .delays import DELAYS_PS

__all__ = ["dsp_arcs"]


def dsp_arcs(cell):
    """Arcs of one DSP48E1 for its parameters (the models' ``generate`` over the register parameters)."""
    t = DELAYS_PS["DSP48E1"]
    p = {name: int(param(cell, name, 1)) for name in
         ("AREG", "BREG", "CREG", "DREG", "ADREG", "MREG", "PREG", "OPMODEREG", "ALUMODEREG",
          "INMODEREG", "CARRYINREG", "CARRYINSELREG")}
    use_mult = param(cell, "USE_MULT", "MULTIPLY")
    use_dport = param(cell, "USE_DPORT", "FALSE") == "TRUE"
    patdet = param(cell, "USE_PATTERN_DETECT", "NO_PATDET") != "NO_PATDET"
    mult = use_mult != "NONE"     # "DYNAMIC" is charged as a multiplier
    mode = "NOMULT" if not mult else ("DPORT" if use_dport else "MULT")
    AREG, BREG, CREG, DREG, ADREG, MREG, PREG = (p[k] for k in ("AREG", "BREG", "CREG", "DREG", "ADREG", "MREG", "PREG"))
    conns = cell["connections"]
    arcs = Arcs("CLK")

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
            arcs.ends.extend((pin, setup) for pin in pins(cell, port))

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
        for src in pins(cell, port):
            for out in outs:
                delay = to_p if out == "P" else to_pcout
                arcs.combs.extend((src, dst, delay) for dst in pins(cell, out))

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
                arcs.starts.extend((pin, delay) for pin in pins(cell, out))
        # Flag and carry outputs leave with P when PREG is on.
        if PREG:
            for out in ("CARRYOUT", "CARRYCASCOUT", "PATTERNDETECT", "PATTERNBDETECT", "MULTSIGNOUT",
                        "OVERFLOW", "UNDERFLOW"):
                if out in conns:
                    arcs.starts.extend((pin, t["P.arrival"]["PREG"]) for pin in pins(cell, out))

    # --- control inputs ---
    ctrl = {"OPMODE": "OPMODEREG", "ALUMODE": "ALUMODEREG", "INMODE": "INMODEREG",
            "CARRYIN": "CARRYINREG", "CARRYINSEL": "CARRYINSELREG"}
    for port, reg in ctrl.items():
        if port not in conns:
            continue
        if p[reg]:
            arcs.ends.extend((pin, t["ctrl.required"]) for pin in pins(cell, port))
        elif PREG:
            arcs.ends.extend((pin, t["C.required"]["PREG" + pd]) for pin in pins(cell, port))
        else:
            for src in pins(cell, port):
                for dst in pins(cell, "P") if "P" in conns else []:
                    arcs.combs.append((src, dst, t["C.P.comb"]))
    for port in conns:
        if port.startswith(("CE", "RST")):
            arcs.ends.extend((pin, t["ctrl.required"]) for pin in pins(cell, port))
    return arcs
