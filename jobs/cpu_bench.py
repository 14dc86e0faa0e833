"""`python -m sim cpus [LIST|all]`: the same benchmark on several softcores, one table.

For each CPU (soc/cpus.py: the supported softcores), in its own process (LiteX and the tools it runs
redirect the process's output, so CPUs never share one), up to `jobs` at a time:

1. build its simulated SoC, build/sim-<type>-<variant>/ (sim/build.py; stale parts only);
2. `bench hw <sizes>`: every hardware row (CPU loop, sequencer, sliding window), checked by the
   firmware against the expected results;
3. the software rows, public and CRT size by size, then private without CRT size by size (so the
   largest size's CRT row, the plot's, runs before the costliest rows), through `key` and `time <op> sw`, within
   a wall-clock budget per CPU: a row predicted (from the same row at a smaller size, or from the
   public one at the same size) to pass what is
   left of the budget is not started, and one that passes it is stopped; every such row is listed as
   skipped with the reason, never left out silently (the software Montgomery product is in
   `python -m sim bench --cpu-type ...`, not here);
4. the PYNQ-Z2 SoC's Yosys figures with and without the peripheral (jobs/cpu_figures.py).

Writes build/bench/cpus.json (`results`: the rows of results.json with `cpu`; `skipped`; `socs`),
cpus.md and cpus.png (the largest size's CRT time at each SoC's estimated Fmax against its LUTs).
"""

import json
import sys
import time
from pathlib import Path

from common import report as report_files
from common.errors import ProjectError
from common.jobs import run_parallel
from common.paths import BUILD_DIR
from jobs import options, registry
from jobs.bench import cycles_cell, speedup_cell
from link.console import AnswerError, ConsoleError, Result, SimConsole
from soc import config
from soc import console_protocol as protocol
from soc import cpus as soc_cpus

#: Wall-clock seconds of simulation per CPU: the software rows' budget and the hardware rows' limit.
#: With these, `python -m sim cpus all` at 512..2048 bits fits within an hour on two cores (README, "Across softcores").
DEFAULT_BUDGET_S = 240
DEFAULT_HW_TIMEOUT_S = 420

#: The implementations the cross-CPU table compares (the peer libraries are in `python -m sim bench`).
IMPLS = ("sw", "hw_cpu", "hw_seq")
#: The software rows, cheapest first (it predicts the others), the costliest last.
SW_OPS = ("public", "private_crt", "private")
#: The order they run in: public and CRT size by size (the largest size's CRT is the plot's point),
#: then the private rows without CRT size by size, which take the rest of the budget.
SW_SCHEDULE = (("public", "private_crt"), ("private",))
#: How a row's time grows with the key size (bits^k): products are quadratic, private exponents
#: add a linear factor.
GROWTH = {"public": 2, "private": 3, "private_crt": 3}
#: A private row's time over the public one's at the same size, as bits / divisor (from the software
#: cycles on VexRiscv full: CRT 18x public at 512 bits, 27x at 1024; no CRT 38x and 72x).
OVER_PUBLIC = {"private_crt": 28, "private": 13}


