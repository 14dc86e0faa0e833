"""The programs the builds call: found on PATH, or a message saying how to install them."""

import os
import shutil
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
