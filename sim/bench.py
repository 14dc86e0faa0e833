"""`python -m sim --bench`: runs the firmware's `bench` in the simulated SoC, or on a board over a
serial port (`--port`), and writes the results.

Outputs, under build/bench/: results.json (every measurement, and the rows a missing peer library
could not give), results.md (tables per size) and results.png (cycles against key size, log scale,
one line per implementation).
"""

import json
import sys
import time
from pathlib import Path

from sim.console import ConsoleError
from soc import console_protocol as protocol

#: The RSA operations (each has a plot); "mul" is only in the table.
RSA_OPS = tuple(op for op in protocol.OPS if op != "mul")


def soc_from_info(console):
    """What the firmware says of its SoC (`info`): for a board, where no local build describes it."""
    [soc] = protocol.INFO_SOC.parse_all(console.command("info"))
    cpu = soc["cpu"]
    return {"cpu": cpu.split("_")[0].lower(), "variant": cpu.split("_", 1)[1].lower() if "_" in cpu else "",
            "sys_clk_hz": soc["clk_hz"]}


def run(console, sizes, out_dir, soc_info, progress=sys.stderr, command=None):
    """Runs `bench <sizes>` on `console` (at its prompt; closed at the end) and writes the result
    files; returns the results dict. `soc_info`: cpu, variant, sys_clk_hz."""
    from gateware.interface import NUM_SLOTS, WORD_BITS, PeripheralConfig
    cfg = PeripheralConfig()
    results, missing = [], []
    started = time.monotonic()
    try:
        for line in console.command_lines("bench " + " ".join(str(s) for s in sizes)):
            if protocol.error_code(line):
                raise ConsoleError(f"the firmware refused the benchmark: {line}")
            gone = protocol.RESULT_MISSING.parse(line)
            if gone:
                missing.append(gone)
                progress.write(f"[bench {time.monotonic() - started:6.0f} s] RSA-{gone['bits']:<5} "
                               f"{gone['op']:<12} {gone['impl']:<7} missing (library not fetched)\n")
            entry = protocol.RESULT.parse(line)
            if entry:
                entry["ok"] = entry["ok"] == 1
                results.append(entry)
                progress.write(f"[bench {time.monotonic() - started:6.0f} s] RSA-{entry['bits']:<5} "
                               f"{entry['op']:<12} {entry['impl']:<7} {entry['cycles']:>12,} cycles "
                               f"{'ok' if entry['ok'] else 'MISMATCH'}\n")
                progress.flush()
    finally:
        console.close()
    data = {
        "soc": {**soc_info, "peripheral": {"max_bits": cfg.max_bits, "lanes": cfg.lanes,
                                            "word_bits": WORD_BITS, "slots": NUM_SLOTS}},
        "source": console.source,
        "command": command or "python -m sim --bench --sizes " + ",".join(str(s) for s in sizes),
        "date": time.strftime("%Y-%m-%d"),
        "results": results,
        "missing": missing,
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "results.json").write_text(json.dumps(data, indent=1) + "\n")
    (out_dir / "results.md").write_text(markdown(data))
    plot(data, out_dir / "results.png")
    return data


def _cycles(results, bits, op, impl):
    for r in results:
        if (r["bits"], r["op"], r["impl"]) == (bits, op, impl):
            return r
    return None


def cycles_cell(entry):
    """A result row's cycles for a markdown table, '-' for a row not measured."""
    return f"{entry['cycles']:,}" if entry else "-"


def speedup_cell(slow, fast):
    """slow's cycles over fast's, '-' where either is missing."""
    return f"{slow['cycles'] / fast['cycles']:,.1f}x" if slow and fast and fast["cycles"] else "-"


def _where(data):
    source = data.get("source", {"transport": "simulation"})
    return "simulated SoC" if source["transport"] == "simulation" else f"board on {source['port']}"


