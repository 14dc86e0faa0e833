"""The fault-injection campaign (jobs/faults.py, `python -m sim faults`): its classification of a run,
on chosen faults in one boot of the fault model, and the console alive after them; and, on the host,
the parts a run's verdict rests on (every register has a site class, a wrong signature's gcd). The
fault model itself (the state found in the Verilog, its configuration) is tests/sim/test_fault_model.py's.
The campaign itself (thousands of runs) stays behind the command: docs/security.md has its figures."""

import random

import pytest

from fault_verilog import VERILOG
from gateware.interface import Command
from jobs import faults
from sim import build as sim_build
from sim import fault_model
from soc import console_protocol as protocol
from soc import keys as soc_keys

#: One worker, one boot of the fault model for the module.
pytestmark = pytest.mark.xdist_group("faults")

BITS = 512


# ---- on the host -----------------------------------------------------------------------------------

def test_every_register_has_a_class():
    """The state the fault model finds gets its class (the first rule that takes it); a register no
    class takes stops the campaign (rather than going unfaulted)."""
    elements = fault_model.state_elements(VERILOG)
    assert [faults.site_class(elements[k]) for k in sorted(elements)] == \
        ["status", "fsm_states", "operand_slots", "operand_slots"]
    with pytest.raises(Exception, match="no fault-site class"):
        faults.site_class(fault_model.StateElement("newblock", "counter", 4, 0))


def test_a_released_wrong_signature_is_told_apart():
    """The verdict on a released signature: the right one is correct; one wrong modulo p only (a CRT half
    faulted, Boneh-DeMillo-Lipton) factors n by gcd(s^e - m, n); one wrong modulo both does not; an
    error line releases nothing."""
    key = soc_keys.bench_keys([BITS])[0]
    operation = faults.Operation("sign", key, random.Random(1))
    n, q = key["n"], key["q"]
    s = int.from_bytes(operation.expected, "big")
    half = (s + q) % n                              # = s mod q, != s mod p
    both = (s + 1) % n
    k = BITS // 8

    def released(value):
        return operation.released(f"signature={value.to_bytes(k, 'big').hex()} cycles=1\n")[0]

    assert released(s) == operation.expected
    assert operation.factors(released(half)) is True
    assert operation.factors(released(both)) is False
    assert operation.released("error=operation_failed peripheral_code=0\n") == \
        (None, "error=operation_failed peripheral_code=0")


# ---- in the fault model ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def injector():
    build = sim_build.build(faults=True, log=lambda msg: None)
    key = soc_keys.bench_keys([BITS])[0]
    injector = faults.Injector(build, key, "sign", random.Random("test-faults"))
    yield injector
    injector.close()


def _command(injector, opcode):
    """The first command of `opcode` in the unfaulted operation: its offset, its busy cycles, its fields."""
    for offset, word, busy in injector.trace:
        if faults._op_field(word) == opcode:
            return offset, busy, Command.from_bits(word)
    raise AssertionError(f"no {opcode} in the operation")


def _row(injector, slot, row):
    from gateware.montmul.regfile import row_address
    return row_address(faults.peripheral_config(injector.build), slot, row)


def test_a_crt_half_faulted_in_its_operand_slot_is_refused(injector):
    """A bit of context 0's base (row 0 of the pair exponentiation's `a` slot: the input reduced mod p)
    flipped as EXP_FIXED_PAIR starts, before its table is built from it: the p half comes out wrong and
    the q half right, the fault a released signature would give the key away by (see
    test_a_released_wrong_signature_is_told_apart). The check with e refuses it (no peripheral error:
    the peripheral did what it was told), nothing is released; the next operation is right."""
    offset, _, cmd = _command(injector, "EXP_FIXED_PAIR")
    record = injector.inject(injector.site("regfile.operands"), _row(injector, int(cmd.a), 0), 5, offset + 2)
    assert record["outcome"] == "refused", record
    assert record["error"] == "error=operation_failed peripheral_code=0", record
    assert record["before"] != record["after"]
    assert injector.recovered()


