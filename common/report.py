"""One writer for what the tools measure: `<stem>.json` (the data), `<stem>.md` (its tables, for a
reader) and `<stem>.png` (its plot) side by side in one directory, each made from the same data by
the tool's own `markdown(data)` and `plot(data, path)`.

    paths = write(out_dir, "report", data, markdown=markdown, plot=plot)

`pyplot()` is matplotlib's pyplot on its file-only backend (no display is needed),
`save_figure(fig, path)` writes a figure and frees it, and `soc_text(soc)` names the SoC a report was
measured on, for its heading."""

import json
from pathlib import Path

__all__ = ["write", "pyplot", "save_figure", "soc_text"]


def write(out_dir, stem, data, markdown=None, plot=None, indent=1, allow_nan=True):
    """Writes `<stem>.json`, and `<stem>.md` and `<stem>.png` when `markdown` and `plot` are given;
    returns {"json": path, "md": path, "png": path} for the files written. `allow_nan=False` refuses
    data holding NaN or infinities, which JSON has no notation for."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"json": out_dir / f"{stem}.json"}
    paths["json"].write_text(json.dumps(data, indent=indent, allow_nan=allow_nan, ensure_ascii=False) + "\n")
    if markdown is not None:
        paths["md"] = out_dir / f"{stem}.md"
        paths["md"].write_text(markdown(data))
    if plot is not None:
        paths["png"] = out_dir / f"{stem}.png"
        plot(data, paths["png"])
    return paths


def soc_text(soc):
    """The SoC of a report's `soc` record (a simulation build's `soc_info`): its CPU and clock, and the
    peripheral's shape when it has one, and the seed of the simulated entropy source's raw bits."""
    text = f"{soc['cpu']} {soc['variant']} at {soc['sys_clk_hz'] / 1e6:g} MHz"
    peripheral = soc.get("peripheral")
    if peripheral:
        text += (f", peripheral with {peripheral['lanes']} lanes of {peripheral['word_bits']} bits, "
                 f"max {peripheral['max_bits']} bits")
    if "entropy_seed" in soc:
        text += f", entropy seed {soc['entropy_seed']}" + (f" ({soc['entropy_mode']})" if "entropy_mode" in soc else "")
    return text


def pyplot():
    """matplotlib.pyplot on the Agg backend (files only)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save_figure(fig, path, dpi=100):
    fig.savefig(path, dpi=dpi)
    pyplot().close(fig)
