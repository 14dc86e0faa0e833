"""The bus-facing Montgomery peripheral: bus pointers, command decode and refusals, status and irq.

The contract (command word, opcodes, error codes, status word) is ``gateware.interface``.  This module
only wires the components and decides, in the cycle a command is strobed, whether it is accepted:

* WRITE / READ set the write / read pointer to the first 32-bit word of a slot; ``wdata_stb`` writes a word
  and advances, ``rdata_stb`` advances (``rdata`` follows the read pointer within two cycles).
* SETMOD goes to the ``ModulusUnit`` (``dst`` names the bank), MUL and MUL_PAIR straight to the
  ``MontMulCore``, EXP_WINDOW, EXP_LADDER, EXP_FIXED and EXP_FIXED_PAIR to the ``ExponentSequencer``,
  which issues its products to the same core.  A configuration without pairs (one row per slot)
  refuses the pair opcodes as BAD_OPCODE.
* ``status`` shows busy (one of them runs), done (the last command completed) and the error code of the
  last refused command or access; ``irq`` pulses for one cycle when a multi-cycle command ends or a
  command is refused.  ``rdata`` is only meaningful while not busy.
"""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..interface import (WORD_BITS, BUS_BITS, NUM_SLOTS, NUM_BANKS, MIN_WORDS, SLOT_FIELD_BITS, Opcode,
                         ErrorCode, Command, Status, PeripheralConfig)
from .core import MontMulCore
from .modulus import ModulusUnit
from .regfile import RegisterFile, row_address
from .sequencer import ExponentSequencer

