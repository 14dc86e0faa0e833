"""`python -m gateware --prove` (eda/formal.py): SymbiYosys on the reduced configuration proves constant time
and that refused commands change nothing, its covers show the assumptions leave something to prove, and
the same check fails, with a counterexample, on EXP_WINDOW (variable time by design)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gateware.tools import formal
from gateware.interface import EXPONENT_SCHEMES, Opcode, PeripheralConfig
from gateware.montmul.schemes import MACHINES

ROOT = Path(__file__).resolve().parents[2]

#: One worker runs the module: the properties are run once.
pytestmark = pytest.mark.xdist_group("formal")

#: The properties the suite runs: all but the deep cover of the pair commands (a CPU-minute; in
#: `python -m gateware --prove`).
SUITE = tuple(prop for prop in formal.PROPERTIES if not prop.slow)
#: The configuration the suite proves them on: the same RTL with 8-bit words, 4 lanes and 128-bit
#: operands.  The control is the same state machines; SETMOD's inversion takes 4 steps instead of 16, so
#: the covers and the leaky EXP_WINDOW's counterexample come sooner: 24 s for the suite against 51 s on
#: the SoC's configuration (alone on this machine), which `python -m gateware --prove` proves.
SUITE_CONFIG = PeripheralConfig(word_bits=8, lanes=4, max_bits=128)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("formal")
    result = formal.prove(config=SUITE_CONFIG, out_dir=out_dir, properties=SUITE, jobs=1,
                          progress=lambda message: None)
    return result, out_dir


def by_name(report):
    return {prop["name"]: prop for prop in report[0]["properties"]}


def test_constant_time_is_proved_by_induction(report):
    prop = by_name(report)["constant_time"]
    assert prop["status"] == "proved", prop
    assert prop["method"].startswith("k-induction")
    assert "EXP_WINDOW" not in prop["opcodes"]
    assert {"EXP_FIXED", "EXP_FIXED_PAIR", "MUL", "MUL_PAIR", "SETMOD"} <= set(prop["opcodes"])


def test_refused_commands_change_nothing_proved_by_induction(report):
    prop = by_name(report)["refusal_changes_nothing"]
    assert prop["status"] == "proved", prop
    assert set(prop["opcodes"]) == {op.name for op in Opcode}


def test_the_assumptions_leave_runs_to_prove_things_about(report):
    properties = by_name(report)
    for name in ("constant_time_is_not_vacuous", "refusal_changes_nothing_is_not_vacuous"):
        assert properties[name]["status"] == "reached", properties[name]


def test_the_same_check_fails_on_exp_window_with_a_trace(report):
    prop = by_name(report)["constant_time_with_exp_window"]
    assert prop["status"] == "failed" and prop["as_expected"]
    assert isinstance(prop["step"], int) and 0 < prop["step"] <= next(p.depth for p in SUITE if p.name == prop["name"])
    # What differs is what a program can time: the status word or the interrupt.
    assert prop["failed_assertions"] and all("status" in text or "irq" in text for text in prop["failed_assertions"])
    trace = Path(prop["trace"])
    trace = trace if trace.is_absolute() else Path.cwd() / trace
    assert trace.suffix == ".vcd" and trace.stat().st_size > 0


def test_the_report_lists_every_property(report):
    result, out_dir = report
    assert result["passed"]
    written = json.loads((out_dir / "report.json").read_text())
    assert [prop["name"] for prop in written["properties"]] == [prop.name for prop in SUITE]
    markdown = (out_dir / "report.md").read_text()
    assert all(f"| {prop.name} |" in markdown for prop in SUITE)
    assert written["config"]["lanes"] == SUITE_CONFIG.lanes and written["config"]["pairs"]
    assert written["config"]["word_bits"] == SUITE_CONFIG.word_bits


def test_each_scheme_has_a_machine_whose_states_are_its_own():
    """The scheme table names every machine the proofs reach (sequencer.<name>); a state named in a
    property (cover_states) belongs to one machine only."""
    assert set(MACHINES) == {scheme.name for scheme in EXPONENT_SCHEMES} == set(formal.SCHEME_FSMS)
    fsms = {formal.SCHEME_FSMS[scheme.name]: formal.fsm_states(MACHINES[scheme.name](formal.FORMAL_CONFIG))
            for scheme in EXPONENT_SCHEMES}
    for scheme in EXPONENT_SCHEMES:
        states = fsms[formal.SCHEME_FSMS[scheme.name]]
        assert states["IDLE"] == 0 and len(states) > 1, scheme.name
        for name in states:
            if name != "IDLE":
                assert formal.scheme_fsm(name, fsms) == formal.SCHEME_FSMS[scheme.name], name
    for prop in formal.PROPERTIES:
        for state in prop.cover_states:
            formal.scheme_fsm(state, fsms)


def test_the_leaky_schemes_are_left_out_of_the_constant_time_proof():
    leaky = {op for scheme in EXPONENT_SCHEMES if not scheme.constant_time for op in scheme.opcodes}
    assert leaky and set(formal.LEAKY_OPCODES) == leaky
    assert not leaky & set(formal.CONSTANT_TIME_OPCODES)
    assert set(formal.CONSTANT_TIME_OPCODES) | leaky == set(Opcode)


def test_an_unknown_property_is_refused_on_the_command_line():
    result = subprocess.run([sys.executable, "-m", "gateware", "--prove", "--property", "no_such_thing"],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 2
    assert "invalid choice: 'no_such_thing'" in result.stderr
