"""The link to a device: its console over a transport (a simulation's process or a serial port) and the
BIOS's serial boot."""
