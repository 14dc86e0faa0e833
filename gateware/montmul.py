"""Montgomery-multiplication peripheral for RSA.

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
  head (9 DSP48E1; SETMOD uses 2 more once) tracks the two low columns V_i = X_i + 2^W Y_i exactly and uses the identity
      m_{i+1} = m_i*Q + bits[W:2W) of (n'*V_i mod 2^2W) + n'*a_{i+1}*b_0   (mod 2^W),
  Q = 1 + bits[W:2W) of n'*(n_0 + 2^W n_1) (a constant from SETMOD; it holds because n'*V_i = m_i mod
  2^W and n'*n_0 = -1 mod 2^W).  So m_{i+1} is one multiply-add away from m_i; the rest, which depends on
  m_{i-1} and on lane 2's low word of the previous iteration, has a cycle more.  An outer iteration
  takes P = max(rows, 2) cycles (rows = ceil(size/lanes)); the lanes multiply by the head's m_i
  register directly in the P cycles it holds m_i.  n' = -N^-1 mod 2^W is computed at SETMOD by a W-step
  shift-and-add.
* The end of a product resolves the redundant form a row at a time (one-bit generate/propagate carries
  across the ``lanes`` words of a row on the carry chain) while computing the borrow of V - N, then a
  second row pass writes V or V - N (< N) into the destination slot; both passes are value-independent.
* Register file: one BRAM memory, a row of ``lanes`` words per address, ``rows_per_slot`` rows per slot,
  16 user slots and 16 hidden ones.  SETMOD copies N (the words below the size; words above it are
  ignored) into a separate modulus memory, so N's slot may be reused afterwards.  A MUL copies b into a
  row buffer first, so the register file's read port is free to fetch rows of a during the loop.
* EXP_WINDOW (sliding window of WINDOW_BITS = 5 bits over the odd powers a^3..a^31 in hidden slots
  16..30, a^2 in slot 31; squarings before the first window are skipped; exponents of at most
  SHORT_EXPONENT_BITS = 24 bits, e.g. e = 65537, use 1-bit windows and no table) and EXP_LADDER
  (Montgomery ladder, R1 in hidden slot 31; two products per exponent bit whatever its value) are
  sequenced by the top-level FSM.

Cycles of one MUL command: P*size + 2*rows + 13 (size in W-bit words, P as above); see
``gateware.measure``.

Operand contract: b < N and a < R = 2^(W*size) (a >= N is allowed: ab/R + N < 2N still holds, so the one
conditional subtraction reduces fully; tests/gateware/test_montmul.py checks it); the words of an operand
slot above the current size are ignored.

Simulation cost: Verilator evaluates every net of the design in every cycle, idle or not, so the RTL avoids
what is expensive there: per-lane registers and accumulator memories instead of rows packed into wide
signals, carries and differences held in Signals (an expression indexed per lane would be copied into
every use), word masks kept as registered wide values (no bit replication), dynamic word selections
through Arrays, and reset-less datapath registers (the reset input would pull their logic into the
input-change evaluation).  ``tests/gateware/verilator_speed.py`` measures it.
A MUL/EXP result is written over whole rows: the words of dst above the size up to the end of its last
row are zeroed, rows above are left as they were.  ``rdata`` is only meaningful while not busy.
"""


from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.lib.memory import Memory

from .interface import (WORD_BITS, BUS_BITS, NUM_SLOTS, MIN_WORDS, WINDOW_BITS, SHORT_EXPONENT_BITS, Opcode,
                        ErrorCode, Command, Status, PeripheralConfig)

__all__ = ["MontMulCore", "MontgomeryPeripheral", "generate_verilog"]


def _log2(n):
    assert n & (n - 1) == 0, "must be a power of two"
    return n.bit_length() - 1


