"""``python -m gateware --report``: the peripheral's cycles, resources and timing estimate;
``python -m gateware --sweep``: the same for several configurations side by side;
``python -m gateware --prove``: SymbiYosys proofs about it (constant time, refusals' integrity).

The command line is ``gateware.tools.cli``, with the rest of the synthesis, timing and formal tooling."""

import sys

from gateware.tools.cli import main

if __name__ == "__main__":
    sys.exit(main())
