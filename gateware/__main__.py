"""``python -m gateware --report``: the peripheral's cycles, resources and timing estimate;
``python -m gateware --sweep``: the same for several configurations side by side.

The command lives in ``eda.report`` with the rest of the synthesis and timing tooling."""

import sys

from eda.report import main

if __name__ == "__main__":
    sys.exit(main())
