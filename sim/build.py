"""Builds what is stale: the SoC's Verilog (LiteX, with its BIOS in ROM), the Verilator model, the
firmware, the main-RAM image; and, for the rows that never touch the peripheral, the same SoC without
it (`build_bare`), which runs the same firmware image about three times as fast.

The Verilator model is built by us, not by LiteX's simulation Makefile: our own main loop
(sim/harness/main.cpp: the clock and the UART on stdin/stdout, with the semantics of LiteX's
serial2console) and our options (MODEL_OPTIONS: no tracing compiled in unless a trace is asked for, X
values resolved once, optimised C++). It is rebuilt only when its inputs (the Verilog, the harness,
the options) change; main RAM is loaded from its `.init` file when the model starts, so a
firmware-only change costs a firmware build and no Verilator run.
"""

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from common import cache, tools
from common.errors import ProjectError
from common.output import output_to
from common.paths import BUILD_DIR, ROOT, display_path
from gateware.interface import PeripheralConfig
from link.transport import SimEntropy
from soc import config
from soc import firmware

DEFAULT_BUILD_DIR = BUILD_DIR / "sim"
#: Packages whose Python code elaborates the SoC: a change in any of them regenerates it.
SOC_PACKAGES = ("gateware", "eda", "soc", "boards", "common")
#: Our main loop for the Verilator model (replaces LiteX's sim.c, clocker and serial2console).
HARNESS = ROOT / "sim" / "harness" / "main.cpp"
#: The fault-injection model's additions (sim/fault_model.py): the hook the harness includes with SIM_FAULTS,
#: and the Verilator configuration file, written next to the Verilog, that makes the peripheral's
#: registers and memories public in that model only.
FAULT_HOOK = ROOT / "sim" / "harness" / "fault_hook.h"
FAULTS_CONFIG = "faults.vlt"
#: Verilator's options for the model (docs/simulation.md, "What makes it fast", has what they give).
MODEL_OPTIONS = ("-O3", "--x-assign", "fast", "--x-initial", "fast", "--unroll-count", "256",
                 "--output-split", "5000", "--output-split-cfuncs", "500",
                 "-Wno-fatal", "-Wno-BLKANDNBLK", "-Wno-WIDTH", "-Wno-COMBDLY", "-Wno-CASEINCOMPLETE")
#: The C++ optimisation of the model's code (Verilator's own default is -Os everywhere).
MODEL_CXX = ("OPT_FAST=-O3", "OPT_SLOW=-O1", "OPT_GLOBAL=-O2")
#: The model's Verilog files as LiteX listed them (the CPU's own files live in its Python package).
SOURCES_FILE = "verilog_sources.json"
#: The SoC's CSR locations (name -> index), so that the SoC without the peripheral keeps the same map.
CSR_LOCATIONS_FILE = "csr_locations.json"


@dataclass
class SimBuild:
    build_dir: Path
    gateware_dir: Path
    firmware_bin: Path
    model: Path
    model_rebuilt: bool
    soc_info: dict
    #: Wall-clock seconds of each step this call ran ("generate", "verilator", "firmware").
    seconds: dict = field(default_factory=dict)
    #: False for the SoC without the peripheral (build_bare).
    peripheral: bool = True
    #: The raw bits its entropy source gets (the harness's seed and mode); soc_info names the seed.
    entropy: SimEntropy = SimEntropy()

    def with_entropy(self, entropy):
        """This build, its simulations run with `entropy` (a SimEntropy) and its reports saying so."""
        return dataclasses.replace(self, entropy=entropy, soc_info={**self.soc_info, **entropy_info(entropy)})


def entropy_info(entropy):
    """What a report records of the simulated entropy source: its seed (and a mode other than ok)."""
    return {"entropy_seed": entropy.seed, **({"entropy_mode": entropy.mode} if entropy.mode != "ok" else {})}


def peripheral_info(montmul_config=None):
    """The peripheral's configuration as the reports record it (the build's own, not a default)."""
    from gateware.interface import NUM_SLOTS
    cfg = montmul_config or PeripheralConfig()
    return {"max_bits": cfg.max_bits, "lanes": cfg.lanes, "word_bits": cfg.word_bits, "slots": NUM_SLOTS}