def _carry_chain(m, gen, prop, cin, segment=32):
    """Carries into each position of a row (and the carry out) from one-bit generate/propagate signals
    (gen and prop never both set).  Within a segment of at most ``segment`` positions the carry chain
    of an adder does it: the carry into position j of (gen|prop) + gen + cin is exactly the carry we
    want.  Longer rows are cut into segments computed for both carry-ins and selected (carry-select),
    so no chain is longer than ``segment`` + 1 bits."""
    width = len(gen)
    carries = []
    carry = cin
    for lo in range(0, width, segment):
        g = gen[lo:lo + segment]
        n = len(g)
        either = Signal(n, name=f"cc_{lo}_either")
        m.d.comb += either.eq(g | prop[lo:lo + segment])
        if lo == 0:
            total = Signal(n + 1, name="cc_0")
            m.d.comb += total.eq(either + g + carry)
        else:
            sums = []
            for c in (0, 1):
                sums.append(Signal(n + 1, name=f"cc_{lo}_{c}"))
                m.d.comb += sums[-1].eq(either + g + c)
            total = Signal(n + 1, name=f"cc_{lo}")
            m.d.comb += total.eq(Mux(carry, sums[1], sums[0]))
        carries.append(total[:n] ^ either ^ g)
        carry = total[n]
    # Signals, not expressions: the callers index the carries bit by bit, and an expression would be
    # duplicated into every use (64 copies of the chain in the netlist, each evaluated by Verilator)
    out = Signal(width, name="cc_carries")
    cout = Signal(name="cc_out")
    m.d.comb += [out.eq(Cat(*carries)), cout.eq(carry)]
    return out, cout


