"""The FPGA boards.

A board is one module here holding everything about it: its part (`DEVICE`), clocks, pins, main RAM
(`MAIN_RAM_SIZE`), toolchains, and `main(argv, prog)`, its command line: the module is runnable,
`python -m boards.<module>`, as litex-boards' targets are. `targets()` finds them: a new board is a new
module (and its part's resources in eda/devices.py, if the part is new)."""

import importlib
import pkgutil

__all__ = ["targets", "target"]


def targets():
    """The FPGA boards' names: the modules of this package with a `DEVICE` and a `main`."""
    names = []
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "DEVICE") and callable(getattr(module, "main", None)):
            names.append(info.name)
    return sorted(names)


def target(name):
    """The module of board `name` (one of `targets()`)."""
    if name not in targets():
        raise ValueError(f"no board {name!r} (boards: {', '.join(targets())})")
    return importlib.import_module(f"{__name__}.{name}")
