"""Tooling around the gateware: Yosys synthesis, our static timing estimate, reports. Not RTL."""