class MontMulCore(Elaboratable):
    """One Montgomery product dst = a*b*R^-1 mod N over the shared register file.

    The core owns the accumulator and the copy of b; the operand and modulus memories are owned by the
    top level, which multiplexes their ports (``rd_*``, ``wr_*``, ``n_*``) to the core while it runs.
    ``start`` latches the slot numbers; ``done`` pulses for one cycle in the cycle the last result row is
    written.

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
        self.q = Signal(W)              # 1 + bits[W:2W) of n' * (n_0 + 2^W n_1) mod 2^2W
        self.last_row_mask = Signal(L * W)     # the words of the last row below the size, all bits set
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
        UW = 2 * W + 1          # width of a column sum u_j = a_i*b_j + m_i*n_j + c_j + t_j < 2^(2W+1)
        CS = W + 1              # width of a stored carry c_j (high part of u_j)
        CW = W + 2              # width of c_j + t_j
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

        sa = Signal(5)
        sb = Signal(5)
        sd = Signal(5)
        rows = self.rows
        period = Signal(range(max(KM, 2) + 1))
        cnt = Signal(range(KM + 9))

        def row_addr(slot, row):
            return slot * KM + row

        # ---- schedule ----------------------------------------------------------------------------
        # Iteration i owns the cycles mu_i .. mu_i + P - 1 (mu_i = mu_0 + i*P): the quotient m_i sits in
        # the head's register h_m for exactly those cycles, and row k of the lanes multiplies by it at
        # mu_i + k.  Rows are therefore issued 3 cycles ahead of the head's phase: two counter pairs.
        issue_on = Signal()
        ii = Signal(13)                 # iteration being issued
        iph = Signal(range(max(KM, 2) + 1))
        head_on = Signal()
        hi = Signal(13)                 # iteration the head is in
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
        # Per-lane registers (lists of lane signals, not rows packed into one wide signal: the packing
        # costs Verilator a wide insert per lane every cycle).  Reset-less: datapath registers that are
        # written before they are read in every product, so that the reset does not reach their logic.
        def lanes(name, width):
            return [Signal(width, name=f"{name}{j}", reset_less=True) for j in range(L)]

        l_b = lanes("l_b", W)
        l_n1 = lanes("l_n1_", W)
        l_n = lanes("l_n", W)
        l_ab = lanes("l_ab", 2 * W)
        l_mn = lanes("l_mn", 2 * W)
        l_z = lanes("l_z", 2 * W + 1)
        h_m = Signal(W)                 # m_i (head output register, read by every lane)

        m.d.comb += [b_rd.addr.eq(issue_k), self.n_addr.eq(issue_k)]
        m.d.sync += [q1_v.eq(issue), q1_k.eq(issue_k), q1_f.eq(ii == 0),
                     q2_v.eq(q1_v), q2_k.eq(q1_k), q2_f.eq(q1_f),
                     q3_v.eq(q2_v), q3_k.eq(q2_k), q3_f.eq(q2_f),
                     q4_v.eq(q3_v), q4_k.eq(q3_k), q4_f.eq(q3_f)]
        for j in range(L):
            m.d.sync += [
                l_b[j].eq(b_rd.data.word_select(j, W)),
                l_n1[j].eq(self.n_data.word_select(j, W)),
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
            m.d.sync += [h_E.eq(h_ab0 + (h_ab1 << W)), h_gab.eq((h_ab0[:W] * self.n_inv)[:W])]

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
                    h_p1.eq(h_V[:W] * self.n_inv),
                    h_p2.eq((h_V[W:2 * W] * self.n_inv)[:W]),
                    h_p3.eq((u2lo * self.n_inv + h_gab)[:W]),     # n' t_1 + n' a_{i+1} b_0
                ]
        with m.If((head_on & (hph == P - 1)) | pro_m):
            g = Signal(W)
            m.d.comb += g.eq((h_p1[W:] + h_p2 + h_p3)[:W])
            m.d.sync += h_m.eq((h_m * Mux(pro_m, 0, self.q) + g)[:W])
        with m.If(head_on):
            with m.If(hph == 1):
                m.d.sync += h_V.eq(h_W1 + (h_M0 >> W) + h_M1)
            with m.If(hph == P - 1):
                head_a_sums()
                m.d.sync += arow.eq(self.rd_data)
            with m.If(hph == P - 2):
                head_a_products()
                m.d.sync += [a_lane.eq(a_q1), a_q1.eq(a_q2), a_q2.eq(a_word(hi + 3))]
                m.d.comb += self.rd_addr.eq(row_addr(sa, (hi + 4) >> LOG_L))

        # ---- final pass 1: resolve the redundant accumulator, compare with N --------------------
        f_issue = Signal()
        f_issue_k = Signal(range(KM))
        f1_v, f1_k = Signal(), Signal(range(KM))
        f1_y = lanes("f1_y", CW)
        f2_v, f2_k = Signal(), Signal(range(KM))
        f2_r = lanes("f2_r", W)
        f2_g = lanes("f2_g", 1)
        f2_p = lanes("f2_p", 1)
        f2_n = lanes("f2_n", W)
        f3_v, f3_k = Signal(), Signal(range(KM))
        f3_val = lanes("f3_val", W)
        f3_n = lanes("f3_n", W)
        f4_v, f4_k = Signal(), Signal(range(KM))
        f4_g = lanes("f4_g", 1)
        f4_p = lanes("f4_p", 1)
        f4_val = lanes("f4_val", W)
        f4_n = lanes("f4_n", W)
        hiprev = Signal(2)
        cin = Signal()
        bin_ = Signal()

        f_last = f_issue_k == rows - 1
        for j in range(L):
            if j < L - 1:
                t_next = acc_lo(j + 1)
            else:
                t_next = Mux(f_last, 0, acc1_lo0)
            m.d.sync += f1_y[j].eq(acc_c(j) + t_next)
        m.d.sync += [f1_v.eq(f_issue), f1_k.eq(f_issue_k)]
        for j in range(L):
            y = f1_y[j]
            carry_in = hiprev if j == 0 else f1_y[j - 1][W:]
            r = Signal(W + 1, name=f"f_r{j}")
            m.d.comb += r.eq(y[:W] + carry_in)
            m.d.sync += [
                f2_r[j].eq(r[:W]),
                f2_g[j].eq(r[W]),
                f2_p[j].eq(~r[W] & (r[:W] == (1 << W) - 1)),
            ]
        with m.If(f1_v):
            m.d.sync += hiprev.eq(f1_y[L - 1][W:])
        m.d.sync += [f2_v.eq(f1_v), f2_k.eq(f1_k)]
        m.d.sync += [f2_n[j].eq(self.n_data.word_select(j, W)) for j in range(L)]
        carries, carry_out = _carry_chain(m, Cat(f2_g), Cat(f2_p), cin)
        with m.If(f2_v):
            m.d.sync += cin.eq(carry_out)
        m.d.sync += [f3_v.eq(f2_v), f3_k.eq(f2_k)]
        for j in range(L):
            m.d.sync += [f3_val[j].eq((f2_r[j] + carries[j])[:W]), f3_n[j].eq(f2_n[j])]
        for j in range(L):
            m.d.sync += [f4_g[j].eq(f3_val[j] < f3_n[j]), f4_p[j].eq(f3_val[j] == f3_n[j])]
        m.d.sync += [f4_v.eq(f3_v), f4_k.eq(f3_k)]
        m.d.sync += [f4_val[j].eq(f3_val[j]) for j in range(L)]
        m.d.sync += [f4_n[j].eq(f3_n[j]) for j in range(L)]
        borrows, borrow_out = _carry_chain(m, Cat(f4_g), Cat(f4_p), bin_)
        diff = [(f4_val[j] - f4_n[j] - borrows[j])[:W] for j in range(L)]
        with m.If(f4_v):
            m.d.sync += bin_.eq(borrow_out)
        # V >= N iff V overflows the rows or V - N does not borrow; V < 2N, so V - N < N then.
        sel = Signal()
        m.d.comb += sel.eq((hiprev != 0) | cin | ~bin_)

        # ---- final pass 2: write V - N or V ----------------------------------------------------
        g_issue = Signal()
        g_issue_k = Signal(range(KM))
        m.d.comb += [
            self.wr_addr.eq(row_addr(sd, g_issue_k)),
            self.wr_data.eq(Cat(Mux(sel, acc_lo(j), acc_c(j)[:W]) for j in range(L))),
            self.wr_en.eq(g_issue),
        ]

        # ---- accumulator port usage --------------------------------------------------------------
        with m.If(f_issue):
            m.d.comb += [acc_addr0.eq(f_issue_k), acc_addr1.eq(f_issue_k)]
        with m.Elif(g_issue):
            m.d.comb += acc_addr0.eq(g_issue_k)
        with m.Else():
            m.d.comb += [acc_addr0.eq(q3_k), acc_addr1.eq(q4_k)]
        with m.If(f4_v):
            # pass 1 leaves V - N in the low-word field and V in the carry field
            m.d.comb += [acc_wr_addr.eq(f4_k), acc_wr_en.eq(1)]
            m.d.comb += [acc_wr_data[j].eq(Cat(diff[j], f4_val[j], C(0, CS - W))) for j in range(L)]
        with m.Else():
            m.d.comb += [acc_wr_addr.eq(q4_k), acc_wr_en.eq(q4_v)]
            m.d.comb += [acc_wr_data[j].eq(lane_u[j][:AW]) for j in range(L)]
        with m.If(f_issue):
            m.d.comb += self.n_addr.eq(f_issue_k)

        # ---- control -------------------------------------------------------------------------------
        b_copy_v = Signal()
        b_copy_k = Signal(range(KM))
        m.d.sync += b_copy_v.eq(0)
        with m.If(b_copy_v):
            m.d.comb += [b_wr.addr.eq(b_copy_k), b_wr.en.eq(1),
                         b_wr.data.eq(Mux(b_copy_k == rows - 1,
                                          self.rd_data & self.last_row_mask, self.rd_data))]
        ph = Signal(range(KM + 1))      # row counter of the final passes

        with m.FSM():
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.sync += [sa.eq(self.slot_a), sb.eq(self.slot_b), sd.eq(self.slot_dst),
                                 cnt.eq(0), ii.eq(0), iph.eq(0), hi.eq(0), hph.eq(0), h_V.eq(0),
                                 issue_on.eq(0), head_on.eq(0),
                                 period.eq(Mux(rows > 2, rows, 2))]
                    m.next = "RUN"
            with m.State("RUN"):
                m.d.comb += self.busy.eq(1)
                with m.If(cnt != KM + 8):
                    m.d.sync += cnt.eq(cnt + 1)
                # prologue: c0 read a's row 0 (and N's row 0); c1..cK copy b's rows into bmem;
                # c2..c6 the head's products for a_0 and a_1 give V'_0, m_0, E_1, n'*a_1*b_0
                with m.If(cnt == 0):
                    m.d.comb += [self.rd_addr.eq(row_addr(sa, 0)), self.n_addr.eq(0)]
                with m.Elif(cnt <= rows):
                    m.d.comb += self.rd_addr.eq(row_addr(sb, cnt - 1))
                    m.d.sync += [b_copy_v.eq(1), b_copy_k.eq(cnt - 1)]
                with m.If(cnt == 1):
                    m.d.sync += [arow.eq(self.rd_data), n0r.eq(self.n_data[:W]), n1r.eq(self.n_data[W:2 * W])]
                with m.If(cnt == 2):
                    m.d.sync += [b0.eq(self.rd_data[:W]), b1.eq(self.rd_data[W:2 * W]),
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
                        with m.If(ii == self.size - 1):
                            m.d.sync += issue_on.eq(0)
                with m.If(head_on):
                    m.d.sync += hph.eq(hph + 1)
                    with m.If(hph == period - 1):
                        m.d.sync += [hph.eq(0), hi.eq(hi + 1)]
                        with m.If(hi == self.size - 1):
                            # the last row's update lands by mu_{s-1} + K <= mu_s
                            m.d.sync += head_on.eq(0)
                            m.next = "DRAIN"
            with m.State("DRAIN"):
                m.d.comb += self.busy.eq(1)
                m.d.sync += [hiprev.eq(0), cin.eq(0), bin_.eq(0), ph.eq(0)]
                m.next = "FIN1"
            with m.State("FIN1"):
                m.d.comb += [self.busy.eq(1), f_issue.eq(1), f_issue_k.eq(ph)]
                m.d.sync += ph.eq(ph + 1)
                with m.If(ph == rows - 1):
                    m.d.sync += cnt.eq(0)
                    m.next = "FIN1W"
            with m.State("FIN1W"):
                m.d.comb += self.busy.eq(1)
                m.d.sync += cnt.eq(cnt + 1)
                with m.If(cnt == 3):
                    # the last row's V - N is written and the final borrow registered in this cycle
                    m.d.sync += ph.eq(0)
                    m.next = "FIN2"
            with m.State("FIN2"):
                m.d.comb += [self.busy.eq(1), g_issue.eq(1), g_issue_k.eq(ph)]
                m.d.sync += ph.eq(ph + 1)
                with m.If(ph == rows - 1):
                    m.d.comb += self.done.eq(1)
                    m.next = "IDLE"
        return m


# Return points of the top-level FSM after a call of the MUL core.
(_RET_DONE, _RET_T2, _RET_TAB, _RET_ZSQ, _RET_WSQ, _RET_WMUL,
 _RET_LINIT, _RET_LM1, _RET_LM2) = range(9)


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

        # sliding window: odd powers a^3 .. a^(2^K - 1) in hidden slots 16 .., a^2 in the last one
        # (which the ladder uses for its second register: the two never run together)
        SQUARE_SLOT = cfg.total_slots - 1
        assert NUM_SLOTS - 1 + (2 ** K - 1) // 2 < SQUARE_SLOT

        def table_slot(digit):
            # slot holding a^digit for odd digit >= 3 (digit 1 is slot a itself)
            return NUM_SLOTS - 1 + (digit >> 1)

        def row_addr(slot, row):
            return slot * KM + row

        def last_row_mask(size):
            # the word mask of the last row (all bits of the words below the size set), built by a shift
            # rather than by replicating lane bits: a plain wide AND with it is cheap to simulate
            rem = size[:LOG_L]
            ones = C((1 << (L * W)) - 1, L * W)
            return Mux(rem == 0, ones, ~(ones << Cat(C(0, _log2(W)), rem))[:L * W])

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
        mask = Signal(L * W, reset_less=True)
        has_mod = Signal()
        q_mod = Signal(W)
        m.d.comb += [core.size.eq(size), core.rows.eq(rows), core.n_inv.eq(n_inv), core.q.eq(q_mod),
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
        rpos = Signal(range(BUS_WORDS + 1))     # BUS_WORDS: past the last word (rdata undefined)

        def pair(pos):
            return pos[:PAIR_BITS] if PAIR_BITS else C(0, 1)

        bus_rd_addr = row_addr(rslot, rpos >> PAIR_BITS)
        m.d.comb += self.rdata.eq(Array(rp.data.word_select(k, BUS_BITS) for k in range(L // 2))[pair(rpos)])

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
        kw = Signal(range(K + 1))       # window width of the running EXP_WINDOW: K, or 1 for short exponents
        rem = Signal(14)                # exponent bits not yet consumed (e_idx + 1)
        win = Signal(K)                 # window bits read so far, first (most significant) bit = 1
        wcnt = Signal(range(K + 1))
        wlen = Signal(range(K + 1))
        r_idx = Signal(14)              # index of the next window bit to read
        sqcnt = Signal(range(K + 1))
        tcnt = Signal(range(2 ** K + 2))
        started = Signal()
        bit = Signal()
        c_a = Signal(5)
        c_b = Signal(5)
        c_d = Signal(5)
        ret = Signal(4)
        m.d.comb += [core.slot_a.eq(c_a), core.slot_b.eq(c_b), core.slot_dst.eq(c_d)]

        # SETMOD registers.
        new_size = Signal(13)
        new_rows = Signal(range(KM + 1))
        new_mask = Signal(L * W, reset_less=True)
        inv_t = Signal(W + 1)
        inv_n = Signal(W)
        inv_n1 = Signal(W)
        q_lo = Signal(2 * W)
        q_hi = Signal(W)
        q = Signal(W)
        inv_x = Signal(W)
        cnt = Signal(range(max(W, KM) + 2))
        cp_v = Signal()
        cp_k = Signal(range(KM))

        def call(dst, a, b, ret_to):
            # the core latches the slots in this cycle and starts
            m.d.comb += [c_d.eq(dst), c_a.eq(a), c_b.eq(b), core.start.eq(1)]
            m.d.sync += ret.eq(ret_to)
            m.next = "WAIT"

        def finish_ok():
            m.d.sync += [done.eq(1), irq.eq(1)]
            m.next = "IDLE"

        # exponent bits: read the row, register the W-bit word holding the bit (short path from the
        # block RAM), select the bit a cycle later; indices below 0 wrap to >= e_bits and read as 0
        e_word = Signal(W)

        def exp_bit_read(index=e_idx):
            m.d.comb += rp.addr.eq(row_addr(e_b, index >> ROW_BITS_LOG))

        def exp_word_latch(index=e_idx):
            m.d.sync += e_word.eq(Array(rp.data.word_select(k, W) for k in range(L))[index[_log2(W):ROW_BITS_LOG]])

        def exp_bit_value(index=e_idx):
            return e_word.bit_select(index[:_log2(W)], 1) & (index < e_bits)

        m.d.comb += rp.addr.eq(bus_rd_addr)

        # SETMOD copy: the row read in the previous cycle is written, masked, into the modulus memory.
        m.d.sync += cp_v.eq(0)
        with m.If(cp_v):
            m.d.comb += [nwp.addr.eq(cp_k), nwp.en.eq(1),
                         nwp.data.eq(Mux(cp_k == new_rows - 1,
                                         rp.data & new_mask,
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
                    with m.If(rpos == BUS_WORDS):
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
                                m.d.sync += [e_idx.eq(arg - 1), rem.eq(arg), started.eq(0)]
                                with m.If((op == Opcode.EXP_WINDOW) & (arg <= SHORT_EXPONENT_BITS)):
                                    # short exponents (e = 65537): 1-bit windows, no table
                                    m.d.sync += kw.eq(1)
                                    m.next = "EW_TOP"
                                with m.Elif(op == Opcode.EXP_WINDOW):
                                    m.d.sync += [kw.eq(K), tcnt.eq(3)]
                                    m.next = "EW_T2"
                                with m.Else():
                                    m.next = "EL_INIT"
                        with m.Default():
                            refuse(ErrorCode.BAD_OPCODE)

            # ---- calls of the MUL core ----
            with m.State("WAIT"):
                m.d.comb += [rp.addr.eq(core.rd_addr),
                             wp.addr.eq(core.wr_addr), wp.data.eq(core.wr_data),
                             wp.en.eq(core.wr_en.replicate(L))]
                with m.If(core.done):
                    with m.Switch(ret):
                        with m.Case(_RET_DONE):
                            finish_ok()
                        with m.Case(_RET_T2):
                            m.next = "EW_TAB"
                        with m.Case(_RET_TAB):
                            m.d.sync += tcnt.eq(tcnt + 2)
                            with m.If(tcnt == 2 ** K - 1):
                                m.next = "EW_TOP"
                            with m.Else():
                                m.next = "EW_TAB"
                        with m.Case(_RET_ZSQ):
                            m.d.sync += [e_idx.eq(e_idx - 1), rem.eq(rem - 1)]
                            m.next = "EW_TOP"
                        with m.Case(_RET_WSQ):
                            m.d.sync += sqcnt.eq(sqcnt + 1)
                            m.next = "EW_WSQ"
                        with m.Case(_RET_WMUL):
                            m.d.sync += [started.eq(1), e_idx.eq(e_idx - wlen), rem.eq(rem - wlen)]
                            m.next = "EW_TOP"
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
                m.d.sync += new_mask.eq(last_row_mask(new_size))
                m.d.comb += rp.addr.eq(row_addr(e_a, 0))
                m.next = "SM_CHK"
            with m.State("SM_CHK"):
                n0 = rp.data[:W]
                with m.If(~n0[0]):
                    m.d.sync += [error.eq(ErrorCode.EVEN_MODULUS), irq.eq(1)]
                    m.next = "IDLE"
                with m.Else():
                    m.d.sync += [inv_t.eq(1), inv_x.eq(0), inv_n.eq(n0), inv_n1.eq(rp.data[W:2 * W]),
                                 cnt.eq(0)]
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
                    m.next = "SM_Q1"
            with m.State("SM_Q1"):
                # the head's constant: Q = 1 + bits[W:2W) of n' * (n_0 + 2^W n_1) mod 2^2W
                m.d.sync += [q_lo.eq(inv_x * inv_n), q_hi.eq((inv_x * inv_n1)[:W])]
                m.next = "SM_Q2"
            with m.State("SM_Q2"):
                m.d.sync += q.eq((q_lo[W:] + q_hi + 1)[:W])
                m.next = "SM_COPY"
            with m.State("SM_COPY"):
                m.d.comb += rp.addr.eq(row_addr(e_a, cnt))
                m.d.sync += [cp_v.eq(1), cp_k.eq(cnt), cnt.eq(cnt + 1)]
                with m.If(cnt == new_rows - 1):
                    m.next = "SM_FIN"
            with m.State("SM_FIN"):
                # the last copy write happens in this cycle
                m.d.sync += [size.eq(new_size), rows.eq(new_rows), mask.eq(new_mask),
                             n_inv.eq(inv_x), q_mod.eq(q), has_mod.eq(1)]
                finish_ok()

            # ---- EXP_WINDOW: sliding K-bit window over odd powers, left to right ----
            with m.State("EW_T2"):
                call(SQUARE_SLOT, e_a, e_a, _RET_T2)
            with m.State("EW_TAB"):
                call(table_slot(tcnt), Mux(tcnt == 3, e_a, table_slot(tcnt - 2)), SQUARE_SLOT, _RET_TAB)
            with m.State("EW_TOP"):
                with m.If(rem == 0):
                    finish_ok()
                with m.Else():
                    exp_bit_read()
                    m.next = "EW_TOPW"
            with m.State("EW_TOPW"):
                exp_word_latch()
                m.next = "EW_TOPS"
            with m.State("EW_TOPS"):
                with m.If(~exp_bit_value()):
                    # a zero bit: one squaring (none before the first window)
                    with m.If(started):
                        call(e_d, e_d, e_d, _RET_ZSQ)
                    with m.Else():
                        m.d.sync += [e_idx.eq(e_idx - 1), rem.eq(rem - 1)]
                        m.next = "EW_TOP"
                with m.Else():
                    m.d.sync += [win.eq(1), wcnt.eq(1), r_idx.eq(e_idx - 1)]
                    m.next = "EW_WRD"
            with m.State("EW_WRD"):
                with m.If(wcnt == kw):
                    m.next = "EW_WEND"
                with m.Else():
                    exp_bit_read(r_idx)
                    m.next = "EW_WRDW"
            with m.State("EW_WRDW"):
                exp_word_latch(r_idx)
                m.next = "EW_WRDS"
            with m.State("EW_WRDS"):
                m.d.sync += [win.eq(Cat(exp_bit_value(r_idx), win[:K - 1])), wcnt.eq(wcnt + 1),
                             r_idx.eq(r_idx - 1)]
                m.next = "EW_WRD"
            with m.State("EW_WEND"):
                # the window ends at its lowest set bit: digit = win >> trailing zeros, odd
                with m.Switch(win):
                    for value in range(1, 2 ** K):
                        tz = (value & -value).bit_length() - 1
                        with m.Case(value):
                            m.d.sync += [digit.eq(value >> tz), wlen.eq(kw - tz)]
                m.d.sync += sqcnt.eq(0)
                m.next = "EW_WSQ"
            with m.State("EW_WSQ"):
                with m.If(started & (sqcnt != wlen)):
                    call(e_d, e_d, e_d, _RET_WSQ)
                with m.Else():
                    m.next = "EW_WMUL"
            with m.State("EW_WMUL"):
                call(e_d, e_d, Mux(digit == 1, e_a, table_slot(digit)), _RET_WMUL)

            # ---- EXP_LADDER: Montgomery ladder, R0 = dst, R1 = hidden slot ----
            with m.State("EL_INIT"):
                call(HIDDEN_LADDER, e_a, e_d, _RET_LINIT)
            with m.State("EL_BIT"):
                exp_bit_read()
                m.next = "EL_BITW"
            with m.State("EL_BITW"):
                exp_word_latch()
                m.next = "EL_BITS"
            with m.State("EL_BITS"):
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
    from eda.synth import amaranth_verilog
    return amaranth_verilog(MontgomeryPeripheral(config), name=name)
