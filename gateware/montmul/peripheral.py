"""The bus-facing Montgomery peripheral: bus pointers, command decode and refusals, status and irq.

The contract (command word, opcodes, error codes, status word) is ``gateware.interface``.  This module
wires the components (``CommandDecoder`` decides, in the cycle a command is strobed, whether it is
accepted; ``DataPort`` holds the bus pointers) and keeps the status:

* WRITE / READ set the write / read pointer to the first 32-bit word of a slot; ``wdata_stb`` writes a word
  and advances, ``rdata_stb`` advances (``rdata`` follows the read pointer within two cycles).
* SETMOD goes to the ``ModulusUnit`` (``dst`` names the bank), MUL and MUL_PAIR straight to the
  ``MontMulCore``, the exponent schemes' opcodes (``EXPONENT_SCHEMES``: EXP_WINDOW, EXP_LADDER, EXP_FIXED
  and EXP_FIXED_PAIR) to the ``ExponentSequencer``,
  which issues its products to the same core, ADD, SUB, COPY and EQUAL to the ``WordSerialUnit``.  A
  configuration without pairs (one row per slot) refuses the pair opcodes as BAD_OPCODE.
* CLEAR walks a row counter over every operand row, one a cycle: ``wipe`` tells the register file, the
  core, SETMOD's unit and the sequencer to zero that row of each memory and the registers holding words
  of operands, so it takes ``PeripheralConfig.clear_cycles`` cycles whatever they hold.
* ``status`` shows busy (one of them runs), done (the last command completed), equal (the answer of
  the last EQUAL; CLEAR sets it to 0 when accepted) and the error code of the last refused command or
  access; ``irq`` pulses for one cycle when a multi-cycle command ends or a
  command is refused.  ``rdata`` is only meaningful while not busy.
"""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..interface import (BUS_BITS, NUM_SLOTS, NUM_BANKS, MIN_WORDS, SLOT_FIELD_BITS, EXPONENT_SCHEMES, Opcode,
                         ErrorCode, Command, Status, PeripheralConfig)
from .core import MontMulCore
from .modulus import ModulusStateSignature, ModulusUnit
from .regfile import ReadPortSignature, RegisterFile, WordWriteSignature, row_address
from .sequencer import ExponentSequencer
from .wordserial import WordSerialUnit

__all__ = ["CommandDecoder", "DataPort", "MontgomeryPeripheral"]


#: The word-serial unit's commands.
SERIAL_OPCODES = (Opcode.ADD, Opcode.SUB, Opcode.COPY, Opcode.EQUAL)
#: The exponentiations over both contexts of a pair (the schemes' pair opcodes).
PAIR_EXP_OPCODES = tuple(scheme.pair_opcode for scheme in EXPONENT_SCHEMES if scheme.pair_opcode is not None)