def test_a_decryption_refused_by_the_check_takes_the_cycles_of_a_right_one(injector):
    """The fault of the test above in an OAEP decryption, at 1024 bits (no OAEP-SHA-256 message fits a
    512-bit block): refused as `decryption_failed`, after exactly the cycles the right decryption of the
    same ciphertext takes. A failed check told apart by its time would be an oracle as Manger's is."""
    session = injector.session
    key = soc_keys.bench_keys([1024])[0]
    session.console.set_key(key)
    try:
        operation = faults.Operation("decrypt", key, random.Random("test-faults-decrypt"))
        session.hook.arm()                                       # watch only: the commands and their offsets
        output = session.operation(operation.command)
        assert operation.released(output) == (operation.expected, None), output
        cycles = protocol.MESSAGE.parse_all(output)[0]["cycles"]
        offset, word = next((o, w) for o, w, _ in session.hook.report()["commands"]
                            if faults._op_field(w) == "EXP_FIXED_PAIR")
        session.hook.arm(injector.site("regfile.operands").index, _row(injector, int(Command.from_bits(word).a), 0),
                         5, offset + 2, injector.limit)
        output = session.operation(operation.command)
        seen = session.hook.report()
        assert seen["fired"] and seen["before"] != seen["after"] and seen["resets"] == 0
        refused = protocol.DECRYPTION_FAILED.parse_all(output)
        assert operation.released(output)[0] is None and len(refused) == 1, output
        assert refused[0]["cycles"] == cycles
    finally:
        session.console.set_key(injector.key)
    assert injector.recovered()


def test_a_stuck_peripheral_is_reset_and_refused(injector):
    """The peripheral's state register flipped from IDLE to SETMOD between commands: it stays busy for
    good. The driver's bounded wait gives up, resets it, and the console says so; the next operation
    is right."""
    record = injector.inject(injector.site("fsm_state"), 0, 0, 0)
    assert record["outcome"] == "stuck", record
    assert record["error"].startswith(faults.STUCK_ERROR) and record["resets"] >= 1, record
    assert injector.recovered()


