"""The one driver of the Montgomery peripheral, over swappable transports.

``Driver`` sequences the bus contract of ``gateware.interface``: command words, slots split into
32-bit words, reads that wait for ``rdata`` to follow the read pointer, the status word decoded
through ``interface.Status``, and the cycle count of a command (the accepting strobe counts as 1,
then every cycle ``busy`` reads 1).  A transport moves the port values and nothing else::

    async def strobe(port, value=0)  # one cycle with <port>_stb high ("cmd", "wdata", "rdata")
    async def tick(count=1)           # clock cycles without strobes
    async def sample()                # (status word, rdata word) now; rdata may be None
    async def wait(busy_mask, limit)  # cycles until status & busy_mask == 0, or None if not observable
    irqs                              # irq pulses seen so far, or None if not observable

Transports: ``SimulationTransport`` (an Amaranth testbench and the RTL), ``PeripheralModelTransport``
(``gateware.model``), ``sim.montmul_verilator.VerilatorTransport`` (the Verilog in Verilator) and
``boards.amaranth_pynq_z2.SerialTransport`` (the board's serial bridge).  Over a transport that never
suspends (the model, Verilator, a serial link with blocking I/O) ``BlockingDriver`` calls the driver
without ``await``.

``mul_cycles(config, bits)`` measures a MUL on the RTL in the Amaranth simulator, ``pair_mul_cycles``
a MUL_PAIR; ``gateware.model.mul_cycles`` and ``pair_mul_cycles`` are the same figures from the schedule.

    python -c "from gateware.driver import mul_cycles; print(mul_cycles(bits=2048))"
"""

import functools
import inspect

from amaranth.lib import data
from amaranth.sim import Simulator

from common.errors import ProjectError

from .interface import BUS_BITS, WORD_BITS, MIN_WORDS, Opcode, Status, PeripheralConfig, pack_cmd, bus_words
from . import model
from .simulation import simulation_fragment

__all__ = ["decode_status", "BUSY_MASK", "PeripheralError", "Driver", "BlockingDriver", "complete",
           "SimulationTransport", "PeripheralModelTransport", "simulate", "mul_cycles", "pair_mul_cycles"]

#: The status bits that read 1 while a command runs.
BUSY_MASK = Status.const({"busy": 1}).as_bits()
#: Cycles a command may take before the driver gives up (a 4096-bit window EXP takes about 3.5e6).
DEFAULT_LIMIT = 50_000_000


def decode_status(word):
    """The status word's fields: {"busy": 0/1, "done": 0/1, "error": ErrorCode value}, and "equal": 1
    when that bit is set (the last EQUAL found its operands equal), so that the other commands' statuses
    read as they always did."""
    fields = data.Const(Status, word)
    status = {"busy": fields.busy, "done": fields.done, "error": fields.error.value}
    if fields.equal:
        status["equal"] = 1
    return status


class PeripheralError(ProjectError):
    """The peripheral refused an access the driver needed, or never finished a command."""


def _split(value, count):
    if not 0 <= value < 1 << (BUS_BITS * count):
        raise ValueError(f"{value:#x} does not fit {count} bus words")
    return [value >> (BUS_BITS * k) & ((1 << BUS_BITS) - 1) for k in range(count)]


