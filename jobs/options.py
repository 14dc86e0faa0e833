"""The options jobs share, each defined once, and what they turn into: the simulation a job runs on
(or the console at a serial port), its log, its list values.

A job names the shared groups it takes in its registry entry (BUILD, SERIAL); every job takes
--timeout and --quiet. A job's own options use the helpers below for what several jobs have (--sizes,
--size, --impls, --out, --seed, --simulations), so that the same option reads the same everywhere.
"""

import argparse
import io
import os
import sys
from pathlib import Path

from common.errors import ProjectError
from gateware import options as peripheral_options
from gateware.interface import PeripheralConfig
from link.transport import SimEntropy
from soc import config

#: The shared option groups a job can take.
BUILD = "build"
SERIAL = "serial"
GROUPS = (BUILD, SERIAL)


class UsageError(Exception):
    """A command line refused before anything is built: `error: <message>`, exit status 2."""


# ---- the shared groups ----

def add_build_options(parser):
    """The simulation's build: the softcore, the build directory, the firmware's flags, the peripheral."""
    group = parser.add_argument_group("the simulation's build")
    group.add_argument("--cpu-type", default=config.CPU_TYPE, metavar="TYPE",
                       help=f"softcore (default: %(default)s; supported: {', '.join(config.CPUS)})")
    group.add_argument("--cpu-variant", default=None, metavar="VARIANT",
                       help=f"its variant (default: {config.CPU_VARIANT} for {config.CPU_TYPE}, else LiteX's "
                            "default; soc/config.py lists the supported ones)")
    group.add_argument("--build-dir", default=None, metavar="DIR",
                       help="build directory (default: build/sim, build/sim-<type>-<variant> for other CPUs)")
    group.add_argument("--firmware-cflags", default="", metavar="FLAGS",
                       help="extra C flags for the firmware, e.g. -DBN_LIBGCC_MUL (use a build directory of "
                            "its own: objects made with other flags are not rebuilt)")
    entropy = parser.add_argument_group("the simulated entropy source (its raw bits come from the harness)")
    entropy.add_argument("--entropy-seed", type=at_least(0), default=None, metavar="N",
                         help=f"seed of its raw bits (default: {SimEntropy().seed}); the same seed, the same words")
    entropy.add_argument("--entropy-mode", choices=SimEntropy.MODES, default=None,
                         help="ok (default), or stuck: one constant bit, which its health tests must catch "
                              "(every command that draws randomness then fails)")
    peripheral = parser.add_argument_group(
        "the peripheral's build", "another configuration than the default builds in build/sim...-w<W>-l<N>")
    peripheral_options.add_peripheral_options(peripheral)


def peripheral_config(args):
    """The peripheral configuration the options ask for (None: the default, PeripheralConfig()); a
    UsageError for one the peripheral cannot have."""
    try:
        chosen = peripheral_options.peripheral_config(args)
    except ProjectError as error:
        raise UsageError(str(error)) from None
    return None if chosen == PeripheralConfig() else chosen


def _peripheral_options_given(args):
    return any(getattr(args, name, None) is not None
               for name in ("montmul_word_bits", "montmul_lanes", "montmul_max_bits"))


def add_serial_options(parser):
    """A board's console (or a `python -m sim pty` simulation's) instead of a simulation."""
    group = parser.add_argument_group("serial port (a board, or a simulation behind `python -m sim pty`)")
    group.add_argument("--port", metavar="DEVICE",
                       help="talk to the console at this serial port (e.g. /dev/ttyUSB1, or any pyserial URL "
                            "such as socket://host:port) instead of a simulation")
    group.add_argument("--baud", type=int, default=config.UART_BAUDRATE,
                       help="baud rate of --port (default: %(default)s, the SoC's UART)")
    group.add_argument("--answer-timeout", type=float, default=10.0, metavar="S",
                       help="seconds the console at --port has to answer (default: %(default)s)")


def add_common_options(parser, timeout):
    """--timeout and --quiet, which every job takes; `timeout`: the job's default limit (None: none)."""
    group = parser.add_argument_group("every job")
    group.add_argument("--timeout", type=float, default=timeout, metavar="SECONDS",
                       help="give up after this many wall-clock seconds (default: "
                            + ("none" if timeout is None else f"{timeout:g}") + ")")
    group.add_argument("--quiet", action="store_true",
                       help="print only the output: no build log or progress on stderr")


# ---- options several jobs have ----

def _comma_list(text):
    return [item.strip() for item in text.split(",") if item.strip()]


def sizes_type(allowed, what=None):
    """An argparse type: comma-separated key sizes, each in `allowed` (a collection of ints), as a
    sorted list without repeats. `what` says which sizes in the message (default: the list)."""
    what = what or ",".join(map(str, sorted(allowed)))

    def parse(text):
        try:
            sizes = [int(item) for item in _comma_list(text)]
        except ValueError:
            sizes = None
        if not sizes or any(size not in allowed for size in sizes):
            raise argparse.ArgumentTypeError(f"takes key sizes from {what}, comma-separated (got {text!r})")
        return sorted(set(sizes))
    return parse


def impls_type(allowed):
    """An argparse type: comma-separated implementations from `allowed`, in the order given."""
    def parse(text):
        impls = list(dict.fromkeys(_comma_list(text)))
        if not impls or any(impl not in allowed for impl in impls):
            raise argparse.ArgumentTypeError(f"takes implementations from {','.join(allowed)}, comma-separated "
                                             f"(got {text!r})")
        return impls
    return parse