def require_tools():
    tools.venv_tools_on_path()
    tools.require({"riscv64-unknown-elf-gcc": "gcc-riscv64-unknown-elf"})
    tools.verilator()


def _model_sources(gateware_dir):
    return [Path(p) for p in json.loads((Path(gateware_dir) / SOURCES_FILE).read_text())]


def _model_inputs(gateware_dir, trace=False, faults=False):
    """The digest of what the Verilator model is built from: its Verilog files, the harness and the
    options. Not the memories' `.init` files (read when the model starts), nor anything a running
    simulation writes (`sim.vcd`): another simulation running must never make the model look stale
    and have it rebuilt under it."""
    sources = _model_sources(gateware_dir)
    extra = [FAULT_HOOK] if faults else []
    return cache.digest(tools.verilator_version(), MODEL_OPTIONS, MODEL_CXX, bool(trace), [p.name for p in sources],
                        *([_faults_config(gateware_dir)] if faults else []), files=[*sources, HARNESS, *extra],
                        ignore=cache.LINE_COMMENTS)


def _faults_config(gateware_dir):
    """The fault model's Verilator configuration (sim/fault_model.py, from the Verilog of the peripheral and
    of the other units whose state is a fault site)."""
    from sim import fault_model
    gateware_dir = Path(gateware_dir)
    units = [((gateware_dir / f"{top}.v").read_text(), top)
             for top in fault_model.UNIT_TOPS]
    return fault_model.verilator_config((gateware_dir / "montmul.v").read_text(), units=units)


def model_path(gateware_dir, trace=False, faults=False):
    """The model's binary: obj_dir/Vsim, or the traced one's, or the fault-injection one's (faults)."""
    return Path(gateware_dir) / ("obj_dir_faults" if faults else "obj_dir_trace" if trace else "obj_dir") / "Vsim"


#: Verilator's run-time library as each model's makefile lists it (VM_GLOBAL_FAST, VM_GLOBAL_SLOW).
_GLOBAL_CLASSES = re.compile(r"^VM_GLOBAL_(?:FAST|SLOW) \+= \\\n((?:[ \t]+\S+ \\\n)*)", re.M)
#: Where the run-time library's objects are kept, one directory per way of compiling them.
RUNTIME_CACHE = BUILD_DIR / "verilator"


@contextmanager
def _runtime_objects(obj_dir, dry_run):
    """Verilator's run-time library (verilated.cpp and friends: ~5 CPU-seconds of every model's
    compile) is the same for every model compiled the same way: its objects are compiled by the first
    model that needs them, kept in build/verilator/runtime-<key> and copied into the others' obj_dir
    before their make, which then takes them as made. The key is the compile command make would run
    for them (`dry_run(targets)`, make's -n: compiler, flags, defines, Verilator's include directory),
    with the model's own directory left out; their dependencies are Verilator's and the system's
    headers only."""
    names = [f"{name}.o" for block in _GLOBAL_CLASSES.findall((obj_dir / "Vsim_classes.mk").read_text())
             for name in block.replace("\\", " ").split()]
    if not names:
        yield
        return
    key = (tools.verilator_version(), dry_run(names).replace(str(obj_dir), "<obj_dir>"))
    cached = RUNTIME_CACHE / f"runtime-{cache.digest(key)[:16]}"
    done = cached / "done"
    if done.exists():
        for name in names:
            shutil.copyfile(cached / name, obj_dir / name)      # a fresh time: newer than its source
    yield
    if not done.exists():
        partial = cached.with_name(f"{cached.name}.{os.getpid()}.tmp")
        partial.mkdir(parents=True, exist_ok=True)
        for name in names:
            shutil.copyfile(obj_dir / name, partial / name)
        (partial / "done").touch()
        try:
            partial.rename(cached)          # whole or not at all, whoever finishes first
        except OSError:
            shutil.rmtree(partial, ignore_errors=True)