class Driver:
    """Commands and slot transfers over ``transport`` (async; see the module docstring)."""

    def __init__(self, transport):
        self.transport = transport

    @property
    def irqs(self):
        return self.transport.irqs

    async def tick(self, count=1):
        await self.transport.tick(count)

    async def read_status(self):
        word, _ = await self.transport.sample()
        return decode_status(word)

    async def strobe_cmd(self, op, dst=0, a=0, b=0, arg=0):
        """Strobe a command word and return at once (the command may still be running)."""
        await self.transport.strobe("cmd", pack_cmd(op, dst, a, b, arg))

    async def run(self, op, dst=0, a=0, b=0, arg=0, limit=DEFAULT_LIMIT):
        """Strobe a command and wait until it is done or refused; return (cycles, status).  Cycles
        count the accepting strobe as 1 (a NOP takes 1); None where the transport cannot see them."""
        await self.strobe_cmd(op, dst, a, b, arg)
        edges = await self.wait(limit)
        return (None if edges is None else 1 + edges), await self.read_status()

    async def wait(self, limit=DEFAULT_LIMIT):
        """Wait until ``busy`` reads 0; return the cycles waited (None where not observable)."""
        return await self.transport.wait(BUSY_MASK, limit)

    async def _accepted(self, op, **fields):
        _, status = await self.run(op, **fields)
        if status["error"]:
            raise PeripheralError(f"{op.name} {fields} refused: {status}")

    async def write_words(self, words):
        """Data words at the write pointer, one per cycle."""
        for word in words:
            await self.transport.strobe("wdata", word)

    async def read_words(self, count):
        """``count`` data words from the read pointer, leaving it on the last one."""
        words = []
        for k in range(count):
            await self.transport.tick()             # rdata follows the pointer 2 cycles after it moves
            _, word = await self.transport.sample()
            words.append(word)
            if k != count - 1:
                await self.transport.strobe("rdata")
        return words

    async def write_slot(self, slot, value, nwords):
        """``value`` into the low ``nwords`` bus words of ``slot``."""
        await self._accepted(Opcode.WRITE, dst=slot)
        await self.write_words(_split(value, nwords))

    async def read_slot(self, slot, nwords):
        """The low ``nwords`` bus words of ``slot``, as one integer."""
        await self._accepted(Opcode.READ, a=slot)
        words = await self.read_words(nwords)
        return sum(word << (BUS_BITS * k) for k, word in enumerate(words))

    async def setmod(self, slot, size, bank=0):
        return await self.run(Opcode.SETMOD, dst=bank, a=slot, arg=size)

    async def mul(self, dst, a, b):
        return await self.run(Opcode.MUL, dst, a, b)

    async def mul_pair(self, dst, a, b, a_words=0):
        """MUL_PAIR: both contexts (rows 0 and 1 of the slots, banks 0 and 1) at once; with ``a_words``,
        both multiply by slot a's low ``a_words`` words."""
        return await self.run(Opcode.MUL_PAIR, dst, a, b, a_words)

    async def exp_pair(self, dst, base, exponent, exponent_bits):
        """EXP_FIXED_PAIR: EXP_FIXED in both contexts at once (see ``exp``)."""
        return await self.run(Opcode.EXP_FIXED_PAIR, dst, base, exponent, exponent_bits)

    async def write_pair(self, slot, values, config):
        """Context 0's and context 1's operands into ``slot`` (rows 0 and 1)."""
        await self.write_slot(slot, values[0] | values[1] << (BUS_BITS * config.pair_offset),
                              2 * config.pair_offset)

    async def read_pair(self, slot, config):
        """(context 0's, context 1's) operand of ``slot``: its rows 0 and 1 as integers."""
        value = await self.read_slot(slot, 2 * config.pair_offset)
        row = (1 << (BUS_BITS * config.pair_offset)) - 1
        return value & row, value >> (BUS_BITS * config.pair_offset)

    async def exp(self, dst, base, exponent, exponent_bits, op=Opcode.EXP_WINDOW):
        """``dst`` (holding the Montgomery one, R mod N) becomes base^exponent in the Montgomery
        domain; ``base`` and ``exponent`` are slots, ``op`` is EXP_WINDOW, EXP_LADDER or EXP_FIXED."""
        return await self.run(op, dst, base, exponent, exponent_bits)

    async def add(self, dst, a, b):
        """ADD: dst = (a + b) mod N (bank 0)."""
        return await self.run(Opcode.ADD, dst, a, b)

    async def sub(self, dst, a, b):
        """SUB: dst = (a - b) mod N (bank 0)."""
        return await self.run(Opcode.SUB, dst, a, b)

    async def copy(self, dst, a, bank=0):
        """COPY: context ``bank``'s operand of slot ``a`` (its row ``bank``, below that bank's size) as a
        single operand in ``dst``."""
        return await self.run(Opcode.COPY, dst, a, arg=bank)

    async def equal(self, a, b):
        """EQUAL: (cycles, status, whether the words of ``a`` and ``b`` below bank 0's size are equal)."""
        cycles, status = await self.run(Opcode.EQUAL, a=a, b=b)
        return cycles, status, bool(status.get("equal"))

    async def clear(self):
        """CLEAR: every slot, both modulus banks and the core's memories zeroed, no modulus in force
        afterwards; (cycles, status), the cycles being the configuration's ``clear_cycles``."""
        return await self.run(Opcode.CLEAR)

    async def load_modulus(self, n, size, slot=0, bank=0, word_bits=WORD_BITS):
        """Write N into ``slot`` and make it the modulus of ``bank`` (``size`` words of ``word_bits``
        bits); return SETMOD's (cycles, status)."""
        await self.write_slot(slot, n, bus_words(size, word_bits))
        cycles, status = await self.setmod(slot, size, bank)
        if status["error"]:
            raise PeripheralError(f"SETMOD refused: {status}")
        return cycles, status


def complete(coroutine):
    """Run a coroutine that never suspends (its transport does blocking I/O) to its end."""
    try:
        coroutine.send(None)
    except StopIteration as stop:
        return stop.value
    coroutine.close()
    raise RuntimeError("the transport suspended: run this driver in an event loop")


class BlockingDriver:
    """``Driver``'s methods called without ``await``, over a transport that never suspends."""

    def __init__(self, transport):
        self.driver = Driver(transport)

    def __getattr__(self, name):
        attribute = getattr(self.driver, name)
        if not inspect.iscoroutinefunction(attribute):
            return attribute

        @functools.wraps(attribute)
        def call(*args, **kwargs):
            return complete(attribute(*args, **kwargs))
        return call


# ---- transports --------------------------------------------------------------------------------

