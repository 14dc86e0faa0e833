"""Random lines typed into the simulated SoC's console (jobs/random_lines.py): a slice of what
`python -m sim random-lines 2000` types, each answer checked, then a known answer; and the model of
the console's line editing that typing them relies on."""
import random

from jobs import random_lines
from link.console import LINE_MAX
from soc.console_protocol import Error

#: Lines in `make test` (about a fifth of a second each in the simulation); the full run takes 2,000.
SLICE = 60


def test_the_line_editor_model_keeps_and_echoes_what_the_console_does():
    editor = random_lines.LineEditor()
    assert editor.type(b"hx\x00\xfflp\x08\x08\x08elp") == "hxlp" + "\x08 \x08" * 3 + "elp"
    assert editor.text == "help" and not editor.overflow
    editor = random_lines.LineEditor()
    assert editor.type(b"a" * (LINE_MAX + 5) + b"\x08b") == "a" * LINE_MAX
    assert editor.overflow and editor.text == "a" * LINE_MAX


def test_what_each_kept_line_must_get():
    assert random_lines.expectation("  ") == "empty"
    assert random_lines.expectation("frobnicate 1") is Error.UNKNOWN_COMMAND
    assert random_lines.expectation("help " + "x " * 8) is Error.TOO_MANY_ARGUMENTS
    assert random_lines.expectation("modexp 1 2") is None
    assert random_lines.check_answer(None, "error=usage usage=\"...\"\nmore\n", False) is not None
    assert random_lines.check_answer(Error.UNKNOWN_COMMAND, "error=unknown_command command=x\n", False) is None
    assert random_lines.check_answer("empty", "", True) is not None        # past the limit: line_too_long


def test_every_kind_of_line_is_drawn_and_none_has_a_line_end():
    rng = random.Random("kinds")
    lines = [random_lines.random_line(rng) for _ in range(300)]
    assert {line.kind for line in lines} == set(random_lines.KINDS)
    assert not any(b"\n" in line.data or b"\r" in line.data for line in lines)
    assert max(len(line.data) for line in lines) > LINE_MAX


def test_random_lines_on_the_simulated_soc(shared_console):
    report = random_lines.run(shared_console, SLICE, seed="make-test")
    assert report["problems"] == [], report["problems"][:5]
    assert sum(report["kinds"].values()) == SLICE
