"""Builds the benchmark SoC for an FPGA board: gateware, BIOS, firmware, bitstream, loading.

The LiteX BIOS is in the ROM; the firmware runs from main RAM, which the bitstream preloads (so
the board boots into the menu with no host) and `litex_term --kernel` can overwrite over the UART
without a new bitstream. The firmware is built between two SoC passes:

1. the SoC is elaborated with a zeroed main RAM and LiteX generates its headers, libraries and BIOS
   (`Builder(compile_software=True, compile_gateware=False)`);
2. `soc.firmware.build()` compiles the firmware against them, without the peer libraries and the
   PKCS#1 vectors but with the TLS server on BearSSL (the board's BRAM budget; its module's
   MAIN_RAM_SIZE);
3. a fresh SoC with `main_ram_init=soc.firmware.image_words(firmware.bin, ...)` is generated: its
   Verilog, memory images, constraints and toolchain script carry BIOS and firmware.

Only then is the toolchain needed. When it is missing, everything above is still on disk and the
command exits non-zero with a short message naming the tool and the generated files.

Boards call `run(make_soc, ...)` with a factory `make_soc(main_ram_init=None) -> SoC`
(see `boards/pynq_z2.py`); failures are raised as ProjectError for the board's command to report.
"""

import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

from common import tools
from common.errors import ProjectError
from common.output import output_to
from common.paths import display_path
from soc import firmware, peer_libs, soc_report


class BoardError(ProjectError):
    """A step of the board flow failed, or a tool it needs is missing."""


@dataclass
class BoardBuild:
    build_dir: Path
    soc: object             # the final SoC, firmware in main RAM
    firmware_bin: Path
    log: Path

    @property
    def platform(self):
        return self.soc.platform

    @property
    def build_name(self):
        return self.soc.get_build_name()

    @property
    def gateware_dir(self):
        return self.build_dir / "gateware"

    def gateware_file(self, suffix):
        return self.gateware_dir / f"{self.build_name}{suffix}"

    @property
    def verilog(self):
        return self.gateware_file(".v")

    @property
    def constraints(self):
        return self.gateware_file(".xdc")

    @property
    def script(self):
        return self.gateware_dir / f"build_{self.build_name}.sh"

    @property
    def bitstream(self):
        return self.gateware_file(".bit")

    @property
    def main_ram_init(self):
        return self.gateware_file("_main_ram.init")

    def sources(self):
        """Every Verilog file of the design (top level, CPU, peripheral), as the toolchain sees them."""
        files = []
        for source in self.platform.sources:
            path = Path(source[0])
            if not path.is_absolute():
                path = self.gateware_dir / path
            if path.suffix in (".v", ".sv") and path not in files:
                files.append(path)
        return files


def _generate_pass(make_soc, build_dir, main_ram_init, compile_software, builder_kwargs, build_kwargs,
                   bios=None):
    from soc.software import Builder
    from litex.soc.integration.soc_core import get_mem_data
    soc = make_soc(main_ram_init=main_ram_init)
    if not compile_software:        # the second pass: the BIOS the first one built goes in the ROM
        bios = bios or Path(build_dir) / "software" / "bios" / "bios.bin"
        soc.init_rom("rom", get_mem_data(str(bios), data_width=soc.bus.data_width,
                                         endianness=soc.cpu.endianness))
    builder = Builder(soc, output_dir=str(build_dir), compile_software=compile_software,
                      compile_gateware=False, **builder_kwargs)
    builder.build(run=False, **build_kwargs)
    return soc


def _tls_library(err=sys.stderr):
    """The BearSSL tree the board's TLS server is built on (fetched when missing); None, with one
    `error:` line, when it cannot be had: the image then has no TLS server."""
    try:
        return peer_libs.fetch(peer_libs.PEERS["bearssl"], [False])
    except (ProjectError, OSError, tarfile.TarError) as error:
        err.write(f"error: could not fetch bearssl ({error}); the board's image will have no TLS server\n")
        return None


