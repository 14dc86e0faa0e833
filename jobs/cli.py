"""`python -m sim`: build what is stale and run the SoC with the firmware in Verilator, or drive the
same firmware on a board over a serial port. One subcommand per job, each with its own options
(`python -m sim COMMAND -h`):

    python -m sim [console]             console attached to this terminal (Ctrl-C ends it)
    python -m sim run "help; info"      types the commands, prints the output, exits 0 when all ran
    python -m sim bench [--full]        the benchmark over parallel simulations, written to build/bench/
    python -m sim bench --cpus all      the benchmark on every supported softcore, build/bench/cpus.*
    python -m sim leak [--bits 1024]    the timing-leak test, written to build/leak/; exits 1 on a leak
    python -m sim keygen 1024 [--seeds 16] [--impls hw_seq,sw]
                                        key generations on the SoC, each key checked, written to
                                        build/keygen/; exits 1 when a key fails a check
    python -m sim pty [--empty-ram]     the simulated SoC's UART as a serial device (litex_term, --port)
    python -m sim random-lines 2000     random lines typed into the console, every answer checked
                                        (sim/random_lines.py); exits 1 on a wrong answer
    python -m sim faults 2000 [--bits 1024] [--op sign|decrypt]
                                        a fault-injection campaign in the peripheral, written to
                                        build/faults/; exits 1 if a wrong result was released or the
                                        console hung
    python -m sim tls [--listen 127.0.0.1:4433] [--impl hw_seq] [--key 2048]
                                        the device as a TLS 1.2 server on a TCP port here (docs/tls.md)
    python -m sim tls-bench [--handshakes 3]
                                        handshakes per implementation and suite, build/tls/report.*

    run, bench, random-lines, tls and tls-bench with --port DEVICE [--baud N] talk to a board (or a
    `python -m sim pty` simulation) instead.

The flag forms (`python -m sim --run "..."`, --bench, --leak, --keygen BITS, --pty, --random-lines N,
--faults N, --tls, --tls-bench, the other options as they were) are deprecated aliases of these
subcommands: they still run, with a note on stderr, and will go away.
"""

import argparse
import io
import os
import sys
from pathlib import Path

from common.errors import ProjectError, reports_errors
from common.paths import BUILD_DIR
from gateware.interface import PeripheralConfig
from soc import config
from soc import console_protocol as protocol

#: The jobs: subcommand -> its deprecated flag form, and whether the flag takes a value (the
#: subcommand's positional argument).
JOB_FLAGS = {
    "run": ("--run", True),
    "bench": ("--bench", False),
    "leak": ("--leak", False),
    "keygen": ("--keygen", True),
    "pty": ("--pty", False),
    "random-lines": ("--random-lines", True),
    "faults": ("--faults", True),
    "tls": ("--tls", False),
    "tls-bench": ("--tls-bench", False),
}
SUBCOMMANDS = ("console", *JOB_FLAGS)


class UsageError(Exception):
    """A command line `python -m sim` refuses before it builds anything: `error: <message>`, status 2."""


def _subcommand_argv(argv):
    """`argv` in the subcommand form, and the note to print on stderr (None: nothing to say).

    A subcommand first: `argv` as it is. Otherwise an old job flag (`--bench`, `--run COMMANDS`, ...)
    anywhere in it becomes the subcommand, put first with the flag's value, the other arguments kept
    in their order; no job flag: the console (`-h` alone: the list of subcommands). Two job flags
    raise UsageError."""
    argv = list(argv)
    if argv and argv[0] in SUBCOMMANDS:
        return argv, None
    by_flag = {flag: (name, takes_value) for name, (flag, takes_value) in JOB_FLAGS.items()}
    jobs, rest = [], []
    i = 0
    while i < len(argv):
        flag, equals, value = argv[i].partition("=")
        if flag in by_flag and (not equals or by_flag[flag][1]):
            name, takes_value = by_flag[flag]
            values = []
            if equals:
                values = [value]
            elif takes_value and i + 1 < len(argv) and not argv[i + 1].startswith("--"):
                values = [argv[i + 1]]
                i += 1
            jobs.append((flag, name, values))
        else:
            rest.append(argv[i])
        i += 1
    if len(jobs) > 1:
        raise UsageError("one job at a time: " + ", ".join(flag for flag, _, _ in jobs))
    if jobs:
        flag, name, values = jobs[0]
        return ([name, *values, *rest],
                f"note: 'python -m sim {flag}' is now 'python -m sim {name}'; the flag form will go away")
    if not argv or (argv[0].startswith("-") and "-h" not in argv and "--help" not in argv):
        return ["console", *argv], None
    return argv, None


