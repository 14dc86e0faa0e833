"""The fault-injection model of the simulated SoC: what sim/build.py needs to build it, and the host's
side of its hook.

The model is the same Verilog as every other build, Verilated with a configuration file
(verilator_config) that makes the peripheral's state public: every register (a signal assigned on the
clock edge in its Verilog, found by state_elements) and every memory, writable, and the ports the hook
watches, readable. The harness's hook (sim/harness/fault_hook.h, compiled in with SIM_FAULTS) flips one
bit of that state when armed; FaultHook speaks to it over a pair of pipes. The campaign that uses it,
what it faults and how it classifies a run, is `python -m sim faults` (jobs/faults.py).
"""

import re
import time
from dataclasses import dataclass

from common.errors import ProjectError

#: The peripheral's instance in the SoC's Verilator model (LiteX names it after soc/montmul.py's module).
PERIPHERAL_SCOPE = "TOP.sim.montmul"
#: The entropy source's module (soc/entropy.py) and its instance: its registers are fault sites too.
ENTROPY_TOP = "entropy_source"
ENTROPY_SCOPE = f"TOP.sim.{ENTROPY_TOP}"
#: The SHA-256 engine's module (soc/sha256.py) and its instance: its registers are fault sites, and its
#: command strobe is watched (the hook reports each command, `ucmd`), so that a fault lands in a hash.
SHA256_TOP = "sha256_engine"
SHA256_SCOPE = f"TOP.sim.{SHA256_TOP}"
#: The other units whose state is a fault site, in the hook's order (SIM_FAULT_SCOPE after the peripheral's;
#: `ucmd` numbers them from 1), and their scopes.
UNIT_TOPS = (ENTROPY_TOP, SHA256_TOP)
UNIT_SCOPES = (ENTROPY_SCOPE, SHA256_SCOPE)
#: The port of another unit whose strobe is one of its commands (readable in the fault model).
UNIT_COMMAND_PORT = "command_stb"


# ---- the peripheral's state, from its Verilog ----

@dataclass(frozen=True)
class StateElement:
    module: str         # path below the peripheral: "" (the peripheral), "core.lanes", ...
    name: str           # as in the Verilog (an escaped name without its backslash)
    bits: int           # of a register, or of one word of a memory
    depth: int          # words of a memory; 0 for a register
    reads: str = None   # the memory whose read register it is, if it is one


_MODULE = re.compile(r"^module (\\?\S+)\s*\((.*?)^endmodule", re.S | re.M)
_REG = re.compile(r"^\s*reg (?:\[(\d+):(\d+)\] )?(\\\S+ |[A-Za-z_][\w$]*)(?: \[(\d+):(\d+)\])?(?: = [^;]*)?;", re.M)
#: A non-blocking assignment starting a line: in the Verilog Amaranth writes (through Yosys), only
#: clocked processes assign with `<=`; an `assign` of a comparison starts with `assign`.
_CLOCKED = re.compile(r"^\s+(\\\S+ |[A-Za-z_][\w$]*)\s*(?:\[[^\]]*\]\s*)*<=\s*(\\\S+ |[A-Za-z_][\w$]*)?(\[)?", re.M)


def plain_name(name):
    """A Verilog name as the model and the report write it: an escaped name without its backslash."""
    return name.strip().lstrip("\\")


def state_elements(verilog, top="montmul"):
    """{(module path, name): StateElement} of every register and memory of the peripheral's Verilog
    (`top` and its submodules, each named `top.<path>` as Amaranth names them)."""
    elements = {}
    for module, body in _MODULE.findall(verilog):
        module = plain_name(module)
        if module != top and not module.startswith(top + "."):
            continue
        path = module[len(top) + 1:]
        regs = {}
        for m in _REG.finditer(body):
            width = int(m.group(1)) - int(m.group(2)) + 1 if m.group(1) else 1
            depth = abs(int(m.group(4)) - int(m.group(5))) + 1 if m.group(4) else 0
            regs[plain_name(m.group(3))] = (width, depth)
        for m in _CLOCKED.finditer(body):
            name = plain_name(m.group(1))
            if name not in regs:
                raise ProjectError(f"{module}: {name} is assigned on the clock edge but not declared as a reg")
            width, depth = regs[name]
            source = plain_name(m.group(2) or "")
            reads = source if m.group(3) and regs.get(source, (0, 0))[1] else None
            old = elements.get((path, name))
            elements[(path, name)] = StateElement(path, name, width, depth, reads or (old.reads if old else None))
    if not any(e.module == "" for e in elements.values()):
        raise ProjectError(f"no module {top} with registers in the peripheral's Verilog")
    return elements


def _has_input(verilog, top, port):
    """Whether module `top` of `verilog` has an input named `port`."""
    return any(plain_name(module) == top and re.search(rf"^\s*input (?:\[\d+:\d+\] )?{port};", body, re.M)
               for module, body in _MODULE.findall(verilog))


#: The peripheral's ports the fault hook watches (its activity, its resets): readable in the fault model.
WATCHED_PORTS = ("status", "cmd", "cmd_stb", "wdata_stb", "rdata_stb", "rst")

#: The SoC's top module in the model and its scope, and the memories of it that the fault model makes
#: readable for the hook's `dump` (the secret scan, jobs/secrets.py): the RAMs LiteX generates, by the
#: names it gives them (main RAM holds the firmware, its data and its stack; SRAM the BIOS's).
SOC_MODULE = "sim"
SOC_SCOPE = "TOP.sim"
SOC_MEMORIES = ("main_ram", "sram")


