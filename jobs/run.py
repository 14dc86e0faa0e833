"""`python -m sim run "help; info"`: console commands typed one after another, their output printed."""

import sys

from jobs import options, registry
from soc import console_protocol as protocol


def run_commands(console, commands, out=sys.stdout):
    """Types `commands` one after another, printing the prompt, each command and its output, and
    closes the console. A command longer than the console takes is refused (nothing sent) and the next
    ones still run; returns the number refused."""
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


def add_arguments(parser):
    parser.add_argument("commands", metavar="COMMANDS",
                        help="console commands separated by ';', typed one after another")
    options.add_trace(parser)


def main(args, log):
    commands = [c.strip() for c in args.commands.split(";") if c.strip()]
    build = options.simulation(args, log)
    return 1 if run_commands(options.open_console(args, build), commands) else 0


registry.register(registry.Job(
    "run", "type console commands, print the output", main, add_arguments=add_arguments,
    groups=(options.BUILD, options.SERIAL), timeout=600,
    description="Type console commands, print the output; exit 0 when all ran, 1 when the console "
                "refused one (a line too long for it)."))