class CommandDecoder(wiring.Component):
    """The checks of a command word against the moduli in force (combinational), made while ``strobe``
    (only then: Verilator then evaluates them only in the cycle of a command).  ``error`` is why it
    would be refused, NONE if it would be accepted; then at most one of ``setmod``, ``mul`` (with
    ``mul_pair``), ``exp``, ``word_serial``, ``clear`` names the engine it starts, and ``write_pointer``/``read_pointer`` a pointer it
    sets (``immediate``: it completes at once)."""

    def __init__(self, config):
        self.config = config
        super().__init__({
            "strobe":        In(1),
            "command":       In(Command),
            "modulus":       In(ModulusStateSignature(config)),
            "modulus1":      In(ModulusStateSignature(config)),
            "error":         Out(ErrorCode),
            "immediate":     Out(1),
            "write_pointer": Out(1),
            "read_pointer":  Out(1),
            "setmod":        Out(1),
            "mul":           Out(1),
            "mul_pair":      Out(1),
            "exp":           Out(1),
            "word_serial":   Out(1),
            "clear":         Out(1),
        })

    def _word_serial_cases(self, m, refuse, accept, bad_dst, bad_a, bad_b):
        """The word-serial unit's commands (ADD, SUB, EQUAL, COPY), inside elaborate's switch."""
        cfg, cmd, state, state1 = self.config, self.command, self.modulus, self.modulus1
        arg = cmd.arg
        with m.Case(Opcode.ADD, Opcode.SUB):
            with m.If(bad_dst | bad_a | bad_b):
                refuse(ErrorCode.BAD_SLOT)
            with m.Elif(~state.valid):
                refuse(ErrorCode.NO_MODULUS)
            with m.Else():
                accept(self.word_serial)
        with m.Case(Opcode.EQUAL):
            with m.If(bad_a | bad_b):
                refuse(ErrorCode.BAD_SLOT)
            with m.Elif(~state.valid):
                refuse(ErrorCode.NO_MODULUS)
            with m.Else():
                accept(self.word_serial)
        with m.Case(Opcode.COPY):
            with m.If(bad_dst | bad_a):
                refuse(ErrorCode.BAD_SLOT)
            with m.Elif((arg >= NUM_BANKS) | ((arg == 1) & (not cfg.has_pairs))):
                refuse(ErrorCode.BAD_BANK)
            with m.Elif(~Mux(arg[0], state1.valid, state.valid)):
                refuse(ErrorCode.NO_MODULUS)
            with m.Else():
                accept(self.word_serial)

    def elaborate(self, platform):
        m = Module()
        cfg = self.config
        cmd, state, state1 = self.command, self.modulus, self.modulus1
        arg = cmd.arg
        bad_dst = cmd.dst >= NUM_SLOTS
        bad_a = cmd.a >= NUM_SLOTS
        bad_b = cmd.b >= NUM_SLOTS
        aliased = (cmd.dst == cmd.a) | (cmd.dst == cmd.b)

        def refuse(code):
            m.d.comb += self.error.eq(code)

        def accept(action):
            m.d.comb += action.eq(1)

        with m.If(self.strobe), m.Switch(cmd.op.as_value()):
            with m.Case(Opcode.NOP):
                accept(self.immediate)
            with m.Case(Opcode.CLEAR):
                accept(self.clear)
            with m.Case(Opcode.WRITE):
                with m.If(bad_dst):
                    refuse(ErrorCode.BAD_SLOT)
                with m.Else():
                    accept(self.immediate)
                    accept(self.write_pointer)
            with m.Case(Opcode.READ):
                with m.If(bad_a):
                    refuse(ErrorCode.BAD_SLOT)
                with m.Else():
                    accept(self.immediate)
                    accept(self.read_pointer)
            with m.Case(Opcode.SETMOD):
                bank1 = cmd.dst == 1
                with m.If(bad_a):
                    refuse(ErrorCode.BAD_SLOT)
                with m.Elif((cmd.dst >= NUM_BANKS) | (bank1 & (not cfg.has_pairs))):
                    refuse(ErrorCode.BAD_BANK)
                with m.Elif((arg < MIN_WORDS) | (arg > Mux(bank1, cfg.pair_max_words, cfg.max_words))):
                    refuse(ErrorCode.BAD_SIZE)
                with m.Else():
                    accept(self.setmod)
            with m.Case(Opcode.MUL):
                with m.If(bad_dst | bad_a | bad_b):
                    refuse(ErrorCode.BAD_SLOT)
                with m.Elif(~state.valid):
                    refuse(ErrorCode.NO_MODULUS)
                with m.Else():
                    accept(self.mul)
            with m.Case(*(scheme.opcode for scheme in EXPONENT_SCHEMES)):
                with m.If(bad_dst | bad_a | bad_b):
                    refuse(ErrorCode.BAD_SLOT)
                with m.Elif(~state.valid):
                    refuse(ErrorCode.NO_MODULUS)
                with m.Elif(aliased):
                    refuse(ErrorCode.ALIAS)
                with m.Elif((arg == 0) | (arg > state.size * cfg.word_bits)):
                    refuse(ErrorCode.BAD_EXP_BITS)
                with m.Else():
                    accept(self.exp)
            self._word_serial_cases(m, refuse, accept, bad_dst, bad_a, bad_b)
            if cfg.has_pairs:
                with m.Case(Opcode.MUL_PAIR):
                    with m.If(bad_dst | bad_a | bad_b):
                        refuse(ErrorCode.BAD_SLOT)
                    with m.Elif(~state.valid | ~state1.valid):
                        refuse(ErrorCode.NO_MODULUS)
                    with m.Elif((state.rows != 1) | (arg > cfg.max_words)):
                        refuse(ErrorCode.BAD_SIZE)
                    with m.Else():
                        accept(self.mul)
                        accept(self.mul_pair)
                with m.Case(*PAIR_EXP_OPCODES):
                    with m.If(bad_dst | bad_a | bad_b):
                        refuse(ErrorCode.BAD_SLOT)
                    with m.Elif(~state.valid | ~state1.valid):
                        refuse(ErrorCode.NO_MODULUS)
                    with m.Elif(state.rows != 1):
                        refuse(ErrorCode.BAD_SIZE)
                    with m.Elif(aliased):
                        refuse(ErrorCode.ALIAS)
                    # longer than the larger modulus: two comparisons side by side, not one after a maximum
                    longer = (arg > state.size * cfg.word_bits) & (arg > state1.size * cfg.word_bits)
                    with m.Elif((arg == 0) | longer):
                        refuse(ErrorCode.BAD_EXP_BITS)
                    with m.Else():
                        accept(self.exp)
            with m.Default():
                refuse(ErrorCode.BAD_OPCODE)
        return m


