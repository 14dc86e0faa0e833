"""A proof, by self-composition, that the entropy source's timing does not depend on its raw values.

Two copies of ``EntropySource`` take the same ``raw_valid``, ``data_stb`` and ``restart`` in the same
cycles and independent ``raw`` values.  Assumed: neither copy has failed a health test (the failure flags
are the one output that depends on the values, by design).  Asserted in every cycle: ``status.ready`` and
``status.startup`` are equal in the two copies.  The proof is by k-induction (SymbiYosys, smtbmc with
yices), made inductive by also asserting that the copies' control registers (the start-up count and the
word's fill count) are equal; the solver proves those too.  A cover shows the assumption leaves runs in
which a word becomes ready (on a small start-up, so that it is reached in a few cycles), and without the
assumption the same check fails.

    proved = prove_constant_time(Path("build/formal/entropy"))
"""

import re
import shutil
from pathlib import Path

from amaranth.back import rtlil

from common.errors import ProjectError
from eda.synth import run_yosys
from gateware.tools import sby

from gateware.entropy.interface import STATUS_BITS
from gateware.entropy.source import EntropySource

__all__ = ["CONTROL_REGISTERS", "prove_constant_time", "cover_ready"]

#: Registers of the source whose values must agree between the copies (they count, they hold no sample).
CONTROL_REGISTERS = ("startup_left", "filled")



def _model(source, work):
    """``source`` flattened with every register exposed as an output: `work`/model.il."""
    (work / "source.il").write_text(rtlil.convert(source, name="source"))
    (work / "model.ys").write_text("\n".join([
        "read_rtlil source.il", "hierarchy -top source", "proc", "flatten", "opt -fast",
        "expose -dff " + " ".join(f"w:{name}" for name in CONTROL_REGISTERS), "opt_clean",
        "write_rtlil model.il", ""]))
    result = run_yosys(["-q", "-l", "model.log", "model.ys"], cwd=work)
    if result.returncode != 0:
        raise ProjectError(f"Yosys failed preparing the entropy source's model; see {work / 'model.log'}")


def _miter(mode, widths, healthy):
    ready, failed, startup = (STATUS_BITS[f] for f in ("ready", "failed", "startup"))
    ports = ", ".join(f".{name}(u{{c}}_{name})" for name in CONTROL_REGISTERS)
    lines = ["module miter(input clk, input raw_valid, input data_stb, input restart, input raw0, input raw1);"]
    for copy in (0, 1):
        lines.append(f"  wire [31:0] u{copy}_status; wire [31:0] u{copy}_data;")
        lines += [f"  wire [{widths[name] - 1}:0] u{copy}_{name};" for name in CONTROL_REGISTERS]
        lines.append(f"  source u{copy}(.clk(clk), .rst(1'b0), .raw(raw{copy}), .raw_valid(raw_valid), "
                     f".data_stb(data_stb), .restart(restart), .data(u{copy}_data), .status(u{copy}_status), "
                     + ports.format(c=copy) + ");")
    lines.append("  always @* begin")
    if healthy:
        lines.append(f"    assume(!u0_status[{failed}] && !u1_status[{failed}]);")
    if mode == "prove":
        for bit in (ready, startup):
            lines.append(f"    assert(u0_status[{bit}] == u1_status[{bit}]);")
        lines += [f"    assert(u0_{name} == u1_{name});" for name in CONTROL_REGISTERS]
    else:
        lines.append(f"    cover(u0_status[{ready}]);")
    lines += ["  end", "endmodule", ""]
    return "\n".join(lines)


def _run(mode, depth, source, work, healthy=True):
    work.mkdir(parents=True, exist_ok=True)
    _model(source, work)
    model = (work / "model.il").read_text()
    widths = {name: int(re.search(rf"wire width (\d+) output \d+ \\{name}\n", model).group(1))
              for name in CONTROL_REGISTERS}
    (work / "miter.sv").write_text(_miter(mode, widths, healthy))
    (work / "prop.sby").write_text("\n".join([
        "[options]", f"mode {mode}", f"depth {depth}", "", "[engines]", "smtbmc yices", "",
        "[script]", "read_rtlil model.il", "read_verilog -formal miter.sv", "prep -top miter", "",
        "[files]", "model.il", "miter.sv", ""]))
    shutil.rmtree(work / "prop", ignore_errors=True)
    verdict, _ = sby.run(work)
    return verdict


def prove_constant_time(work, source=None, depth=4, healthy=True):
    """"PASS" when the property is proved for ``source`` (default: ``EntropySource()``), else SymbiYosys'
    verdict ("FAIL", "UNKNOWN", "ERROR"); the files and the log are in ``work``.  ``healthy=False`` drops
    the assumption that no test fails: then the values do change ``ready`` (a failure stops the words),
    and the check must find it."""
    return _run("prove", depth, source or EntropySource(), Path(work), healthy)


def cover_ready(work, depth=24):
    """"PASS" when a run with no failure reaches a ready word, on a source with a 2-sample start-up."""
    return _run("cover", depth, EntropySource(startup_samples=2), Path(work))