def test_a_status_fault_is_refused_with_its_code(injector):
    """A bit of the status' error code flipped while EXP_FIXED_PAIR runs: the driver reads it at the
    end of the command and refuses, with that code."""
    offset, busy, _ = _command(injector, "EXP_FIXED_PAIR")
    record = injector.inject(injector.site("error"), 0, 3, offset + busy // 2)
    assert record["outcome"] == "refused", record
    assert record["error"] == "error=operation_failed peripheral_code=8", record
    assert injector.recovered()


def test_a_fault_where_nothing_reads_changes_nothing(injector):
    """A bit of an operand row no operation of this size uses (the last row of the last hidden slot):
    the signature is released, and right; the hook flipped the bit it said, and the console's wipe
    after the command cleared the row, flipped bit and all."""
    cfg = faults.peripheral_config(injector.build)
    site, row = injector.site("regfile.operands"), _row(injector, cfg.total_slots - 1, cfg.rows_per_slot - 1)
    assert injector.session.hook.peek(site.index, row) == 0         # wiped after the command before
    record = injector.inject(site, row, 33, injector.span // 2)
    assert record["outcome"] == "correct", record
    assert (int(record["before"], 16), int(record["after"], 16)) == (0, 1 << 1)      # bit 33: word 1's bit 1
    assert injector.session.hook.peek(site.index, row) == 0


def test_the_console_is_alive_after_the_faults(injector):
    """After the faults above, on the same boot: the console answers and signs right."""
    assert injector.recovered()
    assert injector.session.console.info().counter.cycle_counter == "ok"


def test_only_the_fault_model_reaches_into_the_peripheral(injector):
    """The fault model is the plain model's Verilog with the peripheral's registers public: Verilator's
    symbol table of the plain model (the one every other test, the bench and the board's figures use)
    holds none of the peripheral's variables, the fault model's holds every register and memory, and
    both were made from the same Verilog files."""
    import re
    plain = sim_build.build(log=lambda msg: None)
    assert plain.gateware_dir == injector.build.gateware_dir

    def peripheral_vars(model):
        text = "".join(p.read_text() for p in model.parent.glob("Vsim__Syms*.cpp"))
        names = re.findall(r"__Vscopep_sim__montmul\w*->varInsert\(\"([^\"]+)\"", text)
        return {fault_model.plain_name(name.replace("\\\\", "\\")) for name in names}    # a C string's escaped name

    assert peripheral_vars(plain.model) == set()
    public = peripheral_vars(injector.build.model)
    assert {name for _, name in injector.elements} <= public
    assert len(public) <= len(injector.elements) + len(fault_model.WATCHED_PORTS)


def test_a_tripped_health_test_stops_the_generator_until_restart(injector):
    """The entropy source's registers are fault sites (their own class). The repetition count test's
    failure flag flipped during a signature: the signature is right (PKCS#1 v1.5 draws no randomness),
    the source then reads as failed, a draw of random bytes is refused with one error line, and
    `entropy restart` brings it back."""
    site = injector.site("entropy_source.rct.failed")
    assert site.cls == faults.ENTROPY_CLASS[0]
    assert {s.label for s in injector.sites if s.cls == site.cls} >= {"entropy_source.shift", "entropy_source.apt.count"}
    record = injector.inject(site, 0, 0, injector.span // 2)
    assert record["outcome"] == "correct", record
    console = injector.session.console
    refused = protocol.error_lines(console.command("entropy raw 1"))
    assert len(refused) == 1 and protocol.error_code(refused[0]) == protocol.Error.ENTROPY_FAILED, refused
    assert "rct_failed" in refused[0]
    assert "entropy_health=startup" in console.command("entropy restart")     # its start-up tests rerun
    assert protocol.error_lines(console.command("entropy raw 1")) == []
    assert injector.recovered()


def test_a_faulted_hash_releases_no_signature(injector):
    """A bit of the SHA-256 engine's chaining state flipped while the signature's digest is made: the
    digest, made twice on the engine and compared, differs, and the signature is refused with the engine's
    error before any RSA. The class's cycles are the hashing: the digests before the peripheral's first
    command, the engine's wipe after; not the RSA between them."""
    hashing = injector.windows[faults.SHA256_CLASS[0]]
    rsa_start = injector.windows[faults.SITE_CLASSES[0][0]][0][0]
    assert hashing[0][1] <= rsa_start and sum(end - first for first, end in hashing) < rsa_start + 2_000
    site = injector.site(f"{fault_model.SHA256_TOP}.state3")
    assert site.cls == faults.SHA256_CLASS[0]
    record = injector.inject(site, 0, 4, hashing[0][0] + 10)
    assert record["outcome"] == "refused" and record["phase"] == "hash", record
    assert protocol.error_code(record["error"]) == protocol.Error.HASH_ENGINE, record


def test_a_cycle_is_drawn_over_the_union_of_the_windows():
    """The SHA-256 class's cycles: commands within HASH_GAP of each other make one interval, a lone one
    its block; a draw lands in the union, every cycle of it reachable."""
    from gateware.sha256.interface import BLOCK_CYCLES
    scope = fault_model.SHA256_SCOPE
    commands = [(scope, 100), (scope, 200), (scope, 300), (scope, 50_000)]
    windows = faults._windows([(1_000, 0, 5)], commands, 60_000)
    assert windows[faults.SHA256_CLASS[0]] == [(100, 300 + BLOCK_CYCLES + 1), (50_000, 50_000 + BLOCK_CYCLES + 1)]
    assert windows["operand_slots"] == [(1_000, 60_000)]
    rng = random.Random(5)
    drawn = {faults._pick([(10, 13), (20, 22)], rng) for _ in range(200)}
    assert drawn == {10, 11, 12, 20, 21}
