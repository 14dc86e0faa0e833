"""The firmware's console, driven through the simulated SoC's serial port; the typed commands of
link/console.py against it and against a stand-in that can refuse, garble or answer astray."""

import dataclasses
import math
import stat
import sys
from pathlib import Path

import pytest

from gateware.interface import PeripheralConfig
from link.console import (RECORDS, AnswerError, CommandRefused, Console, ConsoleError, GeneratedKey, KeySet,
                          LineEditor, Missing, Result, SimConsole, Timed, UnexpectedAnswer)
from link.transport import SocModelTransport
from soc import config
from soc import console_protocol as protocol
from soc.console_protocol import Error, error_code, error_lines
from soc.keys import bench_keys


def test_boots_into_the_menu(console):
    assert "RSA benchmark firmware" in console.output
    assert "VexRiscv" in console.output


def test_help_lists_every_command_of_the_protocol(console):
    out = console.command("help")
    listed = {}
    for line in out.splitlines():
        if line.startswith("  "):
            name, rest = line.split(None, 1)
            listed[name] = rest
    assert list(listed) == list(protocol.COMMANDS)
    for name, (usage, help_) in protocol.COMMANDS.items():
        assert listed[name].split() == (usage + " " + help_).split()
    assert not error_lines(out)


def test_info_reports_cpu_clock_memory_and_a_running_cycle_counter(console):
    out = console.command("info")
    [soc] = protocol.INFO_SOC.parse_all(out)
    [limits] = protocol.INFO_LIMITS.parse_all(out)
    [counter] = protocol.INFO_COUNTER.parse_all(out)
    assert soc["cpu"].startswith("VexRiscv")
    assert soc["clk_hz"] == config.SYS_CLK_FREQ
    assert soc["rom_bytes"] == config.ROM_SIZE
    assert soc["sram_bytes"] == config.SRAM_SIZE
    assert soc["main_ram_bytes"] == config.MAIN_RAM_SIZE
    assert limits["console_line_max"] == config.CONSOLE_LINE_MAX - 1
    assert counter["cycle_counter"] == "ok"
    assert 1000 < counter["loop_cycles"] < 1_000_000
    # The counter keeps running between commands.
    [later] = protocol.INFO_COUNTER.parse_all(console.command("info"))
    assert later["cycles"] > counter["cycles"]


def test_unknown_command_prints_error_and_console_keeps_running(console):
    out = console.command("frobnicate 1 2")
    errors = error_lines(out)
    assert len(errors) == 1 and error_code(errors[0]) is Error.UNKNOWN_COMMAND
    assert "frobnicate" in errors[0]
    assert "info" in console.command("help")


def test_over_long_line_is_refused_whole(console):
    limit = config.CONSOLE_LINE_MAX - 1
    console.send("help" + "x" * (limit - 4))          # exactly fills the buffer, all echoed
    console.send("y" * 1000 + "\n", echo=False)       # beyond the buffer: dropped, not echoed
    out = console.wait_prompt()
    errors = error_lines(out)
    assert errors == [f"{Error.LINE_TOO_LONG.prefix} max={limit}"]
    assert "Commands:" not in out                     # the truncated line did not run
    assert "Commands:" in console.command("help")     # and the next line starts clean


def test_the_line_editor_model_masks_what_follows_the_name_of_a_command_with_secrets():
    editor = LineEditor()
    assert editor.type(b"  keygen 512 00ff") == "  keygen " + protocol.ECHO_MASK * 8
    assert editor.text == "  keygen 512 00ff"
    # erased back into the name, the line is judged again when a blank ends it
    assert editor.type(b"\x08" * 9 + b"x 1") == "\x08 \x08" * 9 + "x 1"      # `keygenx` takes no secret
    assert editor.type(b"\n") == "\n" and editor.text == ""
    assert editor.type(b"keys 1 2\rtls a b") == "keys 1 2\ntls " + protocol.ECHO_MASK * 3
    assert set(protocol.SECRET_COMMANDS) <= set(protocol.COMMANDS)
    # what the typed commands put in their errors: the name, not the secret
    assert "00ff" not in str(CommandRefused("keygen 512 00ff", "error=x"))


def test_backspace_edits_the_line(console):
    console.send("hxlp\x08\x08\x08elp\n")
    out = console.wait_prompt()
    assert "Commands:" in out
    assert not error_lines(out)


def test_empty_line_and_extra_spaces(console):
    assert console.command("") == ""
    out = console.command("   help   ")
    assert "Commands:" in out and not error_lines(out)


