"""The Montgomery multiplier core: one product dst = a*b*R^-1 mod N over the register file.

Architecture
------------
* Word-level Montgomery (CIOS ordering) on W = 16-bit words.  W = 16 makes every word product a single
  DSP48E1 multiply (16x16 unsigned fits its 25x18 signed multiplier) with registered inputs and output, so no
  product is tiled and no adder in the datapath is wider than 34 bits.  W = 32/64 would need 4/16 DSPs and
  an adder tree per product, and a longer quotient loop per word.
* ``lanes`` parallel lanes (default 64, 2 DSP48E1 each).  Lane j owns column j of a row of ``lanes`` words
  and computes ``u_j = a_i*b_j + m_i*n_j + c_j + t_j``; rows are issued one per cycle.  The accumulator
  is redundant: every column keeps the low word of u_j (which becomes t_{j-1}: the division by 2^W is a
  renaming) and its carry c_j (the high part of u_j, kept in the column).  No carry crosses a column
  within a product, so the only adders are 33-bit (two products) and 34-bit (plus c_j + t_j).
* The quotient digit m_i = (t_0 + c_0 + a_i*b_0) * n' mod 2^W is the serial dependency.  A dedicated
  head (9 DSP48E1; SETMOD uses 2 more once) tracks the two low columns V_i = X_i + 2^W Y_i exactly and uses
  the identity
      m_{i+1} = m_i*Q + bits[W:2W) of (n'*V_i mod 2^2W) + n'*a_{i+1}*b_0   (mod 2^W),
  Q = 1 + bits[W:2W) of n'*(n_0 + 2^W n_1) (a constant from SETMOD; it holds because n'*V_i = m_i mod
  2^W and n'*n_0 = -1 mod 2^W).  So m_{i+1} is one multiply-add away from m_i; the rest, which depends on
  m_{i-1} and on lane 2's low word of the previous iteration, has a cycle more.  An outer iteration
  takes P = max(rows, 2) cycles (rows = ceil(size/lanes)); the lanes multiply by the head's m_i
  register directly in the P cycles it holds m_i.
* The end of a product resolves the redundant form a row at a time while computing the borrow of V - N
  (``.resolve``), then a second row pass writes V or V - N (< N) into the destination slot; both passes
  are value-independent.
* The core copies b into a row buffer first, so the register file's read port is free to fetch rows of a
  during the loop.

Cycles of one MUL command: P*size + 2*rows + 13 (size in W-bit words, P as above); see
``gateware.model`` (the cycle model, checked against this RTL).

Operand contract: b < N and a < R = 2^(W*size) (a >= N is allowed: ab/R + N < 2N still holds, so the one
conditional subtraction reduces fully); the words of an operand slot above the current size are ignored.
A result is written over whole rows: the words of dst above the size up to the end of its last row are
zeroed, rows above are left as they were.
"""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.lib.memory import Memory

from ..interface import WORD_BITS, SIZE_BITS, SLOT_BITS
from .modulus import ModulusStateSignature
from .regfile import ReadPortSignature, WritePortSignature, row_address
from .resolve import lane_signals, resolve_pass

__all__ = ["ProductSignature", "MontMulCore"]


class ProductSignature(wiring.Signature):
    """A request for one product dst = a*b*R^-1 mod N, seen from the requester.  ``start`` (one cycle, only
    while the core is not busy) passes the slots; ``busy`` is high from the next cycle until the cycle in
    which ``done`` pulses, when the last row of the result is written."""

    def __init__(self):
        super().__init__({
            "start": Out(1),
            "dst":   Out(SLOT_BITS),
            "a":     Out(SLOT_BITS),
            "b":     Out(SLOT_BITS),
            "busy":  In(1),
            "done":  In(1),
        })


