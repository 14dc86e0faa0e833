"""The timing view of one mapped cell (its ``Arcs``) and helpers to read a cell of a Yosys JSON netlist."""

__all__ = ["Arcs", "param", "pins"]


class Arcs:
    """Timing view of one cell: sequential outputs, combinational arcs, setup checks, and the
    clock pin that launches/captures them (a pin name, or a dict from port name to clock pin)."""
    __slots__ = ("starts", "combs", "ends", "clock")

    def __init__(self, clock="C"):
        self.starts: list[tuple[str, int]] = []            # (output pin, clock-to-out ps)
        self.combs: list[tuple[str, str, int]] = []        # (input pin, output pin, ps)
        self.ends: list[tuple[str, int]] = []              # (input pin, setup ps)
        self.clock = clock

    def clock_pin(self, pin: str) -> str:
        if isinstance(self.clock, dict):
            return self.clock.get(pin.partition("[")[0], "")
        return self.clock


def param(cell: dict, name: str, default=0):
    """A cell parameter. Yosys JSON writes integer parameters as binary strings, string
    parameters as text (padded with a space when the text would look binary)."""
    value = cell.get("parameters", {}).get(name)
    if value is None:
        return default
    if isinstance(value, int):
        return value
    text = str(value)
    if text and set(text) <= {"0", "1", "x", "z"}:
        return int(text.replace("x", "0").replace("z", "0"), 2)
    return text.rstrip(" ")


def pins(cell: dict, port: str) -> list[str]:
    """Pin names of a port: ``port`` when it is one bit wide, ``port[i]`` otherwise."""
    bits = cell["connections"].get(port, [])
    if len(bits) == 1:
        return [port]
    return [f"{port}[{i}]" for i in range(len(bits))]
