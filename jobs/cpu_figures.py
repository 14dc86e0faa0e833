"""The PYNQ-Z2 SoC's Yosys figures for one CPU, without the Montgomery peripheral and with it.

The SoC without the peripheral is the board's (`boards/pynq_z2.py`: the same CRG, UART and LEDs),
synthesised whole for xc7z020 with the CPU's firmware in its ROM (so its block RAM count is real)
through soc/soc_report.py's cached Yosys run, and timed by our estimate (eda/timing).

With the peripheral = that SoC + the peripheral synthesised alone (`montmul.v`, the same for every
CPU, so synthesised once and cached): resources add up, the estimated Fmax is the lower of the two.
This leaves out the peripheral's CSR glue and does not let Yosys optimise across the boundary; whole-SoC
synthesis of one configuration (`python -m boards.pynq_z2 --report`) measures the difference
(README, "Across softcores"). It is used because a whole-SoC run with the 64-lane peripheral takes
over two minutes per CPU here, the sum one minute per CPU and the peripheral once.
"""

import shutil
from pathlib import Path

from common.output import output_to
from common.paths import BUILD_DIR
from soc import board_build, soc_report

#: The figures of each SoC in `cpus.json` (`socs` rows).
RESOURCES = soc_report.RESOURCES


def board_dir(cpu):
    return BUILD_DIR / f"pynq_z2-{cpu.slug}"


def _figures(verilog_files, top, cache_dir, **kwargs):
    result = soc_report.synthesize_cached(verilog_files, top, cache_dir, **kwargs)
    figures = soc_report.figures(result)
    out = {key: figures[key] for key in RESOURCES}
    out["fmax_mhz"] = figures["timing"]["fmax_mhz"]
    out["critical_path"] = f"{figures['timing']['start']} -> {figures['timing']['end']}"
    return out


def peripheral_figures(montmul_v):
    """The peripheral alone, from its Verilog copied apart from any `.init` file (the cache key
    includes the `.init` files next to the Verilog, which hold each CPU's firmware)."""
    inputs = BUILD_DIR / "synth_inputs" / "montmul"
    inputs.mkdir(parents=True, exist_ok=True)
    copy = inputs / "montmul.v"
    if not copy.exists() or copy.read_bytes() != Path(montmul_v).read_bytes():
        shutil.copyfile(montmul_v, copy)
    return _figures([copy], copy.stem, soc_report.CACHE_DIR)


def soc_figures(sim_build, cpu, build_dir=None, log=print):
    """[{cpu, montmul, lut, ff, dsp, bram36, fmax_mhz, ...}] for the SoC without the peripheral and
    with it. `sim_build`: the CPU's simulation build (sim/build.py), whose BIOS goes in the ROM
    and whose `montmul.v` is the peripheral. Raises ProjectError when a generation or synthesis fails."""
    from boards import pynq_z2
    from boards.pynq_z2 import BaseSoC

    build_dir = Path(build_dir or board_dir(cpu)).resolve()
    build_dir.mkdir(parents=True, exist_ok=True)
    # The board's memories: its BIOS in ROM (the simulation build's, the same CPU's) and its main RAM
    # size; the contents of main RAM do not change what it costs (a writable memory is kept whole).
    ram = [0] * (pynq_z2.MAIN_RAM_SIZE // 4)
    log(f"[{cpu}] generating the PYNQ-Z2 SoC without the peripheral")
    with output_to(build_dir / "generate.log"):
        soc = board_build._generate_pass(
            lambda main_ram_init=None: BaseSoC(cpu_type=cpu.type, cpu_variant=cpu.variant,
                                               main_ram_init=main_ram_init, with_montmul=False),
            build_dir, ram, False, {}, {}, bios=sim_build.build_dir / "software" / "bios" / "bios.bin")
    board = board_build.BoardBuild(build_dir=build_dir, soc=soc, firmware_bin=sim_build.firmware_bin,
                                   log=build_dir / "generate.log")
    log(f"[{cpu}] Yosys: the SoC without the peripheral")
    # One cache directory per CPU: the netlist cache keeps a few runs per top module, and every
    # CPU's SoC has the same top module name.
    bare = _figures(board.sources(), board.build_name, soc_report.CACHE_DIR / cpu.slug, iopad=True)
    log(f"[{cpu}] Yosys: the peripheral alone (cached after the first CPU)")
    peripheral = peripheral_figures(sim_build.gateware_dir / "montmul.v")
    with_montmul = {key: bare[key] + peripheral[key] for key in RESOURCES}
    with_montmul["fmax_mhz"] = min(bare["fmax_mhz"], peripheral["fmax_mhz"])
    with_montmul["critical_path"] = (bare if bare["fmax_mhz"] <= peripheral["fmax_mhz"] else peripheral)["critical_path"]
    return [{"cpu": cpu.name, "montmul": False, **bare},
            {"cpu": cpu.name, "montmul": True, "sum_of_parts": True, **with_montmul}]