def _say(cpu, message):
    print(f"[{cpu} {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _bench_hw(build, bits, timeout, on_result):
    """`bench hw <bits>` in a fresh simulation; calls on_result(record) per result as it arrives.
    Returns None, or the reason it stopped early (the console's time ran out, or it stopped
    answering). A firmware that answers wrongly is an error (an AnswerError, raised)."""
    console = SimConsole(build.model, build.gateware_dir, timeout=timeout, entropy=build.entropy)
    try:
        console.wait_prompt()
        console.bench([bits], only="hw", on_result=on_result)
    except AnswerError:
        raise
    except ConsoleError as error:
        return str(error)
    finally:
        console.close()
    return None


def _software_rows(build, cpu, sizes, budget, out, say):
    """The software rows through `key` (the benchmark key) and `time <op> sw <message>`, each result
    checked against Python (and by the firmware: a private result must map back with e). A row
    predicted to pass what is left of `budget` wall-clock seconds is skipped, as is every row after a
    run that passed it. Returns the seconds spent."""
    import random

    from soc.keys import bench_keys

    spent, wall = 0.0, {}          # wall[(bits, op)]: seconds the row took
    over = set()                   # (bits, op) of the rows skipped
    console = None
    stop_reason = None
    rng = random.Random(f"cpus-{cpu}")
    keys = {bits: bench_keys((bits,))[0] for bits in sizes}
    messages = {bits: rng.randrange(2, keys[bits]["n"]) for bits in sizes}
    key_loaded = None              # the size of the key the console holds
    try:
        for group, bits in ((group, bits) for group in SW_SCHEDULE for bits in sizes):
            key, m = keys[bits], messages[bits]
            n, e = key["n"], key["e"]
            inputs = {"public": (m, pow(m, e, n)), "private": (pow(m, e, n), m), "private_crt": (pow(m, e, n), m)}
            for op in group:
                left = budget - spent
                predicted = None
                smaller = [b for (b, o) in wall if o == op and b < bits]
                if smaller:
                    b0 = max(smaller)
                    predicted = wall[(b0, op)] * (bits / b0) ** GROWTH[op]
                elif op in OVER_PUBLIC and (bits, "public") in wall:
                    predicted = wall[(bits, "public")] * bits / OVER_PUBLIC[op]
                reason = stop_reason
                cheaper = [o for o in SW_OPS[:SW_OPS.index(op)] if (bits, o) in over]
                if reason is None and any(b < bits and (b, op) in over for b in sizes):
                    reason = f"RSA-{max(b for b in sizes if b < bits and (b, op) in over)} {op} was over the budget"
                if reason is None and cheaper:
                    reason = f"the cheaper {cheaper[-1]} row at this size was over the budget"
                if reason is None and left <= 0:
                    reason = f"the {budget:,.0f} s budget per CPU was used"
                if reason is None and predicted is not None and predicted > left:
                    reason = (f"predicted {predicted:,.0f} s of simulation, {left:,.0f} s left of the "
                              f"{budget:,.0f} s budget per CPU")
                if reason:
                    over.add((bits, op))
                    out["skipped"].append({"cpu": cpu.name, "bits": bits, "op": op, "impl": "sw", "reason": reason})
                    say(f"software RSA-{bits} {op} skipped: {reason}")
                    continue
                t0 = t_start = time.monotonic()
                try:
                    if console is None:
                        console = SimConsole(build.model, build.gateware_dir, timeout=left + 60,
                                             entropy=build.entropy)
                        console.wait_prompt()
                    console.deadline = time.monotonic() + left
                    if key_loaded != bits:
                        console.set_key(key)
                        key_loaded = bits
                    source, expected = inputs[op]
                    t0 = time.monotonic()        # the row alone (the key's set-up counts for the budget)
                    spent += t0 - t_start
                    timed = console.time(op, "sw", source)
                except AnswerError:             # the firmware answered wrongly: an error, not the budget
                    raise
                except ConsoleError as error:
                    took = time.monotonic() - t0
                    spent += took
                    why = "" if "time limit" in str(error) else f" ({error})"
                    stop_reason = f"stopped after {took:,.0f} s{why}, over the {budget:,.0f} s budget per CPU"
                    if console is not None:         # None: the simulation did not start
                        console.close()
                    console, key_loaded = None, None
                    out["skipped"].append({"cpu": cpu.name, "bits": bits, "op": op, "impl": "sw",
                                           "reason": stop_reason})
                    say(f"software RSA-{bits} {op}: {stop_reason}")
                    continue
                took = time.monotonic() - t0
                spent += took
                wall[(bits, op)] = took
                row = {"bits": bits, "op": op, "impl": "sw", "cycles": timed.cycles,
                       "ok": timed.ok and timed.result == expected, "cpu": cpu.name}
                out["results"].append(row)
                say(f"RSA-{bits} {op:<12} sw      {row['cycles']:>13,} cycles {'ok' if row['ok'] else 'MISMATCH'} "
                    f"({took:,.0f} s)")
    finally:
        if console is not None:
            console.close()
    return spent


def run_cpu(cpu_name, sizes, budget, synth, timeout, quiet=False):
    """Everything for one CPU (runs in a worker process): {cpu, soc_info, results, skipped, socs,
    seconds, error}. A failure is returned as `error` (one line), not raised, so the others go on."""
    cpu = soc_cpus.parse(cpu_name)
    say = (lambda m: None) if quiet else (lambda m: _say(cpu, m))
    out = {"cpu": cpu.name, "results": [], "skipped": [], "socs": [], "error": None, "seconds": {}}
    started = time.monotonic()
    try:
        from sim import build as sim_build
        say("building the simulated SoC (stale parts only)")
        build = sim_build.build(cpu_type=cpu.type, cpu_variant=cpu.variant, log=lambda m: None)
        out["soc_info"] = build.soc_info
        out["seconds"]["build"] = round(time.monotonic() - started, 1)

        def keep(impls):
            def on_result(record):
                if isinstance(record, Result) and record.impl in impls:
                    row = {**record.as_dict(), "cpu": cpu.name}
                    out["results"].append(row)
                    say(f"RSA-{row['bits']} {row['op']:<12} {row['impl']:<7} {row['cycles']:>13,} cycles "
                        f"{'ok' if row['ok'] else 'MISMATCH'}")
            return on_result

        t0 = time.monotonic()
        for i, bits in enumerate(sizes):
            left = (timeout or budget) - (time.monotonic() - t0)
            stopped = _bench_hw(build, bits, left, keep(("hw_cpu", "hw_seq"))) if left > 0 \
                else f"the {timeout or budget:,.0f} s budget for the hardware rows was used"
            if stopped:
                reason = f"hardware rows stopped: {stopped}"
                for later in sizes[i:]:
                    done = {(r["op"], r["impl"]) for r in out["results"] if r["bits"] == later}
                    out["skipped"] += [{"cpu": cpu.name, "bits": later, "op": op, "impl": impl, "reason": reason}
                                       for op in protocol.OPS for impl in ("hw_cpu", "hw_seq")
                                       if (op, impl) not in done]
                say(f"RSA-{bits} and larger: {reason}")
                break
        out["seconds"]["hw"] = round(time.monotonic() - t0, 1)

        spent = _software_rows(build, cpu, sizes, budget, out, say)
        out["seconds"]["sw"] = round(spent, 1)

        if synth:
            from jobs import cpu_figures
            t0 = time.monotonic()
            out["socs"] = cpu_figures.soc_figures(build, cpu, log=say)
            out["seconds"]["synth"] = round(time.monotonic() - t0, 1)
    except ProjectError as error:
        out["error"] = str(error).splitlines()[0]
        say(f"error: {out['error']}")
    out["seconds"]["total"] = round(time.monotonic() - started, 1)
    say(f"done in {out['seconds']['total']:,.0f} s")
    return out


def _prepare():
    """What every CPU's build shares, made once before the workers start (they would race on it):
    the peer libraries' sources and the benchmark keys."""
    from soc import firmware, peer_libs
    peer_libs.fetch_all()
    firmware.soc_headers()


def _cpu_file(out_dir, cpu):
    return Path(out_dir) / "cpus" / f"{cpu.slug}.json"


def _reusable(out_dir, cpu, sizes, synth):
    """An earlier run's result for this CPU with the same sizes (and SoC figures when asked), or None."""
    path = _cpu_file(out_dir, cpu)
    if not path.exists():
        return None
    earlier = json.loads(path.read_text())
    if earlier.get("sizes") != list(sizes) or earlier.get("error") or (synth and not earlier.get("socs")):
        return None
    return earlier


def run(cpus, sizes, budget=DEFAULT_BUDGET_S, synth=True, jobs=2, timeout=DEFAULT_HW_TIMEOUT_S,
        out_dir=BUILD_DIR / "bench", command=None, reuse=False, quiet=False):
    """Runs every CPU (or, with `reuse`, takes its result from an earlier run with the same sizes: each
    CPU's result is kept in <out_dir>/cpus/<type>-<variant>.json) and writes the result files."""
    for cpu in cpus:
        soc_cpus.require_sources(cpu)
    reused = {cpu: _reusable(out_dir, cpu, sizes, synth) for cpu in cpus} if reuse else {}
    todo = [cpu for cpu in cpus if not reused.get(cpu)]
    if todo:
        _prepare()
    # fresh processes (spawn): each CPU's run builds and simulates on its own
    ran = dict(zip(todo, run_parallel([(cpu.name, run_cpu, (cpu.name, sizes, budget, synth, timeout, quiet))
                                       for cpu in todo], jobs, processes="spawn")))
    per_cpu = []
    for cpu in cpus:
        if cpu in ran:
            result = ran[cpu]
            result.update(sizes=list(sizes), budget_s=budget, hw_timeout_s=timeout or budget)
            _cpu_file(out_dir, cpu).parent.mkdir(parents=True, exist_ok=True)
            _cpu_file(out_dir, cpu).write_text(json.dumps(result, indent=1) + "\n")
        else:
            result = reused[cpu]
            if not quiet:
                _say(cpu, f"reusing {_cpu_file(out_dir, cpu)}")
        per_cpu.append(result)
    data = {
        "command": command or (f"python -m sim cpus {','.join(c.name for c in cpus)} "
                               f"--sizes {','.join(map(str, sizes))}"),
        "date": time.strftime("%Y-%m-%d"),
        "sys_clk_hz": config.SYS_CLK_FREQ,
        "sizes": list(sizes),
        "budget_s": budget,
        "cpus": [{"cpu": c["cpu"], "isa": soc_cpus.isa(soc_cpus.parse(c["cpu"])), "error": c["error"],
                  "seconds": c["seconds"], "budget_s": c.get("budget_s", budget),
                  "hw_timeout_s": c.get("hw_timeout_s", timeout or budget)} for c in per_cpu],
        "results": [r for c in per_cpu for r in c["results"]],
        "skipped": [s for c in per_cpu for s in c["skipped"]],
        "socs": [s for c in per_cpu for s in c["socs"]],
    }
    report_files.write(out_dir, "cpus", data, markdown, plot)
    return data


def _cpus_type(text):
    """CPUS: `all` or type[:variant], comma-separated, as soc.cpus.parse_list takes them."""
    import argparse
    if not text.strip(" ,"):
        raise argparse.ArgumentTypeError("takes 'all' or type[:variant], comma-separated")
    try:
        return soc_cpus.parse_list(text)
    except ProjectError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_arguments(parser):
    parser.add_argument("cpus", nargs="?", default=soc_cpus.parse_list("all"), type=_cpus_type, metavar="CPUS",
                        help="type[:variant], comma-separated, or 'all' (the default: "
                             f"{','.join(config.CPUS_ALL)})")
    options.add_sizes(parser, default=config.BENCH_SIZES)
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET_S, metavar="SECONDS",
                        help="wall-clock seconds of simulation per CPU for the software rows; a row predicted to "
                             "pass it is skipped and listed (default: %(default)s)")
    options.add_simulations(parser, default=2, what="CPUs built and simulated at once")
    parser.add_argument("--reuse", action="store_true",
                        help="take a CPU's rows from an earlier run with the same sizes "
                             "(<out>/cpus/<type>-<variant>.json) instead of running it again")
    parser.add_argument("--no-synth", action="store_true", help="leave out the Yosys figures (faster)")
    options.add_out(parser, BUILD_DIR / "bench")


