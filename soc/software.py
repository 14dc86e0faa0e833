"""LiteX's Builder, with picolibc compiled once per compiler set-up instead of once per SoC.

Every SoC build compiles LiteX's software packages into <build>/software/. The slowest by far is
picolibc (LiteX's libc package: a meson + ninja build of some 800 files, 12 s and 21 CPU-seconds on
our 2-core machine), and its meson part depends only on the compiler and its flags, never on the SoC:
the SoC's headers reach only LiteX's two glue files (stdio.c, missing.c), which make compiles into the
library after meson. So the meson part's outputs (`__libc.a`, `picolibc.h`) are kept in
build/picolibc/, keyed by the cross file LiteX writes for meson (compiler, CPU flags, include
directories, with the SoC's own directory left out), the compiler's version and the versions of
LiteX, picolibc and meson.

The cross file also names the CPU (meson's `cpu`, LiteX's `-D__<cpu>__`, the include directory of
the CPU's headers) and PicoRV32 adds `-mno-save-restore`. None of these reaches the library: the
meson part includes no header of the CPU's directory (ninja's dependency lists of the five set-ups
the test suite builds name none), picolibc's sources test no `__<cpu>__` macro, its build uses
meson's cpu only for its own tests' linker script, and `-mno-save-restore` is GCC's default ("the
default is to use fast inline prologues and epilogues", GCC manual, RISC-V options). So the key
leaves them out: the CPUs then share one library per instruction set (rv32i, rv32im), and the
disassembly of those libraries was checked to be the same (debug information aside) for VexRiscv,
PicoRV32 and SERV. A SoC whose key is cached gets them copied in before LiteX's make runs,
which then sees the meson part made and compiles only the glue. The debug information of a cached
copy names the build directory it was first compiled in; the code is the same byte for byte.
"""

import re
import shutil
import subprocess
from importlib import metadata
from pathlib import Path

from litex.soc.integration.builder import Builder as LiteXBuilder

from common import cache
from common.errors import ProjectError
from common.paths import BUILD_DIR

CACHE_DIR = BUILD_DIR / "picolibc"
#: Cached compiler set-ups kept (least recently used dropped): more than the suite's two (with and
#: without M).
KEEP = 8
#: The meson part's outputs that the rest of the software build reads.
OUTPUTS = ("__libc.a", "picolibc.h")
PACKAGES = ("litex", "pythondata-software-picolibc", "meson")


def _variables(software_dir):
    """{name: value} of LiteX's generated variables.mak."""
    text = (Path(software_dir) / "include" / "generated" / "variables.mak").read_text()
    return dict(re.findall(r"^(\w+)=(.*)$", text, re.M))


def _make(libc_dir, makefile, target):
    subprocess.check_call(["make", "-C", str(libc_dir), "-f", str(makefile), target])


def _without_cpu_name(cross, variables):
    """The cross file without what names the CPU rather than its instruction set (module docstring)."""
    cpu = variables["CPU"]
    cross = re.sub(r"^(cpu\s*=\s*)'[^']*'", r"\1'<cpu>'", cross, flags=re.M)
    for flag in (f"-D__{cpu}__", f"-I{variables['CPU_DIRECTORY']}", "-mno-save-restore"):
        cross = cross.replace(f"'{flag}', ", "")
    return cross


def picolibc_key(software_dir, libc_makefile):
    """What the meson part of the libc package depends on (see the module docstring); writes the
    package's cross.txt in passing."""
    software_dir = Path(software_dir).resolve()
    libc_dir = software_dir / "libc"
    _make(libc_dir, libc_makefile, "cross.txt")
    variables = _variables(software_dir)
    cross = _without_cpu_name((libc_dir / "cross.txt").read_text().replace(str(software_dir), "<software>"),
                              variables)
    compiler = subprocess.run([f"{variables['TRIPLE']}-gcc", "--version"], capture_output=True, text=True,
                              check=True).stdout.splitlines()[0]
    machine = Path(variables["LIBC_DIRECTORY"]) / variables["CPUFAMILY"]
    versions = [(name, metadata.version(name)) for name in PACKAGES]
    files = sorted(machine.iterdir()) if machine.is_dir() else []
    return (cross, compiler, versions, cache.digest(files=[libc_makefile, *files]))


class Builder(LiteXBuilder):
    """litex.soc.integration.builder.Builder with the libc package's meson part cached (above)."""

    def _generate_rom_software(self, compile_bios=True):
        packages = dict(self.software_packages)
        if self.compile_software and "libc" in packages:
            self._cached_picolibc(Path(packages["libc"]) / "Makefile")
        super()._generate_rom_software(compile_bios=compile_bios)

    def _cached_picolibc(self, makefile):
        libc_dir = Path(self.software_dir).resolve() / "libc"
        if (libc_dir / OUTPUTS[0]).exists():
            return                          # made in this directory before: LiteX's make decides
        key = picolibc_key(self.software_dir, makefile)

        def compile_here(directory):
            _make(libc_dir, makefile, OUTPUTS[0])
            for name in OUTPUTS:
                shutil.copyfile(libc_dir / name, directory / name)

        directory, made = cache.cached_dir(CACHE_DIR, "picolibc", key, compile_here, keep=KEEP)
        if made:
            return
        for name in OUTPUTS:
            if not (directory / name).exists():
                raise ProjectError(f"the picolibc cache {directory} has no {name}; remove it and build again")
            # A fresh modification time: newer than cross.txt, so make takes the library as made.
            shutil.copyfile(directory / name, libc_dir / name)
