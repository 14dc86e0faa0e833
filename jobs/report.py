"""`python -m sim report`: the peripheral's report (`python -m gateware --report`'s figures) with the
firmware's count of one RSA-2048 private operation with CRT, timed on the simulated SoC, and the times
at the SoC's clock; `--sweep [LANES]`: the sweep (`python -m gateware --sweep`) with that count beside
the default configuration's row. The figures are gateware.tools'; what needs the whole SoC is here."""

from __future__ import annotations

from pathlib import Path

from common.errors import ProjectError
from common.paths import ROOT
from gateware.interface import PeripheralConfig
from gateware.options import peripheral_config
from gateware.tools import cli as figures
from gateware.tools.report import CRT_BITS, FIRMWARE_IMPL
from jobs import options, registry
from soc import config

__all__ = ["FIRMWARE_OP", "SYS_CLK_MHZ", "firmware_build_dir", "firmware_command", "firmware_source",
           "firmware_crt_cycles", "firmware_count", "NO_FIRMWARE"]

#: The firmware's row the RSA figure is: `bench` (firmware's bench commands) of the private operation with
#: CRT on the sequencer backend, the "2048, private, CRT, hw: sequencer" row of `python -m sim bench`.
FIRMWARE_OP = "private_crt"
#: The SoC's one clock, which the firmware's cycles are counted in.
SYS_CLK_MHZ = config.SYS_CLK_FREQ / 1e6
#: What the RSA figure says with --no-firmware.
NO_FIRMWARE = "not measured (--no-firmware); without it: "


def firmware_build_dir(montmul_config: PeripheralConfig) -> Path | None:
    """Where the simulated SoC with `montmul_config`'s peripheral is built: None for the default
    configuration (`python -m sim`'s own build, build/sim), otherwise the directory `python -m sim run
    ... --montmul-word-bits W --montmul-lanes N` builds it in (sim.build.cpu_build_dir)."""
    if montmul_config == PeripheralConfig():
        return None
    from sim import build as sim_build
    return sim_build.cpu_build_dir(config.CPU_TYPE, config.CPU_VARIANT, montmul_config)


def firmware_command(bits: int = CRT_BITS) -> str:
    """The console command whose count the RSA figure is."""
    return f"bench {bits} rows={bits}:{FIRMWARE_OP}:{FIRMWARE_IMPL}"


def firmware_source(montmul_config: PeripheralConfig, bits: int = CRT_BITS) -> str:
    """Where `firmware_crt_cycles` takes its count from, as the report says it."""
    directory = firmware_build_dir(montmul_config)
    if directory is None:
        return (f'python -m sim run "{firmware_command(bits)}": the firmware\'s cycle counter on the '
                "simulated SoC (build/sim)")
    default = PeripheralConfig()
    given = [(option, value) for option, value, default_value in (
        ("--montmul-word-bits", montmul_config.word_bits, default.word_bits),
        ("--montmul-lanes", montmul_config.lanes, default.lanes),
        ("--montmul-max-bits", montmul_config.max_bits, default.max_bits)) if value != default_value]
    shown = " ".join(f"{option} {value}" for option, value in given)
    return (f'python -m sim run "{firmware_command(bits)}" {shown}: the firmware\'s cycle counter on the '
            f"simulated SoC ({directory.relative_to(ROOT)})")


def firmware_crt_cycles(montmul_config: PeripheralConfig, bits: int = CRT_BITS, log=print) -> int:
    """CPU cycles of one RSA private operation with CRT on the sequencer backend as the firmware counts
    them (the whole operation: CPU, operand transfers, the peripheral), with the bench's `bits`-bit key
    on the simulated SoC with `montmul_config`'s peripheral: `firmware_command`. Builds what is stale
    first (sim.build: minutes the first time). A wrong result is an error, not a figure."""
    from link.console import booted
    from sim import build as sim_build

    default = montmul_config == PeripheralConfig()
    build = sim_build.build(firmware_build_dir(montmul_config), montmul_config=None if default else montmul_config,
                            log=log)
    with booted(build) as console:
        answer = console.bench([bits], rows=[(bits, FIRMWARE_OP, FIRMWARE_IMPL)])
    if len(answer.results) != 1 or not answer.results[0].ok:
        raise ProjectError(f"`{firmware_command(bits)}` on the simulated SoC: {answer.results or 'no result'}, "
                           "not one right result: no figure")
    return answer.results[0].cycles


def firmware_count(montmul_config: PeripheralConfig, log=print) -> dict:
    """The `firmware` the peripheral's report and sweep take (gateware.tools.report.firmware_crt): the
    firmware's count of RSA-2048 with CRT on the simulated SoC and where it comes from. A module-level
    function, so that the sweep can hand it to a worker process."""
    return {"cycles": firmware_crt_cycles(montmul_config, log=log), "source": firmware_source(montmul_config)}


#: The sweep's worker processes (`python -m gateware`'s --jobs: jobs are something else here).
PROCESSES = "--processes"


def add_arguments(parser):
    figures.add_figure_options(parser, processes=PROCESSES)
    parser.add_argument("--no-firmware", dest="firmware", action="store_false",
                        help="leave out the firmware's count of RSA-2048 with CRT on the simulated SoC (whose "
                             "first build takes minutes): the peripheral's figures alone")


def check(args):
    message = figures.usage_error(args, processes=PROCESSES)
    if message:
        raise options.UsageError(message)
    try:
        peripheral_config(args)
    except ProjectError as error:
        raise options.UsageError(str(error)) from None


def main(args, log):
    # the sweep's firmware count is the default configuration's, the report's the one asked for
    measured = PeripheralConfig() if args.sweep else peripheral_config(args)
    kwargs = {"firmware": firmware_count if args.firmware else None, "sys_clk_mhz": SYS_CLK_MHZ,
              "unmeasured": NO_FIRMWARE + firmware_source(measured), "progress": log}
    if args.sweep:
        return figures.run_sweep(args, command="python -m sim report --sweep", **kwargs)
    return figures.run_report(args, **kwargs)


registry.register(registry.Job(
    "report", "the peripheral's figures, with the firmware's RSA-2048 on the SoC",
    main, add_arguments=add_arguments, check=check, timeout=None,
    description="The Montgomery peripheral's figures (`python -m gateware --report`: RTL cycle counts, "
                "xc7z020 resources, a timing estimate) with the firmware's own count of one RSA-2048 private "
                "operation with CRT on the simulated SoC (built where stale: minutes the first time) and the "
                "times at the SoC's clock; --sweep: the same for several lane counts "
                "(`python -m gateware --sweep`)."))
