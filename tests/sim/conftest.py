import pytest

from sim import build as sim_build
from sim.console import SimConsole


@pytest.fixture(scope="session")
def sim_soc():
    """The simulated SoC with its firmware, built once per test session (stale parts only)."""
    return sim_build.build(log=lambda msg: None)


@pytest.fixture
def console(sim_soc):
    """A freshly booted SoC, at its first prompt."""
    con = SimConsole(sim_soc.model, sim_soc.gateware_dir, timeout=300)
    con.wait_prompt()
    yield con
    con.close()