class SimulationTransport:
    """The ports of ``dut`` (a ``MontgomeryPeripheral``) from an Amaranth async testbench."""

    def __init__(self, ctx, dut):
        self.ctx = ctx
        self.dut = dut
        self.irqs = 0

    async def tick(self, count=1):
        for _ in range(count):
            await self.ctx.tick()
            if self.ctx.get(self.dut.irq):
                self.irqs += 1

    async def strobe(self, port, value=0):
        if port != "rdata":
            self.ctx.set(getattr(self.dut, port), value)
        strobe = getattr(self.dut, f"{port}_stb")
        self.ctx.set(strobe, 1)
        await self.tick()
        self.ctx.set(strobe, 0)

    async def sample(self):
        return self.ctx.get(self.dut.status), self.ctx.get(self.dut.rdata)

    async def wait(self, busy_mask, limit):
        edges = 0
        while self.ctx.get(self.dut.status) & busy_mask:
            if edges == limit:
                raise PeripheralError(f"still busy after {limit} cycles")
            await self.tick()
            edges += 1
        return edges


class PeripheralModelTransport:
    """The ports of a ``gateware.model.PeripheralModel``, the Python model of the peripheral (not
    ``link.transport.SocModelTransport``, the pipe to the whole simulated SoC)."""

    def __init__(self, peripheral):
        self.model = peripheral

    @property
    def irqs(self):
        return self.model.irq_count

    async def tick(self, count=1):
        self.model.idle(count)

    async def strobe(self, port, value=0):
        if port == "rdata":
            self.model.edge(rdata_stb=True)
        else:
            self.model.edge(**{port: value})

    async def sample(self):
        return self.model.status, self.model.rdata

    async def wait(self, busy_mask, limit):
        edges = 0
        if self.model.status & busy_mask:
            edges = self.model.edges_to_idle
            if edges > limit:
                raise PeripheralError(f"still busy after {limit} cycles")
            self.model.idle(edges)
        return edges


def simulate(config, testbench, vcd=None, driver_class=Driver):
    """Run ``await testbench(driver)`` against a fresh peripheral in the Amaranth simulator; return
    its result.  The peripheral's comb logic is split for the simulator (``gateware.simulation``): the
    same behaviour, about a third less work per cycle."""
    from .montmul import MontgomeryPeripheral

    dut = MontgomeryPeripheral(config)
    sim = Simulator(simulation_fragment(dut))
    sim.add_clock(1e-8)
    result = {}

    async def bench(ctx):
        result["value"] = await testbench(driver_class(SimulationTransport(ctx, dut)))

    sim.add_testbench(bench)
    if vcd:
        with sim.write_vcd(vcd):
            sim.run()
    else:
        sim.run()
    return result.get("value")


def mul_cycles(config=PeripheralConfig(), bits=1024):
    """Cycles of one MUL at the size of a ``bits``-bit modulus, measured on the RTL (the count does not
    depend on the values); ValueError if the size does not fit ``config``."""
    w = config.word_bits
    size = model.size_words(bits, w)
    if not MIN_WORDS <= size <= config.max_words:
        raise ValueError(f"a {bits}-bit modulus does not fit this configuration (max_bits={config.max_bits})")
    n = (1 << (w * size - 1)) | 1
    a, b = n // 3, n // 5

    async def bench(driver):
        await driver.load_modulus(n, size, word_bits=w)
        await driver.write_slot(1, a, config.bus_words(size))
        await driver.write_slot(2, b, config.bus_words(size))
        cycles, status = await driver.mul(3, 1, 2)
        if status["error"] or await driver.read_slot(3, config.bus_words(size)) != model.mont_mul(a, b, n, size, w):
            raise PeripheralError(f"the MUL measured at {bits} bits went wrong: {status}")
        return cycles

    return simulate(config, bench)


def pair_mul_cycles(config=PeripheralConfig(), bits=1024):
    """Cycles of one MUL_PAIR of two products at the size of a ``bits``-bit modulus (one per bank),
    measured on the RTL; ValueError if the pair does not fit ``config`` (``model.pair_mul_cycles``)."""
    model.pair_mul_cycles(config, bits, bits)
    w = config.word_bits
    size = model.size_words(bits, w)
    moduli = ((1 << (w * size - 1)) | 1, (1 << (w * size - 1)) | 3)
    a, b = tuple(n // 3 for n in moduli), tuple(n // 5 for n in moduli)

    async def bench(driver):
        for bank, n in enumerate(moduli):
            await driver.load_modulus(n, size, bank=bank, word_bits=w)
        await driver.write_pair(1, a, config)
        await driver.write_pair(2, b, config)
        cycles, status = await driver.mul_pair(3, 1, 2)
        expected = tuple(model.mont_mul(x, y, n, size, w) for x, y, n in zip(a, b, moduli))
        if status["error"] or await driver.read_pair(3, config) != expected:
            raise PeripheralError(f"the MUL_PAIR measured at {bits} bits went wrong: {status}")
        return cycles

    return simulate(config, bench)
