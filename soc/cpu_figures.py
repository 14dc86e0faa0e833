"""The PYNQ-Z2 SoC's Yosys figures for one CPU, with the Montgomery peripheral and without it.

Both SoCs are the board's (`boards/pynq_z2.py`, the same CRG, UART and LEDs), synthesised whole for
xc7z020 with the firmware in ROM (soc/soc_report.py's cached Yosys run) and timed by our estimate
(eda/timing). The SoC without the peripheral gets the same firmware image in its ROM, so its block
RAM count is comparable (it could not run that firmware: it has no peripheral).
"""

from pathlib import Path

from common.paths import BUILD_DIR
from soc import board_build, soc_report

#: The figures of each SoC in `cpus.json` (`socs` rows).
KEYS = ("lut", "ff", "dsp", "bram36", "fmax_mhz")


def board_dir(cpu):
    return BUILD_DIR / f"pynq_z2-{cpu.slug}"


def _figures(board, cpu):
    # One cache directory per CPU: the netlist cache keeps a few runs per top module, and every
    # CPU's SoC has the same top module name.
    result = soc_report.synthesize_cached(board.sources(), board.build_name, soc_report.CACHE_DIR / cpu.slug,
                                          iopad=True)
    figures = soc_report.figures(result)
    out = {key: figures[key] for key in soc_report.DEVICE_RESOURCES}
    out["fmax_mhz"] = figures["timing"]["fmax_mhz"]
    out["critical_path"] = f"{figures['timing']['start']} -> {figures['timing']['end']}"
    return out


def soc_figures(cpu, build_dir=None, log=print):
    """[{cpu, montmul, lut, ff, dsp, bram36, fmax_mhz, critical_path}] for the SoC without the
    peripheral and with it. Raises ProjectError when a generation or synthesis fails."""
    from boards.pynq_z2 import BaseSoC
    from soc import firmware

    build_dir = Path(build_dir or board_dir(cpu))

    def make_soc(with_montmul):
        return lambda rom_init=None: BaseSoC(cpu_type=cpu.type, cpu_variant=cpu.variant, rom_init=rom_init,
                                             with_montmul=with_montmul)

    log(f"[{cpu}] generating the PYNQ-Z2 SoC with the peripheral")
    board = board_build.generate(make_soc(True), build_dir / "with_montmul", log=lambda m: None)
    log(f"[{cpu}] Yosys: the SoC with the peripheral")
    rows = [{"cpu": cpu.name, "montmul": True, **_figures(board, cpu)}]

    log(f"[{cpu}] generating the PYNQ-Z2 SoC without the peripheral")
    rom = firmware.rom_words(board.firmware_bin)
    bare_dir = (build_dir / "without_montmul").resolve()
    bare_dir.mkdir(parents=True, exist_ok=True)
    from common.output import output_to
    with output_to(bare_dir / "generate.log"):
        soc = board_build._generate_pass(make_soc(False), bare_dir, rom, False, {}, {})
    bare = board_build.BoardBuild(build_dir=bare_dir, soc=soc, firmware_bin=board.firmware_bin,
                                  log=bare_dir / "generate.log")
    log(f"[{cpu}] Yosys: the SoC without the peripheral")
    rows.insert(0, {"cpu": cpu.name, "montmul": False, **_figures(bare, cpu)})
    return rows