def _count_or_all(text):
    if text == "all":
        return None
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"takes a count or 'all' (got {text!r})")
    return value


def _options(title=None):
    """A parser of options shared through `parents=` (with `title`: in a group of that name)."""
    parser = argparse.ArgumentParser(add_help=False)
    return parser, (parser.add_argument_group(title) if title else parser)


def _build_options():
    """The simulation's build: every subcommand builds one (except with --port)."""
    parser, group = _options("the simulation's build")
    group.add_argument("--cpu-type", default=config.CPU_TYPE,
                       help=f"softcore (default: %(default)s; supported: {', '.join(config.CPUS)})")
    group.add_argument("--cpu-variant", default=None,
                       help=f"its variant (default: {config.CPU_VARIANT} for {config.CPU_TYPE}, else LiteX's "
                            "default; soc/config.py lists the supported ones)")
    group.add_argument("--build-dir", default=None,
                       help="build directory (default: build/sim, build/sim-<type>-<variant> for other CPUs)")
    group.add_argument("--firmware-cflags", default="", metavar="FLAGS",
                       help="extra C flags for the firmware, e.g. -DBN_LIBGCC_MUL (use a build directory of "
                            "its own: objects made with other flags are not rebuilt)")
    peripheral = parser.add_argument_group("the peripheral's build (gateware.interface.PeripheralConfig)")
    peripheral.add_argument("--montmul-word-bits", type=int, default=None, metavar="W",
                            help=f"word width W (default {PeripheralConfig().word_bits}); another configuration "
                                 "than the default builds in build/sim...-w<W>-l<lanes>")
    peripheral.add_argument("--montmul-lanes", type=int, default=None, metavar="N",
                            help=f"multiplier lanes (default {PeripheralConfig().lanes})")
    return parser


def _serial_options():
    """A board's console (or a `python -m sim pty` simulation's) instead of a simulation."""
    parser, group = _options("serial port (a board, or a simulation behind `python -m sim pty`)")
    group.add_argument("--port", metavar="DEVICE",
                       help="talk to the console at this serial port (e.g. /dev/ttyUSB1, or any pyserial URL "
                            "such as socket://host:port) instead of a simulation")
    group.add_argument("--baud", type=int, default=config.UART_BAUDRATE,
                       help="baud rate of --port (default: %(default)s, the SoC's UART)")
    group.add_argument("--answer-timeout", type=float, default=10.0, metavar="S",
                       help="seconds the console at --port has to answer (default: %(default)s)")
    return parser


def _common_options(timeout_default):
    """--timeout and --quiet, on every subcommand; `timeout_default`: what --timeout is without it there."""
    parser, _ = _options()
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help=f"give up after this many wall-clock seconds (default: {timeout_default})")
    parser.add_argument("--quiet", action="store_true",
                        help="print only the output: no build log or progress on stderr")
    return parser


def _trace_option(parser):
    parser.add_argument("--trace", action="store_true",
                        help="a model that writes every signal to sim.vcd in the build's gateware directory "
                             "(much slower; built once, beside the fast one)")


def _simulations_option(parser, what):
    parser.add_argument("--simulations", type=int, default=os.cpu_count() or 2,
                        help=f"{what} run in parallel (default: %(default)s, one per core)")


