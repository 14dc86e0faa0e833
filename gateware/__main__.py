"""``python -m gateware --report``: the peripheral's cycles, resources and timing estimate (eda/report.py)."""

import sys

from eda.report import main

sys.exit(main())