def main(args, log):
    """`python -m sim cpus`: runs, prints the table, fails on a disagreeing result or a CPU that failed."""
    command = (f"python -m sim cpus {','.join(c.name for c in args.cpus)} --sizes {','.join(map(str, args.sizes))}"
               + (f" --budget {args.budget:g}" if args.budget != DEFAULT_BUDGET_S else "")
               + (" --no-synth" if args.no_synth else ""))
    data = run(args.cpus, args.sizes, budget=args.budget, synth=not args.no_synth, jobs=args.simulations,
               timeout=args.timeout, out_dir=args.out, reuse=args.reuse, command=command, quiet=args.quiet)
    print(markdown(data))
    print(f"results: {args.out}/cpus.{{json,md,png}}")
    bad = [r for r in data["results"] if not r["ok"]]
    failed = [c for c in data["cpus"] if c["error"]]
    if bad:
        raise ProjectError(f"{len(bad)} results disagree: {bad}")
    if failed:
        raise ProjectError("; ".join(f"{c['cpu']}: {c['error']}" for c in failed))
    return 0


registry.register(registry.Job(
    "cpus", "the benchmark across softcores, build/bench/cpus.*", main, add_arguments=add_arguments,
    timeout=DEFAULT_HW_TIMEOUT_S,
    description="The benchmark on each softcore, each in a simulation of its own "
                "(build/sim-<type>-<variant>/), and each SoC's Yosys figures for the PYNQ-Z2; writes "
                "cpus.{json,md,png}. --timeout: the hardware rows' limit per CPU."))


