"""The softcores the benchmark SoC can be built around: parsing "type:variant", checking it against
soc/config.py's supported set, and checking that its sources are installed.

One CPU is named `type:variant` (`vexriscv:minimal`); a bare `type` means its LiteX default
variant. Every error is one line (a ProjectError).
"""

import importlib
from dataclasses import dataclass

from common.errors import ProjectError
from soc import config

#: Softcores LiteX integrates but the benchmark does not support here, and why (one line each).
UNSUPPORTED = {
    "microblaze": "MicroBlaze is Xilinx's encrypted IP: Vivado-only, it can be neither simulated nor "
                  "synthesised here (see the README, 'Across softcores')",
    "ibex": "not supported by this benchmark yet (its SystemVerilog sources were not tried with "
            "Verilator 5.006 here)",
    "cv32e40p": "not supported by this benchmark yet (its SystemVerilog sources were not tried with "
                "Verilator 5.006 here)",
}

#: Variants LiteX lists for a supported CPU but the benchmark cannot build here, and why.
UNSUPPORTED_VARIANTS = {
    ("serv", "mdu"): "LiteX 2024.12 downloads SERV's multiply/divide unit (mdu_top.v) from GitHub while it "
                     "builds the SoC, and pythondata-cpu-serv does not ship it; this project builds from "
                     "package registries only",
}

#: The variant a bare type means (`python -m sim cpus serv` runs serv:standard; VexRiscv: the project's default).
DEFAULT_VARIANTS = {"vexriscv": config.CPU_VARIANT, "picorv32": "standard", "serv": "standard"}


@dataclass(frozen=True)
class Cpu:
    type: str
    variant: str

    @property
    def name(self):
        return f"{self.type}:{self.variant}"

    @property
    def slug(self):
        """For directory names: build/sim-<slug>."""
        return f"{self.type}-{self.variant}"

    def __str__(self):
        return self.name


def supported():
    """Every supported CPU, in soc/config.py's order."""
    return [Cpu(t, v) for t, variants in config.CPUS.items() for v in variants]


def default():
    return Cpu(config.CPU_TYPE, config.CPU_VARIANT)


def parse(text, variant=None):
    """`type[:variant]` -> Cpu; ProjectError (one line) if it is not in the supported set.
    `variant`, when given, is the variant of a bare type (the --cpu-variant option)."""
    text = text.strip().lower()
    cpu_type, _, cpu_variant = text.partition(":")
    if cpu_type in UNSUPPORTED:
        raise ProjectError(f"CPU {text!r}: {UNSUPPORTED[cpu_type]}")
    if cpu_type not in config.CPUS:
        raise ProjectError(f"unknown CPU type {cpu_type!r}; supported: {', '.join(config.CPUS)}")
    cpu_variant = cpu_variant or variant or DEFAULT_VARIANTS[cpu_type]
    if (cpu_type, cpu_variant) in UNSUPPORTED_VARIANTS:
        raise ProjectError(f"CPU {cpu_type}:{cpu_variant}: {UNSUPPORTED_VARIANTS[cpu_type, cpu_variant]}")
    if cpu_variant not in config.CPUS[cpu_type]:
        raise ProjectError(f"unknown variant {cpu_variant!r} of {cpu_type}; supported: "
                           f"{', '.join(config.CPUS[cpu_type])}")
    return Cpu(cpu_type, cpu_variant)


def parse_list(text):
    """`all` or a comma-separated list of `type[:variant]` -> [Cpu], without repeats."""
    names = config.CPUS_ALL if text.strip() == "all" else [t for t in text.split(",") if t.strip()]
    if not names:
        raise ProjectError("a list of CPUs is 'all' or type[:variant], comma-separated")
    cpus = []
    for name in names:
        cpu = parse(name)
        if cpu not in cpus:
            cpus.append(cpu)
    return cpus


def require_sources(cpu):
    """ProjectError (one line) when the CPU's `pythondata-cpu-*` package is not installed."""
    package = config.CPU_PACKAGES[cpu.type]
    module = package.replace("-", "_")
    try:
        importlib.import_module(module)
    except ImportError:
        raise ProjectError(f"CPU {cpu}: its sources are missing (pip package {package}; "
                           f"`make setup` installs the pinned version)") from None


def isa(cpu):
    """The ISA LiteX compiles for (`rv32i`, `rv32im`, ...), from the CPU's own GCC flags."""
    import re
    module = importlib.import_module(f"litex.soc.cores.cpu.{cpu.type}.core")
    flags = getattr(module, "GCC_FLAGS", {}).get(cpu.variant, "")
    match = re.search(r"-march=(\w+)", flags)
    if not match:
        return "?"
    return re.sub(r"\d+p\d+", "", match.group(1)).replace("_", "")