def compile_model(gateware_dir, trace=False, jobs=None, faults=False):
    """Verilates the SoC's Verilog with our harness and compiles it (MODEL_OPTIONS, MODEL_CXX). With
    `trace`, a separate model that writes every signal to sim.vcd (much slower: only when asked). With
    `faults`, a separate model whose peripheral registers and memories are public to the harness's fault
    hook (FAULTS_CONFIG, FAULT_HOOK): the same Verilog, so the same netlist, and slower."""
    model = model_path(gateware_dir, trace, faults)
    obj_dir = model.parent
    shutil.rmtree(obj_dir, ignore_errors=True)
    jobs = jobs or int(os.environ.get("SIM_BUILD_JOBS", 0)) or os.cpu_count() or 2
    verilator, verilator_env = tools.verilator()
    verilate = [verilator, "--cc", *map(str, _model_sources(gateware_dir)), "--top-module", "sim",
                "--exe", str(HARNESS), "--Mdir", str(obj_dir), "-o", "Vsim", *MODEL_OPTIONS]
    if trace:
        verilate += ["--trace", "-CFLAGS", "-DSIM_TRACE"]
    if faults:
        vlt = Path(gateware_dir) / FAULTS_CONFIG
        vlt.write_text(_faults_config(gateware_dir))
        verilate += [str(vlt), "-CFLAGS", "-DSIM_FAULTS", "-CFLAGS", f"-I{FAULT_HOOK.parent}"]
    make = ["make", "-C", str(obj_dir), "-f", "Vsim.mk"]
    variables = [*MODEL_CXX, *tools.VERILATOR_MAKE_VARIABLES]
    # Our -j, not a parent make's jobserver (pytest under `make test`).
    env = {key: value for key, value in verilator_env.items() if key not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}

    def run(command):
        result = subprocess.run(command, cwd=gateware_dir, capture_output=True, text=True, env=env)
        if result.returncode != 0:
            sys.stderr.write(result.stdout[-6000:] + result.stderr[-6000:])
            raise ProjectError(f"the Verilator build failed ({command[0]}; output above)")
        return result.stdout

    run(verilate)
    with _runtime_objects(obj_dir, lambda targets: run([*make, "-n", *targets, *variables])):
        run([*make, f"-j{jobs}", "Vsim", *variables])
    if not model.exists():
        raise ProjectError(f"the Verilator build made no {display_path(model)}")
    return model


def generate_soc(build_dir, cpu_type, cpu_variant, with_montmul, montmul_config, reserved_csrs=None):
    """Elaborates the SoC for the simulated board and writes Verilog, headers, the BIOS, the list of
    the model's Verilog files and the CSR map. `reserved_csrs` ({name: location}): CSR locations kept
    free (the peripheral's, in the SoC without it). The peripheral's clock stops while it is idle
    (soc/montmul.py: the same counts, a faster simulation)."""
    from litex.build.sim.config import SimConfig
    from soc.software import Builder

    from boards import sim as sim_board
    from soc import entropy
    from soc.soc import RSABenchSoC

    # LiteX reads some of its files without closing them: not our warning to raise.
    log_file = build_dir / "generate.log"
    try:
        with output_to(log_file), warnings.catch_warnings():
            warnings.simplefilter("ignore", ResourceWarning)
            platform = sim_board.Platform()
            soc = RSABenchSoC(platform, cpu_type=cpu_type, cpu_variant=cpu_variant, uart_name="sim",
                              with_montmul=with_montmul, montmul_config=montmul_config,
                              reserved_csrs=reserved_csrs, idle_clock_gate=True,
                              entropy_noise=entropy.SIMULATED)
            soc.crg = sim_board.CRG(platform)
            # The BIOS's CRC of its own ROM is half of a simulated boot (0.16 of 0.34 s of wall time on
            # the default SoC, 2.7 of 4.3 s on SERV), and the model loads the ROM from the `.init` file
            # this build wrote: nothing to check. Board builds keep the check.
            soc.add_config("BIOS_NO_CRC")
            sim_config = SimConfig()
            sim_config.add_clocker("sys_clk", freq_hz=config.SYS_CLK_FREQ)
            sim_config.add_module("serial2console", "serial")
            builder = Builder(soc, output_dir=str(build_dir), compile_software=True, compile_gateware=False)
            builder.build(sim_config=sim_config, build=True, run=False, opt_level="O3", interactive=False)
    except (Exception, SystemExit) as error:        # LiteX exits on some errors
        raise ProjectError(f"SoC generation failed ({type(error).__name__}: {error}); "
                           f"see {display_path(log_file)}") from None
    gateware_dir = build_dir / "gateware"
    sources = [str((gateware_dir / name).resolve()) for name, *_ in soc.platform.sources
               if Path(name).suffix in (".v", ".sv")]
    (gateware_dir / SOURCES_FILE).write_text(json.dumps(sources, indent=1) + "\n")
    (gateware_dir / CSR_LOCATIONS_FILE).write_text(json.dumps(dict(soc.csr.locs), indent=1) + "\n")
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


