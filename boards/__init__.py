"""Board descriptions: the simulated board (`sim`) and the PYNQ-Z2 (`pynq_z2`)."""
