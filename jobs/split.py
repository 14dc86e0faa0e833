"""`python -m sim split`: where one RSA private operation with CRT spends its cycles, step by step.

The firmware is built instrumented (-DRSA_PROFILE, in a build directory of its own: build/sim-split):
the operation names its steps (argument checks, the two exponentiations, Garner's step, the
recombination, the check with e, the release of the result, the wipe) and the peripheral's driver marks
the cycles it spends moving operand words and waiting for commands, from the CPU's cycle counter
(firmware/drivers/profile.h). The job sets the bench key of `--size` as the console's key, runs `time
private_crt <impl>` on a fixed message for each `--impls`, checks the result against Python's, and prints
each step's cycles: the CPU's own work, operand transfers, waits on the peripheral (its commands'
cycles and the polls that see them end). The stamps cost a few cycles each: the instrumented total is a
little above the default build's count (`make bench`), and the table shows both.
"""

import re

from common.errors import ProjectError
from jobs import options, registry
from soc import config, console_protocol as protocol, keys as soc_keys

#: The operation split (the bench's row of the same name).
OP = "private_crt"
#: The parts of each step, in the order the firmware prints them.
PARTS = ("cpu", "transfer", "wait")
_STEP = re.compile(r"(\w+)=(\d+),(\d+),(\d+)")


def message(bits):
    """The fixed message: bytes a5 over all but the modulus' top byte (below any modulus of `bits` bits)."""
    return int("a5" * (bits // 8 - 1), 16)


def parse_profile(output):
    """{step: {"cpu", "transfer", "wait"}} from the one profile line of `output`, in the firmware's order."""
    lines = [line for line in output.splitlines() if line.startswith(protocol.PROFILE_PREFIX + " ")]
    if len(lines) != 1:
        raise ProjectError(f"expected one `{protocol.PROFILE_PREFIX}` line (a firmware built with -DRSA_PROFILE), "
                           f"found {len(lines)} in:\n{output}")
    steps = {name: dict(zip(PARTS, map(int, values)))
             for name, *values in _STEP.findall(lines[0][len(protocol.PROFILE_PREFIX):])}
    if not steps:
        raise ProjectError(f"a `{protocol.PROFILE_PREFIX}` line without steps: {lines[0]}")
    return steps


def table(bits, impl, cycles, steps, default_cycles=None):
    """The split as Markdown: a row a step (its parts and its total), the totals, the counts."""
    rows = [f"RSA-{bits} {OP} on {impl}: {cycles:,} cycles in the instrumented build"
            + (f" ({default_cycles:,} in the default build)" if default_cycles else ""), "",
            "| step | CPU | transfers | peripheral (waits) | total |", "|---|---:|---:|---:|---:|"]
    totals = dict.fromkeys(PARTS, 0)
    for name, parts in steps.items():
        rows.append(f"| {name} | " + " | ".join(f"{parts[p]:,}" for p in PARTS) + f" | {sum(parts.values()):,} |")
        for part in PARTS:
            totals[part] += parts[part]
    rows.append("| **all** | " + " | ".join(f"{totals[p]:,}" for p in PARTS) + f" | {sum(totals.values()):,} |")
    return "\n".join(rows)


def add_arguments(parser):
    options.add_size(parser, default=2048)
    options.add_impls(parser, default=("hw_seq",), allowed=protocol.CONSTANT_TIME_IMPLS)


def main(args, log):
    from link.console import Timed, UnexpectedAnswer
    from sim import build as sim_build

    if args.build_dir is None:
        args.build_dir = str(sim_build.cpu_build_dir(config.CPU_TYPE, config.CPU_VARIANT)) + "-split"
    args.firmware_cflags = (args.firmware_cflags + " -DRSA_PROFILE").strip()
    build = options.simulation(args, log)
    key = soc_keys.bench_keys((args.size,))[0]
    text = message(args.size)
    expected = pow(text, key["d"], key["n"])
    console = options.open_console(args, build)
    try:
        console.set_key(key)
        for impl in args.impls:
            command = f"time {OP} {impl} {text:x}"
            output = console.command(command)
            timed = [t for t in (Timed.parse(line) for line in output.splitlines()) if t]
            if len(timed) != 1 or not timed[0].ok or timed[0].result != expected:
                raise UnexpectedAnswer(command, "not one right result", output)
            print(table(args.size, impl, timed[0].cycles, parse_profile(output)))
            print()
    finally:
        console.close()
    return 0


registry.register(registry.Job(
    "split", "where RSA CRT's cycles go: CPU, transfers, peripheral, step by step", main,
    add_arguments=add_arguments, groups=(options.BUILD,), timeout=1800, description=__doc__.split("\n\n")[0]))