# ---- the typed commands (link/console.py), against the firmware ----

def test_typed_commands_on_the_firmware(console):
    info = console.info()
    assert info.soc.cpu.startswith("VexRiscv") and info.soc.clk_hz == config.SYS_CLK_FREQ
    assert info.limits.console_line_max == config.CONSOLE_LINE_MAX - 1
    assert info.counter.cycle_counter == "ok" and 0 < info.stack.stack_used < info.stack.stack_bytes
    assert (info.peripheral.peripheral_lanes, info.peripheral.word_bits, info.peripheral.max_bits) == \
        (PeripheralConfig().lanes, PeripheralConfig().word_bits, PeripheralConfig().max_bits)
    [key] = bench_keys((512,))
    assert console.set_key(key) == KeySet(bits=512, private="yes")
    message = 0x1234567
    timed = console.time("private_crt", "hw_seq", message)
    assert (timed.op, timed.impl, timed.ok) == ("private_crt", "hw_seq", True)
    assert timed.result == pow(message, key["d"], key["n"]) and timed.cycles > 0
    answer = console.bench([512], rows=[(512, "mul", "hw_seq")], only="hw")
    [result] = answer.results
    assert (result.bits, result.op, result.impl, result.ok, answer.missing) == (512, "mul", "hw_seq", True, [])
    assert console.set_key({"n": key["n"], "e": key["e"]}) == KeySet(bits=512, private="no")
    with pytest.raises(CommandRefused) as refused:
        console.time("private", "sw", message)
    assert refused.value.code is Error.NO_KEY and refused.value.line.startswith(Error.NO_KEY.prefix)


# ---- the typed commands, against a stand-in console (tests/link/fake_console.py) ----

FAKE_CONSOLE = Path(__file__).parent / "fake_console.py"
#: A toy key (p = 61, q = 53): the stand-in takes any key.
TOY_KEY = {"n": 3233, "e": 17, "d": 2753, "p": 61, "q": 53}


@pytest.fixture
def fake_console(tmp_path):
    """Opens a Console on the stand-in in a mode (see its docstring), at its prompt."""
    opened = []

    def open_(mode="ok"):
        model = tmp_path / f"fake-{mode}"
        model.write_text(f"#!/bin/sh\nexec {sys.executable} {FAKE_CONSOLE} {mode}\n")
        model.chmod(model.stat().st_mode | stat.S_IXUSR)
        con = Console(SocModelTransport(model, tmp_path), timeout=60, echo_timeout=10)
        opened.append(con)
        con.wait_prompt()
        return con

    yield open_
    for con in opened:
        con.close()


def test_every_record_parses_its_line_into_typed_fields():
    """Each record is made from its protocol Line (link.console.record): a line printed with that Line's
    fields parses into the record, integers as ints, flags as bools, each field in the Line's order."""
    samples = {"s": "yes", "u": "7", "lu": "7", "llu": "7", "d": "1"}
    for record in RECORDS:
        fields = record.LINE.fields
        text = " ".join([*record.LINE.words, *(f"{f.key}={'ab' if f.parse else samples[f.conversion]}"
                                               for f in fields)])
        parsed = record.parse(text)
        assert [f.name for f in dataclasses.fields(parsed)] == [f.key for f in fields], record
        for f in fields:
            value = getattr(parsed, f.key)
            if f.key in record.FLAGS:
                assert value is True, (record, f.key)
            elif f.parse is None:
                assert value == (int(samples[f.conversion]) if f.conversion != "s" else "yes"), (record, f.key)
    assert Result.parse("result bits=512 op=mul impl=sw cycles=7 ok=0") == Result(512, "mul", "sw", 7, False)
    assert Result.parse("missing bits=512 op=mul impl=bearssl") is None


def test_set_key_types_the_key_and_returns_what_the_firmware_holds(fake_console):
    con = fake_console()
    assert con.set_key(TOY_KEY) == KeySet(bits=12, private="yes")
    # n e d p q in hex, typed; echoed masked (the stand-in echoes as the firmware does)
    assert f"{protocol.PROMPT}key {protocol.ECHO_MASK * len('ca1 11 ac1 3d 35')}\n" in con.output
    assert con.set_key({"n": 3233, "e": 17}) == KeySet(bits=12, private="no")
    assert f"{protocol.PROMPT}key {protocol.ECHO_MASK * len('ca1 11')}\n" in con.output


