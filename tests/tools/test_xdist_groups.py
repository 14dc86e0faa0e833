"""`make test` relies on pytest-xdist's `--dist loadgroup` to keep the tests that share an expensive
session fixture (the board runs, the leak run) on one worker. pytest 9 renamed the node id that xdist
3.8 rewrites to do that, and the marks were then silently ignored (each worker built the fixture
again): this runs a small suite the way the Makefile does and checks that a group stays together."""

import re
import subprocess
import sys

SUITE = '''
import os
import pytest

pytestmark = pytest.mark.xdist_group("shared")

@pytest.mark.parametrize("n", range(6))
def test_grouped(n):
    print("WORKER", os.environ["PYTEST_XDIST_WORKER"])
'''

LONER = '''
import time
import pytest

@pytest.mark.parametrize("n", range(6))
def test_alone(n):
    time.sleep(0.2)
'''


def test_a_group_runs_on_one_worker(tmp_path):
    (tmp_path / "test_grouped.py").write_text(SUITE)
    (tmp_path / "test_alone.py").write_text(LONER)
    result = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-v", "-s",
                             "-p", "no:cacheprovider", "-o", "addopts=", str(tmp_path)],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-3000:]
    grouped = re.findall(r"\[(gw\d)\].*test_grouped\.py::test_grouped\[\d\]", result.stdout)
    assert len(grouped) == 6, result.stdout[-3000:]
    assert len(set(grouped)) == 1, f"the group ran on {sorted(set(grouped))}"
