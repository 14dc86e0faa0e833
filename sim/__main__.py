"""`python -m sim`: the command line of the jobs (jobs/cli.py), run on the simulated SoC or a board."""

import sys

from jobs.cli import main

if __name__ == "__main__":
    sys.exit(main())
