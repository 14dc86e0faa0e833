"""common.report.write: the data as JSON, its markdown and its plot side by side, made from the same data."""

import json
import math

import pytest

from common import report


def _plot(data, path):
    plt = report.pyplot()
    fig, ax = plt.subplots()
    ax.plot(data["x"], data["y"])
    report.save_figure(fig, path)


def test_writes_json_markdown_and_plot_from_the_same_data(tmp_path):
    data = {"x": [1, 2, 3], "y": [4, 5, 6], "name": "réglage"}
    paths = report.write(tmp_path / "out", "results", data, markdown=lambda d: f"# {d['name']}\n", plot=_plot)
    assert set(paths) == {"json", "md", "png"}
    assert json.loads(paths["json"].read_text()) == data
    assert paths["md"].read_text() == "# réglage\n"
    assert paths["png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_only_what_is_given_and_nan_refused_when_asked(tmp_path):
    paths = report.write(tmp_path, "report", {"t": math.inf})
    assert set(paths) == {"json"} and not (tmp_path / "report.md").exists()
    with pytest.raises(ValueError):
        report.write(tmp_path, "strict", {"t": math.nan}, allow_nan=False)
