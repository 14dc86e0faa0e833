"""`python -m sim split`: the profile line's parser and the table (the instrumented build itself runs in the
job, minutes; its figures are in docs/results.md with the command)."""

import pytest

from common.errors import ProjectError
from jobs import split
from soc import console_protocol as protocol


def test_profile_line_parsed_in_the_firmwares_order():
    output = ("timed private_crt hw_seq cycles=10 ok=1 result=ab\n"
              f"{protocol.PROFILE_PREFIX} args=1,0,0 exp=5,6,700 wipe=3,0,0\n")
    steps = split.parse_profile(output)
    assert list(steps) == ["args", "exp", "wipe"]
    assert steps["exp"] == {"cpu": 5, "transfer": 6, "wait": 700}
    text = split.table(2048, "hw_seq", 722, steps, default_cycles=700)
    assert "| exp | 5 | 6 | 700 | 711 |" in text
    assert "| **all** | 9 | 6 | 700 | 715 |" in text


@pytest.mark.parametrize("output", ["timed x\n", f"{protocol.PROFILE_PREFIX} a=1,2,3\n" * 2,
                                    f"{protocol.PROFILE_PREFIX} nothing\n"])
def test_a_default_build_or_a_garbled_line_is_refused(output):
    with pytest.raises(ProjectError):
        split.parse_profile(output)


def test_the_message_is_below_any_modulus_of_its_size():
    for bits in (512, 2048, 4096):
        assert split.message(bits).bit_length() < bits - 1
