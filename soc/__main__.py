"""`python -m soc --board NAME [options]`: the benchmark SoC for an FPGA board.

    python -m soc --board pynq_z2                  # generate Verilog, constraints, firmware
    python -m soc --board pynq_z2 --report         # + Yosys utilisation and timing estimate
    python -m soc --board pynq_z2 --build --load   # + bitstream (Vivado by default), program it

`python -m soc --board pynq_z2 --help` lists the board's options (LiteX's usual target flags).
The simulated board is run with `python -m sim`.
"""

import argparse
import sys

import boards
from common.errors import reports_errors


@reports_errors
def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = argparse.ArgumentParser(prog="python -m soc", add_help=False,
                                     description="The RSA benchmark SoC on an FPGA board.")
    parser.add_argument("--board", choices=boards.targets(), help="target board (a module of boards/)")
    parser.add_argument("-h", "--help", action="store_true")
    args, rest = parser.parse_known_args(argv)
    if args.board is None:
        parser.print_help()
        return 0 if args.help else 2
    if args.help:
        rest.append("--help")
    return boards.target(args.board).main(rest, prog=f"python -m soc --board {args.board}")


if __name__ == "__main__":
    sys.exit(main())
