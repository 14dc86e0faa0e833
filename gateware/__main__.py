"""``python -m gateware --report``: the peripheral's cycles, resources and timing estimate.

The command lives in ``eda.report`` with the rest of the synthesis and timing tooling."""

import sys

from eda.report import main

sys.exit(main())