def test_a_refused_key_raises_with_the_firmware_s_error_line(fake_console):
    con = fake_console()
    with pytest.raises(CommandRefused, match=r"refused `key \.\.\.`: error=bad_key") as refused:
        con.set_key({**TOY_KEY, "n": 3232})
    assert refused.value.code is Error.BAD_KEY and refused.value.line.startswith("error=bad_key reason=")
    assert isinstance(refused.value, AnswerError) and isinstance(refused.value, ConsoleError)
    assert con.set_key(TOY_KEY).private == "yes"                       # the console goes on


def test_time_returns_the_timed_line_as_a_record(fake_console):
    con = fake_console()
    con.set_key(TOY_KEY)
    timed = con.time("private", "hw_seq", 65)
    assert timed == Timed(op="private", impl="hw_seq", cycles=3070, ok=True, result=pow(65, 2753, 3233))
    assert f"{protocol.PROMPT}time private hw_seq 41\n" in con.output


def test_time_without_a_key_is_refused(fake_console):
    con = fake_console()
    with pytest.raises(CommandRefused, match="refused `time public sw c`") as refused:
        con.time("public", "sw", 12)
    assert refused.value.code is Error.NO_KEY


def test_bench_returns_results_and_missing_rows_as_they_arrive(fake_console):
    con = fake_console()
    seen = []
    answer = con.bench([512], on_result=seen.append)
    assert f"{protocol.PROMPT}bench 512\n" in con.output
    # in the firmware's order; the peer that is not built has a `missing` line per RSA row, none for mul
    assert [(r.op, r.impl) for r in seen] == [row for row in protocol.bench_rows() if row != ("mul", "bearssl")]
    assert answer.results == [r for r in seen if isinstance(r, Result)]
    assert answer.missing == [r for r in seen if not isinstance(r, Result)] == [
        Missing(512, op, "bearssl") for op in ("public", "private", "private_crt")]
    assert all(r.ok and r.bits == 512 for r in answer.results)


def test_bench_of_some_rows_and_of_the_hardware_only(fake_console):
    con = fake_console()
    answer = con.bench([512, 1024], rows=[(512, "mul", "hw_seq"), (1024, "public", "hw_cpu")], only="hw")
    assert f"{protocol.PROMPT}bench hw 512 1024 rows=512:mul:hw_seq,1024:public:hw_cpu\n" in con.output
    assert [(r.bits, r.op, r.impl) for r in answer.results] == [(512, "mul", "hw_seq"), (1024, "public", "hw_cpu")]
    assert con.bench([1024], only="ours").missing == []
    with pytest.raises(ValueError, match="only="):
        con.bench([512], only="sw")


def test_a_refused_bench_raises_with_the_firmware_s_error_line(fake_console):
    con = fake_console()
    with pytest.raises(CommandRefused, match=r"refused `bench 512 768`: error=unknown_size bits=768") as refused:
        con.bench([512, 768])
    assert refused.value.code is Error.UNKNOWN_SIZE


def test_info_returns_one_record_of_each_line(fake_console):
    info = fake_console().info()
    assert info.soc.cpu == "Fake_Full" and info.soc.main_ram_bytes == 262144
    assert (info.limits.console_line_max, info.counter.cycle_counter, info.stack.stack_used) == (4095, "ok", 432)
    assert (info.peripheral.peripheral_lanes, info.peripheral.slots) == (32, 16)
    assert (info.entropy.entropy, info.entropy.entropy_health) == ("simulated", "ok")


#: A seed of the fewest bytes keygen takes (the fake's counts follow its first byte).
SEED = bytes((1, 2)) + bytes(range(3, protocol.KEYGEN_MIN_SEED + 1))


def test_keygen_returns_one_record_of_both_lines_and_the_key_becomes_the_console_s(fake_console):
    con = fake_console()
    made = con.keygen(512, SEED)
    assert f"{protocol.PROMPT}keygen {protocol.ECHO_MASK * len(f'512 {SEED.hex()} hw_seq')}\n" in con.output
    assert f"{protocol.PROMPT}key {protocol.ECHO_MASK * len('export')}\n" in con.output
    assert isinstance(made, GeneratedKey) and (made.bits, made.impl, made.ok, made.e) == (512, "hw_seq", True, 65537)
    assert made.n == made.p * made.q and made.n.bit_length() == 512
    assert made.e * made.d % math.lcm(made.p - 1, made.q - 1) == 1
    assert (made.cycles, made.candidates, made.mr_rounds) == (3 * 512 * 1000 + 1, 101, 11)
    assert made.key == {"n": made.n, "e": made.e, "d": made.d, "p": made.p, "q": made.q}
    assert con.time("public", "sw", 2).result == pow(2, 65537, made.n)      # the console holds the new key
    on_cpu = con.keygen(512, SEED, impl="hw_cpu")
    assert f"{protocol.PROMPT}keygen {protocol.ECHO_MASK * len(f'512 {SEED.hex()} hw_cpu')}\n" in con.output
    assert on_cpu.key == made.key and on_cpu.impl == "hw_cpu" and on_cpu.cycles != made.cycles
    assert con.keygen(512, b"\x03" + SEED[1:]).n != made.n


