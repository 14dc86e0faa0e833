"""Builds what is stale: the SoC's Verilog (LiteX, with its BIOS in ROM), the Verilator model, the
firmware, the main-RAM image.

The Verilator model is rebuilt only when its inputs (Verilog, the C++ harness, the simulation
config) change; main RAM is loaded from its `.init` file when the model starts, so a firmware-only
change costs a firmware build and no Verilator run.
"""

import os
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

from common import cache, tools
from common.errors import ProjectError
from common.output import output_to
from common.paths import BUILD_DIR, ROOT, display_path
from gateware.interface import PeripheralConfig
from soc import config
from soc import firmware

DEFAULT_BUILD_DIR = BUILD_DIR / "sim"
#: Packages whose Python code elaborates the SoC: a change in any of them regenerates it.
SOC_PACKAGES = ("gateware", "eda", "soc", "boards", "common")


@dataclass
class SimBuild:
    build_dir: Path
    gateware_dir: Path
    firmware_bin: Path
    model: Path
    model_rebuilt: bool
    soc_info: dict


def require_tools():
    tools.venv_tools_on_path()
    tools.require({"verilator": "verilator", "riscv64-unknown-elf-gcc": "gcc-riscv64-unknown-elf"},
                  also_install=("libevent-dev", "libjson-c-dev", "zlib1g-dev"))


#: The kinds of file in the generated directory the Verilator model is built from: the Verilog, the C++
#: harness, the simulation config and make variables. Not the memories' `.init` files (read when the
#: model starts), the build script, nor what a running simulation writes there (`sim.vcd`): another
#: simulation running must never make the model look stale and be rebuilt under it.
MODEL_INPUT_SUFFIXES = (".v", ".sv", ".cpp", ".h", ".js", ".mak")


def _model_inputs(gateware_dir):
    """The digest of what the Verilator model is built from (MODEL_INPUT_SUFFIXES)."""
    files = [path for path in sorted(gateware_dir.iterdir())
             if path.is_file() and path.suffix in MODEL_INPUT_SUFFIXES and not path.name.startswith(".")]
    return cache.digest(files=files, ignore=cache.LINE_COMMENTS)


def generate_soc(build_dir, cpu_type, cpu_variant, with_montmul, montmul_config):
    """Elaborates the SoC for the simulated board and writes Verilog, headers and the sim harness."""
    from litex.build.sim.config import SimConfig
    from litex.soc.integration.builder import Builder

    from boards import sim as sim_board
    from soc.soc import RSABenchSoC

    # LiteX reads some of its files without closing them: not our warning to raise.
    log_file = build_dir / "generate.log"
    try:
        with output_to(log_file), warnings.catch_warnings():
            warnings.simplefilter("ignore", ResourceWarning)
            platform = sim_board.Platform()
            soc = RSABenchSoC(platform, cpu_type=cpu_type, cpu_variant=cpu_variant, uart_name="sim",
                              with_montmul=with_montmul, montmul_config=montmul_config)
            soc.crg = sim_board.CRG(platform)
            sim_config = SimConfig()
            sim_config.add_clocker("sys_clk", freq_hz=config.SYS_CLK_FREQ)
            sim_config.add_module("serial2console", "serial")
            builder = Builder(soc, output_dir=str(build_dir), compile_software=True, compile_gateware=False)
            builder.build(sim_config=sim_config, build=True, run=False, opt_level="O3", interactive=False)
    except (Exception, SystemExit) as error:        # LiteX exits on some errors
        raise ProjectError(f"SoC generation failed ({type(error).__name__}: {error}); "
                           f"see {display_path(log_file)}") from None
    return soc, builder


def main_ram_init(gateware_dir):
    """The `.init` file the simulation preloads main RAM from (the firmware)."""
    inits = list(Path(gateware_dir).glob("*_main_ram.init"))
    if len(inits) != 1:
        raise ProjectError(f"expected one main-RAM init file in {gateware_dir}, found {inits}")
    return inits[0]


