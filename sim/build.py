"""Builds what is stale: the SoC's Verilog (LiteX), the Verilator model, the firmware, the ROM image.

The Verilator model is rebuilt only when its inputs (Verilog, the C++ harness, the simulation
config) change; the ROM is loaded from its `.init` file when the model starts, so a firmware-only
change costs a firmware build and no Verilator run.
"""

import contextlib
import hashlib
import logging
import os
import re
import shutil
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

from soc import config
from soc import firmware
from gateware.interface import PeripheralConfig

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BUILD_DIR = ROOT / "build" / "sim"


@dataclass
class SimBuild:
    build_dir: Path
    gateware_dir: Path
    firmware_bin: Path
    model: Path
    model_rebuilt: bool
    soc_info: dict


def require_tools():
    # LiteX's software build calls `meson` and `ninja`, which live next to this interpreter.
    bin_dir = str(Path(sys.executable).parent)
    if bin_dir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
    missing = [tool for tool, pkg in (("verilator", "verilator"),
                                      ("riscv64-unknown-elf-gcc", "gcc-riscv64-unknown-elf"))
               if shutil.which(tool) is None]
    if missing:
        pkgs = {"verilator": "verilator", "riscv64-unknown-elf-gcc": "gcc-riscv64-unknown-elf"}
        raise SystemExit(f"error: {', '.join(missing)} not found: install with "
                         f"`apt-get install {' '.join(pkgs[m] for m in missing)} libevent-dev libjson-c-dev zlib1g-dev` "
                         "(or run `make bench`, which installs everything).")


def _model_inputs_hash(gateware_dir):
    digest = hashlib.sha256()
    for path in sorted(gateware_dir.iterdir()):
        if path.is_file() and path.suffix not in (".init", ".sh") and not path.name.startswith("."):
            digest.update(path.name.encode())
            # LiteX stamps the date and a git revision into comment lines: not inputs of the model.
            digest.update(_COMMENT_LINE.sub(b"", path.read_bytes()))
    return digest.hexdigest()


_COMMENT_LINE = re.compile(rb"^\s*//.*$", re.M)


def generate_soc(build_dir, cpu_variant, with_montmul, montmul_config, quiet=True):
    """Elaborates the SoC for the simulated board and writes Verilog, headers and the sim harness."""
    from litex.build.sim.config import SimConfig
    from litex.soc.integration.builder import Builder

    from boards import sim as sim_board
    from soc.soc import RSABenchSoC

    # LiteX reads some of its files without closing them: not our warning to raise.
    with _output_to(build_dir / "generate.log"), warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        platform = sim_board.Platform()
        soc = RSABenchSoC(platform, cpu_variant=cpu_variant, uart_name="sim",
                          with_montmul=with_montmul, montmul_config=montmul_config)
        soc.crg = sim_board.CRG(platform)
        sim_config = SimConfig()
        sim_config.add_clocker("sys_clk", freq_hz=config.SYS_CLK_FREQ)
        sim_config.add_module("serial2console", "serial")
        builder = Builder(soc, output_dir=str(build_dir), compile_software=True, compile_gateware=False)
        builder.build(sim_config=sim_config, build=True, run=False, opt_level="O3", interactive=False)
    return soc, builder


@contextlib.contextmanager
def _output_to(log_file):
    """Sends this process's stdout/stderr (and its children's) to `log_file` for the duration."""
    log_file.parent.mkdir(parents=True, exist_ok=True)
    sys.stdout.flush(); sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(log_file, "w") as log:
        os.dup2(log.fileno(), 1); os.dup2(log.fileno(), 2)
        try:
            yield
        except BaseException:
            sys.stdout.flush(); sys.stderr.flush()
            os.dup2(saved[0], 1); os.dup2(saved[1], 2)
            sys.stderr.write(f"error: SoC generation failed, see {log_file}\n")
            raise
        finally:
            sys.stdout.flush(); sys.stderr.flush()
            os.dup2(saved[0], 1); os.dup2(saved[1], 2)
            os.close(saved[0]); os.close(saved[1])
            logging.getLogger().setLevel(logging.WARNING)   # LiteX leaves the root logger at INFO


def _sources_hash(*parts):
    """What the generated SoC depends on: our Python sources and the build options."""
    digest = hashlib.sha256(repr(parts).encode())
    for folder in ("soc", "boards", "gateware"):
        for path in sorted((ROOT / folder).glob("*.py")):
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    digest.update((ROOT / "sim" / "build.py").read_bytes())
    return digest.hexdigest()


def build(build_dir=DEFAULT_BUILD_DIR, cpu_variant=config.CPU_VARIANT, with_montmul=True,
          montmul_config=None, log=print):
    require_tools()
    build_dir = Path(build_dir).resolve()
    gateware_dir = build_dir / "gateware"
    sources_stamp = build_dir / ".soc_sources"
    sources_hash = _sources_hash(cpu_variant, bool(with_montmul), repr(montmul_config))
    if (sources_stamp.exists() and sources_stamp.read_text() == sources_hash
            and (gateware_dir / "sim.v").exists()):
        log("[sim] SoC sources unchanged: reusing the generated SoC")
    else:
        log(f"[sim] generating the SoC ({config.CPU_TYPE} {cpu_variant}) in {build_dir}")
        generate_soc(build_dir, cpu_variant, bool(with_montmul), montmul_config)
        sources_stamp.write_text(sources_hash)

    model = gateware_dir / "obj_dir" / "Vsim"
    stamp = gateware_dir / ".model_inputs"
    inputs_hash = _model_inputs_hash(gateware_dir)
    rebuilt = False
    if not model.exists() or not stamp.exists() or stamp.read_text() != inputs_hash:
        log("[sim] compiling the Verilator model (a few minutes the first time)")
        script = gateware_dir / "build_sim.sh"
        env = dict(os.environ, MAKEFLAGS=f"-j{os.cpu_count() or 2}")
        result = subprocess.run(["bash", script.name], cwd=gateware_dir, capture_output=True, text=True, env=env)
        if result.returncode != 0 or not model.exists():
            sys.stderr.write(result.stdout[-6000:] + result.stderr[-6000:])
            raise SystemExit("error: the Verilator build failed (output above)")
        stamp.write_text(inputs_hash)
        rebuilt = True
    else:
        log("[sim] Verilator model is up to date")

    log("[sim] building the firmware")
    firmware_bin = firmware.build(build_dir, max_bits=(montmul_config or PeripheralConfig()).max_bits, extra_headers=firmware.soc_headers(montmul_config, keys_cache=build_dir.parent / "keys"))
    rom_inits = list(gateware_dir.glob("*_rom.init"))
    if len(rom_inits) != 1:
        raise SystemExit(f"error: expected one ROM init file in {gateware_dir}, found {rom_inits}")
    firmware.write_rom_init(firmware_bin, rom_inits[0])

    info = {"cpu": config.CPU_TYPE, "variant": cpu_variant, "sys_clk_hz": config.SYS_CLK_FREQ}
    return SimBuild(build_dir, gateware_dir, firmware_bin, model, rebuilt, info)