def markdown(data):
    """Tables in the shape of the published ones: per size and operation, our software, the peer
    libraries and the hardware, with the sequencer's speedup over each software."""
    soc, results = data["soc"], data["results"]
    missing = {(m["bits"], m["op"], m["impl"]) for m in data.get("missing", ())}
    missing_impls = sorted({impl for _, _, impl in missing})
    clk = soc["sys_clk_hz"]
    sizes = sorted({r["bits"] for r in results})
    lines = [f"Cycles counted by the firmware (SoC cycle counter), whole operation including operand "
             f"transfers; {soc['cpu']} {soc['variant']} at {clk / 1e6:.0f} MHz, peripheral with "
             f"{soc['peripheral']['lanes']} lanes of {soc['peripheral']['word_bits']} bits, "
             f"max {soc['peripheral']['max_bits']} bits; {_where(data)}. `{data['command']}`, {data['date']}.", "",
             "| key | operation | software (ours) | mbedTLS | BearSSL | hw: CPU loop | hw: sequencer | "
             "hw: sequencer, sliding window (not constant-time) | ms (sequencer) | speedup vs ours | "
             "vs mbedTLS | vs BearSSL | ok |",
             "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:-:|"]
    for bits in sizes:
        for op, what in protocol.OPS.items():
            row = {impl: _cycles(results, bits, op, impl) for impl in protocol.ALL_IMPLS}
            if not all(row[impl] for impl in protocol.CONSTANT_TIME_IMPLS):
                continue
            seq = row["hw_seq"]
            peers = [("missing" if (bits, op, impl) in missing else cycles_cell(row[impl]))
                     for impl in protocol.PEER_IMPLS]
            ok = all(r["ok"] for r in row.values() if r)
            lines.append(f"| {bits} | {what} | {cycles_cell(row['sw'])} | {' | '.join(peers)} | "
                         f"{cycles_cell(row['hw_cpu'])} | {cycles_cell(seq)} | {cycles_cell(row['hw_seq_window'])} | "
                         f"{seq['cycles'] / clk * 1e3:.3f} | "
                         f"{speedup_cell(row['sw'], seq)} | {speedup_cell(row['mbedtls'], seq)} | "
                         f"{speedup_cell(row['bearssl'], seq)} | {'yes' if ok else '**no**'} |")
    lines += ["", "Speedup = the software's cycles / the sequencer's. mbedTLS 2.28.3 and BearSSL 0.6 are "
              "built from their Debian source packages for the same CPU with the same compiler and -O2 "
              "(`soc/peer_libs.py`, `firmware/peer_*.c`) and run through their own RSA API on the same "
              "keys and messages; their results are checked like ours. mbedTLS blinds every private "
              "operation (a deterministic generator here, for repeatable counts) and checks a CRT result "
              "with e; BearSSL's private operation is always CRT (its `private, no CRT` row is "
              "br_rsa_i31_public with d as the exponent). Neither library exposes a Montgomery product "
              "in its public API; BearSSL's br_i31_montymul (inner.h) is timed, mbedTLS' is static.", "",
              "The private-key operations are constant-time on software, CPU loop and sequencer (fixed "
              "windows; `python -m sim --leak` measures it) and, by its design, in BearSSL; mbedTLS uses a "
              "sliding window and relies on blinding. The sliding-window column is the sequencer's faster "
              "variable-time path, shown for the cost of safety. For `one Montgomery product`, the "
              "CPU-loop figure is one MUL command issued and waited for by the CPU, the sequencer figure "
              "one product inside an EXP_LADDER (their difference is the per-command overhead). Every "
              "timed region runs with interrupts masked and the caches invalidated at its start."]
    if missing_impls:
        lines += ["", f"**Missing:** {', '.join(missing_impls)} (not in this firmware: the library could not "
                  "be fetched when it was built (see the `error:` line of the build), or the image leaves it "
                  "out, as the PYNQ-Z2 image does to stay within the board's BRAM budget)."]
    return "\n".join(lines + [""])


def plot(data, path):
    import matplotlib.pyplot as plt
    fig = figure(data)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def figure(data):
    """The results plot: cycles against key size, one panel per RSA operation, one line per
    implementation (the same style and colour in every panel)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    results = data["results"]
    sizes = sorted({r["bits"] for r in results})
    fig, axes = plt.subplots(1, len(RSA_OPS), figsize=(15, 4.5), sharey=True)
    # One style and one colour per implementation in every panel (the colour cycle would shift in a
    # panel where an implementation has no row), and one legend for the figure.
    styles = dict(zip(protocol.ALL_IMPLS, zip(("o-", "s--", "^-", "v:", "D-.", "P-."), plt.get_cmap("tab10").colors)))
    handles = {}
    for ax, op in zip(axes, RSA_OPS):
        for impl, (style, color) in styles.items():
            points = [(b, _cycles(results, b, op, impl)) for b in sizes]
            points = [(b, r["cycles"]) for b, r in points if r]
            if points:
                [handles[impl]] = ax.plot(*zip(*points), style, color=color,
                                          label=impl + ": " + protocol.ALL_IMPLS[impl].split(" (")[0])
        ax.set_title(f"RSA {protocol.OPS[op]}")
        ax.set_xlabel("key size (bits)")
        ax.set_yscale("log")
        ax.set_xticks(sizes)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel(f"cycles at {data['soc']['sys_clk_hz'] / 1e6:.0f} MHz")
    axes[0].legend([handles[impl] for impl in styles if impl in handles],
                   [handles[impl].get_label() for impl in styles if impl in handles], fontsize=7)
    fig.suptitle(f"Software (ours, mbedTLS, BearSSL) vs hardware RSA on {data['soc']['cpu']} {data['soc']['variant']} "
                 f"({_where(data)}, {data['date']})")
    fig.tight_layout()
    return fig