def _soc_inputs(*options):
    """What the generated SoC depends on: the build options and the Python code that elaborates it."""
    return cache.digest(*options, files=[*cache.python_sources(*SOC_PACKAGES), ROOT / "sim" / "build.py"])


def cpu_build_dir(cpu_type, cpu_variant):
    """build/sim for the default CPU, build/sim-<type>-<variant> for the others (models coexist)."""
    if (cpu_type, cpu_variant) == (config.CPU_TYPE, config.CPU_VARIANT):
        return DEFAULT_BUILD_DIR
    return BUILD_DIR / f"sim-{cpu_type}-{cpu_variant}"


def build(build_dir=None, cpu_variant=config.CPU_VARIANT, with_montmul=True,
          montmul_config=None, log=print, cpu_type=config.CPU_TYPE, firmware_cflags=""):
    require_tools()
    from soc import cpus
    cpus.require_sources(cpus.parse(f"{cpu_type}:{cpu_variant}"))
    build_dir = Path(build_dir or cpu_build_dir(cpu_type, cpu_variant)).resolve()
    # One builder at a time per directory (pytest-xdist workers, parallel `--cpus` jobs).
    with cache.locked(build_dir.parent / f".{build_dir.name}.lock"):
        return _build(build_dir, cpu_type, cpu_variant, with_montmul, montmul_config, log, firmware_cflags)


def _build(build_dir, cpu_type, cpu_variant, with_montmul, montmul_config, log, firmware_cflags):
    gateware_dir = build_dir / "gateware"
    soc_stamp = cache.Stamp(build_dir / ".soc_sources")
    soc_inputs = _soc_inputs(cpu_type, cpu_variant, bool(with_montmul), repr(montmul_config))
    if soc_stamp.matches(soc_inputs) and (gateware_dir / "sim.v").exists():
        log("[sim] SoC sources unchanged: reusing the generated SoC")
    else:
        log(f"[sim] generating the SoC ({cpu_type} {cpu_variant}) in {build_dir}")
        generate_soc(build_dir, cpu_type, cpu_variant, bool(with_montmul), montmul_config)
        soc_stamp.write(soc_inputs)

    model = gateware_dir / "obj_dir" / "Vsim"
    model_stamp = cache.Stamp(gateware_dir / ".model_inputs")
    model_inputs = _model_inputs(gateware_dir)
    rebuilt = False
    if not model.exists() or not model_stamp.matches(model_inputs):
        log("[sim] compiling the Verilator model (a few minutes the first time)")
        script = gateware_dir / "build_sim.sh"
        # MAKEFLAGS from the environment wins (e.g. -j1 while other simulations run).
        env = dict(os.environ)
        env.setdefault("MAKEFLAGS", f"-j{os.cpu_count() or 2}")
        result = subprocess.run(["bash", script.name], cwd=gateware_dir, capture_output=True, text=True, env=env)
        if result.returncode != 0 or not model.exists():
            sys.stderr.write(result.stdout[-6000:] + result.stderr[-6000:])
            raise ProjectError("the Verilator build failed (output above)")
        model_stamp.write(model_inputs)
        rebuilt = True
    else:
        log("[sim] Verilator model is up to date")

    log("[sim] building the firmware")
    firmware_bin = firmware.build(build_dir, max_bits=(montmul_config or PeripheralConfig()).max_bits,
                                  extra_headers=firmware.soc_headers(montmul_config), cflags=firmware_cflags)
    ram_init = main_ram_init(gateware_dir)
    firmware.write_init(firmware_bin, ram_init, config.MAIN_RAM_SIZE)

    info = {"cpu": cpu_type, "variant": cpu_variant, "sys_clk_hz": config.SYS_CLK_FREQ}
    return SimBuild(build_dir, gateware_dir, firmware_bin, model, rebuilt, info)