class DataPort(wiring.Component):
    """The bus's data port: the write and read pointers (a slot and a 32-bit word within it).  While
    ``enable`` (the peripheral is idle), ``wdata_stb`` writes ``wdata`` at the write pointer and advances
    it, ``rdata_stb`` advances the read pointer; either one past the slot's end pulses ``overflow``
    instead.  ``set_write``/``set_read`` point to word 0 of ``slot`` (over a strobe in the same cycle).
    ``rdata`` follows the read pointer (a cycle after it moves)."""

    def __init__(self, config):
        self.config = config
        rows = config.operand_rows
        super().__init__({
            "enable":    In(1),
            "slot":      In(SLOT_FIELD_BITS),
            "set_write": In(1),
            "set_read":  In(1),
            "wdata":     In(BUS_BITS),
            "wdata_stb": In(1),
            "rdata_stb": In(1),
            "rdata":     Out(BUS_BITS),
            "overflow":  Out(1),
            "bus_read":  Out(ReadPortSignature(rows, config.row_bits, claim=False)),
            "bus_write": Out(WordWriteSignature(rows, config.lanes)),
        })

    def elaborate(self, platform):
        m = Module()
        cfg = self.config
        bus_per_row = cfg.row_bits // BUS_BITS
        pair_bits = bus_per_row.bit_length() - 1       # bus words per row = 2^pair_bits
        words_per_bus = BUS_BITS // cfg.word_bits       # W-bit words a bus word writes
        bus_words = cfg.bus_words_per_slot
        write_slot = Signal(SLOT_FIELD_BITS)
        write_pos = Signal(range(bus_words + 1))
        read_slot = Signal(SLOT_FIELD_BITS)
        read_pos = Signal(range(bus_words + 1))     # bus_words: past the last word (rdata undefined)

        def in_row(pos):
            return pos[:pair_bits] if pair_bits else C(0, 1)

        m.d.comb += self.bus_read.addr.eq(row_address(cfg, read_slot, read_pos >> pair_bits))
        m.d.comb += self.rdata.eq(
            Array(self.bus_read.data.word_select(k, BUS_BITS) for k in range(bus_per_row))[in_row(read_pos)])
        with m.If(self.enable):
            with m.If(self.wdata_stb):
                with m.If(write_pos == bus_words):
                    m.d.comb += self.overflow.eq(1)
                with m.Else():
                    m.d.comb += [
                        self.bus_write.addr.eq(row_address(cfg, write_slot, write_pos >> pair_bits)),
                        self.bus_write.data.eq(self.wdata),
                        self.bus_write.en.eq(C((1 << words_per_bus) - 1, cfg.lanes) << (in_row(write_pos) * words_per_bus)),
                    ]
                    m.d.sync += write_pos.eq(write_pos + 1)
            with m.If(self.rdata_stb):
                with m.If(read_pos == bus_words):
                    m.d.comb += self.overflow.eq(1)
                with m.Else():
                    m.d.sync += read_pos.eq(read_pos + 1)
        with m.If(self.set_write):
            m.d.sync += [write_slot.eq(self.slot), write_pos.eq(0)]
        with m.If(self.set_read):
            m.d.sync += [read_slot.eq(self.slot), read_pos.eq(0)]
        return m


