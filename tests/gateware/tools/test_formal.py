"""`python -m gateware --prove` (gateware/tools/formal.py): SymbiYosys on the reduced configuration proves
constant time and that refused commands change nothing, its covers show the assumptions leave something
to prove, and the same check fails, with a counterexample, on EXP_WINDOW (variable time by design)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from amaranth.hdl import Fragment

from gateware.tools import formal
from gateware.interface import EXPONENT_SCHEMES, Opcode, PeripheralConfig, exponent_scheme
from gateware.montmul.schemes import MACHINES

ROOT = Path(__file__).resolve().parents[3]

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
    # the other units' proofs are their own tests' (test_sha256_formal.py, test_entropy*.py)
    result = formal.prove(config=SUITE_CONFIG, out_dir=out_dir, properties=SUITE, jobs=1,
                          progress=lambda message: None, units=False)
    return result, out_dir


def test_prove_runs_the_other_units_proofs_and_fails_on_any(monkeypatch, tmp_path):
    """`--prove` runs the entropy source's and the SHA-256 engine's proofs after the peripheral's, each in
    a directory of its own; one that does not pass is reported and makes the verdict NO."""
    units = formal.unit_proofs()
    assert {"entropy_constant_time", "sha256_constant_time", "sha256_cover_block_end"} <= {u[0] for u in units}
    ran = []

    def fake(name):
        return lambda work: ran.append(work.name) or ("FAIL" if name == "sha256_constant_time" else "PASS")

    monkeypatch.setattr(formal, "unit_proofs", lambda: [(name, claim, fake(name)) for name, claim, _ in units])
    rows = formal.prove_units(tmp_path, progress=lambda message: None)
    assert ran == [u[0] for u in units]
    assert [r["name"] for r in rows if not r["as_expected"]] == ["sha256_constant_time"]
    text = formal.markdown({"config": {"lanes": 1, "word_bits": 8, "max_bits": 8, "max_words": 1,
                                       "rows_per_slot": 1, "pairs": False}, "registers": 0, "data_registers": [],
                            "properties": [], "units": rows, "passed": False, "seconds": 1})
    assert "| sha256_constant_time | FAIL | PASS |" in text and "All as expected: NO" in text


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
    """The scheme table names every machine the proofs reach (sequencer.<name>); a machine's states are
    its own, and the states and registers it declares for the proofs (FormalFacts) are among them."""
    assert set(MACHINES) == {scheme.name for scheme in EXPONENT_SCHEMES} == set(formal.SCHEME_FSMS)
    states = formal.machine_states(SUITE_CONFIG)
    owner = {}
    for scheme in EXPONENT_SCHEMES:
        own = states[formal.SCHEME_FSMS[scheme.name]]
        assert own["IDLE"] == 0 and len(own) > 1, scheme.name
        assert any(name.endswith("_WAIT") for name in own), scheme.name
        for name in own:
            if name != "IDLE":
                assert owner.setdefault(name, scheme.name) == scheme.name, name
        facts = MACHINES[scheme.name].FORMAL
        assert set(facts.covers) | set(facts.deep_covers) <= set(own) - {"IDLE"}, scheme.name
        fragment = Fragment.get(MACHINES[scheme.name](SUITE_CONFIG), None)
        driven = {signal.name for statements in fragment.statements.values() for statement in statements
                  for signal in statement._lhs_signals()}
        assert set(facts.running_only) <= driven, scheme.name


def test_the_covers_come_from_the_machines_of_the_schemes_proved():
    """Every constant-time scheme declares a state its first product runs in, which the cover of the
    constant-time proof reaches; a property covers only states of schemes among its opcodes."""
    shallow = next(prop for prop in formal.PROPERTIES if prop.name == "constant_time_is_not_vacuous")
    assert {scheme for scheme, _ in shallow.cover_states} == {
        scheme.name for scheme in EXPONENT_SCHEMES if scheme.constant_time}
    assert {("ladder", "EL_INIT_WAIT"), ("fixed", "EF_ONE_WAIT")} <= set(shallow.cover_states)
    deep = next(prop for prop in formal.PROPERTIES if prop.name == "constant_time_reaches_pairs")
    assert ("fixed", "EF_TABLE_WAIT") in deep.cover_states and deep.cover_pair
    for prop in formal.PROPERTIES:
        for name, _ in prop.cover_states:
            assert set(exponent_scheme(name).opcodes) <= set(prop.opcodes), prop.name


def test_the_integrity_invariants_hold_what_each_machine_declares():
    """A register a machine declares set only while it runs is asserted set only out of its IDLE state."""
    states = formal.machine_states(SUITE_CONFIG)
    lines = formal._engine_invariants(states)
    assert formal.RUNNING_ONLY["fixed"] == ("sequencer.fixed.seek",)
    for scheme in EXPONENT_SCHEMES:
        fsm = formal.SCHEME_FSMS[scheme.name]
        running = {f"{formal._wire(0, fsm)} == {value}" for name, value in states[fsm].items() if name != "IDLE"}
        for register in MACHINES[scheme.name].FORMAL.running_only:
            wire = formal._wire(0, formal.scheme_register(scheme, register))
            [line] = [line for line in lines if line.strip().startswith(f"if ({wire})")]
            assert set(line.split("assert(", 1)[1].rstrip(");").split(" || ")) == running


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
