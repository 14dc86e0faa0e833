"""jobs/cpu_bench.py's result files from made-up measurements: every CPU's rows, skipped rows listed with
their reason, the SoC figures with and without the peripheral, the plot."""
import json

from jobs import cpu_bench
from soc import console_protocol as protocol

SW = {"public": 40_000, "private": 2_000_000, "private_crt": 900_000, "mul": 3_000}


def _data():
    results, skipped = [], []
    for cpu, scale in (("vexriscv:full", 1), ("serv:standard", 40)):
        for op in protocol.OPS:
            for impl, cycles in (("hw_cpu", 9_000), ("hw_seq", 6_000)):
                results.append({"cpu": cpu, "bits": 512, "op": op, "impl": impl, "cycles": cycles * scale, "ok": True})
            if cpu == "vexriscv:full" or op == "public":
                results.append({"cpu": cpu, "bits": 512, "op": op, "impl": "sw", "cycles": SW[op] * scale, "ok": True})
            else:
                skipped.append({"cpu": cpu, "bits": 512, "op": op, "impl": "sw", "reason": "stopped after 60 s: the budget"})
    socs = [{"cpu": cpu, "montmul": montmul, "lut": lut + 6000 * montmul, "ff": 1000, "dsp": 4 + 128 * montmul,
             "bram36": 20, "fmax_mhz": fmax}
            for cpu, lut, fmax in (("vexriscv:full", 2500, 120.0), ("serv:standard", 900, 150.0))
            for montmul in (False, True)]
    return {"command": "python -m sim cpus vexriscv:full,serv --sizes 512", "date": "2026-11-23",
            "sys_clk_hz": 100_000_000, "sizes": [512], "budget_s": 60,
            "cpus": [{"cpu": "vexriscv:full", "isa": "rv32im", "error": None, "seconds": {}},
                     {"cpu": "serv:standard", "isa": "rv32i", "error": None, "seconds": {}}],
            "results": results, "skipped": skipped, "socs": socs}


def _rows(text, cpu, what):
    return [[c.strip() for c in line.strip("|").split("|")] for line in text.splitlines()
            if line.startswith(f"| {cpu} |") and f"| {what} |" in line]


def test_markdown_has_every_cpu_speedups_and_skipped_rows():
    text = cpu_bench.markdown(_data())
    [full] = _rows(text, "vexriscv:full", protocol.OPS["private_crt"])
    assert full[1:] == ["rv32im", "512", protocol.OPS["private_crt"], "900,000", "9,000", "6,000", "150.0x", "yes"]
    [serv] = _rows(text, "serv:standard", protocol.OPS["private_crt"])
    assert serv[4] == "skipped" and serv[-2] == "-"
    assert "- serv:standard: 512 private, 512 private_crt, 512 mul: stopped after 60 s: the budget" in text


def test_markdown_has_the_soc_figures_and_the_crt_time_at_fmax():
    text = cpu_bench.markdown(_data())
    [soc] = [r for r in _rows(text, "vexriscv:full", "2,500") if len(r) == 11]
    assert soc[1:] == ["2,500", "1,000", "4", "20", "120.0", "8,500", "1,000", "132", "20", "120.0"]
    crt = [line for line in text.splitlines() if line.startswith("| vexriscv:full |") and line.count("|") == 6]
    # 900,000 cycles at 120 MHz = 7.50 ms; 6,000 at 120 MHz = 0.050 ms
    assert crt == ["| vexriscv:full | 7.50 | 2,500 | 0.050 | 8,500 |"]


def test_files_are_written(tmp_path, monkeypatch):
    data = _data()
    cpu_bench.plot(data, tmp_path / "cpus.png")
    assert (tmp_path / "cpus.png").stat().st_size > 10_000
    json.dumps(data)
