"""jobs/bench.py's result files from made-up measurements: the peer libraries' columns, the speedups
over each software, and rows a missing library could not give."""

from jobs import bench
from soc import console_protocol as protocol

SOC = {"cpu": "vexriscv", "variant": "full", "sys_clk_hz": 100_000_000,
       "peripheral": {"max_bits": 4096, "lanes": 64, "word_bits": 16, "slots": 8}}
CYCLES = {"sw": 6000, "hw_cpu": 300, "hw_seq": 200, "hw_seq_window": 190, "mbedtls": 8000, "bearssl": 4000}


def _data(missing_impls=()):
    results = [{"bits": 512, "op": op, "impl": impl, "cycles": CYCLES[impl], "ok": True}
               for op, impl in protocol.bench_rows() if impl not in missing_impls]
    missing = [{"bits": 512, "op": op, "impl": impl}
               for op, impl in protocol.bench_rows() if impl in missing_impls and op != "mul"]
    return {"soc": SOC, "command": "python -m sim bench --sizes 512", "date": "2026-11-23",
            "results": results, "missing": missing}


def _row(text, what):
    [line] = [line for line in text.splitlines() if line.startswith(f"| 512 | {what} |")]
    return [cell.strip() for cell in line.strip("|").split("|")]


def test_markdown_has_both_libraries_and_speedups_over_each():
    text = bench.markdown(_data())
    header = [line for line in text.splitlines() if line.startswith("| key |")][0]
    assert "mbedTLS" in header and "BearSSL" in header and "vs mbedTLS" in header and "vs BearSSL" in header
    row = _row(text, protocol.OPS["private_crt"])
    assert row[2:5] == ["6,000", "8,000", "4,000"]
    assert row[-4:] == ["30.0x", "40.0x", "20.0x", "yes"]
    assert "**Missing:**" not in text


def test_missing_library_rows_are_marked_and_the_rest_stays():
    data = _data(missing_impls=("mbedtls",))
    text = bench.markdown(data)
    row = _row(text, protocol.OPS["private"])
    assert row[3] == "missing" and row[4] == "4,000"
    assert row[-4:] == ["30.0x", "-", "20.0x", "yes"]
    assert "**Missing:** mbedtls" in text


def test_plot_draws_every_implementation(tmp_path):
    bench.plot(_data(), tmp_path / "results.png")
    assert (tmp_path / "results.png").stat().st_size > 10_000


def test_plot_gives_each_implementation_one_colour_and_one_legend_entry():
    import matplotlib.pyplot as plt
    fig = bench.figure(_data())
    colours = {}
    for ax in fig.axes:
        for line in ax.get_lines():
            colours.setdefault(line.get_label().split(":")[0], set()).add(line.get_color())
    plt.close(fig)
    drawn = {impl for impl, _ in colours.items()}
    assert "hw_seq_window" in drawn and "mbedtls" in drawn          # one panel lacks hw_seq_window
    assert all(len(c) == 1 for c in colours.values()), colours
    assert len({next(iter(c)) for c in colours.values()}) == len(colours)
    legend = [t.get_text().split(":")[0] for t in fig.axes[0].get_legend().get_texts()]
    assert sorted(legend) == sorted(drawn)