def cpu_build_dir(cpu_type, cpu_variant, montmul_config=None):
    """build/sim for the default CPU, build/sim-<type>-<variant> for the others (models coexist);
    a peripheral configuration other than the default adds -w<word bits>-l<lanes>[-b<max bits>]."""
    if (cpu_type, cpu_variant) == (config.CPU_TYPE, config.CPU_VARIANT):
        path = DEFAULT_BUILD_DIR
    else:
        path = BUILD_DIR / f"sim-{cpu_type}-{cpu_variant}"
    default = PeripheralConfig()
    if montmul_config is not None and montmul_config != default:
        suffix = f"-w{montmul_config.word_bits}-l{montmul_config.lanes}"
        if montmul_config.max_bits != default.max_bits:
            suffix += f"-b{montmul_config.max_bits}"
        path = path.parent / (path.name + suffix)
    return path


def build(build_dir=None, cpu_variant=config.CPU_VARIANT, with_montmul=True,
          montmul_config=None, log=print, cpu_type=config.CPU_TYPE, firmware_cflags="", trace=False,
          firmware_peers=None, faults=False):
    """The SoC (with the peripheral unless `with_montmul` is false), its model and the firmware;
    `trace`: the model that writes sim.vcd; `faults`: the fault-injection model (sim/fault_model.py);
    `firmware_peers`: soc.firmware.build's `peers` (None: the peer libraries, fetched when missing)."""
    require_tools()
    from soc import cpus
    cpus.require_sources(cpus.parse(f"{cpu_type}:{cpu_variant}"))
    build_dir = Path(build_dir or cpu_build_dir(cpu_type, cpu_variant, montmul_config)).resolve()
    # One builder at a time per directory (pytest-xdist workers, the CPUs of `python -m sim cpus`).
    with cache.locked(build_dir.parent / f".{build_dir.name}.lock"):
        return _build(build_dir, cpu_type, cpu_variant, with_montmul, montmul_config, log, firmware_cflags, trace,
                      firmware_peers, faults)


def _timed(seconds, step, run):
    started = time.monotonic()
    try:
        return run()
    finally:
        seconds[step] = seconds.get(step, 0.0) + time.monotonic() - started


def _generated_soc(build_dir, options, generate, log, what):
    """Generates the SoC into `build_dir` unless its inputs (`options`, our Python code) are unchanged."""
    gateware_dir = build_dir / "gateware"
    soc_stamp = cache.Stamp(build_dir / ".soc_sources")
    soc_inputs = _soc_inputs(*options)
    if soc_stamp.matches(soc_inputs) and (gateware_dir / SOURCES_FILE).exists():
        log(f"[sim] {what}: SoC sources unchanged, reusing the generated SoC")
        return
    log(f"[sim] {what}: generating the SoC in {display_path(build_dir)}")
    generate()
    soc_stamp.write(soc_inputs)


def _compiled_model(gateware_dir, trace, log, what, faults=False):
    """Compiles the model unless its inputs are unchanged; True when it did."""
    model = model_path(gateware_dir, trace, faults)
    stamp = cache.Stamp(gateware_dir / f".{model.parent.name}_inputs")
    inputs = _model_inputs(gateware_dir, trace, faults)
    if model.exists() and stamp.matches(inputs):
        log(f"[sim] {what}: Verilator model is up to date")
        return False
    kind = " with tracing" if trace else " with the fault hook" if faults else ""
    log(f"[sim] {what}: compiling the Verilator model{kind} (a minute or two)")
    compile_model(gateware_dir, trace, faults=faults)
    stamp.write(inputs)
    return True


