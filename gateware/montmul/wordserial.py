"""The word-serial unit: ADD, SUB, COPY and EQUAL over the register file, W bits a cycle.

The commands are the contract's (``gateware.interface``); this is how they run.  No carry crosses more
than a word in a cycle, and no row is latched: the operand memory's read port alternates between a's
row and b's row, and a pair of words (an even one and the next) is selected from each in turn (a mux
from the row, as wide as two words: its cost is that of a one-word mux), with bank 0's pair of N from
the modulus memory's row; then the two words are added one a cycle, with the carries of the words
below:

* ADD: S = a + b (carry ``c_sum``) and T = S - N (``c_fix``, 1: no borrow), as S + ~N + 1;
* SUB: S = a - b as a + ~b + 1 (``c_sum``, 1: no borrow) and T = S + N;
* EQUAL: ``differ`` notes a word of a that differs from b's.

Words go out in pairs: S's into dst's row, T's into the same row of ``SCRATCH_SLOT`` in the cycle
after, so the single write port takes both candidates at the rate they are made.  A size of odd words
runs one word more (its pair's second), which changes no carry and lands above the size.  When the last
pair is written, T is the result if S + (carry) >= N for ADD (``c_sum | c_fix``) and if a < b for SUB
(``~c_sum``): a pass over the rows reads each row of the one chosen (SCRATCH_SLOT or dst itself: every
row is read and written whatever the choice) and writes it into dst's row a cycle later, the words at
and above the size in the last row zeroed on the way (``PairWriteSignature``: a row read in the
previous cycle, copied word by word where ``copy`` says).

Schedule (s words, s' = s rounded up to even, r = ceil(s/lanes) rows, cycle 0 the accepting one,
which reads a's first row): pair p's words of a are selected in cycle 2p + 1 (b's row is read), b's and
N's in cycle 2p + 2 (a's next row is read); its words are added in cycles 2p + 3 and 2p + 4, and written
in the two after (dst's, then the scratch slot's).  The rows are read one a cycle from cycle s' + 4
(s' + 5 with one row: the last pair must be in the scratch slot before its row is read) and written a
cycle later.  ADD and SUB take s' + r + 5 cycles, one more with one row; EQUAL s' + 4 (its answer is
``differ`` after the last word's cycle).  COPY reads row k of a in its accepting cycle, writes it into
dst's row 0 (masked to bank k's size) in the next, then zeroes dst's other rows one a cycle:
1 + rows_per_slot cycles.

``wipe`` (CLEAR, while idle) zeroes every register that held words of operands: the selected words,
the pairs going out and the carries.
"""

from types import SimpleNamespace

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..interface import SIZE_BITS, SLOT_FIELD_BITS, PAIR_ROW, SCRATCH_SLOT, Opcode
from .modulus import ModulusStateSignature
from .regfile import PairWriteSignature, ReadPortSignature, row_address

__all__ = ["WordSerialUnit", "word_mask"]


def word_mask(config, last_row_mask):
    """One bit per word of a row from a modulus' ``last_row_mask``: the words below its size."""
    return Cat(last_row_mask[j * config.word_bits] for j in range(config.lanes))


