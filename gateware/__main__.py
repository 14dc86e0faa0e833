"""``python -m gateware --report``: the peripheral's cycles, resources and timing estimate;
``python -m gateware --sweep``: the same for several configurations side by side;
``python -m gateware --prove``: SymbiYosys proofs about it (constant time; build/formal/report.md).

The commands live in ``eda`` with the rest of the synthesis, timing and formal tooling."""

import sys

if __name__ == "__main__":
    if "--prove" in sys.argv[1:]:
        from eda.formal import main
        sys.exit(main([arg for arg in sys.argv[1:] if arg != "--prove"]))
    from eda.report import main
    sys.exit(main())
