"""`python -m sim --bench`: runs the firmware's `bench` in the simulated SoC and writes the results.

Outputs, under build/bench/: results.json (every measurement), results.md (tables per size) and
results.png (cycles against key size, log scale, one line per implementation).
"""

import json
import sys
import time
from pathlib import Path

from sim.console import ConsoleError, SimConsole
from soc import console_protocol as protocol

#: The RSA operations (each has a plot); "mul" is only in the table.
RSA_OPS = tuple(op for op in protocol.OPS if op != "mul")


def run(build, sizes, timeout, out_dir, progress=sys.stderr):
    """Runs `bench <sizes>` and writes the result files; returns the results dict."""
    from gateware.interface import NUM_SLOTS, WORD_BITS, PeripheralConfig
    cfg = PeripheralConfig()
    results = []
    console = SimConsole(build.model, build.gateware_dir, timeout=timeout)
    started = time.monotonic()
    try:
        console.wait_prompt()
        for line in console.command_lines("bench " + " ".join(str(s) for s in sizes)):
            if protocol.error_code(line):
                raise ConsoleError(f"the firmware refused the benchmark: {line}")
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
        "soc": {**build.soc_info, "peripheral": {"max_bits": cfg.max_bits, "lanes": cfg.lanes,
                                                  "word_bits": WORD_BITS, "slots": NUM_SLOTS}},
        "command": "python -m sim --bench --sizes " + ",".join(str(s) for s in sizes),
        "date": time.strftime("%Y-%m-%d"),
        "results": results,
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


def markdown(data):
    """Tables in the shape of the published ones: per size and operation, software and hardware."""
    soc, results = data["soc"], data["results"]
    clk = soc["sys_clk_hz"]
    sizes = sorted({r["bits"] for r in results})
    lines = [f"Cycles counted by the firmware (SoC cycle counter), whole operation including operand "
             f"transfers; {soc['cpu']} {soc['variant']} at {clk / 1e6:.0f} MHz, peripheral with "
             f"{soc['peripheral']['lanes']} lanes of {soc['peripheral']['word_bits']} bits, "
             f"max {soc['peripheral']['max_bits']} bits. `{data['command']}`, {data['date']}.", "",
             "| key | operation | software | hw: CPU loop | hw: sequencer | hw: sequencer, sliding window "
             "(not constant-time) | ms (sequencer) | speedup | ok |",
             "|---:|---|---:|---:|---:|---:|---:|---:|:-:|"]
    for bits in sizes:
        for op, what in protocol.OPS.items():
            row = {impl: _cycles(results, bits, op, impl) for impl in protocol.IMPLS}
            if not all(row[impl] for impl in protocol.CONSTANT_TIME_IMPLS):
                continue
            sw, seq = row["sw"]["cycles"], row["hw_seq"]["cycles"]
            window = f"{row['hw_seq_window']['cycles']:,}" if row["hw_seq_window"] else "-"
            ok = all(r["ok"] for r in row.values() if r)
            lines.append(f"| {bits} | {what} | {sw:,} | {row['hw_cpu']['cycles']:,} | {seq:,} | {window} | "
                         f"{seq / clk * 1e3:.3f} | {sw / seq:,.1f}x | {'yes' if ok else '**no**'} |")
    lines += ["", "Speedup = software cycles / sequencer cycles. The private-key operations (private, "
              "private with CRT) are constant-time on software, CPU loop and sequencer (fixed windows; "
              "`python -m sim --leak` measures it); the sliding-window column is the sequencer's faster "
              "variable-time path, shown for the cost of safety. For `one Montgomery product`, the "
              "CPU-loop figure is one MUL command issued and waited for by the CPU, the sequencer figure "
              "one product inside an EXP_LADDER (their difference is the per-command overhead). Every "
              "timed region runs with interrupts masked and the caches invalidated at its start.", ""]
    return "\n".join(lines)


def plot(data, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    results = data["results"]
    sizes = sorted({r["bits"] for r in results})
    fig, axes = plt.subplots(1, len(RSA_OPS), figsize=(15, 4.5), sharey=True)
    for ax, op in zip(axes, RSA_OPS):
        for impl, style in zip(protocol.IMPLS, ("o-", "s--", "^-", "v:")):
            points = [(b, _cycles(results, b, op, impl)) for b in sizes]
            points = [(b, r["cycles"]) for b, r in points if r]
            if points:
                ax.plot(*zip(*points), style, label=protocol.IMPLS[impl])
        ax.set_title(f"RSA {protocol.OPS[op]}")
        ax.set_xlabel("key size (bits)")
        ax.set_yscale("log")
        ax.set_xticks(sizes)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel(f"cycles at {data['soc']['sys_clk_hz'] / 1e6:.0f} MHz")
    axes[0].legend()
    fig.suptitle(f"Software vs hardware RSA on {data['soc']['cpu']} {data['soc']['variant']} "
                 f"(simulated SoC, {data['date']})")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