def test_a_refused_keygen_raises_with_the_firmware_s_error_line(fake_console):
    con = fake_console()
    for args, code in (((500, SEED), Error.UNKNOWN_SIZE), ((512, bytes(65)), Error.TOO_LARGE),
                       ((512, SEED, "nope"), Error.UNKNOWN_IMPL)):
        with pytest.raises(CommandRefused, match=r"refused `keygen \.\.\.`") as refused:
            con.keygen(*args)
        assert refused.value.code is code
    for short in (b"", SEED[:-1]):
        with pytest.raises(ValueError, match=f"at least {protocol.KEYGEN_MIN_SEED} bytes"):
            con.keygen(512, short)
    assert con.keygen(512, SEED).ok                          # the console goes on


def test_a_keygen_whose_device_check_failed_is_returned_with_ok_false(fake_console):
    made = fake_console("wrong").keygen(512, SEED, impl="hw_cpu")
    assert not made.ok and made.e * made.d % math.lcm(made.p - 1, made.q - 1) != 1


def test_an_error_code_the_protocol_does_not_know_is_still_a_refusal():
    refused = CommandRefused("info", "error=overheated degrees=99")
    assert refused.code is None and refused.line == "error=overheated degrees=99"


def _ask(con, command):
    """One typed command of each kind (time on the key the stand-in holds)."""
    return {"set_key": lambda: con.set_key(TOY_KEY), "time": lambda: con.time("public", "hw_cpu", 65),
            "bench": lambda: con.bench([512]), "info": con.info,
            "keygen": lambda: con.keygen(512, SEED)}[command]()


@pytest.mark.parametrize("command, message", [
    ("set_key", r"`key \.\.\.` printed a garbled KEY_SET line: 'key bits='"),
    ("time", r"`time public hw_cpu 41` printed a garbled TIMED line: 'timed op='"),
    ("bench", r"`bench 512` printed a garbled RESULT line: 'result bits=512 op=public impl=sw'"),
    ("info", r"`info` printed a garbled INFO_STACK line: 'stack_bytes='"),
    ("keygen", r"`keygen \.\.\.` printed a garbled KEY_PUBLIC line: 'key n='"),
])
def test_a_garbled_answer_is_an_unexpected_answer(fake_console, command, message):
    con = fake_console("garbled")
    if command == "time":
        with pytest.raises(UnexpectedAnswer, match="garbled KEY_SET"):
            con.set_key(TOY_KEY)                # the stand-in holds the key all the same
    with pytest.raises(UnexpectedAnswer, match=message) as raised:
        _ask(con, command)
    assert isinstance(raised.value, AnswerError) and not isinstance(raised.value, CommandRefused)


@pytest.mark.parametrize("command, message", [
    ("set_key", r"`key \.\.\.` took a 12-bit key, private part: no"),
    ("time", r"`time public hw_cpu 41` timed public on sw"),
    ("bench", r"`bench 512` ended without its `bench done` line"),
    ("info", r"`info` printed 2 INFO_SOC lines, not one"),
    ("keygen", r"`keygen \.\.\.` generated a 512-bit key on sw"),
])
def test_an_answer_to_something_else_is_an_unexpected_answer(fake_console, command, message):
    con = fake_console("astray")
    if command == "time":
        with pytest.raises(UnexpectedAnswer):
            con.set_key(TOY_KEY)                # the stand-in holds the key without its private part
    with pytest.raises(UnexpectedAnswer, match=message):
        _ask(con, command)


# ---- a simulation that does not come up ----

def test_a_simulation_that_cannot_start_is_reported(tmp_path):
    with pytest.raises(ConsoleError, match="could not start"):
        SimConsole(tmp_path / "no-such-model", tmp_path)


def test_a_simulation_that_exits_is_reported(tmp_path):
    con = SimConsole("/bin/true", tmp_path, timeout=30)
    with pytest.raises(ConsoleError, match="exited"):
        con.wait_prompt()
    con.close()