# ---- result files ----

def _row(data, cpu, bits, op, impl):
    for r in data["results"]:
        if (r["cpu"], r["bits"], r["op"], r["impl"]) == (cpu, bits, op, impl):
            return r
    return None


def _soc(data, cpu, montmul):
    for s in data["socs"]:
        if s["cpu"] == cpu and s["montmul"] == montmul:
            return s
    return None


def _crt_ms(data, cpu, bits, impl):
    """(ms at the SoC's estimated Fmax, LUTs) of the CRT row: the SoC without the peripheral for the
    software, with it for the hardware; None when the row or the figures are missing."""
    row = _row(data, cpu, bits, "private_crt", impl)
    soc = _soc(data, cpu, impl != "sw")
    if not row or not soc:
        return None
    return row["cycles"] / (soc["fmax_mhz"] * 1e3), soc["lut"]


def markdown(data):
    cpus = [c["cpu"] for c in data["cpus"]]
    sizes = data["sizes"]
    clk = data["sys_clk_hz"]
    skipped = {(s["cpu"], s["bits"], s["op"], s["impl"]): s["reason"] for s in data["skipped"]}
    lines = [f"Cycles counted by the firmware (SoC cycle counter) in the simulated SoC at {clk / 1e6:.0f} MHz, "
             f"whole operation including operand transfers; the same firmware and peripheral on every CPU. "
             f"`{data['command']}`, {data['date']}. Wall-clock budgets per CPU (software rows / hardware rows): "
             + ", ".join(f"{c['cpu']} {c.get('budget_s', data['budget_s']):,.0f} s / "
                         f"{c.get('hw_timeout_s', data['budget_s']):,.0f} s" for c in data["cpus"]) + ".", "",
             "| CPU | ISA | key | operation | software | hw: CPU loop | hw: sequencer | speedup (sw / sequencer) | ok |",
             "|---|---|---:|---|---:|---:|---:|---:|:-:|"]
    isa = {c["cpu"]: c["isa"] for c in data["cpus"]}
    for cpu in cpus:
        for bits in sizes:
            for op, what in protocol.OPS.items():
                rows = {impl: _row(data, cpu, bits, op, impl) for impl in IMPLS}
                if not any(rows.values()):
                    continue
                sw = rows["sw"]
                sw_cell = cycles_cell(sw) if sw else ("skipped" if (cpu, bits, op, "sw") in skipped else "-")
                ok = all(r["ok"] for r in rows.values() if r)
                lines.append(f"| {cpu} | {isa[cpu]} | {bits} | {what} | {sw_cell} | {cycles_cell(rows['hw_cpu'])} | "
                             f"{cycles_cell(rows['hw_seq'])} | {speedup_cell(sw, rows['hw_seq'])} | {'yes' if ok else '**no**'} |")
    if data["skipped"]:
        lines += ["", "**Skipped rows** (over the time budget; software unless named):", ""]
        reasons = {}
        for s in data["skipped"]:
            label = f"{s['bits']} {s['op']}" + ("" if s["impl"] == "sw" else f" {s['impl']}")
            reasons.setdefault((s["cpu"], s["reason"]), []).append(label)
        lines += [f"- {cpu}: {', '.join(rows)}: {reason}" for (cpu, reason), rows in reasons.items()]
    errors = [c for c in data["cpus"] if c["error"]]
    if errors:
        lines += ["", "**Failed:**", ""] + [f"- {c['cpu']}: {c['error']}" for c in errors]
    if data["socs"]:
        lines += ["", "The PYNQ-Z2 SoC (xc7z020, Yosys synth_xilinx, firmware in ROM; Fmax is our static "
                  "estimate, no place-and-route), without the peripheral and with it:", "",
                  "| CPU | LUT | FF | DSP48E1 | BRAM36 | Fmax (MHz) | with peripheral: LUT | FF | DSP48E1 | BRAM36 | "
                  "Fmax (MHz) |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for cpu in cpus:
            cells = []
            for montmul in (False, True):
                soc = _soc(data, cpu, montmul)
                cells += ([f"{soc[k]:,}" for k in ("lut", "ff", "dsp", "bram36")] + [f"{soc['fmax_mhz']:.1f}"]
                          if soc else ["-"] * 5)
            lines.append(f"| {cpu} | " + " | ".join(cells) + " |")
        bits = max(sizes)
        lines += ["", f"RSA-{bits} with CRT at each SoC's estimated Fmax (software: the SoC without the "
                  "peripheral; hardware: with it):", "",
                  "| CPU | software ms | LUT | hw: sequencer ms | LUT (with peripheral) |", "|---|---:|---:|---:|---:|"]
        for cpu in cpus:
            sw, hw = _crt_ms(data, cpu, bits, "sw"), _crt_ms(data, cpu, bits, "hw_seq")
            lines.append(f"| {cpu} | {f'{sw[0]:,.2f}' if sw else '-'} | {f'{sw[1]:,}' if sw else '-'} | "
                         f"{f'{hw[0]:,.3f}' if hw else '-'} | {f'{hw[1]:,}' if hw else '-'} |")
    return "\n".join(lines + [""])


def plot(data, path):
    plt = report_files.pyplot()
    bits = max(data["sizes"])
    fig, ax = plt.subplots(figsize=(8, 5.5))
    with_figures = bool(data["socs"])
    for impl, marker, label in (("sw", "o", "software"), ("hw_seq", "s", "peripheral (sequencer)")):
        points = []
        for c in data["cpus"]:
            if with_figures:
                point = _crt_ms(data, c["cpu"], bits, impl)
            else:
                row = _row(data, c["cpu"], bits, "private_crt", impl)
                point = (row["cycles"] / (data["sys_clk_hz"] / 1e3), None) if row else None
            if point:
                points.append((point[1], point[0], c["cpu"]))
        if not points:
            continue
        xs = [p[0] if with_figures else i for i, p in enumerate(points)]
        ax.scatter(xs, [p[1] for p in points], marker=marker, s=50, label=label)
        order = sorted(range(len(points)), key=lambda i: xs[i])
        for rank, i in enumerate(order):      # labels staggered: neighbouring CPUs differ by few LUTs
            ax.annotate(points[i][2], (xs[i], points[i][1]), textcoords="offset points",
                        xytext=(5, -12 + 11 * (rank % 3)), fontsize=7)
    ax.set_yscale("log")
    ax.set_ylabel(f"RSA-{bits} private, CRT: ms" + (" at the SoC's estimated Fmax" if with_figures
                                                    else f" at {data['sys_clk_hz'] / 1e6:.0f} MHz"))
    ax.set_xlabel("SoC LUTs on xc7z020 (Yosys; software: without the peripheral, hardware: with it)"
                  if with_figures else "CPU")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    ax.set_title(f"RSA-{bits} CRT across softcores: bigger CPU or a peripheral? ({data['date']})", fontsize=10)
    fig.tight_layout()
    report_files.save_figure(fig, path, dpi=110)
