"""The jobs run on a device (simulated or a board): one module each, built into one command line."""