def verilator_config(verilog, top="montmul", units=()):
    """The fault model's Verilator configuration: every register and memory of the peripheral
    (state_elements) and of the other units (`units`: (Verilog, top) each, e.g. the entropy source's)
    public and writable, the peripheral's watched ports, the other units' command strobes and the
    SoC's RAMs readable, nothing else. Only the state is made
    public: a public writable signal makes Verilator evaluate the logic it feeds at every step, and
    the peripheral's wires as well made that model 8 times as slow as the plain one (measured with
    every signal public), against 1.5 times with only the state."""
    lines = ["`verilator_config", "// Generated by sim/fault_model.py for the fault-injection model only: do not edit."]
    for text, unit in [(verilog, top), *units]:
        for (module, name) in sorted(state_elements(text, unit)):
            lines.append(f'public_flat_rw -module "{unit}{"." + module if module else ""}" -var "{name}"')
    lines += [f'public_flat_rd -module "{top}" -var "{port}"' for port in WATCHED_PORTS]
    lines += [f'public_flat_rd -module "{unit}" -var "{UNIT_COMMAND_PORT}"' for text, unit in units
              if _has_input(text, unit, UNIT_COMMAND_PORT)]
    lines += [f'public_flat_rd -module "{SOC_MODULE}" -var "{memory}"' for memory in SOC_MEMORIES]
    return "\n".join(lines) + "\n"


# ---- the hook's pipes ----

class FaultHook:
    """The host's side of sim/harness/fault_hook.h: requests on one pipe, answers on the other."""

    def __init__(self):
        import os
        self._os = os
        self.to_model_r, self.to_model = os.pipe()
        self.from_model, self.from_model_w = os.pipe()
        self._buffer = b""

    @property
    def model_fds(self):
        return self.to_model_r, self.from_model_w

    def model_env(self):
        from gateware.interface import Status
        from amaranth.lib import data
        busy = data.Layout.cast(Status)["busy"]
        return {"SIM_FAULT_FDS": f"{self.to_model_r},{self.from_model_w}",
                "SIM_FAULT_SCOPE": ",".join((PERIPHERAL_SCOPE, *UNIT_SCOPES)),
                "SIM_FAULT_BUSY_MASK": hex(1 << busy.offset)}

    def started(self):
        """The model has its ends: close ours of them."""
        for fd in self.model_fds:
            self._os.close(fd)

    def close(self):
        for fd in (self.to_model, self.from_model):
            try:
                self._os.close(fd)
            except OSError:
                pass

    def _line(self, timeout):
        import select
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.from_model], [], [], left)[0]:
                raise ProjectError("the fault hook did not answer")
            data = self._os.read(self.from_model, 65536)
            if not data:
                raise ProjectError("the fault hook's pipe closed (the model exited)")
            self._buffer += data
        line, self._buffer = self._buffer.split(b"\n", 1)
        line = line.decode()
        if line.startswith("error"):
            raise ProjectError(f"the fault hook refused a request: {line}")
        return line

    def request(self, line, until=None, timeout=60.0):
        """Sends `line`; its answer's first line, or every line up to `until` (not included)."""
        self._os.write(self.to_model, (line + "\n").encode())
        if until is None:
            return self._line(timeout)
        lines = []
        while (answer := self._line(timeout)) != until:
            lines.append(answer)
        return lines

    def sites(self):
        """(index, scope, name, bits, elements) of every variable the hook can reach."""
        out = []
        for line in self.request("sites", until="end"):
            parts = line.split()
            out.append((int(parts[1]), parts[2], " ".join(parts[3:-3]), int(parts[-2]), int(parts[-1])))
        return out

    def arm(self, site=0, element=0, bit=0, delay=-1, limit=0):
        answer = self.request(f"arm {site} {element} {bit} {delay} {limit}")
        if answer != "armed":
            raise ProjectError(f"the fault hook answered {answer!r} to arm")

    def peek(self, site, element):
        """The element's value now (an int)."""
        answer = self.request(f"peek {site} {element}")
        if not answer.startswith("value "):
            raise ProjectError(f"the fault hook answered {answer!r} to peek")
        return int(answer.split()[1], 16)

    def dump(self, scope, name, timeout=60.0):
        """Every element of a variable the model makes readable (a RAM): (bytes, bytes per element), the
        elements in order, each least significant byte first."""
        answer = self.request(f"dump {scope} {name}", timeout=timeout)
        word, count, width, text = answer.split(" ", 3)
        if word != "memory" or len(text) != 2 * int(count) * int(width):
            raise ProjectError(f"the fault hook answered {answer[:80]!r} to dump")
        return bytes.fromhex(text), int(width)

    def report(self):
        lines = self.request("report", until="end")
        head = dict(item.split("=") for item in lines[0].split()[1:])
        rows = [line.split() for line in lines[1:]]
        commands = [(int(offset), int(word, 16), int(busy)) for kind, offset, word, busy in
                    (row for row in rows if row[0] == "cmd")]
        unit_commands = [(UNIT_SCOPES[int(unit) - 1], int(offset)) for kind, unit, offset in
                         (row for row in rows if row[0] == "ucmd")]
        return {"fired": head["fired"] == "1", "offset": int(head["offset"]), "span": int(head["span"]),
                "resets": int(head["resets"]), "before": int(head["before"], 16), "after": int(head["after"], 16),
                "commands": commands, "unit_commands": unit_commands}
