"""The firmware's console, driven through the simulated SoC's serial port."""

from soc import config
from soc import console_protocol as protocol
from soc.console_protocol import Error, error_code, error_lines


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


def test_backspace_edits_the_line(console):
    console.send("hxlp\x08\x08\x08elp\n")
    out = console.wait_prompt()
    assert "Commands:" in out
    assert not error_lines(out)


def test_empty_line_and_extra_spaces(console):
    assert console.command("") == ""
    out = console.command("   help   ")
    assert "Commands:" in out and not error_lines(out)
