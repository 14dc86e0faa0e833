"""``python -m gateware --report``: cycle counts, xc7z020 resources, a timing estimate per clock domain
and what they make of an RSA-2048 private operation, for one configuration of the Montgomery
peripheral, next to the targets of the issue (the command line is ``gateware.tools.cli``; ``--sweep`` runs
``gateware.tools.sweep``: the same figures for several configurations).

The figures come from:
  * ``gateware.driver.mul_cycles`` and ``pair_mul_cycles`` (the RTL, simulated), each checked against
    the model (``gateware.model``), which gives ``exp_cycles`` and the peripheral's share of RSA-2048
    (``crt_cycles``),
  * ``eda.synth.synthesize`` (Yosys ``synth_xilinx -family xc7``),
  * ``eda.timing.analyze`` (static estimate, 7-series -1 figures),
  * given a ``firmware`` callable, the firmware's own cycle count of one RSA-2048 private operation
    with CRT on the sequencer backend.  The peripheral's tools do not know the SoC: ``python -m sim
    report`` (``jobs.report``) runs this report with the count timed on the simulated SoC and the SoC's
    clock; ``python -m gateware --report`` leaves the figure out and says where it comes from.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from common import cache
from common.errors import ProjectError
from common.paths import BUILD_DIR
from eda import synth, timing
from eda.timing.netlist import net_names
from gateware import model
from gateware.interface import WORD_BITS, PeripheralConfig

from .verilog import generate_verilog

__all__ = ["TARGETS", "MUL_BITS", "CLOCK_DOMAINS", "CRT_BITS", "CrtCommand", "mul_cycles", "pair_fits",
           "mul_pair_cycles", "crt_commands", "crt_pairs", "crt_cycles", "PUBLIC_EXPONENT", "FIRMWARE_IMPL",
           "UNMEASURED", "firmware_crt", "rsa2048_crt", "synthesize_peripheral", "resource_figures",
           "timing_figures", "clock_mhz", "build_report", "check_targets", "format_report"]

DEFAULT_BUILD = BUILD_DIR / "gateware"

MUL_BITS = (512, 1024, 1536, 2048, 3072, 4096)
EXP_BITS = 2048
EXP_MODES = ("window", "fixed", "ladder")

#: The targets: upper bounds, the timing bounds in every clock domain.  The products' and RSA's are the
#: ones the datapath is being pushed to (peripheral cycles for MUL and MUL_PAIR; CPU cycles, as the
#: firmware counts them, and the time at the estimated clock for RSA-2048 with CRT); the DSP bound is
#: the xc7z020's 220 DSP48E1 less the 4 the CPU uses.
TARGETS = {
    "mul_cycles": {"2048": 140},
    "mul_pair_cycles": {"1024": 74},
    "rsa2048_crt": {"cycles": 105_000, "ms": 0.75},
    "resources": {"dsp": 216, "lut": 30000, "bram36": 40},
    "timing": {"critical_path_ns": 10.0},
}
#: The target groups whose figures are per clock domain ({domain: {key: value}}).
PER_DOMAIN = ("timing",)

#: The clock inputs of the peripheral's netlist, by the name of the SoC's clock domain that drives them:
#: its one clock port ``clk`` runs on LiteX's ``sys`` clock (soc/montmul.py).
CLOCK_DOMAINS = {"clk": "sys"}
#: Cells that pass a clock on unchanged, input ``I`` to output ``O`` (synth_xilinx puts a BUFG on a
#: clock input; the estimate then names the domain after the BUFG's output net, whichever name Yosys
#: gave it).
CLOCK_BUFFERS = ("BUFG", "BUFGCE", "BUFH", "BUFHCE", "BUFR", "BUFIO", "IBUF", "IBUFG")


def _measured(config: PeripheralConfig, sizes, fits, measure, expect, what: str) -> dict:
    """{str(bits): cycles measured on the RTL} for each size in ``sizes``, None where ``fits(bits)`` is
    false.  Each count must equal the model's, which the exponentiation and RSA figures stand on: a
    difference is an error, not a figure."""
    cycles = {}
    for bits in sizes:
        if not fits(bits):
            cycles[str(bits)] = None
            continue
        measured, expected = measure(config, bits), expect(config, bits)
        if measured != expected:
            raise ProjectError(f"the RTL takes {measured} cycles for {what % bits} at {config}, "
                               f"the model says {expected}: the model is out of date")
        cycles[str(bits)] = measured
    return cycles


def mul_cycles(config: PeripheralConfig, sizes=MUL_BITS) -> dict:
    """Cycles of one Montgomery product (MUL) per operand size in ``sizes``, measured on the RTL
    (``gateware.driver.mul_cycles``) and equal to ``gateware.model.mul_cycles``, as {str(bits):
    cycles}; None for sizes beyond ``config.max_bits``."""
    from gateware import driver
    return _measured(config, sizes, lambda bits: bits <= config.max_bits, driver.mul_cycles, model.mul_cycles,
                     "a %d-bit product")


def pair_fits(config: PeripheralConfig, bits: int) -> bool:
    """Whether ``config`` has pair commands for two ``bits``-bit moduli (each within a row)."""
    return (config.has_pairs and bits <= config.max_bits
            and model.size_words(bits, config.word_bits) <= config.pair_max_words)


def mul_pair_cycles(config: PeripheralConfig, sizes=MUL_BITS) -> dict:
    """Cycles of one MUL_PAIR of two products of the same size per size in ``sizes``, measured on the
    RTL (``gateware.driver.pair_mul_cycles``) and equal to ``gateware.model.pair_mul_cycles``, as
    {str(bits): cycles}; None where the configuration has no pair of that size (``pair_fits``)."""
    from gateware import driver
    return _measured(config, sizes, lambda bits: pair_fits(config, bits), driver.pair_mul_cycles,
                     lambda config, bits: model.pair_mul_cycles(config, bits, bits), "a pair of %d-bit products")


def _cycle_counts(config: PeripheralConfig, say) -> tuple[dict, dict, dict]:
    """Simulated cycles of one Montgomery product and of one pair per size in MUL_BITS, and the
    model's cycles of one EXP_BITS-bit exponentiation per mode; None where they do not fit."""
    exp_cycles = {f"{EXP_BITS}_{mode}": None for mode in EXP_MODES}
    say("simulating Montgomery products ...")
    mul = mul_cycles(config, MUL_BITS)
    if any(pair_fits(config, bits) for bits in MUL_BITS):
        say("simulating pairs of products (MUL_PAIR) ...")
    pairs = mul_pair_cycles(config, MUL_BITS)
    if EXP_BITS <= config.max_bits:
        say("counting the cycles of exponentiations (model) ...")
        for mode in EXP_MODES:
            exp_cycles[f"{EXP_BITS}_{mode}"] = model.exp_cycles(config, EXP_BITS, mode)
    return mul, pairs, exp_cycles