class MontgomeryPeripheral(wiring.Component):
    """The bus-facing Montgomery peripheral (see ``gateware.interface`` for the contract)."""

    cmd:       In(BUS_BITS)
    cmd_stb:   In(1)
    wdata:     In(BUS_BITS)
    wdata_stb: In(1)
    rdata:     Out(BUS_BITS)
    rdata_stb: In(1)
    status:    Out(BUS_BITS)
    irq:       Out(1)

    def __init__(self, config=PeripheralConfig()):
        self.config = config
        super().__init__()

    def _parts(self, m):
        """The components, and their ports to the register file and to the moduli in force."""
        cfg = self.config
        m.submodules.regfile = regfile = RegisterFile(cfg)
        m.submodules.core = core = MontMulCore(cfg)
        m.submodules.modulus = modulus = ModulusUnit(cfg)
        m.submodules.sequencer = sequencer = ExponentSequencer(cfg)
        m.submodules.decoder = decoder = CommandDecoder(cfg)
        m.submodules.data_port = data_port = DataPort(cfg)
        m.submodules.serial = serial = WordSerialUnit(cfg)
        wiring.connect(m, core.operand_read, regfile.core_read)
        wiring.connect(m, core.operand_write, regfile.core_write)
        wiring.connect(m, core.modulus_read, regfile.modulus_read)
        wiring.connect(m, modulus.read, regfile.setmod_read)
        wiring.connect(m, modulus.write, regfile.modulus_write)
        wiring.connect(m, sequencer.read, regfile.exp_read)
        wiring.connect(m, data_port.bus_read, regfile.bus_read)
        wiring.connect(m, data_port.bus_write, regfile.bus_write)
        wiring.connect(m, serial.read, regfile.serial_read)
        wiring.connect(m, serial.write, regfile.serial_write)
        wiring.connect(m, serial.modulus_read, regfile.serial_modulus_read)
        wiring.connect(m, modulus.state, core.modulus, decoder.modulus, serial.modulus)
        wiring.connect(m, modulus.state1, core.modulus1, decoder.modulus1, serial.modulus1)
        return regfile, core, modulus, sequencer, decoder, data_port, serial

    def _route(self, m, parts, wipe, wipe_row, mul_start, mul_pair):
        """The bus ports and the command's fields to every engine (``parts``: ``_parts``'s)."""
        regfile, core, modulus, sequencer, decoder, data_port, serial = parts
        # The command's fields go to every engine; the core's products are the sequencer's while it
        # starts one, else the one of a MUL command.
        cmd = Command(self.cmd)
        m.d.comb += [decoder.strobe.eq(self.cmd_stb), decoder.command.eq(self.cmd),
                     data_port.slot.eq(Mux(decoder.write_pointer, cmd.dst, cmd.a)), data_port.wdata.eq(self.wdata),
                     data_port.wdata_stb.eq(self.wdata_stb),
                     data_port.rdata_stb.eq(self.rdata_stb), self.rdata.eq(data_port.rdata),
                     modulus.slot.eq(cmd.a), modulus.bank.eq(cmd.dst[0]), modulus.size.eq(cmd.arg),
                     sequencer.dst.eq(cmd.dst), sequencer.base.eq(cmd.a), sequencer.exponent.eq(cmd.b),
                     sequencer.bits.eq(cmd.arg), sequencer.op.eq(cmd.op),
                     serial.op.eq(cmd.op), serial.dst.eq(cmd.dst), serial.a.eq(cmd.a), serial.b.eq(cmd.b),
                     serial.bank.eq(cmd.arg[0]),
                     core.ctl.start.eq(mul_start | sequencer.mul.start),
                     *(unit.wipe.eq(wipe) for unit in (regfile, core, modulus, sequencer, serial)),
                     regfile.wipe_row.eq(wipe_row), core.wipe_row.eq(wipe_row),
                     sequencer.mul.busy.eq(core.ctl.busy), sequencer.mul.done.eq(core.ctl.done)]
        with m.If(sequencer.mul.start):
            m.d.comb += [core.ctl.dst.eq(sequencer.mul.dst), core.ctl.a.eq(sequencer.mul.a),
                         core.ctl.b.eq(sequencer.mul.b), core.ctl.b1.eq(sequencer.mul.b1),
                         core.ctl.pair.eq(sequencer.mul.pair), core.ctl.a_words.eq(0)]
        with m.Else():
            m.d.comb += [core.ctl.dst.eq(cmd.dst), core.ctl.a.eq(cmd.a), core.ctl.b.eq(cmd.b), core.ctl.b1.eq(cmd.b),
                         core.ctl.pair.eq(mul_pair), core.ctl.a_words.eq(cmd.arg)]

    def elaborate(self, platform):
        m = Module()
        cfg = self.config
        regfile, core, modulus, sequencer, decoder, data_port, serial = self._parts(m)

        cmd = Command(self.cmd)
        wipe = Signal()                         # CLEAR runs: row wipe_row of every memory is zeroed
        wipe_row = Signal(range(cfg.operand_rows))
        mul_start = Signal()
        mul_pair = Signal()
        self._route(m, (regfile, core, modulus, sequencer, decoder, data_port, serial), wipe, wipe_row, mul_start,
                    mul_pair)

        # Status.
        done = Signal()
        equal = Signal()
        error = Signal(ErrorCode)
        irq = Signal()
        busy = Signal()
        status = Signal(Status)
        m.d.comb += [status.busy.eq(busy), status.done.eq(done), status.equal.eq(equal), status.error.eq(error),
                     self.status.eq(status), self.irq.eq(irq)]
        m.d.sync += irq.eq(0)

        def finish():
            m.d.sync += [done.eq(1), irq.eq(1)]
            m.next = "IDLE"

        with m.FSM() as fsm:
            m.d.comb += [busy.eq(~fsm.ongoing("IDLE")), data_port.enable.eq(~busy)]
            with m.State("IDLE"):
                with m.If(data_port.overflow):
                    m.d.sync += error.eq(ErrorCode.OVERFLOW)
                with m.If(self.cmd_stb):
                    with m.If(decoder.error == ErrorCode.NONE):
                        m.d.sync += [error.eq(ErrorCode.NONE), done.eq(decoder.immediate)]
                        m.d.comb += [data_port.set_write.eq(decoder.write_pointer),
                                     data_port.set_read.eq(decoder.read_pointer),
                                     modulus.start.eq(decoder.setmod), mul_start.eq(decoder.mul),
                                     mul_pair.eq(decoder.mul_pair), sequencer.start.eq(decoder.exp),
                                     serial.start.eq(decoder.word_serial)]
                        with m.If(decoder.setmod):
                            m.next = "SETMOD"
                        with m.If(decoder.mul):
                            m.next = "MUL"
                        with m.If(decoder.exp):
                            m.next = "EXP"
                        with m.If(decoder.word_serial):
                            m.next = "SERIAL"
                        with m.If(decoder.clear):
                            m.d.sync += [wipe_row.eq(0), equal.eq(0)]
                            m.next = "CLEAR"
                    with m.Else():
                        m.d.sync += [error.eq(decoder.error), irq.eq(1)]
            with m.State("SETMOD"):
                with m.If(modulus.done):
                    finish()
                with m.Elif(modulus.even):
                    m.d.sync += [error.eq(ErrorCode.EVEN_MODULUS), irq.eq(1)]
                    m.next = "IDLE"
            with m.State("MUL"):
                with m.If(core.ctl.done):
                    finish()
            with m.State("EXP"):
                with m.If(sequencer.done):
                    finish()
            with m.State("SERIAL"):
                with m.If(serial.compared):
                    m.d.sync += equal.eq(serial.equal)
                with m.If(serial.done):
                    finish()
            with m.State("CLEAR"):
                m.d.comb += wipe.eq(1)
                m.d.sync += wipe_row.eq(wipe_row + 1)
                with m.If(wipe_row == cfg.operand_rows - 1):
                    finish()

        # Refusals of accesses while busy (after the FSM so that they take priority).
        with m.If(busy & (self.cmd_stb | self.wdata_stb | self.rdata_stb)):
            m.d.sync += error.eq(ErrorCode.BUSY)
            with m.If(self.cmd_stb):
                m.d.sync += irq.eq(1)
        return m