def generate(make_soc, build_dir, builder_kwargs=None, build_kwargs=None, log=print):
    """Generates the SoC twice around the firmware build (see the module docstring).
    Returns a BoardBuild; raises ProjectError on failure."""
    tools.venv_tools_on_path()
    build_dir = Path(build_dir).resolve()
    build_dir.mkdir(parents=True, exist_ok=True)
    log_file = build_dir / "generate.log"
    log_file.write_text("")
    builder_kwargs, build_kwargs = dict(builder_kwargs or {}), dict(build_kwargs or {})

    def step(what, function, *args):
        try:
            with output_to(log_file, mode="a"):
                return function(*args)
        except ProjectError:            # our own failures say what failed
            raise
        except SystemExit as error:     # LiteX exits on some errors
            raise BoardError(f"{what} failed (exit {error.code}); see {display_path(log_file)}") from None
        except Exception as error:
            raise BoardError(f"{what} failed ({type(error).__name__}: {error}); "
                             f"see {display_path(log_file)}") from None

    log(f"[board] generating the SoC headers and libraries in {display_path(build_dir)}")
    soc = step("SoC generation", _generate_pass, make_soc, build_dir, None, True, builder_kwargs, build_kwargs)
    log("[board] building the firmware (without the peer libraries and the PKCS#1 vectors: the board's BRAM "
        "budget; with the TLS server)")
    config = soc.montmul.config
    firmware_bin = step("firmware build", lambda: firmware.build(
        build_dir, max_bits=config.max_bits, extra_headers=firmware.soc_headers(config, vectors=False),
        peers={name: None for name in peer_libs.PEERS}, tls=_tls_library()))
    log("[board] generating the gateware with the firmware in main RAM")
    ram = step("main-RAM image", firmware.image_words, firmware_bin, soc.bus.regions["main_ram"].size)
    soc = step("SoC generation", _generate_pass, make_soc, build_dir, ram, False, builder_kwargs, build_kwargs)
    return BoardBuild(build_dir=build_dir, soc=soc, firmware_bin=Path(firmware_bin), log=log_file)


def generated_files(board, extra=()):
    rows = [
        ("Verilog", ", ".join(display_path(p) for p in board.sources() if p.parent == board.gateware_dir)),
        ("constraints", display_path(board.constraints)),
        ("build script", f"{display_path(board.script)} ({board.platform.toolchain_name})"),
        ("firmware", f"{display_path(board.firmware_bin)} (in the main-RAM image "
                     f"{display_path(board.main_ram_init)}; or `litex_term --kernel` it)"),
        *extra,
    ]
    return "\n".join(f"  {label:<13} {value}" for label, value in rows)


def make_bitstream(board):
    """Runs the toolchain's build script; raises BoardError when a tool is missing or it fails."""
    missing = board.platform.missing_tools()
    if missing:
        what = "; ".join(f"{tool} ({hint})" for tool, hint in missing)
        raise BoardError(
            f"cannot make the bitstream with {board.platform.toolchain_name}: missing {what}.\n"
            f"Everything before it is generated in {display_path(board.build_dir)}; once the tools are "
            f"installed: cd {display_path(board.gateware_dir)} && bash {board.script.name}")
    result = subprocess.run(["bash", board.script.name], cwd=board.gateware_dir)
    if result.returncode != 0 or not board.bitstream.exists():
        raise BoardError(f"the {board.platform.toolchain_name} build failed (exit {result.returncode}, "
                         f"output above); script: {display_path(board.script)}")
    return board.bitstream


def load_bitstream(platform, bitstream, programmer="auto"):
    bitstream = Path(bitstream)
    if not bitstream.exists():
        raise BoardError(f"no bitstream at {display_path(bitstream)}: build it first (--build)")
    prog, tool, kwargs = platform.create_programmer(programmer)
    if shutil.which(tool) is None:
        raise BoardError(f"cannot load the bitstream: {tool} not found on PATH "
                         f"(bitstream: {display_path(bitstream)})")
    try:
        prog.load_bitstream(str(bitstream), **kwargs)
    except (OSError, subprocess.CalledProcessError) as error:
        raise BoardError(f"{tool} could not load {display_path(bitstream)}: {error}") from None


def run(make_soc, build_dir, builder_kwargs=None, build_kwargs=None, build=False, load=False,
        report=False, programmer="auto", extra_files=None):
    """What a board's command line (`python -m boards.NAME`) does: generate (always, unless only loading), then the
    report, the bitstream and loading as asked. Raises ProjectError on failure."""
    build_dir = Path(build_dir).resolve()
    if load and not (build or report):
        soc = make_soc()
        bitstream = build_dir / "gateware" / f"{soc.platform.name}.bit"
        load_bitstream(soc.platform, bitstream, programmer)
        return
    board = generate(make_soc, build_dir, builder_kwargs, build_kwargs)
    extra = [(name, display_path(write(str(build_dir)))) for name, write in (extra_files or {}).items()]
    print(f"[board] generated in {display_path(build_dir)} (log: {display_path(board.log)}):\n"
          + generated_files(board, extra), flush=True)
    if report:
        soc_report.run(board)
    if build:
        bitstream = make_bitstream(board)
        print(f"[board] bitstream: {display_path(bitstream)}")
    if load:
        load_bitstream(board.platform, board.bitstream, programmer)