# ---- RSA-2048 with CRT -----------------------------------------------------------------------------

#: The RSA key size of the RSA figures.
CRT_BITS = 2048
#: The public exponent of the keys whose private operation ends with a check (the firmware's bench keys';
#: tests/jobs/test_report.py holds it to soc.config's).
PUBLIC_EXPONENT = 65537
#: The firmware's backend whose commands ``crt_commands`` lists (firmware/rsa/rsa_hw.c): the sequencer's.
FIRMWARE_IMPL = "hw_seq"
#: What the RSA figure says when no ``firmware`` count was asked for.
UNMEASURED = ("not measured by the peripheral's report: `python -m sim report` adds the firmware's count on "
              "the simulated SoC")


@dataclasses.dataclass(frozen=True)
class CrtCommand:
    """``count`` commands ``op`` at the size of a ``bits``-bit modulus (an exponentiation's exponent
    is ``exponent_bits`` long, ``exponent`` its value when the count depends on it)."""
    op: str
    bits: int
    count: int
    what: str
    exponent_bits: int | None = None
    exponent: int | None = None
    a_words: int = 0            # MUL_PAIR's shared a (its arg)


def crt_commands(bits: int = CRT_BITS, pairs: bool = False, word_bits: int = WORD_BITS) -> tuple[CrtCommand, ...]:
    """The peripheral commands of one RSA private operation with CRT on the sequencer backend
    (``rsa_private_crt`` in firmware/rsa/rsa.c over ``rsa_hw_seq`` in firmware/rsa/rsa_hw.c), every modulus
    loaded afresh as in a timed operation.  Factors of half the key size.  ``pairs``: the factors fit
    the pair commands, so the two halves run at once (EXP_FIXED_PAIR, their conversions as MUL_PAIR).
    A copy kept for its descriptions: tests/firmware/test_rsa_hw_commands.py builds the firmware's
    backend for the host over a recording stand-in of the peripheral and checks that it issues these
    commands, command for command, at several key sizes with and without the pair commands.  ``word_bits``:
    the peripheral's word width (MUL_PAIR's shared a is counted in words)."""
    half = bits // 2
    e = PUBLIC_EXPONENT
    check = CrtCommand("EXP_WINDOW", bits, 1, f"the check: s^{e} mod n == c", exponent_bits=e.bit_length(),
                       exponent=e)
    if pairs:
        return (
            CrtCommand("SETMOD", half, 2, "p (bank 0), q (bank 1)"),
            CrtCommand("MUL_PAIR", half, 2, f"with the {bits}-bit input as the shared a: the input reduced mod p "
                                            "and q and converted; the Montgomery ones", a_words=bits // word_bits),
            CrtCommand("EXP_FIXED_PAIR", half, 1, f"m1 = c^dp mod p and m2 = c^dq mod q at once ({half}-bit "
                                                  "exponents)", exponent_bits=half),
            CrtCommand("MUL_PAIR", half, 1, "both halves out of the Montgomery domain"),
            CrtCommand("COPY", half, 2, "Garner: m2 alone (context 1's row), then h alone"),
            CrtCommand("MUL", half, 2, "Garner: m1*qinv and m2*qinv mod p (the second also reduces m2 mod p)"),
            CrtCommand("SUB", half, 1, "Garner: h = (m1 - m2)*qinv mod p"),
            CrtCommand("SETMOD", bits, 1, "n"),
            CrtCommand("MUL", bits, 1, "the recombination's q*h"),
            CrtCommand("ADD", bits, 1, "the recombination: s = m2 + q*h"),
            CrtCommand("MUL", bits, 3, "the check's Montgomery one (from R^2), s into and s^e out of the "
                                       "Montgomery domain"),
            check,
            CrtCommand("EQUAL", bits, 1, f"the check: s^{e} mod n against c, written afresh"),
        )
    return (
        CrtCommand("SETMOD", half, 2, "q, p"),
        CrtCommand("MUL", half, 12, "each half: R^3 from R^2, the input's two halves into the Montgomery domain, "
                                    "the Montgomery one, the way back (10); Garner: m1*qinv and m2*qinv mod p (2)"),
        CrtCommand("ADD", half, 2, "each half: the input's two halves' products added mod the factor"),
        CrtCommand("EXP_FIXED", half, 2, f"m2 = c^dq mod q, m1 = c^dp mod p ({half}-bit exponents)",
                   exponent_bits=half),
        CrtCommand("SUB", half, 1, "Garner: h = (m1 - m2)*qinv mod p"),
        CrtCommand("SETMOD", bits, 1, "n"),
        CrtCommand("MUL", bits, 4, "q*h (recombination); the check's Montgomery one (from R^2), s into and s^e "
                                   "out of the Montgomery domain"),
        CrtCommand("ADD", bits, 1, "the recombination: s = m2 + q*h"),
        check,
        CrtCommand("EQUAL", bits, 1, f"the check: s^{e} mod n against c, written afresh"),
    )


def crt_pairs(config: PeripheralConfig, bits: int = CRT_BITS) -> bool:
    """Whether the firmware runs the two halves at once on ``config`` (both factors within a row)."""
    return config.has_pairs and model.size_words(bits // 2, config.word_bits) <= config.pair_max_words


def _command_cycles(config: PeripheralConfig, command: CrtCommand) -> int:
    if command.op == "SETMOD":
        return model.setmod_cycles(config, command.bits)
    if command.op == "MUL":
        return model.mul_cycles(config, command.bits)
    if command.op == "MUL_PAIR":
        return model.pair_mul_cycles(config, command.bits, command.bits, a_words=command.a_words)
    if command.op == "EXP_FIXED_PAIR":
        return model.pair_exp_cycles(config, command.bits, command.bits, command.exponent_bits)
    if command.op in ("ADD", "SUB"):
        return model.add_cycles(config, command.bits)
    if command.op == "EQUAL":
        return model.equal_cycles(config, command.bits)
    if command.op == "COPY":
        return model.copy_cycles(config)
    mode = {"EXP_FIXED": "fixed", "EXP_WINDOW": "window", "EXP_LADDER": "ladder"}[command.op]
    return model.exp_cycles(config, command.bits, mode, exponent=command.exponent,
                            exponent_bits=command.exponent_bits)


def crt_cycles(config: PeripheralConfig, bits: int = CRT_BITS) -> int | None:
    """The peripheral's busy cycles for one RSA private operation with CRT (``crt_commands``), from
    the model; no CPU time, no operand transfers.  None when ``bits`` exceeds ``config.max_bits``."""
    if bits > config.max_bits:
        return None
    return sum(command.count * _command_cycles(config, command)
               for command in crt_commands(bits, crt_pairs(config, bits), config.word_bits))


def firmware_crt(config: PeripheralConfig, firmware=None, *, unmeasured: str = UNMEASURED, log=print) -> dict:
    """One RSA-2048 private operation with CRT on the sequencer backend: the firmware's CPU cycles
    (``firmware(config, log)`` -> {"cycles", "source"}: the whole operation, CPU, operand transfers and
    the peripheral, as the firmware counts it), the peripheral's busy cycles within them (``crt_cycles``,
    the model) and where the count came from.  Without ``firmware``, or when the configuration holds no
    2048-bit modulus, ``cycles`` is None and ``source`` says why (``unmeasured``)."""
    peripheral = crt_cycles(config)
    if peripheral is None:
        return {"cycles": None, "peripheral_cycles": None,
                "source": f"not measured: max_bits={config.max_bits} holds no {CRT_BITS}-bit modulus"}
    if firmware is None:
        return {"cycles": None, "peripheral_cycles": peripheral, "source": unmeasured}
    measured = firmware(config, log)
    cycles = measured["cycles"]
    if cycles < peripheral:
        raise ProjectError(f"the firmware counts {cycles:,} cycles for RSA-{CRT_BITS} with CRT, fewer than the "
                           f"{peripheral:,} its peripheral commands take (crt_commands): the model of the "
                           "firmware's commands is out of date")
    return {"cycles": cycles, "peripheral_cycles": peripheral, "source": measured["source"]}


def rsa2048_crt(config: PeripheralConfig, clock: float, firmware=None, *, sys_clk_mhz: float | None = None,
                unmeasured: str = UNMEASURED, log=print) -> dict:
    """``firmware_crt`` with the time it takes in ms: at ``clock`` MHz (the Fmax estimate; the
    firmware's cycles are sys_clk cycles, and the SoC has that one clock) and, given the SoC's clock
    ``sys_clk_mhz``, at that clock."""
    measured = firmware_crt(config, firmware, unmeasured=unmeasured, log=log)
    cycles = measured["cycles"]
    return {"cycles": cycles,
            "ms": None if cycles is None else round(cycles / clock / 1000, 3),
            "sys_clk_mhz": sys_clk_mhz,
            "ms_at_sys_clk": None if cycles is None or sys_clk_mhz is None else round(cycles / sys_clk_mhz / 1000, 3),
            "peripheral_cycles": measured["peripheral_cycles"],
            "source": measured["source"]}


# ---- synthesis and timing ----------------------------------------------------------------------------

def synthesize_peripheral(config: PeripheralConfig, workdir: Path, cache_dir: Path | None = None,
                          keep: int = 2) -> synth.SynthResult:
    """The peripheral's Verilog (``workdir/montmul.v``) through Yosys for xc7.  Without ``cache_dir``
    Yosys runs in ``workdir/synth``; with it, in ``cache_dir/montmul-<config>-<digest>``, and not at
    all when the same Verilog was synthesised there before (``seconds`` is then 0).  The ``keep``
    most recent runs of each configuration stay in the cache."""
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    source = workdir / "montmul.v"
    text = generate_verilog(config, name="montmul")
    if not source.exists() or source.read_text() != text:
        source.write_text(text)
    if cache_dir is None:
        return synth.synthesize([source], "montmul", workdir / "synth")
    name = f"montmul-lanes{config.lanes}-bits{config.max_bits}"
    made = []
    directory, _ = cache.cached_dir(cache_dir, name, ("montmul", cache.digest(files=[source])),
                                    lambda d: made.append(synth.synthesize([source], "montmul", d)),
                                    keep=keep)
    if made:
        return made[0]
    with open(directory / "netlist.json") as f:
        cells = synth.count_cells(json.load(f), "montmul")
    return synth.SynthResult(top="montmul", workdir=directory, netlist=directory / "netlist.json",
                             log=directory / "yosys.log", cells=cells, seconds=0.0)


def resource_figures(result: synth.SynthResult) -> dict:
    """The resources the report and the sweep show: DSP48E1, LUT, FF, BRAM36."""
    return {key: result.resources[key] for key in ("dsp", "lut", "ff", "bram36")}


def _clock_domain_names(netlist: dict, top: str, nets) -> dict:
    """{clock net as the estimate names it: its domain}: the top-level input the net comes from,
    through clock buffers, by the SoC's name for it (``CLOCK_DOMAINS``); the net's own name when it
    comes from no input."""
    module = netlist["modules"][top]
    bit_of = {name: bit for bit, name in net_names(module)[0].items()}
    buffered = {}
    for cell in module["cells"].values():
        pins = cell["connections"]
        if cell["type"] in CLOCK_BUFFERS and len(pins.get("I", ())) == len(pins.get("O", ())) == 1:
            buffered[pins["O"][0]] = pins["I"][0]
    inputs = {port["bits"][0]: name for name, port in module["ports"].items()
              if port["direction"] == "input" and len(port["bits"]) == 1}
    domains = {}
    for net in nets:
        bit, seen = bit_of.get(net), set()
        while bit in buffered and bit not in seen:
            seen.add(bit)
            bit = buffered[bit]
        port = inputs.get(bit)
        domains[net] = net if port is None else CLOCK_DOMAINS.get(port, port)
    return domains


def timing_figures(result: synth.SynthResult, route_ps: int = timing.ROUTE_PS):
    """The static timing estimate of a synthesised netlist: (figures per clock domain, the estimate).
    A domain is named after the clock input it comes from, as the SoC names it (``CLOCK_DOMAINS``);
    each has its worst path and the Fmax it allows, with the path's ends for the worst domain, whose
    path the estimate describes (None for the others)."""
    netlist = result.load_netlist()
    estimate = timing.analyze_netlist(netlist, result.top, route_ps=route_ps)
    names = _clock_domain_names(netlist, result.top, estimate.clock_domains)
    worst = max(estimate.clock_domains, key=estimate.clock_domains.get, default=None)
    figures = {}
    for net, path_ns in estimate.clock_domains.items():
        figures[names[net]] = {
            "critical_path_ns": round(path_ns, 3),
            "fmax_mhz": round(1000 / path_ns, 1),
            "start": estimate.start if net == worst else None,
            "end": estimate.end if net == worst else None,
        }
    return figures, estimate


def clock_mhz(times: dict) -> float:
    """The clock the design runs at by the estimate: the lowest Fmax over its clock domains."""
    return min(domain["fmax_mhz"] for domain in times.values())


def _status(value, bound) -> str:
    if value is None:
        return "N/A"
    return "MET" if value <= bound else "SHORT"


def check_targets(figures: dict, targets: dict = TARGETS) -> dict:
    """Each target's bound, the figure it bounds and MET/SHORT (N/A when there is no figure);
    ``figures`` and ``targets`` are grouped alike (``{"resources": {"lut": ...}, ...}``), but for the
    groups of ``PER_DOMAIN``, whose bounds hold in each clock domain of the figures:
    ``{"timing": {"sys": {"critical_path_ns": {...}}}}``."""
    def judge(values, bounds):
        return {key: {"target": bound, "value": values[key], "status": _status(values[key], bound)}
                for key, bound in bounds.items()}

    return {group: ({domain: judge(values, bounds) for domain, values in figures[group].items()}
                    if group in PER_DOMAIN else judge(figures[group], bounds))
            for group, bounds in targets.items()}


def build_report(config: PeripheralConfig, *, workdir: Path = DEFAULT_BUILD, route_ps: int = timing.ROUTE_PS,
                 firmware=None, sys_clk_mhz: float | None = None, unmeasured: str = UNMEASURED,
                 progress=None) -> dict:
    """Simulate, synthesise and time one peripheral configuration, and with ``firmware`` (a callable,
    see ``firmware_crt``) take the firmware's count of RSA-2048 with CRT; return the report as a dict."""
    say = progress or (lambda message: None)
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)

    mul, pairs, exp = _cycle_counts(config, say)

    say("synthesising for xc7z020 (yosys synth_xilinx) ...")
    result = synthesize_peripheral(config, workdir)
    say(f"timing estimate over {sum(result.cells.values())} cells ...")
    times, estimate = timing_figures(result, route_ps)
    resources = resource_figures(result)
    if firmware is not None and crt_cycles(config) is not None:
        say(f"counting RSA-{CRT_BITS} with CRT in the firmware ...")
    rsa = rsa2048_crt(config, clock_mhz(times), firmware, sys_clk_mhz=sys_clk_mhz, unmeasured=unmeasured, log=say)
    targets = check_targets({"mul_cycles": mul, "mul_pair_cycles": pairs, "rsa2048_crt": rsa,
                             "resources": resources, "timing": times})
    return {
        "config": dataclasses.asdict(config),
        "mul_cycles": mul,
        "mul_pair_cycles": pairs,
        "exp_cycles": exp,
        "rsa2048_crt": rsa,
        "resources": resources,
        "timing": times,
        "targets": targets,
        "details": {
            "top": result.top,
            "synth_seconds": round(result.seconds, 1),
            "resources": result.resources,
            "route_ns_per_net": route_ps / 1000,
            "logic_levels": estimate.logic_levels,
            "path": [dataclasses.asdict(step) for step in estimate.path],
            "clock_domains": estimate.clock_domains,
            "combinational_loops": len(estimate.loops),
            "unmodelled_cells": dict(estimate.unknown_cells),
        },
    }


def _text(value) -> str:
    if value is None:
        return "-"
    return f"{value:,}" if isinstance(value, int) else f"{value}"


def _row(label: str, value, target: dict | None = None, unit: str = "") -> str:
    """One figure of the table; with its target (``check_targets``' entry), the bound and the verdict."""
    line = f"  {label:<22}{_text(value) + unit:>14}"
    if target is not None:
        line += f"   target <= {_text(target['target']) + unit:<10} {target['status']}"
    return line


def format_report(report: dict) -> str:
    """The report as a table for the terminal: value, target and MET/SHORT per figure."""
    targets = report["targets"]
    config = ", ".join(f"{k}={v}" for k, v in report["config"].items())
    lines = [f"Montgomery peripheral ({config})", "", "Montgomery product (MUL), cycles"]
    for bits, value in report["mul_cycles"].items():
        lines.append(_row(f"{bits} bits", value, targets.get("mul_cycles", {}).get(bits)))
    lines += ["", "Pair of products (MUL_PAIR, two of the same size), cycles"]
    for bits, value in report["mul_pair_cycles"].items():
        lines.append(_row(f"{bits} bits", value, targets.get("mul_pair_cycles", {}).get(bits)))
    lines += ["", "Modular exponentiation, cycles (model)"]
    for key, value in report["exp_cycles"].items():
        bits, mode = key.split("_", 1)
        lines.append(_row(f"{bits} bits, {mode}", value))
    rsa = report["rsa2048_crt"]
    lines += ["", f"RSA-{CRT_BITS} private operation with CRT, {FIRMWARE_IMPL} backend",
              _row("CPU cycles", rsa["cycles"], targets.get("rsa2048_crt", {}).get("cycles")),
              _row("time at Fmax est.", rsa["ms"], targets.get("rsa2048_crt", {}).get("ms"), " ms")]
    if rsa.get("sys_clk_mhz") is not None:
        lines.append(_row(f"time at {rsa['sys_clk_mhz']:g} MHz", rsa["ms_at_sys_clk"], unit=" ms"))
    lines += [_row("peripheral cycles", rsa["peripheral_cycles"]),
              f"  source: {rsa['source']}"]
    lines += ["", "Resources, xc7z020 (Yosys synth_xilinx)"]
    for key, label in (("dsp", "DSP48E1"), ("lut", "LUT"), ("ff", "FF"), ("bram36", "BRAM36")):
        lines.append(_row(label, report["resources"][key], targets.get("resources", {}).get(key)))
    lines += ["", f"Timing estimate, 7-series -1 ({report['details']['route_ns_per_net']} ns routing per net)"]
    for domain, t in report["timing"].items():
        bounds = targets.get("timing", {}).get(domain, {})
        lines += [f"  clock domain {domain}",
                  _row("critical path", t["critical_path_ns"], bounds.get("critical_path_ns"), " ns"),
                  _row("Fmax", t["fmax_mhz"], unit=" MHz")]
        if t["start"] is not None:
            lines += [f"  from {t['start']}", f"  to   {t['end']}"]
    return "\n".join(lines)
