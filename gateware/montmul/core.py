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

Pairs (MUL_PAIR, EXP_FIXED_PAIR's products): two moduli of one row each, two independent products run
as the two rows of one: row k is context k, with its own operand row, modulus bank and quotient head
(context 1's head runs the same schedule one cycle behind context 0's), so the lanes alternate between
the contexts every cycle instead of waiting every other cycle.  No carry crosses from row 0 to row 1,
and the final passes resolve and select each row on its own.  A pair costs one cycle more than a
two-row product (context 0's b row is read before the prologue, whose cycle 1 reads context 1's a):
2*iterations + 18 cycles, iterations being the larger size or, with a shared a, its length.

Operand contract: b < N and a < R = 2^(W*size) (a >= N is allowed: ab/R + N < 2N still holds, so the one
conditional subtraction reduces fully); the words of an operand slot above the current size are ignored.
A result is written over whole rows: the words of dst above the size up to the end of its last row are
zeroed, rows above are left as they were.
"""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.lib.memory import Memory

from ..interface import WORD_BITS, SIZE_BITS, SLOT_BITS, PAIR_ROW
from .modulus import ModulusStateSignature
from .regfile import ReadPortSignature, WritePortSignature, row_address
from .resolve import lane_signals, resolve_pass

__all__ = ["ProductSignature", "MontMulCore"]


class ProductSignature(wiring.Signature):
    """A request for one product dst = a*b*R^-1 mod N, seen from the requester.  ``start`` (one cycle, only
    while the core is not busy) passes the slots; ``busy`` is high from the next cycle until the cycle in
    which ``done`` pulses, when the last row of the result is written.  With ``pair`` it is a pair of
    products (see ``gateware.interface``): context 0 on row 0 of dst, a, b over bank 0, context 1 on
    row 1 of dst, a, ``b1`` over bank 1 (both moduli one row).  A pair with ``a_words`` != 0 multiplies
    both b's by the same a, slot a's low ``a_words`` words (from its row 0 up, possibly wider than the
    moduli), in ``a_words`` iterations: dst_k = a*b_k*2^(-W*a_words) mod N_k."""

    def __init__(self):
        super().__init__({
            "start": Out(1),
            "pair":  Out(1),
            "dst":   Out(SLOT_BITS),
            "a":     Out(SLOT_BITS),
            "b":     Out(SLOT_BITS),
            "b1":    Out(SLOT_BITS),
            "a_words": Out(SIZE_BITS),
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
        rows, n_rows, row = config.operand_rows, config.modulus_rows, config.row_bits
        super().__init__({
            "ctl":           In(ProductSignature()),
            "modulus":       In(ModulusStateSignature(config)),
            "modulus1":      In(ModulusStateSignature(config)),
            "operand_read":  Out(ReadPortSignature(rows, row)),
            "operand_write": Out(WritePortSignature(rows, row)),
            "modulus_read":  Out(ReadPortSignature(n_rows, row, claim=False)),
        })

    def elaborate(self, platform):
        m = Module()
        cfg = self.config
        rd, wr, nrd = self.operand_read, self.operand_write, self.modulus_read
        mod, mod1 = self.modulus, self.modulus1
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
        sb1 = Signal(SLOT_BITS)
        sd = Signal(SLOT_BITS)
        # A pair (see ``ProductSignature``) runs as a product of two rows, row k being context k:
        # rows 0 and 1 of the accumulator and of the b copy, of the operand slots (PAIR_ROW = 1) and the
        # modulus banks' rows; no carry crosses from row 0 to row 1, and each row has its own head.
        pair = Signal()
        a_words = Signal(SIZE_BITS)     # a pair's shared a (0: each context's own)
        shared = Signal()
        m.d.comb += shared.eq(a_words != 0)
        ctx1_row = Mux(shared, 0, PAIR_ROW)     # the row of a context 1 reads first
        rows = Signal(range(KM + 1))
        size = Signal(SIZE_BITS)
        period = Signal(range(max(KM, 2) + 1))
        cnt = Signal(range(KM + 9))
        if cfg.has_pairs:
            assert PAIR_ROW == 1
            m.d.comb += [rows.eq(Mux(pair, 2, mod.rows)),
                         size.eq(Mux(shared, a_words, Mux(pair & (mod1.size > mod.size), mod1.size, mod.size)))]
        else:
            m.d.comb += [rows.eq(mod.rows), size.eq(mod.size)]

        def row_addr(slot, row):
            return row_address(cfg, slot, row)

        def n_addr(k):
            """The modulus memory's row for row k of the product."""
            if not cfg.has_pairs:
                return k
            return Mux(pair & (k == 1), cfg.bank1_row, k)

        # ---- schedule ----------------------------------------------------------------------------
        # Iteration i owns the cycles mu_i .. mu_i + P - 1 (mu_i = mu_0 + i*P): the quotient m_i sits in
        # the head's register h_m for exactly those cycles, and row k of the lanes multiplies by it at
        # mu_i + k.  Rows are therefore issued 3 cycles ahead of the head's phase: two counter pairs.
        # In a pair, context 1's head runs one cycle behind context 0's (its row is row 1).
        issue_on = Signal()
        ii = Signal(SIZE_BITS)                 # iteration being issued
        iph = Signal(range(max(KM, 2) + 1))
        head_on = Signal()
        hi = Signal(SIZE_BITS)                 # iteration the head is in
        hph = Signal(range(max(KM, 2) + 1))

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
        a_lane = Signal(W)      # a_i of the row in stage s2 (written by the head of that row's context)
        lane_m = Signal(W)      # m_i of the row in stage s3 (a copy of that head's h_m, read by every lane)

        m.d.comb += [b_rd.addr.eq(issue_k), nrd.addr.eq(n_addr(issue_k))]
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
                l_mn[j].eq(lane_m * l_n[j]),
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
                t_last = Mux(q4_f | pair | (q4_k == rows - 1), 0, acc1_lo0)
                m.d.comb += lane_u[j].eq(l_mn[j] + l_z[j] + t_last)

        # ---- quotient heads ------------------------------------------------------------------------
        # With V_i = X_i + 2^W Y_i the two low columns (X, Y: column sums incl. carries), n' = -N^-1 and
        # Q = 1 + bits[W:2W) of n'*(n_0 + 2^W n_1) mod 2^2W (from SETMOD):
        #   m_{i+1} = (m_i*Q + bits[W:2W) of (n'*V_i mod 2^2W) + n'*a_{i+1}*b_0) mod 2^W
        #   V_{i+1} = (V_i + m_i*(n_0 + 2^W n_1)) / 2^W + a_{i+1}*b_0 + 2^W*(a_{i+1}*b_1 + t_1)
        # where t_1 = low word of u_2 (lane 2, row 0) of iteration i.  The head keeps V' = V without
        # that lane term (it arrives a cycle later) and adds n'*t_1 separately, so the loop from m_i to
        # m_{i+1} is one multiply-add: one iteration every 2 cycles.
        #
        # ``head(ctx, ...)`` builds one head: context 0's always, context 1's with pairs.  A head acts in
        # its own prologue cycles ``at(x)`` and in its own iteration phase (on, ph, i); ``row`` is the
        # row of its context.  In a single product or in context 0, at(x) is cycle x of the prologue;
        # context 1's head does everything one cycle later.
        P = period
        new_ms = []                     # (cycle in which this head updates m, the new m)

        def head(ctx, state, at, on, ph, i, row, b_latch):
            n = f"h{ctx}_"
            b0, b1 = Signal(W, name=n + "b0"), Signal(W, name=n + "b1")
            n0r, n1r = Signal(W, name=n + "n0"), Signal(W, name=n + "n1")
            u2lo = Signal(W, name=n + "u2lo")   # t_1 contribution of the last iteration (lane 2, row)
            h_m = Signal(W, name=n + "m")
            h_M0 = Signal(2 * W, name=n + "M0")
            h_M1 = Signal(2 * W, name=n + "M1")
            h_W1 = Signal(3 * W + 3, name=n + "W1")     # < 2^50
            h_V = Signal(3 * W + 3, name=n + "V")       # V'_i < 2^50 (X, Y < 2^33)
            h_p1 = Signal(2 * W, name=n + "p1")
            h_p2 = Signal(W, name=n + "p2")
            h_p3 = Signal(W, name=n + "p3")
            h_ab0 = Signal(2 * W, name=n + "ab0")
            h_ab1 = Signal(2 * W, name=n + "ab1")
            h_E = Signal(3 * W + 1, name=n + "E")       # a_{i+1} b_0 + 2^W a_{i+1} b_1
            h_gab = Signal(W, name=n + "gab")           # n' * a_{i+1} b_0 mod 2^W
            arow = Signal(L * W, reset_less=True, name=n + "arow")  # the row holding a_{i+3}
            a_q1 = Signal(W, name=n + "a_q1")           # a_{i+1}
            a_q2 = Signal(W, name=n + "a_q2")           # a_{i+2}: the a*b_0, a*b_1 products use it
            arow_words = Array(arow.word_select(j, W) for j in range(L))

            with m.If(q4_v & (q4_k == ctx)):
                m.d.sync += u2lo.eq(lane_u[2][:W])

            def a_products():
                m.d.sync += [h_ab0.eq(a_q2 * b0), h_ab1.eq(a_q2 * b1)]

            def a_sums():
                m.d.sync += [h_E.eq(h_ab0 + (h_ab1 << W)), h_gab.eq((h_ab0[:W] * state.n_inv)[:W])]

            # the prologue runs the p-products (at 5) and the m update (at 6) once with Q = h_V = 0,
            # u2lo = 0 and h_gab = n'*a_0*b_0: that gives m_0 through the same datapath (no extra mux)
            pro_p = at(5)
            pro_m = at(6)
            with m.If((on & (ph == 0)) | pro_p):
                m.d.sync += [
                    h_M0.eq(h_m * n0r),
                    h_M1.eq(h_m * n1r),
                    h_W1.eq((h_V >> W) + u2lo + h_E + (h_V[:W] != 0)),
                    h_p1.eq(h_V[:W] * state.n_inv),
                    h_p2.eq((h_V[W:2 * W] * state.n_inv)[:W]),
                    h_p3.eq((u2lo * state.n_inv + h_gab)[:W]),     # n' t_1 + n' a_{i+1} b_0
                ]
            update = (on & (ph == P - 1)) | pro_m
            new_m = Signal(W, name=n + "new_m")
            g = Signal(W, name=n + "g")
            m.d.comb += [g.eq((h_p1[W:] + h_p2 + h_p3)[:W]),
                         new_m.eq((h_m * Mux(pro_m, 0, state.q) + g)[:W])]
            with m.If(update):
                m.d.sync += h_m.eq(new_m)
            new_ms.append((update, new_m))
            with m.If(on):
                with m.If(ph == 1):
                    m.d.sync += h_V.eq(h_W1 + (h_M0 >> W) + h_M1)
                with m.If(ph == P - 1):
                    a_sums()
                    m.d.sync += arow.eq(rd.data)
                with m.If(ph == P - 2):
                    a_products()
                    m.d.sync += [a_lane.eq(a_q1), a_q1.eq(a_q2), a_q2.eq(arow_words[(i + 3)[:LOG_L]])]
                    m.d.comb += rd.addr.eq(row_addr(sa, row + ((i + 4) >> LOG_L)))

            # prologue: at 1 the row of a holding a_0..a_3 and N's row 0 arrive; b's row 0 arrives at
            # ``b_latch``; at 2..6 the head's products for a_0 and a_1 give V'_0, m_0, E_1, n'*a_1*b_0
            with m.If(at(1)):
                m.d.sync += [arow.eq(rd.data), n0r.eq(nrd.data[:W]), n1r.eq(nrd.data[W:2 * W])]
            with m.If(b_latch):
                m.d.sync += [b0.eq(rd.data[:W]), b1.eq(rd.data[W:2 * W])]
            with m.If(at(2)):
                m.d.sync += [a_q2.eq(arow.word_select(0, W)), u2lo.eq(0), h_V.eq(0)]
            with m.If(at(3)):
                a_products()
                m.d.sync += a_q2.eq(arow.word_select(1, W))
            with m.If(at(4)):
                a_sums()
                a_products()
                m.d.sync += [a_q2.eq(arow.word_select(2, W)), a_q1.eq(arow.word_select(1, W))]
            with m.If(at(5)):
                a_sums()
                m.d.sync += h_V.eq(h_E)
            # a_0 for the lanes (row 0 of iteration 0 reaches s2 at cycle 6, row 1 at 7)
            with m.If(at(5) & ~on):
                m.d.sync += a_lane.eq(arow.word_select(0, W))
            return h_m

        running = Signal()             # the FSM is in RUN (the prologue's cycles are counted there)

        def at0(x):
            return running & (cnt == x)

        head(0, mod, at0, head_on, hph, hi, 0, b_latch=Mux(pair, at0(0), at0(2)))
        if cfg.has_pairs:
            # context 1's head: context 0's counters one cycle later
            head1_on = Signal()
            hph1 = Signal.like(hph)
            hi1 = Signal.like(hi)
            cnt1 = Signal.like(cnt)
            running1 = Signal()
            m.d.sync += [head1_on.eq(head_on & pair), hph1.eq(hph), hi1.eq(hi), cnt1.eq(cnt),
                         running1.eq(running & pair)]

            def at1(x):
                return running1 & (cnt1 == x)

            head(1, mod1, at1, head1_on, hph1, hi1, ctx1_row, b_latch=at1(2))
        # the lanes' m: the head that updates it (the heads update in different cycles)
        lane_m_next = new_ms[0][1]
        for update, new_m in new_ms[1:]:
            lane_m_next = Mux(update, new_m, lane_m_next)
        with m.If(Cat(update for update, _ in new_ms).any()):
            m.d.sync += lane_m.eq(lane_m_next)

        # ---- final pass 1: resolve the redundant accumulator, compare with N (see .resolve) -------
        # (a pair's two rows are two numbers: its rows go through one after the other, unchained)
        f_issue = Signal()
        f_issue_k = Signal(range(KM))
        fin = resolve_pass(m, cfg, acc_lo, acc_c, acc1_lo0, nrd.data, rows, f_issue, f_issue_k,
                           pair=pair if cfg.has_pairs else None)

        # ---- final pass 2: write V - N or V ----------------------------------------------------
        g_issue = Signal()
        g_issue_k = Signal(range(KM))
        select = fin.select_of(g_issue_k)
        m.d.comb += [
            wr.addr.eq(row_addr(sd, g_issue_k)),
            wr.data.eq(Cat(Mux(select, acc_lo(j), acc_c(j)[:W]) for j in range(L))),
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
            m.d.comb += nrd.addr.eq(n_addr(f_issue_k))

        # ---- control -------------------------------------------------------------------------------
        # b's rows are copied into bmem the cycle after they are read, the last one masked to its size
        b_copy_v = Signal()
        b_copy_k = Signal(range(KM))
        m.d.sync += b_copy_v.eq(0)
        last_mask = mod.last_row_mask
        if cfg.has_pairs:
            last_mask = Mux(pair & (b_copy_k == 1), mod1.last_row_mask, last_mask)
        with m.If(b_copy_v):
            m.d.comb += [b_wr.addr.eq(b_copy_k), b_wr.en.eq(1),
                         b_wr.data.eq(Mux(pair | (b_copy_k == rows - 1), rd.data & last_mask, rd.data))]
        ph = Signal(range(KM + 1))      # row counter of the final passes

        with m.FSM():
            with m.State("IDLE"):
                with m.If(self.ctl.start):
                    m.d.sync += [sa.eq(self.ctl.a), sb.eq(self.ctl.b), sb1.eq(self.ctl.b1), sd.eq(self.ctl.dst),
                                 cnt.eq(0), ii.eq(0), iph.eq(0), hi.eq(0), hph.eq(0),
                                 issue_on.eq(0), head_on.eq(0)]
                    if cfg.has_pairs:
                        m.d.sync += [pair.eq(self.ctl.pair), a_words.eq(Mux(self.ctl.pair, self.ctl.a_words, 0))]
                        m.d.sync += period.eq(Mux(self.ctl.pair | (mod.rows <= 2), 2, mod.rows))
                        with m.If(self.ctl.pair):
                            m.next = "PAIR"
                        with m.Else():
                            m.next = "RUN"
                    else:
                        m.d.sync += period.eq(Mux(mod.rows > 2, mod.rows, 2))
                        m.next = "RUN"
            with m.State("PAIR"):
                # a pair reads context 0's b row first: cycle 1 of the prologue reads context 1's a row
                m.d.comb += [self.ctl.busy.eq(1), rd.addr.eq(row_addr(sb, 0))]
                m.d.sync += [b_copy_v.eq(1), b_copy_k.eq(0)]
                m.next = "RUN"
            with m.State("RUN"):
                m.d.comb += [self.ctl.busy.eq(1), running.eq(1)]
                with m.If(cnt != KM + 8):
                    m.d.sync += cnt.eq(cnt + 1)
                # prologue reads: c0 a's row 0 (and N's row 0); c1..cK b's rows, copied into bmem.  A pair:
                # c1 context 1's a row (and its N row), c2 its b row.
                with m.If(cnt == 0):
                    m.d.comb += [rd.addr.eq(row_addr(sa, 0)), nrd.addr.eq(0)]
                with m.Elif(pair):
                    with m.If(cnt == 1):
                        m.d.comb += [rd.addr.eq(row_addr(sa, ctx1_row)), nrd.addr.eq(n_addr(1))]
                    with m.Elif(cnt == 2):
                        m.d.comb += rd.addr.eq(row_addr(sb1, PAIR_ROW))
                        m.d.sync += [b_copy_v.eq(1), b_copy_k.eq(1)]
                with m.Elif(cnt <= rows):
                    m.d.comb += rd.addr.eq(row_addr(sb, cnt - 1))
                    m.d.sync += [b_copy_v.eq(1), b_copy_k.eq(cnt - 1)]
                with m.If(cnt == 3):
                    m.d.sync += issue_on.eq(1)
                with m.If(cnt == 6):
                    m.d.sync += head_on.eq(1)

                # lanes: rows of iteration ii, issued 3 cycles ahead of the head
                with m.If(issue_on):
                    with m.If((iph < rows) & (~pair | shared | (ii < Mux(iph == 0, mod.size, mod1.size)))):
                        m.d.comb += [issue.eq(1), issue_k.eq(iph)]
                    m.d.sync += iph.eq(iph + 1)
                    with m.If(iph == period - 1):
                        m.d.sync += [iph.eq(0), ii.eq(ii + 1)]
                        with m.If(ii == size - 1):
                            m.d.sync += issue_on.eq(0)
                with m.If(head_on):
                    m.d.sync += hph.eq(hph + 1)
                    with m.If(hph == period - 1):
                        m.d.sync += [hph.eq(0), hi.eq(hi + 1)]
                        with m.If(hi == size - 1):
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
