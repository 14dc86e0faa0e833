"""Builds the benchmark SoC for an FPGA board: gateware, firmware in ROM, bitstream, loading.

The firmware runs from the integrated ROM, so it is built between two SoC passes:

1. the SoC is elaborated with an empty ROM and LiteX generates its headers and libraries
   (`Builder(compile_software=True, compile_gateware=False)`);
2. `soc.firmware.build()` compiles the firmware against them;
3. a fresh SoC with `rom_init=soc.firmware.rom_words(firmware.bin)` is generated: its Verilog,
   ROM image, constraints and toolchain script carry the firmware.

Only then is the toolchain needed. When it is missing, everything above is still on disk and the
command exits non-zero with a short message naming the tool and the generated files.

Boards call `main(make_soc, ...)` with a factory `make_soc(rom_init=None) -> SoC`
(see `boards/pynq_z2.py`).
"""

import contextlib
import os
import shutil
import subprocess
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

from soc import firmware

ROOT = Path(__file__).resolve().parent.parent


class BoardError(Exception):
    """A failure with a message for the user (no traceback)."""


@dataclass
class BoardBuild:
    build_dir: Path
    soc: object             # the final SoC, firmware in ROM
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
    def rom_init(self):
        return self.gateware_file("_rom.init")

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


def _tools_on_path():
    # LiteX's software build calls `meson` and `ninja`, installed next to this interpreter.
    bin_dir = str(Path(sys.executable).parent)
    if bin_dir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")


@contextlib.contextmanager
def _output_to(log_file, mode="a"):
    """Sends this process's stdout/stderr (and its children's) to `log_file`; an exception's
    traceback goes there too."""
    sys.stdout.flush(); sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(log_file, mode) as log:
        os.dup2(log.fileno(), 1); os.dup2(log.fileno(), 2)
        try:
            with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
                try:
                    yield
                except Exception:
                    traceback.print_exc(file=log)
                    raise
        finally:
            sys.stdout.flush(); sys.stderr.flush()
            os.dup2(saved[0], 1); os.dup2(saved[1], 2)
            os.close(saved[0]); os.close(saved[1])


def _generate_pass(make_soc, build_dir, rom_init, compile_software, builder_kwargs, build_kwargs):
    from litex.soc.integration.builder import Builder
    soc = make_soc(rom_init=rom_init)
    builder = Builder(soc, output_dir=str(build_dir), compile_software=compile_software,
                      compile_gateware=False, **builder_kwargs)
    builder.build(run=False, **build_kwargs)
    return soc


def generate(make_soc, build_dir, builder_kwargs=None, build_kwargs=None, log=print):
    """Generates the SoC twice around the firmware build (see the module docstring).
    Returns a BoardBuild; raises BoardError on failure."""
    _tools_on_path()
    build_dir = Path(build_dir).resolve()
    build_dir.mkdir(parents=True, exist_ok=True)
    log_file = build_dir / "generate.log"
    log_file.write_text("")
    builder_kwargs, build_kwargs = dict(builder_kwargs or {}), dict(build_kwargs or {})

    def step(what, function, *args):
        try:
            with _output_to(log_file):
                return function(*args)
        except SystemExit as error:      # soc.firmware reports its failures this way, LiteX too
            if error.code is None or isinstance(error.code, int):
                raise BoardError(f"{what} failed (exit {error.code}); see {display_path(log_file)}") from None
            message = str(error).removeprefix("error: ")
            raise BoardError(message if "fail" in message else f"{what} failed: {message}") from None
        except Exception as error:
            raise BoardError(f"{what} failed ({type(error).__name__}: {error}); "
                             f"see {display_path(log_file)}") from None

    log(f"[board] generating the SoC headers and libraries in {display_path(build_dir)}")
    soc = step("SoC generation", _generate_pass, make_soc, build_dir, None, True, builder_kwargs, build_kwargs)
    log("[board] building the firmware")
    config = soc.montmul.config
    # The benchmark keys are seeded (the same everywhere): one cache for every build, as sim's.
    firmware_bin = step("firmware build", lambda: firmware.build(
        build_dir, max_bits=config.max_bits,
        extra_headers=firmware.soc_headers(config, keys_cache=ROOT / "build" / "keys")))
    log("[board] generating the gateware with the firmware in ROM")
    rom = step("ROM image", firmware.rom_words, firmware_bin)
    soc = step("SoC generation", _generate_pass, make_soc, build_dir, rom, False, builder_kwargs, build_kwargs)
    return BoardBuild(build_dir=build_dir, soc=soc, firmware_bin=Path(firmware_bin), log=log_file)


def display_path(path):
    """A path relative to the working directory when it is below it."""
    path = Path(path)
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def generated_files(board, extra=()):
    rows = [
        ("Verilog", ", ".join(display_path(p) for p in board.sources() if p.parent == board.gateware_dir)),
        ("constraints", display_path(board.constraints)),
        ("build script", f"{display_path(board.script)} ({board.platform.toolchain_name})"),
        ("firmware", f"{display_path(board.firmware_bin)} (in the ROM image {display_path(board.rom_init)})"),
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


def main(make_soc, build_dir, builder_kwargs=None, build_kwargs=None, build=False, load=False,
         report=False, programmer="auto", extra_files=None):
    """The command behind `python -m soc --board NAME`: generate (always, unless only loading),
    then the report, the bitstream and loading as asked. Returns the exit status."""
    build_dir = Path(build_dir).resolve()
    try:
        if load and not (build or report):
            soc = make_soc()
            bitstream = build_dir / "gateware" / f"{soc.platform.name}.bit"
            load_bitstream(soc.platform, bitstream, programmer)
            return 0
        board = generate(make_soc, build_dir, builder_kwargs, build_kwargs)
        extra = [(name, display_path(write(str(build_dir)))) for name, write in (extra_files or {}).items()]
        print(f"[board] generated in {display_path(build_dir)} (log: {display_path(board.log)}):\n"
              + generated_files(board, extra), flush=True)
        if report:
            from soc import soc_report
            soc_report.run(board)
        if build:
            bitstream = make_bitstream(board)
            print(f"[board] bitstream: {display_path(bitstream)}")
        if load:
            load_bitstream(board.platform, board.bitstream, programmer)
    except BoardError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return 0
