"""A proof, by self-composition, that the SHA-256 engine's timing does not depend on its message or state.

Two copies of ``SHA256Engine`` take the same ``command``, ``command_stb``, ``message_we``, ``message_addr``,
``state_we``, ``state_addr`` and reset in the same cycles, and independent ``message_data`` and
``state_data``.  Nothing is assumed about the inputs: message writes come in any cycle, busy or not, as
the buffer takes them.  Asserted in every cycle: the whole ``status`` word (``busy``, the refusal bits
and the reserved bits) is equal in the two copies.  The proof is by k-induction (SymbiYosys, smtbmc with
yices), made inductive by also asserting that the copies' control registers (busy, the round counter,
the refusal bits) are equal; the solver proves those too.  The datapath (message buffer, schedule
window, working variables, state) feeds no assertion, so Yosys drops it from the flattened model before
the solver sees it.  A cover shows a BLOCK run to its end (``busy`` falls after being high), and a
variant of the engine whose rounds look at the message fails the same check.

    proved = prove_constant_time(Path("build/formal/sha256"))
"""

import re
import shutil
from pathlib import Path

from amaranth.back import rtlil

from common.errors import ProjectError
from gateware.tools import sby

from gateware.sha256.engine import SHA256Engine
from gateware.sha256.interface import BLOCK_CYCLES, STATUS_BITS

__all__ = ["CONTROL_REGISTERS", "SHARED_INPUTS", "DATA_INPUTS", "prove_constant_time", "cover_block_end"]

#: Registers of the engine whose values must agree between the copies: they sequence, they hold no data.
CONTROL_REGISTERS = ("busy", "round_index", "busy_refused", "bad_command")
#: The engine's inputs the two copies share: the commands, the write strobes with their indices, and the
#: reset (Amaranth's, so that a reset in the middle of a block is among the runs proved).
SHARED_INPUTS = ("command", "command_stb", "message_we", "message_addr", "state_we", "state_addr", "rst")
#: The inputs each copy takes on its own: the data.
DATA_INPUTS = ("message_data", "state_data")
#: Cycles from reset to the end of a block: a cycle to strobe BLOCK, the block's, the cycle busy reads 0.
BLOCK_END_DEPTH = 1 + BLOCK_CYCLES + 1



def _widths(design):
    """{name: width} of the ports and the control registers of the top module of ``design`` (Amaranth's
    RTLIL, which names every signal as the engine does)."""
    top = design[design.index("module \\engine\n"):]
    wires = re.findall(r"wire (?:width (\d+) )?(?:(?:input|output) \d+ +)?\\(\w+)\n", top[:top.index("\nend\n")])
    widths = {name: int(width or 1) for width, name in wires}
    missing = [name for name in (*CONTROL_REGISTERS, *SHARED_INPUTS, *DATA_INPUTS) if name not in widths]
    if missing:
        raise ProjectError(f"the SHA-256 engine has no signal {', '.join(missing)}: see CONTROL_REGISTERS")
    return widths


def _miter(mode, widths, strengthen):
    """Two copies of the engine, their shared and own inputs, and the property of ``mode``."""
    def vector(name):
        return f"[{widths[name] - 1}:0]"

    inputs = ["input clk", *(f"input {vector(name)} {name}" for name in SHARED_INPUTS),
              *(f"input {vector(name)} {name}{copy}" for name in DATA_INPUTS for copy in (0, 1))]
    lines = [f"module miter({', '.join(inputs)});"]
    own = ("status", "state_rdata", *CONTROL_REGISTERS)
    for copy in (0, 1):
        lines += [f"  wire {vector(name)} u{copy}_{name};" for name in own]
        ports = [".clk(clk)", *(f".{name}({name})" for name in SHARED_INPUTS),
                 *(f".{name}({name}{copy})" for name in DATA_INPUTS), *(f".{name}(u{copy}_{name})" for name in own)]
        lines.append(f"  engine u{copy}({', '.join(ports)});")
    if mode == "prove":
        lines += ["  always @* begin", "    assert(u0_status == u1_status);",
                  *(f"    assert(u0_{name} == u1_{name});" for name in CONTROL_REGISTERS if strengthen), "  end"]
    else:
        # a block ran to its end: busy was high in an earlier cycle and is low now
        busy = STATUS_BITS["busy"]
        lines += ["  reg was_busy = 0;", f"  always @(posedge clk) if (u0_status[{busy}]) was_busy <= 1;",
                  f"  always @* cover(was_busy && !u0_status[{busy}]);"]
    lines += ["endmodule", ""]
    return "\n".join(lines)


def _run(mode, depth, engine, work, strengthen=True):
    work.mkdir(parents=True, exist_ok=True)
    design = rtlil.convert(engine, name="engine")
    (work / "engine.il").write_text(design)
    (work / "miter.sv").write_text(_miter(mode, _widths(design), strengthen))
    # the engine flattened, its control registers made outputs; then the miter, flattened so that Yosys
    # drops what no assertion sees (the datapath) before the solver gets the model
    (work / "prop.sby").write_text("\n".join([
        "[options]", f"mode {mode}", f"depth {depth}", "", "[engines]", "smtbmc yices", "", "[script]",
        "read_rtlil engine.il", "hierarchy -top engine", "proc", "flatten", "opt -fast",
        "expose -dff " + " ".join(f"w:{name}" for name in CONTROL_REGISTERS), "opt_clean",
        "read_verilog -formal miter.sv", "prep -flatten -top miter", "",
        "[files]", "engine.il", "miter.sv", ""]))
    shutil.rmtree(work / "prop", ignore_errors=True)
    verdict, _ = sby.run(work)
    return verdict


def prove_constant_time(work, engine=None, depth=6, strengthen=True):
    """"PASS" when the property is proved for ``engine`` (default: ``SHA256Engine()``), else SymbiYosys'
    verdict ("FAIL", "UNKNOWN", "ERROR"); the files and the log are in ``work``.  The depth is that of the
    base case and of the induction step: the induction needs 1 (the control registers' next values follow
    from their values and the shared inputs); the base case's 6 cycles from reset are enough for an
    engine that leaks in its first rounds to fail (write a word, start a block, run a round).
    ``strengthen=False`` asserts ``status`` alone: then a leaking engine's counterexample is one in which
    the status words differ, not only the control registers (which differ a cycle earlier); on the engine
    it is not inductive ("UNKNOWN": two round counters apart keep the same status for up to a block)."""
    return _run("prove", depth, engine or SHA256Engine(), Path(work), strengthen)


def cover_block_end(work, depth=BLOCK_END_DEPTH):
    """"PASS" when a run from reset reaches the end of a BLOCK (busy falls after being high)."""
    return _run("cover", depth, SHA256Engine(), Path(work))