def _build(build_dir, cpu_type, cpu_variant, with_montmul, montmul_config, log, firmware_cflags, trace,
           firmware_peers=None, faults=False):
    gateware_dir = build_dir / "gateware"
    seconds = {}
    what = f"{cpu_type} {cpu_variant}"
    _timed(seconds, "generate", lambda: _generated_soc(
        build_dir, (cpu_type, cpu_variant, bool(with_montmul), repr(montmul_config)),
        lambda: generate_soc(build_dir, cpu_type, cpu_variant, bool(with_montmul), montmul_config), log, what))
    rebuilt = _timed(seconds, "verilator", lambda: _compiled_model(gateware_dir, trace, log, what, faults))

    log("[sim] building the firmware")
    started = time.monotonic()
    firmware_bin = firmware.build(build_dir, max_bits=(montmul_config or PeripheralConfig()).max_bits,
                                  extra_headers=firmware.soc_headers(montmul_config), cflags=firmware_cflags,
                                  peers=firmware_peers)
    firmware.write_init(firmware_bin, main_ram_init(gateware_dir), config.MAIN_RAM_SIZE)
    seconds["firmware"] = time.monotonic() - started

    info = {"cpu": cpu_type, "variant": cpu_variant, "sys_clk_hz": config.SYS_CLK_FREQ,
            "peripheral": peripheral_info(montmul_config), **entropy_info(SimEntropy())}
    return SimBuild(build_dir, gateware_dir, firmware_bin, model_path(gateware_dir, trace, faults), rebuilt, info,
                    seconds, peripheral=bool(with_montmul))


#: `#define CSR_<NAME>_ADDR (CSR_BASE + 0x...L)` in LiteX's csr.h.
_CSR_ADDRESS = re.compile(r"^#define (CSR_\w+_ADDR) \((\w+) \+ (\w+)\)", re.M)


def csr_addresses(build_dir):
    """Every CSR register's address in a generated SoC but the peripheral's."""
    text = (Path(build_dir) / "software" / "include" / "generated" / "csr.h").read_text()
    return {name: (base, offset) for name, base, offset in _CSR_ADDRESS.findall(text)
            if not name.startswith("CSR_MONTMUL_")}


def bare_build_dir(main):
    return main.build_dir.parent / f"{main.build_dir.name}-bare"


def build_bare(main, log=print, trace=False):
    """`main`'s SoC (a SimBuild with the peripheral) without the peripheral, running main's firmware
    image: for the rows that never touch the peripheral (software, the peer libraries), which it runs
    about three times as fast. Its CSR map is main's, the peripheral's locations left free (checked
    register by register), so the same image runs at the same addresses; tests/jobs/test_bench_split.py
    checks that its counts are main's, cycle for cycle."""
    bare_dir = bare_build_dir(main)
    with cache.locked(bare_dir.parent / f".{bare_dir.name}.lock"):
        cpu_type, cpu_variant = main.soc_info["cpu"], main.soc_info["variant"]
        locations = json.loads((main.gateware_dir / CSR_LOCATIONS_FILE).read_text())
        reserved = {name: loc for name, loc in locations.items() if name.startswith("montmul")}
        gateware_dir = bare_dir / "gateware"
        seconds = {}
        what = f"{cpu_type} {cpu_variant} without the peripheral"
        _timed(seconds, "generate", lambda: _generated_soc(
            bare_dir, (cpu_type, cpu_variant, "without the peripheral", sorted(reserved.items())),
            lambda: generate_soc(bare_dir, cpu_type, cpu_variant, False, None, reserved_csrs=reserved), log, what))
        if csr_addresses(bare_dir) != csr_addresses(main.build_dir):
            raise ProjectError(f"the SoC without the peripheral has another CSR map than {display_path(main.build_dir)}'s: "
                               "the same firmware image cannot run on both")
        rebuilt = _timed(seconds, "verilator", lambda: _compiled_model(gateware_dir, trace, log, what))
        # Rewritten only when it changed, and whole: another simulation of this SoC may be starting.
        firmware.write_init(main.firmware_bin, main_ram_init(gateware_dir), config.MAIN_RAM_SIZE)
        return SimBuild(bare_dir, gateware_dir, main.firmware_bin, model_path(gateware_dir, trace), rebuilt,
                        {**main.soc_info, "peripheral": False}, seconds, peripheral=False, entropy=main.entropy)
