"""The firmware's console, driven through the simulated SoC's serial port."""

from sim.console import error_lines, parse_kv

from soc import config


def test_boots_into_the_menu(console):
    assert "RSA benchmark firmware" in console.output
    assert "VexRiscv" in console.output


def test_help_lists_commands_with_descriptions(console):
    out = console.command("help")
    lines = [line.split(None, 1) for line in out.splitlines() if line.startswith("  ")]
    names = {parts[0] for parts in lines}
    assert {"help", "info"} <= names
    assert all(len(parts) == 2 and parts[1].strip() for parts in lines)
    assert not error_lines(out)


def test_info_reports_cpu_clock_memory_and_a_running_cycle_counter(console):
    out = console.command("info")
    info = {}
    for line in out.splitlines():
        info.update(parse_kv(line))
    assert info["cpu"].startswith("VexRiscv")
    assert int(info["clk_hz"]) == config.SYS_CLK_FREQ
    assert int(info["rom_bytes"]) == config.ROM_SIZE
    assert int(info["sram_bytes"]) == config.SRAM_SIZE
    assert info["cycle_counter"] == "ok"
    assert 1000 < int(info["loop_cycles"]) < 1_000_000
    # The counter keeps running between commands.
    later = {}
    for line in console.command("info").splitlines():
        later.update(parse_kv(line))
    assert int(later["cycles"]) > int(info["cycles"])


def test_unknown_command_prints_error_and_console_keeps_running(console):
    out = console.command("frobnicate 1 2")
    errors = error_lines(out)
    assert len(errors) == 1 and errors[0].startswith("error=unknown_command")
    assert "frobnicate" in errors[0]
    assert "info" in console.command("help")


def test_over_long_line_is_refused_whole(console):
    limit = config.CONSOLE_LINE_MAX - 1
    console.send("help" + "x" * (limit - 4))          # exactly fills the buffer, all echoed
    console.send("y" * 1000 + "\n", echo=False)       # beyond the buffer: dropped, not echoed
    out = console.wait_prompt()
    errors = error_lines(out)
    assert errors == [f"error=line_too_long max={limit}"]
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