def _parser():
    parser = argparse.ArgumentParser(prog="python -m sim", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", title="commands", metavar="COMMAND")
    build, serial = _build_options(), _serial_options()

    def add(name, summary, description, parents, **defaults):
        sub = commands.add_parser(name, help=summary, description=description, parents=parents)
        sub.set_defaults(**defaults)
        return sub

    console = add("console", "the console on this terminal (the default)",
                  "the simulated SoC's console on this terminal, Ctrl-C ends it (the default without a "
                  "subcommand)", [build, _common_options("none")])
    _trace_option(console)

    run = add("run", "type console commands, print the output",
              "type console commands, print the output, exit 0 when all ran (1 when the console refused one)",
              [build, serial, _common_options(600)])
    run.add_argument("run", metavar="COMMANDS", help="console commands separated by ';', typed one after another")
    _trace_option(run)

    bench = add("bench", "the benchmark, build/bench/",
                "the benchmark over parallel simulations (or on the console at --port); writes "
                "build/bench/results.{json,md,png}",
                [build, serial, _common_options("7200; with --cpus the hardware rows' limit per CPU, 420")],
                bench=True)
    bench.add_argument("--full", action="store_true",
                       help="also the software rows of private operations without CRT from 2048 bits on (about "
                            "a billion simulated cycles more)")
    bench.add_argument("--sizes", default=",".join(str(s) for s in config.BENCH_SIZES),
                       help="key sizes, comma-separated (default: %(default)s; "
                            f"available: {','.join(str(s) for s in config.KEY_SIZES)})")
    bench.add_argument("--out-dir", default=None, metavar="DIR",
                       help="where results.{json,md,png} go (default: build/bench)")
    _simulations_option(bench, "simulations")
    bench.add_argument("--setup-seconds", type=float, default=None, help=argparse.SUPPRESS)
    cross = bench.add_argument_group("across softcores (--cpus)")
    cross.add_argument("--cpus", metavar="LIST|all",
                       help="the benchmark on each CPU (type[:variant], comma-separated, or 'all' "
                            f"= {','.join(config.CPUS_ALL)}) and the SoC's Yosys figures; writes "
                            "build/bench/cpus.{json,md,png}")
    cross.add_argument("--budget", type=float, default=None, metavar="SECONDS",
                       help="with --cpus: wall-clock seconds of simulation per CPU for the software rows; a row "
                            "predicted to pass it is skipped and listed (default: 240)")
    cross.add_argument("--jobs", type=int, default=2,
                       help="with --cpus: CPUs built and simulated at once (default: %(default)s)")
    cross.add_argument("--reuse", action="store_true",
                       help="with --cpus: take a CPU's rows from an earlier run with the same sizes "
                            "(build/bench/cpus/<type>-<variant>.json) instead of running it again")
    cross.add_argument("--no-synth", action="store_true",
                       help="with --cpus: leave out the Yosys figures (faster)")

    leak = add("leak", "the timing-leak test, build/leak/",
               "time private-key operations on every implementation with many messages and keys and "
               "write build/leak/report.{json,md} and histogram.png; exit 1 if a constant-time path leaks",
               [build, _common_options(14400)], leak=True)
    leak.add_argument("--bits", type=int, default=1024, choices=config.KEY_SIZES,
                      help="key size (default: %(default)s)")
    leak.add_argument("--messages", type=int, default=32,
                      help="messages with one key, edge cases and random (default: %(default)s)")
    leak.add_argument("--keys", type=int, default=8,
                      help="random keys, one random message each (default: %(default)s)")
    leak.add_argument("--pairs", type=int, default=16,
                      help="fixed and random messages each, interleaved (default: %(default)s)")
    leak.add_argument("--slow-messages", type=_count_or_all, default=8, metavar="N|all",
                      help="messages of each case the slowest row (software private without CRT, 40 s or more "
                           "of simulation per 1024-bit operation) runs on (default: %(default)s)")
    leak.add_argument("--seed", default=None, help="seed text of the keys and messages (default: leak)")
    _simulations_option(leak, "simulations")

    keygen = add("keygen", "key generations on the SoC, each key checked, build/keygen/",
                 "generate keys with the firmware's keygen, check each (cryptography, openssl pkey "
                 "-check) and write build/keygen/report.{json,md,png} and the keys as PEM; exit 1 if a key "
                 "fails a check", [build, _common_options(7200)])
    keygen.add_argument("keygen", metavar="BITS[,BITS...]",
                        help="key sizes, comma-separated: multiples of 64 from 512 to "
                             f"{max(config.KEY_SIZES)}")
    keygen.add_argument("--seeds", type=int, default=16,
                        help="keys of each size on each implementation, each from a seed of its own drawn from "
                             "--seed (default: %(default)s)")
    keygen.add_argument("--impls", default="hw_seq",
                        help="implementations, comma-separated (default: %(default)s; ours: "
                             f"{','.join(protocol.IMPLS)})")
    keygen.add_argument("--seed", default=None, help="seed text of the key generations' seeds (default: keygen)")
    keygen.add_argument("--out-dir", default=None, metavar="DIR",
                        help="where the report and the keys go (default: build/keygen)")
    _simulations_option(keygen, "simulations")

    pty = add("pty", "the simulated SoC's UART as a serial device",
              "expose the simulated SoC's UART as a pseudo-terminal and wait, Ctrl-C ends it "
              "(litex_term, --port)", [build, _common_options("none")], pty=True)
    pty.add_argument("--empty-ram", action="store_true",
                     help="start with main RAM zeroed, so only a serial boot (litex_term --kernel) gives the "
                          "BIOS a firmware")

    lines = add("random-lines", "random lines into the console, every answer checked",
                "type N random lines (binary bytes, over-long lines, truncated hex, huge "
                "numbers, the protocol's words) and check each answer and a known answer after them; exit 1 "
                "on a problem", [build, serial, _common_options(7200)])
    lines.add_argument("random_lines", type=int, metavar="N", help="lines to type")
    lines.add_argument("--seed", default=None, help="the lines' seed text (default: random-lines)")

    faults = add("faults", "fault injection in the peripheral, build/faults/",
                 "N private-key operations on hw_seq, each with one bit of the peripheral's state "
                 "flipped at a random cycle, on a model built for it; writes build/faults/report.{json,md,png} "
                 "and exits 1 if a wrong result was released or the console hung",
                 [build, _common_options("10 hours")])
    faults.add_argument("faults", type=int, metavar="N", help="operations, at least 1")
    faults.add_argument("--bits", type=int, default=1024, choices=config.KEY_SIZES,
                        help="key size (default: %(default)s)")
    faults.add_argument("--op", default="sign", choices=("sign", "decrypt"),
                        help="`sign pkcs1` or `oaep_decrypt` (default: %(default)s)")
    faults.add_argument("--seed", default=None, help="seed text of the messages and the faults (default: faults)")
    faults.add_argument("--out-dir", default=None, metavar="DIR",
                        help="where the report goes (default: build/faults)")

    tls_timeout = dict(type=int, default=None, metavar="MS",
                       help="the device's idle limit per connection, in device milliseconds (default: 1000 in "
                            f"simulation, {protocol.TLS_TIMEOUT_MS} on a board)")
    tls = add("tls", "the device as a TLS 1.2 server on a TCP port here",
              "the device as a TLS 1.2 server: a TCP port here bridged to its UART, one connection "
              "after another until Ctrl-C (docs/tls.md)", [build, serial, _common_options("none")],
              tls=True, tls_bench=False)
    tls.add_argument("--listen", default="127.0.0.1:4433", metavar="HOST:PORT",
                     help="where to listen (default: %(default)s)")
    tls.add_argument("--impl", default="hw_seq", choices=protocol.TLS_IMPLS,
                     help="the implementation of the server's RSA (default: %(default)s)")
    tls.add_argument("--key", type=int, default=2048, metavar="BITS",
                     help="the server's key: the firmware's bench key of this size (default: %(default)s)")
    tls.add_argument("--device-key", action="store_true",
                     help="a key of --key bits made on the device (`keygen` on hw_seq, random seed) instead "
                          "of the bench key")
    tls.add_argument("--tls-timeout", **tls_timeout)

    tls_bench = add("tls-bench", "TLS handshakes measured, build/tls/",
                    "full handshakes by Python's ssl per implementation, suite and key size; "
                    "writes build/tls/report.{json,md,png} (docs/tls.md)", [build, serial, _common_options(7200)],
                    tls=False, tls_bench=True)
    tls_bench.add_argument("--handshakes", type=int, default=3,
                           help="handshakes per implementation, suite and size (default: %(default)s)")
    tls_bench.add_argument("--tls-impls", default=",".join(protocol.TLS_IMPLS[:3] + ("bearssl",)), metavar="LIST",
                           help="implementations, comma-separated (default: %(default)s)")
    tls_bench.add_argument("--tls-sizes", default="2048", metavar="LIST",
                           help="key sizes, comma-separated (default: %(default)s)")
    tls_bench.add_argument("--tls-timeout", **tls_timeout)
    tls_bench.add_argument("--out-dir", default=None, metavar="DIR",
                           help="where the report goes (default: build/tls)")
    _simulations_option(tls_bench, "simulations")
    return parser, commands


def _parse_args(argv):
    """The options of `argv` in the subcommand form (`_subcommand_argv`). An option the subcommand does
    not take is refused (exit 2) by the subcommand's parser, with the subcommands that take it."""
    parser, commands = _parser()
    args, extra = parser.parse_known_args(argv)
    if args.command is None and not extra:
        args, extra = parser.parse_known_args(["console"])
    if extra:
        hints = []
        for option in dict.fromkeys(token.partition("=")[0] for token in extra if token.startswith("--")):
            takers = [name for name, sub in commands.choices.items() if option in sub._option_string_actions]
            if takers:
                hints.append(f"{option} goes with {', '.join(takers)}")
        message = "unrecognized arguments: " + " ".join(extra) + (f" ({'; '.join(hints)})" if hints else "")
        (commands.choices[args.command] if args.command else parser).error(message)
    return args


def _montmul_config(args):
    """The peripheral configuration the options ask for (None: the default), or a ProjectError naming
    the option."""
    if args.montmul_word_bits is None and args.montmul_lanes is None:
        return None
    default = PeripheralConfig()
    try:
        return PeripheralConfig(word_bits=args.montmul_word_bits or default.word_bits,
                                lanes=args.montmul_lanes or default.lanes)
    except ValueError as error:
        raise ProjectError(f"--montmul-word-bits/--montmul-lanes: {error}") from None


def _interactive(build):
    """The model's console on this terminal. The BIOS's serial-boot request is answered with a jump
    to the preloaded firmware (sim/serial_boot.py), as the scripted consoles do."""
    import os
    import selectors
    import termios
    import tty

    from link import serial_boot
    from link.transport import SocModelTransport, TransportError
    stdin = sys.stdin.fileno()
    saved = termios.tcgetattr(stdin) if os.isatty(stdin) else None
    model = SocModelTransport(build.model, build.gateware_dir)
    seen = b""
    try:
        if saved is not None:
            tty.setcbreak(stdin)            # keys go through as typed; Ctrl-C still ends it
        sel = selectors.DefaultSelector()
        sel.register(model.proc.stdout, selectors.EVENT_READ)
        sel.register(stdin, selectors.EVENT_READ)
        while True:
            for key, _ in sel.select():
                if key.fileobj is model.proc.stdout:
                    data = model.read(0)
                    os.write(sys.stdout.fileno(), data)
                    seen = (seen + data)[-64:]
                    if serial_boot.REQUEST.encode() in seen:
                        serial_boot.jump_to_main_ram(model)
                        seen = b""
                else:
                    data = os.read(stdin, 1024)
                    if not data:
                        sel.unregister(stdin)
                    else:
                        model.write(data)
    except KeyboardInterrupt:
        return 0
    except TransportError as error:
        print(f"\n[sim] {error}", file=sys.stderr)
        return 1
    finally:
        model.close()
        if saved is not None:
            termios.tcsetattr(stdin, termios.TCSAFLUSH, saved)


def open_console(args, build, timeout):
    """The console run, bench, random-lines, tls and tls-bench talk to: the simulation, or the one at
    --port."""
    from link.console import SimConsole, open_serial_console
    if args.port:
        return open_serial_console(args.port, args.baud, timeout, answer_within=args.answer_timeout)
    console = SimConsole(build.model, build.gateware_dir, timeout=timeout)
    try:
        console.wait_prompt()
    except BaseException:
        console.close()
        raise
    return console


def run_commands(console, commands, out=sys.stdout):
    """Types `commands` one after another, printing the prompt, each command and its output. A command
    longer than the console takes is refused (nothing sent) and the next ones still run; returns the
    number refused."""
    from link.console import ConsoleError, LineTooLong
    refused = 0
    try:
        for command in commands:
            shown = command if len(command) <= 60 else f"{command[:60]}... ({len(command)} characters)"
            out.write(f"{protocol.PROMPT}{shown}\n")
            try:
                out.write(console.command(command))
            except LineTooLong as error:
                print(f"error: {error}", file=sys.stderr)
                refused += 1
            out.flush()
    except ConsoleError:
        sys.stderr.write(console.output[-2000:] + "\n")     # what the firmware said last
        raise
    finally:
        console.close()
    return refused


def _leak(build, args, log):
    from sim import build as sim_build
    from jobs import leak
    bare = sim_build.build_bare(build, log=log)
    out_dir = BUILD_DIR / "leak"
    slow = "all" if args.slow_messages is None else args.slow_messages
    seed = args.seed or leak.DEFAULT_SEED
    command = (f"python -m sim leak --bits {args.bits} --messages {args.messages} --keys {args.keys} "
               f"--pairs {args.pairs} --slow-messages {slow}"
               + (f" --seed {seed}" if seed != leak.DEFAULT_SEED else ""))
    report = leak.run(build, args.bits, out_dir, messages=args.messages, keys=args.keys, pairs=args.pairs,
                      slow_messages=args.slow_messages, seed=seed, simulations=args.simulations,
                      timeout=args.timeout or 14400,
                      progress=io.StringIO() if args.quiet else sys.stderr, command=command, bare=bare)
    print(leak.markdown(report))
    print(f"report: {out_dir}/report.{{json,md}}")
    leak.check(report)
    return 0


def _keygen_sizes(text):
    """The sizes of keygen: multiples of 64 from 512 to the bignum limit, as the firmware takes; None
    when `text` is not such a list."""
    from jobs.keygen import MAX_BITS, MIN_BITS
    try:
        sizes = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        return None
    ok = sizes and all(s % 64 == 0 and MIN_BITS <= s <= MAX_BITS for s in sizes)
    return sorted(set(sizes)) if ok else None


def _keygen(args, build, sizes, impls, log):
    """keygen: key generations over parallel simulations, software on the SoC without the peripheral."""
    from sim import build as sim_build
    from jobs import keygen
    builds = {True: build}
    if any(impl not in protocol.PERIPHERAL_IMPLS for impl in impls):
        builds[False] = sim_build.build_bare(build, log=log)
    out_dir = Path(args.out_dir) if args.out_dir else BUILD_DIR / "keygen"
    seed = args.seed or keygen.DEFAULT_SEED
    command = (f"python -m sim keygen {','.join(map(str, sizes))} --seeds {args.seeds} --impls {','.join(impls)}"
               + (f" --seed {seed}" if seed != keygen.DEFAULT_SEED else ""))
    report = keygen.run(builds, sizes, impls, args.seeds, out_dir, seed=seed, soc=build.soc_info, command=command,
                        simulations=max(1, args.simulations), timeout=args.timeout or 7200,
                        progress=io.StringIO() if args.quiet else sys.stderr)
    print(keygen.markdown(report))
    print(f"report: {out_dir}/report.{{json,md,png}}, keys: {out_dir}/keys/")
    keygen.check(report)
    return 0


def _tls(args, build, log):
    """tls: the device's TLS server on a TCP port here; tls-bench: handshakes measured."""
    import os
    from jobs import tls
    from soc import keys
    timeout_ms = args.tls_timeout or (protocol.TLS_TIMEOUT_MS if args.port else tls.SIM_TIMEOUT_MS)
    if args.tls_bench:
        from jobs import tls_bench
        return tls_bench.main(args, build, timeout_ms, log, open_console)
    if args.key not in config.KEY_SIZES:
        raise ProjectError(f"--key takes a bench key size: {', '.join(map(str, config.KEY_SIZES))} (got {args.key})")
    address = tls.parse_address(args.listen)
    console = open_console(args, build, args.timeout or 10 * 365 * 86400.0)
    try:
        if args.device_key:
            log(f"[tls] making a {args.key}-bit key on the device (keygen on hw_seq) ...")
            key = console.keygen(args.key, os.urandom(16), "hw_seq").key
        else:
            tls.use_bench_key(console, args.key)
            key = next(k for k in keys.bench_keys() if k["bits"] == args.key)
        return tls.serve(console, key, address, impl=args.impl, timeout_ms=timeout_ms, out=log)
    finally:
        console.close()


def _bench(args, build, sizes, log):
    """bench: over parallel simulations (the rows that never touch the peripheral on the SoC
    without it), or on the console at --port; prints the table and where the time went."""
    import time
    from jobs import bench
    started = time.monotonic()
    out_dir = Path(args.out_dir) if args.out_dir else BUILD_DIR / "bench"
    command = "python -m sim bench --sizes " + ",".join(str(s) for s in sizes) + (" --full" if args.full else "")
    steps = []
    if args.setup_seconds is not None:
        steps.append({"step": "set-up (tools/setup.sh: Debian and Python packages, peer libraries)",
                      "seconds": round(args.setup_seconds, 2)})
    if args.port:
        command += f" --port {args.port}" + (f" --baud {args.baud}" if args.baud != config.UART_BAUDRATE else "")
        console = open_console(args, build, args.timeout or 7200)
        soc_info = bench.soc_from_info(console)
        source = console.source
        results, missing = bench.run_console(console, sizes, full=args.full)
        records, extra = [], None
    else:
        from sim import build as sim_build
        bare = sim_build.build_bare(build, log=log)
        for what, made in (("SoC with the peripheral", build), ("SoC without the peripheral", bare)):
            for step, seconds in made.seconds.items():
                steps.append({"step": f"{what}: {step}", "seconds": round(seconds, 2)})
        soc_info, source = build.soc_info, {"transport": "simulation"}
        simulated = time.monotonic()
        extra = []
        results, missing, records = bench.run_simulations({True: build, False: bare}, sizes, full=args.full,
                                                          simulations=max(1, args.simulations),
                                                          timeout=args.timeout or 7200, extra=extra)
        for i, record in enumerate(records):
            steps.append({"step": f"simulation {i + 1} ({record['soc']}, {len(record['rows'])} rows)", **{
                key: record[key] for key in ("seconds", "cycles", "cycles_per_second")}})
        steps.append({"step": f"all simulations ({max(1, args.simulations)} at once)",
                      "seconds": round(time.monotonic() - simulated, 2)})
    total = time.monotonic() - started + (args.setup_seconds or 0)
    timing = {"steps": steps, "total_seconds": round(total, 2), "simulations": records}
    data = bench.write(results, missing, out_dir, soc_info, source, command, timing, extra=extra)
    print(bench.markdown(data))
    print("Where the wall-clock time went:\n")
    print(bench.timing_markdown(timing))
    print(f"results: {out_dir}/results.{{json,md,png}}")
    bad = [r for r in data["results"] + (extra or []) if not r["ok"]]
    if bad:
        raise ProjectError(f"{len(bad)} results disagree: {bad}")
    return 0


def _random_lines(args, build, log):
    """random-lines: the lines, each answer checked, then a known answer; exit 1 on a problem."""
    from jobs import random_lines
    console = open_console(args, build, args.timeout or 7200)
    try:
        report = random_lines.run(console, args.random_lines, seed=args.seed or "random-lines", progress=log)
    finally:
        console.close()
    for index, kind, data, problem in report["problems"]:
        print(f"line {index} ({kind}, {len(data)} bytes, {data[:60]!r}): {problem}")
    kinds = ", ".join(f"{kind} {n}" for kind, n in report["kinds"].items())
    print(f"{report['lines']} random lines ({kinds}) in {report['seconds']:.0f} s, "
          f"{len(report['problems'])} problems; the known answer after them "
          + ("wrong" if any(kind == "known_answer" for _, kind, _, _ in report["problems"]) else "right"))
    return 1 if report["problems"] else 0


def _faults(args, build):
    from jobs import faults
    seed = args.seed or faults.DEFAULT_SEED
    out_dir = Path(args.out_dir) if args.out_dir else faults.DEFAULT_OUT_DIR
    command = (f"python -m sim faults {args.faults} --bits {args.bits} --op {args.op}"
               + (f" --seed {seed}" if seed != faults.DEFAULT_SEED else ""))
    report = faults.run(build, args.faults, bits=args.bits, op=args.op, seed=seed, out_dir=out_dir,
                        progress=io.StringIO() if args.quiet else sys.stderr, command=command,
                        timeout=args.timeout)
    print(faults.markdown(report))
    print(f"report: {out_dir}/report.{{json,md,png}}")
    faults.check(report)
    return 0



def _bench_sizes(text):
    """The sizes of bench's --sizes, or None when `text` is not a list of bench key sizes."""
    try:
        sizes = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        return None
    return sizes if sizes and all(s in config.KEY_SIZES for s in sizes) else None


def _checked(args):
    """What the command line leaves to be checked past argparse (values, and options that exclude
    each other within a subcommand): bench's sizes and keygen's sizes and implementations, or a
    UsageError."""
    port = getattr(args, "port", None)
    sizes, keygen_sizes, keygen_impls = [], None, None
    if args.command == "bench":
        sizes = _bench_sizes(args.sizes)
        if sizes is None:
            raise UsageError(f"--sizes takes key sizes from {','.join(str(s) for s in config.KEY_SIZES)}, "
                             f"comma-separated (got {args.sizes!r})")
        if args.cpus is not None and (args.build_dir or port or _montmul_config(args)):
            raise UsageError("--cpus builds each CPU's simulation in a build directory of its own: not with "
                             "--build-dir, --port, --montmul-word-bits or --montmul-lanes")
    if args.command == "faults" and args.faults < 1:
        raise UsageError("faults takes a number of runs, at least 1")
    if args.command == "leak" and (args.messages < 2 or args.keys < 0 or args.pairs < 0 or args.simulations < 1):
        raise UsageError("--messages takes at least 2, --keys and --pairs at least 0, --simulations at least 1")
    if args.command == "keygen":
        keygen_sizes = _keygen_sizes(args.keygen)
        keygen_impls = [impl.strip() for impl in args.impls.split(",") if impl.strip()]
        if keygen_sizes is None:
            raise UsageError(f"keygen takes key sizes, multiples of 64 from 512 to {max(config.KEY_SIZES)}, "
                             f"comma-separated (got {args.keygen!r})")
        if not keygen_impls or any(impl not in protocol.IMPLS for impl in keygen_impls):
            raise UsageError(f"--impls takes implementations from {','.join(protocol.IMPLS)}, comma-separated "
                             f"(got {args.impls!r})")
        if args.seeds < 1 or args.simulations < 1:
            raise UsageError("--seeds and --simulations take at least 1")
    if port and _montmul_config(args) is not None:
        raise UsageError("--montmul-word-bits and --montmul-lanes build a simulation; --port talks to a board")
    if port and getattr(args, "trace", False):
        raise UsageError("--trace builds a traced simulation; --port talks to a board")
    return sizes, keygen_sizes, keygen_impls


@reports_errors
def main(argv=None):
    try:
        argv, note = _subcommand_argv(sys.argv[1:] if argv is None else argv)
        if note:
            print(note, file=sys.stderr, flush=True)
        args = _parse_args(argv)
        sizes, keygen_sizes, keygen_impls = _checked(args)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    command, port = args.command, getattr(args, "port", None)
    from soc import cpus as soc_cpus
    log = (lambda *a: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr, flush=True))
    if command == "bench" and args.cpus is not None:
        from jobs import cpu_bench
        return cpu_bench.main(soc_cpus.parse_list(args.cpus), sizes, budget=args.budget or cpu_bench.DEFAULT_BUDGET_S,
                              synth=not args.no_synth, jobs=max(1, args.jobs),
                              timeout=args.timeout or cpu_bench.DEFAULT_HW_TIMEOUT_S, log=log,
                              reuse=args.reuse, command="python -m sim " + " ".join(argv))
    build = None
    if not port:
        from sim import build as sim_build
        cpu = soc_cpus.parse(args.cpu_type, variant=args.cpu_variant)
        kwargs = {"cpu_type": cpu.type, "cpu_variant": cpu.variant, "log": log}
        montmul_config = _montmul_config(args)
        if montmul_config is not None:
            kwargs["montmul_config"] = montmul_config
        if args.build_dir:
            kwargs["build_dir"] = args.build_dir
        if args.firmware_cflags:
            kwargs["firmware_cflags"] = args.firmware_cflags
        if command == "faults":
            kwargs["faults"] = True
        if getattr(args, "trace", False):
            kwargs["trace"] = True
        build = sim_build.build(**kwargs)
    if command == "console":
        return _interactive(build)
    if command == "pty":
        from jobs import pty as pty_uart
        return pty_uart.serve(build, empty_ram=args.empty_ram, out=log)
    if command in ("tls", "tls-bench"):
        return _tls(args, build, log)
    if command == "bench":
        return _bench(args, build, sizes, log)
    if command == "leak":
        return _leak(build, args, log)
    if command == "keygen":
        return _keygen(args, build, keygen_sizes, keygen_impls, log)
    if command == "random-lines":
        return _random_lines(args, build, log)
    if command == "faults":
        return _faults(args, build)
    commands = [c.strip() for c in args.run.split(";") if c.strip()]
    refused = run_commands(open_console(args, build, args.timeout or 600), commands)
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