def at_least(minimum):
    """An argparse type: an integer no smaller than `minimum`."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if value < minimum:
            raise argparse.ArgumentTypeError(f"takes a whole number, at least {minimum} (got {text!r})")
        return value
    return parse


def add_sizes(parser, default, allowed=config.KEY_SIZES, what=None, help="key sizes"):
    """--sizes: key sizes, comma-separated (`default`: a tuple of ints)."""
    parser.add_argument("--sizes", type=sizes_type(allowed, what), default=list(default), metavar="LIST",
                        help=f"{help}, comma-separated (default: {','.join(map(str, default))}; "
                             f"available: {what or ','.join(map(str, allowed))})")


def add_size(parser, default, allowed=config.KEY_SIZES, help="key size"):
    """--size: one key size."""
    parser.add_argument("--size", type=int, default=default, choices=allowed, metavar="BITS",
                        help=f"{help} (default: %(default)s; available: {','.join(map(str, allowed))})")


def add_impls(parser, default, allowed, help="implementations"):
    """--impls: implementations, comma-separated (`default`: a tuple of names)."""
    parser.add_argument("--impls", type=impls_type(allowed), default=list(default), metavar="LIST",
                        help=f"{help}, comma-separated (default: {','.join(default)}; available: "
                             f"{','.join(allowed)})")


def add_out(parser, default, what="the report"):
    """--out: the directory a job writes its report to."""
    parser.add_argument("--out", type=Path, default=Path(default), metavar="DIR",
                        help=f"where {what} goes (default: {_shown(default)})")


def add_seed(parser, default, what):
    parser.add_argument("--seed", default=default, metavar="TEXT",
                        help=f"seed text of {what} (default: %(default)s)")


def add_simulations(parser, default=None, what="simulations run at once"):
    parser.add_argument("--simulations", type=at_least(1), default=default or os.cpu_count() or 2, metavar="N",
                        help=f"{what} (default: %(default)s" + (", one per core)" if default is None else ")"))


def add_trace(parser):
    parser.add_argument("--trace", action="store_true",
                        help="a model that writes every signal to sim.vcd in the build's gateware directory "
                             "(much slower; built once, beside the fast one)")


def _shown(path):
    from common.paths import display_path
    return display_path(path)


# ---- what a job runs on ----

def log(args):
    """The job's log on stderr (nothing with --quiet)."""
    if args.quiet:
        return lambda message: None
    return lambda message: print(message, file=sys.stderr, flush=True)


def progress(args):
    """Where a job's progress lines go: stderr, or nowhere with --quiet."""
    return io.StringIO() if args.quiet else sys.stderr


def check_build(args):
    """The checks of the shared groups past argparse: a CPU and a peripheral the SoC can have, and
    no simulation's option with --port."""
    port = getattr(args, "port", None)
    if hasattr(args, "cpu_type"):
        from soc import cpus as soc_cpus
        try:
            soc_cpus.parse(args.cpu_type, variant=args.cpu_variant)
        except ProjectError as error:
            raise UsageError(str(error)) from None
        peripheral_config(args)
    if port and _peripheral_options_given(args):
        raise UsageError("the --montmul-* options build a simulation; --port talks to a board")
    if port and getattr(args, "trace", False):
        raise UsageError("--trace builds a traced simulation; --port talks to a board")
    if port and (getattr(args, "entropy_seed", None) is not None or getattr(args, "entropy_mode", None)):
        raise UsageError("--entropy-seed and --entropy-mode drive a simulation's entropy source; --port talks to "
                         "a board (its `info` says where its randomness comes from)")


def simulation(args, log, **extra):
    """The simulated SoC the build options ask for, built where stale (None with --port). `extra`:
    sim.build.build's other arguments (faults=True, ...)."""
    if getattr(args, "port", None):
        return None
    from sim import build as sim_build
    from soc import cpus as soc_cpus
    cpu = soc_cpus.parse(args.cpu_type, variant=args.cpu_variant)
    kwargs = {"cpu_type": cpu.type, "cpu_variant": cpu.variant, "log": log, **extra}
    montmul_config = peripheral_config(args)
    if montmul_config is not None:
        kwargs["montmul_config"] = montmul_config
    if args.build_dir:
        kwargs["build_dir"] = args.build_dir
    if args.firmware_cflags:
        kwargs["firmware_cflags"] = args.firmware_cflags
    if getattr(args, "trace", False):
        kwargs["trace"] = True
    return sim_build.build(**kwargs).with_entropy(entropy(args))


def entropy(args):
    """The simulated entropy source's raw bits the options ask for (a link.transport.SimEntropy)."""
    default = SimEntropy()
    seed = getattr(args, "entropy_seed", None)
    return SimEntropy(default.seed if seed is None else seed, getattr(args, "entropy_mode", None) or default.mode)


def open_console(args, build, timeout=None):
    """The console a job talks to: the simulation's (booted, at its prompt), or the one at --port."""
    from link.console import SimConsole, open_serial_console
    timeout = timeout or args.timeout
    if getattr(args, "port", None):
        return open_serial_console(args.port, args.baud, timeout, answer_within=args.answer_timeout)
    console = SimConsole(build.model, build.gateware_dir, timeout=timeout, entropy=build.entropy)
    try:
        console.wait_prompt()
    except BaseException:
        console.close()
        raise
    return console


def port_suffix(args):
    """The serial options as a recorded command repeats them ("" for a simulation)."""
    if not getattr(args, "port", None):
        return ""
    return f" --port {args.port}" + (f" --baud {args.baud}" if args.baud != config.UART_BAUDRATE else "")
