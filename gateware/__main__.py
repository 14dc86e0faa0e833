"""``python -m gateware --report``: see gateware/report.py."""

import sys

from .report import main

sys.exit(main())