class WordSerialUnit(wiring.Component):
    """ADD, SUB, COPY and EQUAL (module docstring).

    ``start`` (one cycle, the command already checked by the caller) begins ``op`` on slots ``dst``,
    ``a``, ``b`` (COPY: context ``bank``'s row); ``busy`` is high until the cycle in which ``done``
    pulses, with ``compared`` too after an EQUAL, when ``equal`` is its answer.  The unit claims the
    operand memory's read port (``read``) and the modulus memory's (``modulus_read``) from its accepting
    cycle, and writes through ``write``."""

    def __init__(self, config):
        self.config = config
        super().__init__({
            "start":        In(1),
            "op":           In(Opcode),
            "dst":          In(SLOT_FIELD_BITS),
            "a":            In(SLOT_FIELD_BITS),
            "b":            In(SLOT_FIELD_BITS),
            "bank":         In(1),
            "modulus":      In(ModulusStateSignature(config)),
            "modulus1":     In(ModulusStateSignature(config)),
            "busy":         Out(1),
            "done":         Out(1),
            "compared":     Out(1),
            "equal":        Out(1),
            "read":         Out(ReadPortSignature(config.operand_rows, config.row_bits)),
            "modulus_read": Out(ReadPortSignature(config.modulus_rows, config.row_bits)),
            "write":        Out(PairWriteSignature(config)),
            "wipe":         In(1),
        })

    def _control(self, m, v):
        """The unit's states: the command latched, the pass over the words, the flush, the pass over
        the rows (ADD, SUB), COPY's rows; ``v``: elaborate's signals and helpers."""
        cfg, W, KM, size, rows, ones, log_lanes = v.cfg, v.W, v.KM, v.size, v.rows, v.ones, v.log_lanes
        dst, a_slot, b_slot, subtract, compare, copy_bank = v.dst, v.a_slot, v.b_slot, v.subtract, v.compare, v.copy_bank
        last_pair, word_g, phase, count, a_pair, a_in = v.last_pair, v.word_g, v.phase, v.count, v.a_pair, v.a_in
        b_in, n_in, c_sum, c_fix, differ, s1_low = v.b_in, v.n_in, v.c_sum, v.c_fix, v.differ, v.s1_low
        s1_g, rd, n_rd, read, write_row, word_row = v.s1_g, v.rd, v.n_rd, v.read, v.write_row, v.word_row
        pair_index, use_fix = v.pair_index, v.use_fix
        with m.FSM():
            m.d.comb += self.busy.eq(1)
            with m.State("IDLE"):
                m.d.comb += self.busy.eq(0)
                with m.If(self.start):
                    op = self.op
                    m.d.sync += [dst.eq(self.dst), a_slot.eq(self.a), b_slot.eq(self.b), copy_bank.eq(self.bank),
                                 subtract.eq(op == Opcode.SUB), compare.eq(op == Opcode.EQUAL),
                                 c_sum.eq(op == Opcode.SUB), c_fix.eq(op == Opcode.ADD), differ.eq(0),
                                 last_pair.eq((size - 1) & ~1), word_g.eq(0), phase.eq(0), count.eq(0)]
                    with m.If(op == Opcode.COPY):
                        read(self.a, self.bank * PAIR_ROW)
                        m.next = "COPY"
                    with m.Else():
                        read(self.a, 0)
                        m.next = "WORDS"
            with m.State("WORDS"):
                selected = rd.data.word_select(pair_index, 2 * W)
                m.d.sync += phase.eq(~phase)
                with m.If(~phase):
                    # a's row is on the read port: its pair; b's row next
                    m.d.sync += a_pair.eq(selected)
                    read(b_slot, word_row)
                with m.Else():
                    # b's row and N's: their pairs and a's into the word registers; a's next row next
                    m.d.sync += [a_in.eq(a_pair), b_in.eq(selected),
                                 n_in.eq(n_rd.data.word_select(pair_index, 2 * W)),
                                 s1_low.eq(1), s1_g.eq(word_g), word_g.eq(word_g + 2)]
                    read(a_slot, (word_g + 2) >> log_lanes)
                    with m.If(word_g == last_pair):
                        m.next = "FLUSH"
            with m.State("FLUSH"):
                # the last pair is added, then written into dst and into the scratch slot
                m.d.sync += count.eq(count + 1)
                with m.If(compare & (count == 2)):
                    m.d.comb += [self.done.eq(1), self.compared.eq(1)]
                    m.next = "IDLE"
                # the pass over the rows may read the last row once the scratch slot's pair is in it:
                # a cycle later with one row
                with m.If(~compare & ((count == 3) | ((count == 2) & (rows != 1)))):
                    m.d.sync += count.eq(0)
                    m.next = "SELECT"
            with m.State("SELECT"):
                # row `count` of the chosen candidate read, the row before written into dst
                with m.If(count < rows):
                    read(Mux(use_fix, SCRATCH_SLOT, dst), count)
                with m.If(count != 0):
                    write_row(dst, count - 1, Mux(count == rows, word_mask(cfg, self.modulus.last_row_mask), ones))
                m.d.sync += count.eq(count + 1)
                with m.If(count == rows):
                    m.d.comb += self.done.eq(1)
                    m.next = "IDLE"
            with m.State("COPY"):
                # row k of a, read in the accepting cycle, into dst's row 0, its words below bank k's size
                mask0 = Mux(self.modulus.rows == 1, word_mask(cfg, self.modulus.last_row_mask), ones)
                if cfg.has_pairs:
                    mask = Mux(copy_bank, word_mask(cfg, self.modulus1.last_row_mask), mask0)
                else:
                    mask = mask0
                write_row(dst, 0, mask)
                m.d.sync += count.eq(1)
                if KM == 1:
                    m.d.comb += self.done.eq(1)
                    m.next = "IDLE"
                else:
                    m.next = "ZERO"
            with m.State("ZERO"):
                write_row(dst, count, 0)
                m.d.sync += count.eq(count + 1)
                with m.If(count == KM - 1):
                    m.d.comb += self.done.eq(1)
                    m.next = "IDLE"

    def elaborate(self, platform):
        m = Module()
        cfg = self.config
        L, W, KM = cfg.lanes, cfg.word_bits, cfg.rows_per_slot
        log_lanes = L.bit_length() - 1
        size, rows = self.modulus.size, self.modulus.rows
        ones = C((1 << L) - 1, L)

        # the command, latched at start
        dst = Signal(SLOT_FIELD_BITS, name="dst_slot")
        a_slot = Signal(SLOT_FIELD_BITS, name="a_slot")
        b_slot = Signal(SLOT_FIELD_BITS, name="b_slot")
        subtract = Signal()
        compare = Signal()
        copy_bank = Signal()
        last_pair = Signal(SIZE_BITS)                   # s' - 2, the last pair's first word
        # the pair selected next, its phase (0: a's words, 1: b's and N's), and a count of the final
        # passes' cycles
        word_g = Signal(SIZE_BITS)
        phase = Signal()
        count = Signal(range(max(KM, 3) + 1))
        # data: the selected pairs, the carries, the pairs going out
        a_pair = Signal(2 * W, reset_less=True)
        a_in = Signal(2 * W, reset_less=True)
        b_in = Signal(2 * W, reset_less=True)
        n_in = Signal(2 * W, reset_less=True)
        c_sum = Signal(reset_less=True)
        c_fix = Signal(reset_less=True)
        differ = Signal(reset_less=True)
        s_low = Signal(W, reset_less=True)
        t_low = Signal(W, reset_less=True)
        s_pair = Signal(2 * W, reset_less=True)
        t_pair = Signal(2 * W, reset_less=True)
        # the pipeline: a pair in the word registers, its low word added next (s1_low) then its high word
        # (s1_high); a pair to write into dst (w1) then into the scratch slot (w2)
        s1_low = Signal()
        s1_high = Signal()
        s1_g = Signal(SIZE_BITS)
        w1_valid = Signal()
        w2_valid = Signal()
        pair_g = Signal(SIZE_BITS)

        rd, n_rd, wr = self.read, self.modulus_read, self.write
        m.d.comb += [rd.en.eq(self.start | self.busy), n_rd.en.eq(self.busy), self.equal.eq(~differ)]

        def read(slot, row):
            m.d.comb += rd.addr.eq(row_address(cfg, slot, row))

        def write_row(slot, row, copy):
            """The whole of ``slot``'s row ``row``: the words of the row read last cycle where ``copy``,
            else 0."""
            m.d.comb += [wr.addr.eq(row_address(cfg, slot, row)), wr.en.eq(ones), wr.copy.eq(copy)]

        word_row = word_g >> log_lanes
        pair_index = word_g[1:log_lanes]
        m.d.comb += n_rd.addr.eq(self.modulus.row + word_row)

        # the sum and its correction by N, a word a cycle: the pair's low word, then its high word
        x = Signal(W + 1)
        y = Signal(W + 1)
        half = s1_high
        m.d.comb += [x.eq(a_in.word_select(half, W) + (b_in.word_select(half, W) ^ subtract.replicate(W))
                          + c_sum),
                     y.eq(x[:W] + (n_in.word_select(half, W) ^ (~subtract).replicate(W)) + c_fix)]
        m.d.sync += [s1_low.eq(0), s1_high.eq(s1_low), w1_valid.eq(0), w2_valid.eq(w1_valid)]
        with m.If(s1_low | s1_high):
            with m.If((s1_g | half) < size):
                m.d.sync += [c_sum.eq(x[W]), c_fix.eq(y[W]),
                             differ.eq(differ | (a_in.word_select(half, W) != b_in.word_select(half, W)))]
        with m.If(s1_low):
            m.d.sync += [s_low.eq(x[:W]), t_low.eq(y[:W])]
        with m.If(s1_high):
            m.d.sync += [s_pair.eq(Cat(s_low, x[:W])), t_pair.eq(Cat(t_low, y[:W])), pair_g.eq(s1_g),
                         w1_valid.eq(~compare)]
        pair_en = Cat(pair_g[1:log_lanes] == j // 2 for j in range(L))
        with m.If(w1_valid | w2_valid):
            m.d.comb += [wr.addr.eq(row_address(cfg, Mux(w1_valid, dst, SCRATCH_SLOT), pair_g >> log_lanes)),
                         wr.en.eq(pair_en), wr.data.eq(Mux(w1_valid, s_pair, t_pair))]
        use_fix = Mux(subtract, ~c_sum, c_sum | c_fix)

        self._control(m, SimpleNamespace(cfg=cfg, W=W, KM=KM, size=size, rows=rows, ones=ones, log_lanes=log_lanes,
                                                 dst=dst, a_slot=a_slot, b_slot=b_slot, subtract=subtract,
                                                 compare=compare, copy_bank=copy_bank, last_pair=last_pair,
                                                 word_g=word_g, phase=phase, count=count, a_pair=a_pair, a_in=a_in,
                                                 b_in=b_in, n_in=n_in, c_sum=c_sum, c_fix=c_fix, differ=differ,
                                                 s1_low=s1_low, s1_g=s1_g, rd=rd, n_rd=n_rd, read=read,
                                                 write_row=write_row, word_row=word_row, pair_index=pair_index,
                                                 use_fix=use_fix))

        # the pipeline is empty when a command ends (it always is by then; said here, it is plain that
        # nothing runs on while the unit is idle)
        with m.If(self.done):
            m.d.sync += [s1_low.eq(0), s1_high.eq(0), w1_valid.eq(0), w2_valid.eq(0)]
        with m.If(self.wipe):
            m.d.sync += [register.eq(0) for register in (a_pair, a_in, b_in, n_in, c_sum, c_fix, differ,
                                                         s_low, t_low, s_pair, t_pair)]
        return m
