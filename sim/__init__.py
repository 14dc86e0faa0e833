"""Runs the SoC and its firmware in a cycle-accurate Verilator simulation."""