__all__ = ["MontgomeryPeripheral"]


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

    def elaborate(self, platform):
        m = Module()
        cfg = self.config
        L = cfg.lanes
        bus_per_row = cfg.row_bits // BUS_BITS
        pair_bits = bus_per_row.bit_length() - 1
        bus_words = cfg.bus_words_per_slot

        m.submodules.regfile = regfile = RegisterFile(cfg)
        m.submodules.core = core = MontMulCore(cfg)
        m.submodules.modulus = modulus = ModulusUnit(cfg)
        m.submodules.sequencer = sequencer = ExponentSequencer(cfg)
        wiring.connect(m, core.operand_read, regfile.core_read)
        wiring.connect(m, core.operand_write, regfile.core_write)
        wiring.connect(m, core.modulus_read, regfile.modulus_read)
        wiring.connect(m, modulus.read, regfile.setmod_read)
        wiring.connect(m, modulus.write, regfile.modulus_write)
        wiring.connect(m, sequencer.read, regfile.exp_read)
        wiring.connect(m, modulus.state, core.modulus)
        wiring.connect(m, modulus.state1, core.modulus1)
        state, state1 = modulus.state, modulus.state1

        # The core's products: the sequencer's, or the one of a MUL command.
        mul_start = Signal()
        mul_pair = Signal()
        m.d.comb += [core.ctl.start.eq(mul_start | sequencer.mul.start),
                     sequencer.mul.busy.eq(core.ctl.busy), sequencer.mul.done.eq(core.ctl.done)]

        # Status.
        done = Signal()
        error = Signal(ErrorCode)
        irq = Signal()
        busy = Signal()
        status = Signal(Status)
        m.d.comb += [status.busy.eq(busy), status.done.eq(done), status.error.eq(error),
                     self.status.eq(status), self.irq.eq(irq)]
        m.d.sync += irq.eq(0)

        # Bus pointers.
        wslot = Signal(SLOT_FIELD_BITS)
        wpos = Signal(range(bus_words + 1))
        rslot = Signal(SLOT_FIELD_BITS)
        rpos = Signal(range(bus_words + 1))     # bus_words: past the last word (rdata undefined)

        def pair(pos):
            return pos[:pair_bits] if pair_bits else C(0, 1)

        m.d.comb += regfile.bus_read.addr.eq(row_address(cfg, rslot, rpos >> pair_bits))
        m.d.comb += self.rdata.eq(
            Array(regfile.bus_read.data.word_select(k, BUS_BITS) for k in range(bus_per_row))[pair(rpos)])

        # Command decode.
        cmd = Command(self.cmd)
        op = cmd.op.as_value()
        arg = cmd.arg
        m.d.comb += [core.ctl.dst.eq(cmd.dst), core.ctl.a.eq(cmd.a), core.ctl.b.eq(cmd.b), core.ctl.b1.eq(cmd.b),
                     core.ctl.pair.eq(mul_pair), core.ctl.a_words.eq(arg),
                     modulus.slot.eq(cmd.a), modulus.bank.eq(cmd.dst[0]), modulus.size.eq(arg),
                     sequencer.dst.eq(cmd.dst), sequencer.base.eq(cmd.a), sequencer.exponent.eq(cmd.b),
                     sequencer.bits.eq(arg), sequencer.op.eq(cmd.op)]
        with m.If(sequencer.mul.start):
            m.d.comb += [core.ctl.dst.eq(sequencer.mul.dst), core.ctl.a.eq(sequencer.mul.a),
                         core.ctl.b.eq(sequencer.mul.b), core.ctl.b1.eq(sequencer.mul.b1),
                         core.ctl.pair.eq(sequencer.mul.pair), core.ctl.a_words.eq(0)]

        def finish():
            m.d.sync += [done.eq(1), irq.eq(1)]
            m.next = "IDLE"

        with m.FSM() as fsm:
            m.d.comb += busy.eq(~fsm.ongoing("IDLE"))
            with m.State("IDLE"):
                # Data port.
                with m.If(self.wdata_stb):
                    with m.If(wpos == bus_words):
                        m.d.sync += error.eq(ErrorCode.OVERFLOW)
                    with m.Else():
                        m.d.comb += [
                            regfile.bus_write.addr.eq(row_address(cfg, wslot, wpos >> pair_bits)),
                            regfile.bus_write.data.eq(self.wdata),
                            regfile.bus_write.en.eq(C(3, L) << (pair(wpos) * 2)),
                        ]
                        m.d.sync += wpos.eq(wpos + 1)
                with m.If(self.rdata_stb):
                    with m.If(rpos == bus_words):
                        m.d.sync += error.eq(ErrorCode.OVERFLOW)
                    with m.Else():
                        m.d.sync += rpos.eq(rpos + 1)

                def refuse(code):
                    m.d.sync += [error.eq(code), irq.eq(1)]

                def accept(immediate):
                    m.d.sync += [error.eq(ErrorCode.NONE), done.eq(1 if immediate else 0)]

                bad_dst = cmd.dst >= NUM_SLOTS
                bad_a = cmd.a >= NUM_SLOTS
                bad_b = cmd.b >= NUM_SLOTS
                with m.If(self.cmd_stb):
                    with m.Switch(op):
                        with m.Case(Opcode.NOP):
                            accept(True)
                        with m.Case(Opcode.WRITE):
                            with m.If(bad_dst):
                                refuse(ErrorCode.BAD_SLOT)
                            with m.Else():
                                accept(True)
                                m.d.sync += [wslot.eq(cmd.dst), wpos.eq(0)]
                        with m.Case(Opcode.READ):
                            with m.If(bad_a):
                                refuse(ErrorCode.BAD_SLOT)
                            with m.Else():
                                accept(True)
                                m.d.sync += [rslot.eq(cmd.a), rpos.eq(0)]
                        with m.Case(Opcode.SETMOD):
                            bank1 = cmd.dst == 1
                            with m.If(bad_a):
                                refuse(ErrorCode.BAD_SLOT)
                            with m.Elif((cmd.dst >= NUM_BANKS) | (bank1 & (not cfg.has_pairs))):
                                refuse(ErrorCode.BAD_BANK)
                            with m.Elif((arg < MIN_WORDS) | (arg > Mux(bank1, cfg.pair_max_words, cfg.max_words))):
                                refuse(ErrorCode.BAD_SIZE)
                            with m.Else():
                                accept(False)
                                m.d.comb += modulus.start.eq(1)
                                m.next = "SETMOD"
                        with m.Case(Opcode.MUL):
                            with m.If(bad_dst | bad_a | bad_b):
                                refuse(ErrorCode.BAD_SLOT)
                            with m.Elif(~state.valid):
                                refuse(ErrorCode.NO_MODULUS)
                            with m.Else():
                                accept(False)
                                m.d.comb += mul_start.eq(1)
                                m.next = "MUL"
                        with m.Case(Opcode.EXP_WINDOW, Opcode.EXP_LADDER, Opcode.EXP_FIXED):
                            with m.If(bad_dst | bad_a | bad_b):
                                refuse(ErrorCode.BAD_SLOT)
                            with m.Elif(~state.valid):
                                refuse(ErrorCode.NO_MODULUS)
                            with m.Elif((cmd.dst == cmd.a) | (cmd.dst == cmd.b)):
                                refuse(ErrorCode.ALIAS)
                            with m.Elif((arg == 0) | (arg > state.size * WORD_BITS)):
                                refuse(ErrorCode.BAD_EXP_BITS)
                            with m.Else():
                                accept(False)
                                m.d.comb += sequencer.start.eq(1)
                                m.next = "EXP"
                        if cfg.has_pairs:
                            pair_size = Mux(state1.size > state.size, state1.size, state.size)
                            with m.Case(Opcode.MUL_PAIR):
                                with m.If(bad_dst | bad_a | bad_b):
                                    refuse(ErrorCode.BAD_SLOT)
                                with m.Elif(~state.valid | ~state1.valid):
                                    refuse(ErrorCode.NO_MODULUS)
                                with m.Elif((state.rows != 1) | (arg > cfg.max_words)):
                                    refuse(ErrorCode.BAD_SIZE)
                                with m.Else():
                                    accept(False)
                                    m.d.comb += [mul_start.eq(1), mul_pair.eq(1)]
                                    m.next = "MUL"
                            with m.Case(Opcode.EXP_FIXED_PAIR):
                                with m.If(bad_dst | bad_a | bad_b):
                                    refuse(ErrorCode.BAD_SLOT)
                                with m.Elif(~state.valid | ~state1.valid):
                                    refuse(ErrorCode.NO_MODULUS)
                                with m.Elif(state.rows != 1):
                                    refuse(ErrorCode.BAD_SIZE)
                                with m.Elif((cmd.dst == cmd.a) | (cmd.dst == cmd.b)):
                                    refuse(ErrorCode.ALIAS)
                                with m.Elif((arg == 0) | (arg > pair_size * WORD_BITS)):
                                    refuse(ErrorCode.BAD_EXP_BITS)
                                with m.Else():
                                    accept(False)
                                    m.d.comb += sequencer.start.eq(1)
                                    m.next = "EXP"
                        with m.Default():
                            refuse(ErrorCode.BAD_OPCODE)

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

        # Refusals of accesses while busy (after the FSM so that they take priority).
        with m.If(busy & (self.cmd_stb | self.wdata_stb | self.rdata_stb)):
            m.d.sync += error.eq(ErrorCode.BUSY)
            with m.If(self.cmd_stb):
                m.d.sync += irq.eq(1)

        return m
