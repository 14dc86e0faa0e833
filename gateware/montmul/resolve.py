"""The end of a product: resolving the redundant accumulator and comparing it with N.

After the last iteration every column j of the accumulator holds a low word and a carry c_j (up to W+1
bits) that still has to be added into column j+1.  Pass 1 goes over the rows once, value-independently:

* y_j = c_j + t_{j+1} (the low word of the next column), then r_j = low word of y_j + the high bits of
  y_{j-1} (the first column of a row takes them from the previous row): each column now carries at most
  one bit into the next, as a generate bit (r_j overflowed) or a propagate bit (r_j is all ones);
* the row's one-bit carries come from ``carry_chain`` (the row-to-row carry in a register), which gives
  the resolved words V;
* the same generate/propagate scheme gives the borrows of V - N (``V_j < N_j`` generates, equality
  propagates), hence V - N, and the borrows of V - 2N (2N's words are N's shifted left one bit across
  words and rows), kept per column.

The value is T = V + O*2^X (X the rows' bits, O the carries out of the top column, O <= 2) and T < 3N
(quotient pipelining, ``gateware.quotient_pipelining``): the result is T - 2N when O >= (borrow of
V - 2N) + (N's top bit, the bit of 2N above the rows), else T - N when O >= (borrow of V - N), else V.
Pass 2 (``SelectPass``) writes the selected words: V - N and V are stored by pass 1, V - 2N is formed
again from V, N's row and the stored borrows.
"""

from amaranth import C, Signal, Mux, Cat, Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..interface import SLOT_BITS
from .regfile import WritePortSignature, row_address

__all__ = ["carry_chain", "lane_signals", "ResolvePass", "SelectPass"]


def lane_signals(lanes, name, width):
    """One reset-less register per lane (lists of lane signals rather than rows packed into one wide signal:
    the packing costs Verilator a wide insert per lane every cycle).  Reset-less because these datapath
    registers are written before they are read in every product, and the reset would otherwise reach their
    logic."""
    return [Signal(width, name=f"{name}{j}", reset_less=True) for j in range(lanes)]


def carry_chain(m, gen, prop, cin, segment=32):
    """Carries into each position of a row (and the carry out) from one-bit generate/propagate signals
    (gen and prop never both set).  Within a segment of at most ``segment`` positions the carry chain
    of an adder does it: the carry into position j of (gen|prop) + gen + cin is exactly the carry we
    want.  Longer rows are cut into segments computed for both carry-ins and selected (carry-select),
    so no chain is longer than ``segment`` + 1 bits.  Adds its logic to module ``m``; returns
    ``(carries, carry_out)``."""
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


