"""The Montgomery multiplier core: one product dst = a*b*R^-1 mod N over the register file.

Architecture
------------
* Word-level Montgomery on W-bit words (``PeripheralConfig.word_bits``, 16 by default).  W = 16 makes
  every word product a single DSP48E1 multiply (16x16 unsigned fits its 25x18 signed multiplier) with
  registered inputs and output, so no product is tiled and no adder in the datapath is wider than 34
  bits.  W = 32 halves the iterations of a product; its lanes form each 32x32 product from three
  DSP48E1 (``lanes.word_product``).  W = 8 makes small, fast test configurations of the same RTL.
* ``lanes`` parallel lanes (default 64, 2 DSP48E1 each).  Lane j owns column j of a row of ``lanes`` words
  and computes ``u_j = a_i*b_j + q*n_j + c_j + t_j``; rows are issued one per cycle.  The accumulator
  is redundant: every column keeps the low word of u_j (which becomes t_{j-1}: the division by 2^W is a
  renaming) and its carry c_j (the high part of u_j, kept in the column).  No carry crosses a column
  within a product, so the only adders are 33-bit (two products) and 34-bit (plus c_j + t_j).
* Quotient pipelining with delay 1 (Orup; ``gateware.quotient_pipelining`` has the arithmetic and its
  derivation): with N' = (n'*N + 1)/2^W (from SETMOD, N' <= N), iteration i adds a_i*B + q_{i-1}*N'
  and its digit q_i is simply the low word of its accumulator, lane 0's low word of the first row: the
  lanes multiply by q_{i-1} while q_i comes out of them, and no quotient multiplier is needed.  The last
  iteration is classic: its row pass is the usual one, then m = (its low word)*n' mod 2^W (one W x W
  multiply per context) and a second pass adds m*N without a product of a and without the division by
  2^W (``LanePipeline``'s classic rows).  An outer iteration takes P = max(rows, 2) cycles
  (rows = ceil(size/lanes)); the second pass comes one iteration after the last (two when P < 4: m is
  ready three cycles after the row that gives it).  The result before the final passes is below 3N.
* The end of a product resolves the redundant form a row at a time while computing the borrows of V - N
  and V - 2N (``.resolve``), then a second row pass writes V, V - N or V - 2N (< N) into the destination
  slot; both passes are value-independent.
* The core copies b into a row buffer in the first iteration (whose rows take b's rows as they are read),
  so the register file's read port is free to fetch rows of a during the loop.

Cycles of one MUL command: P*(size + gap) + 2*rows + 8, one more with several rows (size in W-bit
words, P as above, gap = 1 when P >= 4, else 2); see ``gateware.model`` (the cycle model, checked
against this RTL).  The command's accepting cycle makes the product's first read.

Pairs (MUL_PAIR, EXP_FIXED_PAIR's products): two moduli of one row each, two independent products run
as the two rows of one: row k is context k, with its own operand row, modulus bank and quotient head
(context 1's head runs the same schedule one cycle behind context 0's), so the lanes alternate between
the contexts every cycle instead of waiting every other cycle.  No carry crosses from row 0 to row 1,
and the final passes resolve and select each row on its own, row 0's choice written while row 1's is
still being made.  A pair reads context 0's a row in its accepting cycle, context 1's in the next, then
the two b rows: 2*(iterations + 2) + 12 cycles, iterations being the larger size or, with a shared a,
its length.

Operand contract: b < N and a < R = 2^(W*size) (a >= N is allowed: ab/R + 2N < 3N still holds, so the
three-way final choice reduces fully); the words of an operand slot above the current size are ignored.
A result is written over whole rows: the words of dst above the size up to the end of its last row are
zeroed, rows above are left as they were.
"""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .accumulator import Accumulator
from .control import ProductSignature, ProductControl
from .head import QuotientHead
from .lanes import LanePipeline
from .modulus import ModulusStateSignature
from .regfile import ReadPortSignature, WritePortSignature
from .resolve import ResolvePass, SelectPass

