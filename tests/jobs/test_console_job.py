"""`python -m sim console` (and `python -m sim` alone): the simulated SoC's console on this terminal."""

import subprocess
import sys

from sim import build as sim_build
from soc import console_protocol as protocol


def test_the_console_boots_to_the_prompt_and_keeps_to_its_time_limit(sim_soc):
    """Its input a pipe the test closes at once (stdin's end is not the console's), the time limit
    ends it with status 1 and one line saying so, the firmware's prompt printed before."""
    result = subprocess.run([sys.executable, "-m", "sim", "console", "--timeout", "15", "--quiet"],
                            cwd=sim_build.ROOT, stdin=subprocess.PIPE, capture_output=True, text=True, timeout=300)
    assert result.returncode == 1
    assert result.stdout.rstrip().endswith(protocol.PROMPT.rstrip()), result.stdout[-500:]
    assert "Executing booted program" in result.stdout
    assert result.stderr.strip() == "[sim] time limit of 15 s passed"