class MontMulCore(wiring.Component):
    """One Montgomery product over the shared register file.

    The core owns the accumulator and the copy of b.  While busy it reads a and b through
    ``operand_read`` (claiming the register file's read port for the whole product), N through
    ``modulus_read``, and writes the result rows through ``operand_write``; ``modulus`` is the modulus in
    force (from SETMOD).

    Schedule (s = size words, K = rows = ceil(s/L), P = max(K, 2) cycles per outer iteration):

    * prologue (7 cycles): read the row of a holding a_0..a_3, copy the K rows of b into ``bmem`` (masked
      above the size), and run the head's a-products for a_0 and a_1, which give m_0 and V_0;
    * iteration i owns cycles mu_i .. mu_i + P - 1, while the head's register holds m_i.  Row k is
      issued at mu_i + k - 3: b/n row read | DSP input registers | a_i*b_j | m_i*n_j and
      z_j = a_i*b_j + c_j + t_j | u_j = m_i*n_j + z_j written back.  The head: at mu_i the products
      m_i*n_0, m_i*n_1, n'*V'_i and n'*t_1 (+ n'*a_{i+1}*b_0); at mu_i + 1 the next window V'_{i+1};
      at mu_i + P - 1 m_{i+1} = m_i*Q + G_i;
    * one cycle, then two row passes: resolve the carries while computing V - N (both kept), write
      V - N or V.
    """

    def __init__(self, config):
        self.config = config
        rows, n_rows, row = config.operand_rows, config.rows_per_slot, config.row_bits
        super().__init__({
            "ctl":           In(ProductSignature()),
            "modulus":       In(ModulusStateSignature(config)),
            "operand_read":  Out(ReadPortSignature(rows, row)),
            "operand_write": Out(WritePortSignature(rows, row)),
            "modulus_read":  Out(ReadPortSignature(n_rows, row, claim=False)),
        })

    def elaborate(self, platform):
        m = Module()
        cfg = self.config
        rd, wr, nrd, mod = self.operand_read, self.operand_write, self.modulus_read, self.modulus
        L, W, KM = cfg.lanes, WORD_BITS, cfg.rows_per_slot
        LOG_L = L.bit_length() - 1
        UW = 2 * W + 1          # width of a column sum u_j = a_i*b_j + m_i*n_j + c_j + t_j < 2^(2W+1)
        CS = W + 1              # width of a stored carry c_j (high part of u_j)
        AW = W + CS             # accumulator entry: low word and carry of one column

        # Accumulator: per column j the low word of u_j (which becomes t_{j-1}) and its carry c_j.
        # One memory per lane (AW bits wide, shared addresses): no row is packed into or unpacked from a
        # wide word every cycle.  Only lane 0 has the second read port (row k+1: its low word is t_{L-1}
        # of row k).
        accs = []
        for j in range(L):
            accs.append(Memory(shape=unsigned(AW), depth=KM, init=[]))
            m.submodules[f"acc{j}"] = accs[-1]
        acc_rd0 = [mem.read_port(domain="comb") for mem in accs]       # row k
        acc_rd1 = accs[0].read_port(domain="comb")                      # row k+1, lane 0
        acc_wrs = [mem.write_port() for mem in accs]
        acc_wr_addr = Signal(range(KM))
        acc_wr_en = Signal()
        acc_wr_data = [Signal(AW, name=f"acc_wr_data{j}") for j in range(L)]
        for j in range(L):
            m.d.comb += [acc_wrs[j].addr.eq(acc_wr_addr), acc_wrs[j].en.eq(acc_wr_en),
                         acc_wrs[j].data.eq(acc_wr_data[j])]
        # Copy of b, so that the operand memory's read port is free for a during the loop.
        m.submodules.bmem = bmem = Memory(shape=unsigned(L * W), depth=KM, init=[])
        b_rd = bmem.read_port()
        b_wr = bmem.write_port()

        def acc_lo(j):
            return acc_rd0[j].data[:W]

        def acc_c(j):
            return acc_rd0[j].data[W:]

        acc1_lo0 = acc_rd1.data[:W]

        sa = Signal(SLOT_BITS)
        sb = Signal(SLOT_BITS)
        sd = Signal(SLOT_BITS)
        rows = mod.rows
        period = Signal(range(max(KM, 2) + 1))
        cnt = Signal(range(KM + 9))

        def row_addr(slot, row):
            return row_address(cfg, slot, row)

        # ---- schedule ----------------------------------------------------------------------------
        # Iteration i owns the cycles mu_i .. mu_i + P - 1 (mu_i = mu_0 + i*P): the quotient m_i sits in
        # the head's register h_m for exactly those cycles, and row k of the lanes multiplies by it at
        # mu_i + k.  Rows are therefore issued 3 cycles ahead of the head's phase: two counter pairs.
        issue_on = Signal()
        ii = Signal(SIZE_BITS)                 # iteration being issued
        iph = Signal(range(max(KM, 2) + 1))
        head_on = Signal()
        hi = Signal(SIZE_BITS)                 # iteration the head is in
        hph = Signal(range(max(KM, 2) + 1))

        # ---- a operand ---------------------------------------------------------------------------
        arow = Signal(L * W, reset_less=True)   # the register-file row holding a_{hi+3}
        a_lane = Signal(W)              # a_i for the lanes' a*b products (valid mu_i - 1 .. mu_i + K - 2)
        a_q1 = Signal(W)                # a_{i+1}
        a_q2 = Signal(W)                # a_{i+2}: the head's a*b_0, a*b_1 products use it

        # dynamic word selections through an Array (a case statement) rather than a shift of the whole row
        arow_words = Array(arow.word_select(j, W) for j in range(L))

        def a_word(index):
            return arow_words[index[:LOG_L]]

        # ---- lane pipeline -------------------------------------------------------------------------
        # s0 issue (b, n row read) | s1 DSP input regs | s2 a_i*b_j | s3 m_i*n_j, z = a_i*b_j + c_j + t_j
        # | s4 u_j = m_i*n_j + z, written back (lane L-1 adds its t here: row k+1 may be 1 cycle old)
        issue = Signal()
        issue_k = Signal(range(KM))
        q1_v, q1_k, q1_f = Signal(), Signal(range(KM)), Signal()
        q2_v, q2_k, q2_f = Signal(), Signal(range(KM)), Signal()
        q3_v, q3_k, q3_f = Signal(), Signal(range(KM)), Signal()
        q4_v, q4_k, q4_f = Signal(), Signal(range(KM)), Signal()
        def lanes(name, width):
            return lane_signals(L, name, width)

        l_b = lanes("l_b", W)
        l_n1 = lanes("l_n1_", W)
        l_n = lanes("l_n", W)
        l_ab = lanes("l_ab", 2 * W)
        l_mn = lanes("l_mn", 2 * W)
        l_z = lanes("l_z", 2 * W + 1)
        h_m = Signal(W)                 # m_i (head output register, read by every lane)

        m.d.comb += [b_rd.addr.eq(issue_k), nrd.addr.eq(issue_k)]
        m.d.sync += [q1_v.eq(issue), q1_k.eq(issue_k), q1_f.eq(ii == 0),
                     q2_v.eq(q1_v), q2_k.eq(q1_k), q2_f.eq(q1_f),
                     q3_v.eq(q2_v), q3_k.eq(q2_k), q3_f.eq(q2_f),
                     q4_v.eq(q3_v), q4_k.eq(q3_k), q4_f.eq(q3_f)]
        for j in range(L):
            m.d.sync += [
                l_b[j].eq(b_rd.data.word_select(j, W)),
                l_n1[j].eq(nrd.data.word_select(j, W)),
                l_n[j].eq(l_n1[j]),
                l_ab[j].eq(a_lane * l_b[j]),
                l_mn[j].eq(h_m * l_n[j]),
            ]
        acc_addr0 = Signal(range(KM))
        acc_addr1 = Signal(range(KM))
        m.d.comb += [port.addr.eq(acc_addr0) for port in acc_rd0]
        m.d.comb += acc_rd1.addr.eq(Mux(acc_addr1 == KM - 1, 0, acc_addr1 + 1))
        for j in range(L):
            t_next = acc_lo(j + 1) if j < L - 1 else 0
            m.d.sync += l_z[j].eq(l_ab[j] + Mux(q3_f, 0, acc_c(j) + t_next))
        lane_u = [Signal(UW, name=f"u{j}") for j in range(L)]
        for j in range(L):
            if j < L - 1:
                m.d.comb += lane_u[j].eq(l_mn[j] + l_z[j])
            else:
                t_last = Mux(q4_f | (q4_k == rows - 1), 0, acc1_lo0)
                m.d.comb += lane_u[j].eq(l_mn[j] + l_z[j] + t_last)

        # ---- quotient head -------------------------------------------------------------------------
        # With V_i = X_i + 2^W Y_i the two low columns (X, Y: column sums incl. carries), n' = -N^-1 and
        # Q = 1 + bits[W:2W) of n'*(n_0 + 2^W n_1) mod 2^2W (from SETMOD):
        #   m_{i+1} = (m_i*Q + bits[W:2W) of (n'*V_i mod 2^2W) + n'*a_{i+1}*b_0) mod 2^W
        #   V_{i+1} = (V_i + m_i*(n_0 + 2^W n_1)) / 2^W + a_{i+1}*b_0 + 2^W*(a_{i+1}*b_1 + t_1)
        # where t_1 = low word of u_2 (lane 2, row 0) of iteration i.  The head keeps V' = V without
        # that lane term (it arrives a cycle later) and adds n'*t_1 separately, so the loop from m_i to
        # m_{i+1} is one multiply-add: one iteration every 2 cycles.
        b0 = Signal(W)
        b1 = Signal(W)
        n0r = Signal(W)
        n1r = Signal(W)
        u2lo = Signal(W)                # t_1 contribution of the last iteration (lane 2, row 0)
        h_M0 = Signal(2 * W)
        h_M1 = Signal(2 * W)
        h_W1 = Signal(3 * W + 3)       # < 2^50
        h_V = Signal(3 * W + 3)         # V'_i < 2^50 (X, Y < 2^33)
        h_p1 = Signal(2 * W)
        h_p2 = Signal(W)
        h_p3 = Signal(W)
        h_ab0 = Signal(2 * W)
        h_ab1 = Signal(2 * W)
        h_E = Signal(3 * W + 1)         # a_{i+1} b_0 + 2^W a_{i+1} b_1
        h_gab = Signal(W)               # n' * a_{i+1} b_0 mod 2^W

        with m.If(q4_v & (q4_k == 0)):
            m.d.sync += u2lo.eq(lane_u[2][:W])

        def head_a_products():
            m.d.sync += [h_ab0.eq(a_q2 * b0), h_ab1.eq(a_q2 * b1)]

        def head_a_sums():
            m.d.sync += [h_E.eq(h_ab0 + (h_ab1 << W)), h_gab.eq((h_ab0[:W] * mod.n_inv)[:W])]

        P = period
        # the prologue runs the p-products (cnt 5) and the m update (cnt 6) once with Q = h_V = 0,
        # u2lo = 0 and h_gab = n'*a_0*b_0: that gives m_0 through the same datapath (no extra mux)
        pro_p = Signal()
        pro_m = Signal()
        with m.If((head_on & (hph == 0)) | pro_p):
            m.d.sync += [
                    h_M0.eq(h_m * n0r),
                    h_M1.eq(h_m * n1r),
                    h_W1.eq((h_V >> W) + u2lo + h_E + (h_V[:W] != 0)),
                    h_p1.eq(h_V[:W] * mod.n_inv),
                    h_p2.eq((h_V[W:2 * W] * mod.n_inv)[:W]),
                    h_p3.eq((u2lo * mod.n_inv + h_gab)[:W]),     # n' t_1 + n' a_{i+1} b_0
                ]
        with m.If((head_on & (hph == P - 1)) | pro_m):
            g = Signal(W)
            m.d.comb += g.eq((h_p1[W:] + h_p2 + h_p3)[:W])
            m.d.sync += h_m.eq((h_m * Mux(pro_m, 0, mod.q) + g)[:W])
        with m.If(head_on):
            with m.If(hph == 1):
                m.d.sync += h_V.eq(h_W1 + (h_M0 >> W) + h_M1)
            with m.If(hph == P - 1):
                head_a_sums()
                m.d.sync += arow.eq(rd.data)
            with m.If(hph == P - 2):
                head_a_products()
                m.d.sync += [a_lane.eq(a_q1), a_q1.eq(a_q2), a_q2.eq(a_word(hi + 3))]
                m.d.comb += rd.addr.eq(row_addr(sa, (hi + 4) >> LOG_L))

        # ---- final pass 1: resolve the redundant accumulator, compare with N (see .resolve) -------
        f_issue = Signal()
        f_issue_k = Signal(range(KM))
        fin = resolve_pass(m, cfg, acc_lo, acc_c, acc1_lo0, nrd.data, rows, f_issue, f_issue_k)

        # ---- final pass 2: write V - N or V ----------------------------------------------------
        g_issue = Signal()
        g_issue_k = Signal(range(KM))
        m.d.comb += [
            wr.addr.eq(row_addr(sd, g_issue_k)),
            wr.data.eq(Cat(Mux(fin.select, acc_lo(j), acc_c(j)[:W]) for j in range(L))),
            wr.en.eq(g_issue),
        ]

        # ---- accumulator port usage --------------------------------------------------------------
        with m.If(f_issue):
            m.d.comb += [acc_addr0.eq(f_issue_k), acc_addr1.eq(f_issue_k)]
        with m.Elif(g_issue):
            m.d.comb += acc_addr0.eq(g_issue_k)
        with m.Else():
            m.d.comb += [acc_addr0.eq(q3_k), acc_addr1.eq(q4_k)]
        with m.If(fin.valid):
            # pass 1 leaves V - N in the low-word field and V in the carry field
            m.d.comb += [acc_wr_addr.eq(fin.row), acc_wr_en.eq(1)]
            m.d.comb += [acc_wr_data[j].eq(Cat(fin.diff[j], fin.value[j], C(0, CS - W))) for j in range(L)]
        with m.Else():
            m.d.comb += [acc_wr_addr.eq(q4_k), acc_wr_en.eq(q4_v)]
            m.d.comb += [acc_wr_data[j].eq(lane_u[j][:AW]) for j in range(L)]
        with m.If(f_issue):
            m.d.comb += nrd.addr.eq(f_issue_k)

        # ---- control -------------------------------------------------------------------------------
        b_copy_v = Signal()
        b_copy_k = Signal(range(KM))
        m.d.sync += b_copy_v.eq(0)
        with m.If(b_copy_v):
            m.d.comb += [b_wr.addr.eq(b_copy_k), b_wr.en.eq(1),
                         b_wr.data.eq(Mux(b_copy_k == rows - 1,
                                          rd.data & mod.last_row_mask, rd.data))]
        ph = Signal(range(KM + 1))      # row counter of the final passes

        with m.FSM():
            with m.State("IDLE"):
                with m.If(self.ctl.start):
                    m.d.sync += [sa.eq(self.ctl.a), sb.eq(self.ctl.b), sd.eq(self.ctl.dst),
                                 cnt.eq(0), ii.eq(0), iph.eq(0), hi.eq(0), hph.eq(0), h_V.eq(0),
                                 issue_on.eq(0), head_on.eq(0),
                                 period.eq(Mux(rows > 2, rows, 2))]
                    m.next = "RUN"
            with m.State("RUN"):
                m.d.comb += self.ctl.busy.eq(1)
                with m.If(cnt != KM + 8):
                    m.d.sync += cnt.eq(cnt + 1)
                # prologue: c0 read a's row 0 (and N's row 0); c1..cK copy b's rows into bmem;
                # c2..c6 the head's products for a_0 and a_1 give V'_0, m_0, E_1, n'*a_1*b_0
                with m.If(cnt == 0):
                    m.d.comb += [rd.addr.eq(row_addr(sa, 0)), nrd.addr.eq(0)]
                with m.Elif(cnt <= rows):
                    m.d.comb += rd.addr.eq(row_addr(sb, cnt - 1))
                    m.d.sync += [b_copy_v.eq(1), b_copy_k.eq(cnt - 1)]
                with m.If(cnt == 1):
                    m.d.sync += [arow.eq(rd.data), n0r.eq(nrd.data[:W]), n1r.eq(nrd.data[W:2 * W])]
                with m.If(cnt == 2):
                    m.d.sync += [b0.eq(rd.data[:W]), b1.eq(rd.data[W:2 * W]),
                                 a_q2.eq(arow.word_select(0, W)), a_lane.eq(arow.word_select(0, W)),
                                 u2lo.eq(0)]
                with m.If(cnt == 3):
                    head_a_products()
                    m.d.sync += [a_q2.eq(arow.word_select(1, W)), issue_on.eq(1)]
                with m.If(cnt == 4):
                    head_a_sums()
                    head_a_products()
                    m.d.sync += [a_q2.eq(arow.word_select(2, W)), a_q1.eq(arow.word_select(1, W))]
                with m.If(cnt == 5):
                    head_a_sums()
                    m.d.comb += pro_p.eq(1)
                    m.d.sync += h_V.eq(h_E)
                with m.If(cnt == 6):
                    m.d.comb += pro_m.eq(1)
                    m.d.sync += head_on.eq(1)

                # lanes: rows of iteration ii, issued 3 cycles ahead of the head
                with m.If(issue_on):
                    with m.If(iph < rows):
                        m.d.comb += [issue.eq(1), issue_k.eq(iph)]
                    m.d.sync += iph.eq(iph + 1)
                    with m.If(iph == period - 1):
                        m.d.sync += [iph.eq(0), ii.eq(ii + 1)]
                        with m.If(ii == mod.size - 1):
                            m.d.sync += issue_on.eq(0)
                with m.If(head_on):
                    m.d.sync += hph.eq(hph + 1)
                    with m.If(hph == period - 1):
                        m.d.sync += [hph.eq(0), hi.eq(hi + 1)]
                        with m.If(hi == mod.size - 1):
                            # the last row's update lands by mu_{s-1} + K <= mu_s
                            m.d.sync += head_on.eq(0)
                            m.next = "DRAIN"
            with m.State("DRAIN"):
                m.d.comb += self.ctl.busy.eq(1)
                m.d.sync += [*(r.eq(0) for r in fin.state), ph.eq(0)]
                m.next = "FIN1"
            with m.State("FIN1"):
                m.d.comb += [self.ctl.busy.eq(1), f_issue.eq(1), f_issue_k.eq(ph)]
                m.d.sync += ph.eq(ph + 1)
                with m.If(ph == rows - 1):
                    m.d.sync += cnt.eq(0)
                    m.next = "FIN1W"
            with m.State("FIN1W"):
                m.d.comb += self.ctl.busy.eq(1)
                m.d.sync += cnt.eq(cnt + 1)
                with m.If(cnt == 3):
                    # the last row's V - N is written and the final borrow registered in this cycle
                    m.d.sync += ph.eq(0)
                    m.next = "FIN2"
            with m.State("FIN2"):
                m.d.comb += [self.ctl.busy.eq(1), g_issue.eq(1), g_issue_k.eq(ph)]
                m.d.sync += ph.eq(ph + 1)
                with m.If(ph == rows - 1):
                    m.d.comb += self.ctl.done.eq(1)
                    m.next = "IDLE"
        # the register file's read port is the core's for the whole product
        m.d.comb += rd.en.eq(self.ctl.busy)
        return m