class ResolvePass(wiring.Component):
    """Pass 1 over the accumulator's rows.

    ``issue``/``issue_row``: that row of the accumulator is read in this cycle, ``acc_low[j]`` and
    ``acc_carry[j]`` its columns, ``acc_next_low0`` the low word of lane 0 of the next row, ``modulus_row``
    the same row of N (read in the same cycle, used a cycle later), ``top_carry`` the carry each
    context's top column keeps outside the rows (``LanePipeline``).  Three cycles later ``valid`` is high
    with ``row``, the resolved words ``value``, ``diff`` = V - N and the borrows into each column of
    V - 2N (``borrow2``).  After the last row ``select`` says whether the result is V - N or less and
    ``select2`` whether it is V - 2N (for row ``select_row``).  ``clear`` empties the registers that
    carry between rows; it must come before the first row.

    With ``pair`` high the rows are two numbers of one row each (rows 0 and 1, a pair's contexts): no
    carry or borrow crosses from one to the other, each has its own carry registers and its own
    ``select``."""

    def __init__(self, config):
        self.config = config
        rows, L, W = config.rows_per_slot, config.lanes, config.word_bits
        super().__init__({
            "issue":         In(1),
            "issue_row":     In(range(rows)),
            "rows":          In(range(rows + 1)),
            "pair":          In(1),
            "clear":         In(1),
            "acc_low":       In(W).array(L),
            "acc_carry":     In(W + 1).array(L),
            "acc_next_low0": In(W),
            "top_carry":     In(W + 1).array(2 if config.has_pairs else 1),
            "modulus_row":   In(config.row_bits),
            "valid":         Out(1),
            "row":           Out(range(rows)),
            "value":         Out(W).array(L),
            "diff":          Out(W).array(L),
            "borrow2":       Out(1).array(L),
            "select_row":    In(range(rows)),
            "select":        Out(1),
            "select2":       Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        config = self.config
        L, W, KM = config.lanes, config.word_bits, config.rows_per_slot
        pair = self.pair if config.has_pairs else None
        acc_lo, acc_c = self.acc_low, self.acc_carry
        f2_v, f2_k = Signal(), Signal(range(KM))
        f2_r = lane_signals(L, "f2_r", W)
        f2_g = lane_signals(L, "f2_g", 1)
        f2_p = lane_signals(L, "f2_p", 1)
        f3_v, f3_k = Signal(), Signal(range(KM))
        f3_val = lane_signals(L, "f3_val", W)
        f3_n = lane_signals(L, "f3_n", W)
        f4_v, f4_k = self.valid, self.row
        f4_g = lane_signals(L, "f4_g", 1)
        f4_p = lane_signals(L, "f4_p", 1)
        f4_val = lane_signals(L, "f4_val", W)
        f4_n = lane_signals(L, "f4_n", W)
        f4_g2 = lane_signals(L, "f4_g2", 1)
        f4_p2 = lane_signals(L, "f4_p2", 1)
        # carries between rows: one set per number (two in a pair); a row's set is that of its context
        n_sets = 1 if pair is None else 2
        hiprevs = [Signal(2, name=f"hiprev{c}") for c in range(n_sets)]     # the high bits of the last
        cins = [Signal(name=f"cin{c}") for c in range(n_sets)]              # column, carry and borrows
        bins = [Signal(name=f"bin{c}") for c in range(n_sets)]              # out of the previous row
        bins2 = [Signal(name=f"bin2_{c}") for c in range(n_sets)]
        ntops = [Signal(name=f"ntop{c}") for c in range(n_sets)]    # N's top bit of the previous row

        def context(k):
            return C(0, 1) if pair is None else pair & (k == 1)

        def of(regs, k):
            return regs[0] if pair is None else Mux(context(k), regs[1], regs[0])

        def update(regs, k, value):
            for c, reg in enumerate(regs):
                with m.If(context(k) == c):
                    m.d.sync += reg.eq(value)

        # the row as it is read: y_j = c_j + t_{j+1}, then r_j = y_j's low word + y_{j-1}'s high bits
        f_last = self.issue_row == self.rows - 1
        if pair is not None:
            f_last = pair | f_last
        ys = []
        for j in range(L):
            if j < L - 1:
                t_next = acc_lo[j + 1]
            else:
                t_next = Mux(f_last, of(self.top_carry, self.issue_row), self.acc_next_low0)
            y = Signal(W + 2, name=f"f_y{j}")
            m.d.comb += y.eq(acc_c[j] + t_next)
            ys.append(y)
        for j in range(L):
            carry_in = of(hiprevs, self.issue_row) if j == 0 else ys[j - 1][W:]
            r = Signal(W + 1, name=f"f_r{j}")
            m.d.comb += r.eq(ys[j][:W] + carry_in)
            m.d.sync += [
                f2_r[j].eq(r[:W]),
                f2_g[j].eq(r[W]),
                f2_p[j].eq(~r[W] & (r[:W] == (1 << W) - 1)),
            ]
        with m.If(self.issue):
            update(hiprevs, self.issue_row, ys[L - 1][W:])
        m.d.sync += [f2_v.eq(self.issue), f2_k.eq(self.issue_row)]
        carries, carry_out = carry_chain(m, Cat(f2_g), Cat(f2_p), of(cins, f2_k))
        with m.If(f2_v):
            update(cins, f2_k, carry_out)
        m.d.sync += [f3_v.eq(f2_v), f3_k.eq(f2_k)]
        for j in range(L):
            m.d.sync += [f3_val[j].eq((f2_r[j] + carries[j])[:W]),
                         f3_n[j].eq(self.modulus_row.word_select(j, W))]
        with m.If(f3_v):
            update(ntops, f3_k, f3_n[L - 1][W - 1])
        for j in range(L):
            twice = Cat(of(ntops, f3_k) if j == 0 else f3_n[j - 1][W - 1], f3_n[j][:W - 1])   # 2N's word
            m.d.sync += [f4_g[j].eq(f3_val[j] < f3_n[j]), f4_p[j].eq(f3_val[j] == f3_n[j]),
                         f4_g2[j].eq(f3_val[j] < twice), f4_p2[j].eq(f3_val[j] == twice)]
        m.d.sync += [f4_v.eq(f3_v), f4_k.eq(f3_k)]
        m.d.sync += [f4_val[j].eq(f3_val[j]) for j in range(L)]
        m.d.sync += [f4_n[j].eq(f3_n[j]) for j in range(L)]
        borrows, borrow_out = carry_chain(m, Cat(f4_g), Cat(f4_p), of(bins, f4_k))
        borrows2, borrow2_out = carry_chain(m, Cat(f4_g2), Cat(f4_p2), of(bins2, f4_k))
        m.d.comb += [self.value[j].eq(f4_val[j]) for j in range(L)]
        m.d.comb += [self.diff[j].eq((f4_val[j] - f4_n[j] - borrows[j])[:W]) for j in range(L)]
        m.d.comb += [self.borrow2[j].eq(borrows2[j]) for j in range(L)]
        with m.If(f4_v):
            update(bins, f4_k, borrow_out)
            update(bins2, f4_k, borrow2_out)
        with m.If(self.clear):
            m.d.sync += [reg.eq(0) for reg in (*hiprevs, *cins, *bins, *bins2, *ntops)]
        # T = V + O*2^X with O = hiprev + cin: T >= kN iff O >= (the borrow out of V - kN's rows) + (kN's
        # bits above the rows); T < 3N, so T - 2N < N, and T - N < N when T < 2N.
        sels = [Signal(name=f"select{c}") for c in range(n_sets)]
        sels2 = [Signal(name=f"select2_{c}") for c in range(n_sets)]
        for c in range(n_sets):
            overflow = hiprevs[c] + cins[c]
            m.d.comb += [sels[c].eq(overflow >= bins[c]), sels2[c].eq(overflow >= bins2[c] + ntops[c])]
        m.d.comb += [self.select.eq(of(sels, self.select_row)), self.select2.eq(of(sels2, self.select_row))]
        return m


class SelectPass(wiring.Component):
    """Pass 2: ``issue`` writes row ``row`` of slot ``dst_slot``: V - 2N where ``select2`` is high, else
    V - N (the accumulator's low-word field) where ``select`` is high, else V (its carry field).  V - 2N is
    formed from V, the borrows into its columns (the carry field's top bit) and ``modulus_row``, N's same
    row (read data in the cycle of the issue: its address a cycle earlier)."""

    def __init__(self, config):
        self.config = config
        rows, L, W = config.rows_per_slot, config.lanes, config.word_bits
        super().__init__({
            "issue":    In(1),
            "row":      In(range(rows)),
            "pair":     In(1),
            "dst_slot": In(SLOT_BITS),
            "select":   In(1),
            "select2":  In(1),
            "acc_low":  In(W).array(L),
            "acc_carry": In(W + 1).array(L),
            "modulus_row": In(config.row_bits),
            "write":    Out(WritePortSignature(config.operand_rows, config.row_bits)),
        })

    def elaborate(self, platform):
        m = Module()
        cfg = self.config
        L, W = cfg.lanes, cfg.word_bits
        n = [self.modulus_row.word_select(j, W) for j in range(L)]
        top = Signal()          # N's top bit of the previous row
        with m.If(self.issue):
            m.d.sync += top.eq(n[L - 1][W - 1])
        twice_low = Mux((self.row == 0) | self.pair, 0, top)
        words = []
        for j in range(L):
            value = self.acc_carry[j][:W]
            twice = Cat(twice_low if j == 0 else n[j - 1][W - 1], n[j][:W - 1])
            less2 = Signal(W, name=f"less2_{j}")
            m.d.comb += less2.eq(value - twice - self.acc_carry[j][W])
            words.append(Mux(self.select2, less2, Mux(self.select, self.acc_low[j], value)))
        m.d.comb += [
            self.write.addr.eq(row_address(cfg, self.dst_slot, self.row)),
            self.write.data.eq(Cat(*words)),
            self.write.en.eq(self.issue),
        ]
        return m