__all__ = ["ProductSignature", "MontMulCore"]


class MontMulCore(wiring.Component):
    """One Montgomery product over the shared register file.

    The core owns the accumulator and the copy of b.  While busy it reads a and b through
    ``operand_read`` (claiming the register file's read port for the whole product), N through
    ``modulus_read``, and writes the result rows through ``operand_write``; ``modulus`` is the modulus in
    force (from SETMOD).

    Schedule (s = size words, K = rows = ceil(s/L), P = max(K, 2) cycles per outer iteration):

    * prologue (4 cycles, the first being the accepting one): read the row of a holding a_0..a_3, read
      the K rows of b (masked above the size, row k read in cycle k + 1 and issued to the lanes in that
      cycle, which take it from the read port and copy it), hand a_0 to the lanes and clear their
      digit register (q_{-1} = 0); a pair has 5 (cycle 1 reads context 1's a row, cycles 2 and 3 the
      contexts' b rows, each issued as it is read);
    * iteration i owns cycles mu_i .. mu_i + P - 1, while the lanes' digit register holds q_{i-1}.  Row
      k is issued at mu_i + k - 3: b/N' row read | DSP input registers | a_i*b_j | q_{i-1}*n'_j and
      z_j = a_i*b_j + c_j + t_j | u_j = q_{i-1}*n'_j + z_j written back.  Row 0 is in the last stage at
      mu_i + 1: its lane 0's low word is q_i, which the head loads into the digit register at
      mu_i + P - 1;
    * after the last iteration (s - 1), the classic pass (rows with N, a = 0, m in the digit register);
    * (with several rows, one cycle for the last to land), then two row passes: resolve the carries
      while computing V - N and the borrows of V - 2N (kept), write V - 2N, V - N or V.

    Its parts: ``ProductControl`` (the schedule), a ``QuotientHead`` per context, the ``LanePipeline``,
    the ``Accumulator``, ``ResolvePass`` and ``SelectPass``.

    ``wipe`` (CLEAR, while the core is idle) zeroes row ``wipe_row`` of the accumulator and of the copy
    of b, and the registers that keep words of a product (digits, a's words, carries).
    """

    def __init__(self, config):
        self.config = config
        rows, n_rows, row = config.operand_rows, config.modulus_rows, config.row_bits
        super().__init__({
            "ctl":           In(ProductSignature()),
            "modulus":       In(ModulusStateSignature(config)),
            "modulus1":      In(ModulusStateSignature(config)),
            "operand_read":  Out(ReadPortSignature(rows, row)),
            "operand_write": Out(WritePortSignature(rows, row)),
            "modulus_read":  Out(ReadPortSignature(n_rows, row, claim=False)),
            "wipe":          In(1),
            "wipe_row":      In(range(rows)),
        })

    def elaborate(self, platform):
        m = Module()
        cfg = self.config
        m.submodules.control = control = ProductControl(cfg)
        m.submodules.lanes = lanes = LanePipeline(cfg)
        m.submodules.accumulator = acc = Accumulator(cfg)
        m.submodules.resolve = resolve = ResolvePass(cfg)
        m.submodules.select = select = SelectPass(cfg)
        heads = [QuotientHead(cfg, context) for context in range(2 if cfg.has_pairs else 1)]
        for context, head in enumerate(heads):
            m.submodules[f"head{context}"] = head

        wiring.connect(m, wiring.flipped(self.ctl), control.ctl)
        wiring.connect(m, wiring.flipped(self.modulus), control.modulus)
        wiring.connect(m, wiring.flipped(self.modulus1), control.modulus1)
        wiring.connect(m, control.b_copy, lanes.b_write)
        wiring.connect(m, select.write, wiring.flipped(self.operand_write))
        rd, n_data = self.operand_read, self.modulus_read.data
        # the register file's read port is the core's for the product, from its accepting cycle (which
        # makes its first read)
        m.d.comb += [self.modulus_read.addr.eq(control.modulus_row),
                     rd.en.eq(self.ctl.busy | self.ctl.start)]

        # the heads: context k's schedule and n', the lanes' s4 (lane 0's low word gives q_i); they feed the
        # lanes a_i and the digits
        for context, (head, modulus) in enumerate(zip(heads, (self.modulus, self.modulus1))):
            wiring.connect(m, control.schedule[context], head.schedule)
            m.d.comb += [head.n_inv.eq(modulus.n_inv),
                         head.lane_valid.eq(lanes.s4_valid), head.lane_row.eq(lanes.s4_row),
                         head.lane_classic.eq(lanes.s4_classic), head.lane_low0.eq(lanes.column_sum[0][:cfg.word_bits]),
                         lanes.a_load[context].eq(head.a_lane_load), lanes.a_word[context].eq(head.a_lane),
                         lanes.quotient_update[context].eq(head.update),
                         lanes.quotient[context].eq(head.next_quotient),
                         resolve.top_carry[context].eq(lanes.top_carry[context])]

        # the operand read port: the control's prologue reads over the heads' (context 1's over 0's)
        readers = [control.operand_read, *reversed([head.operand_read for head in heads])]
        m.d.comb += [reader.data.eq(rd.data) for reader in readers]
        with m.If(readers[0].en):
            m.d.comb += rd.addr.eq(readers[0].addr)
        for reader in readers[1:]:
            with m.Elif(reader.en):
                m.d.comb += rd.addr.eq(reader.addr)

        m.d.comb += [
            lanes.issue.eq(control.issue), lanes.issue_row.eq(control.issue_row), lanes.first.eq(control.first),
            lanes.issue_classic.eq(control.issue_classic),
            lanes.modulus_row.eq(n_data), lanes.pair.eq(control.pair), lanes.rows.eq(control.rows),
            lanes.acc_next_low0.eq(acc.next_low0),
            acc.lane_read_row.eq(lanes.s3_row), acc.lane_write.eq(lanes.s4_valid),
            acc.lane_write_row.eq(lanes.s4_row),
            acc.resolve_read.eq(control.resolve_issue), acc.resolve_row.eq(control.resolve_row),
            acc.select_read.eq(control.select_issue), acc.select_row.eq(control.select_row),
            acc.resolved.eq(resolve.valid), acc.resolved_row.eq(resolve.row),
            resolve.issue.eq(control.resolve_issue), resolve.issue_row.eq(control.resolve_row),
            resolve.rows.eq(control.rows), resolve.pair.eq(control.pair),
            resolve.clear.eq(control.resolve_clear | self.wipe),
            resolve.acc_next_low0.eq(acc.next_low0), resolve.modulus_row.eq(n_data),
            resolve.select_row.eq(control.select_row),
            select.issue.eq(control.select_issue), select.row.eq(control.select_row),
            select.dst_slot.eq(control.dst_slot), select.select.eq(resolve.select),
            select.select2.eq(resolve.select2), select.pair.eq(control.pair), select.modulus_row.eq(n_data),
            lanes.wipe.eq(self.wipe), lanes.wipe_row.eq(self.wipe_row),
            acc.wipe.eq(self.wipe), acc.wipe_row.eq(self.wipe_row),
            *(head.wipe.eq(self.wipe) for head in heads),
        ]
        for j in range(cfg.lanes):
            m.d.comb += [lanes.acc_low[j].eq(acc.low[j]), lanes.acc_carry[j].eq(acc.carry[j]),
                         acc.lane_write_data[j].eq(lanes.column_sum[j]),
                         acc.resolved_value[j].eq(resolve.value[j]), acc.resolved_diff[j].eq(resolve.diff[j]),
                         acc.resolved_borrow2[j].eq(resolve.borrow2[j]),
                         resolve.acc_low[j].eq(acc.low[j]), resolve.acc_carry[j].eq(acc.carry[j]),
                         select.acc_low[j].eq(acc.low[j]), select.acc_carry[j].eq(acc.carry[j])]
        return m
