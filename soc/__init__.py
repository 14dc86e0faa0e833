"""LiteX glue: the SoC shared by the simulation and the boards, and the peripheral's CSR wrapper."""
