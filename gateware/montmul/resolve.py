"""The end of a product: resolving the redundant accumulator and comparing it with N.

After the last iteration every column j of the accumulator holds a low word and a carry c_j (up to W+1
bits) that still has to be added into column j+1.  Pass 1 goes over the rows once, value-independently:

* y_j = c_j + t_{j+1} (the low word of the next column), then r_j = low word of y_j + the high bits of
  y_{j-1} (the first column of a row takes them from the previous row): each column now carries at most
  one bit into the next, as a generate bit (r_j overflowed) or a propagate bit (r_j is all ones);
* the row's one-bit carries come from ``carry_chain`` (the row-to-row carry in a register), which gives
  the resolved words V;
* the same generate/propagate scheme gives the borrows of V - N (``V_j < N_j`` generates, equality
  propagates), hence V - N.

V < 2N, so the result is V - N when V >= N, that is when V overflows the rows or V - N does not borrow,
and V otherwise.  Pass 2 (in the core) writes the selected words.
"""

from types import SimpleNamespace

from amaranth import C, Signal, Mux, Cat

from ..interface import WORD_BITS

__all__ = ["carry_chain", "lane_signals", "resolve_pass"]


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


def resolve_pass(m, config, acc_lo, acc_c, acc_next_lo0, n_row, rows, issue, issue_k, pair=None):
    """Pass 1 over the accumulator rows, added to module ``m``.

    ``issue``/``issue_k``: row ``issue_k`` of the accumulator is read in this cycle, ``acc_lo(j)`` and
    ``acc_c(j)`` its columns, ``acc_next_lo0`` the low word of lane 0 of the next row, ``n_row`` the same
    row of N (read in the same cycle, used a cycle later).  Four cycles later ``valid`` is high with ``row``,
    the resolved words ``value`` and ``diff`` = V - N; ``select`` says, after the last row, whether V - N
    is the result.  The registers in ``state`` carry between rows and must be cleared before the first.

    With ``pair`` (a signal) the rows are two numbers of one row each (rows 0 and 1, a pair's
    contexts): no carry or borrow crosses from one to the other, each has its own carry registers, and
    ``select_of(k)`` is the choice for row k (``select`` is row 0's)."""
    L, W, KM = config.lanes, WORD_BITS, config.rows_per_slot
    f1_v, f1_k = Signal(), Signal(range(KM))
    f1_y = lane_signals(L, "f1_y", W + 2)
    f2_v, f2_k = Signal(), Signal(range(KM))
    f2_r = lane_signals(L, "f2_r", W)
    f2_g = lane_signals(L, "f2_g", 1)
    f2_p = lane_signals(L, "f2_p", 1)
    f2_n = lane_signals(L, "f2_n", W)
    f3_v, f3_k = Signal(), Signal(range(KM))
    f3_val = lane_signals(L, "f3_val", W)
    f3_n = lane_signals(L, "f3_n", W)
    f4_v, f4_k = Signal(), Signal(range(KM))
    f4_g = lane_signals(L, "f4_g", 1)
    f4_p = lane_signals(L, "f4_p", 1)
    f4_val = lane_signals(L, "f4_val", W)
    f4_n = lane_signals(L, "f4_n", W)
    # carries between rows: one set per number (two in a pair); a row's set is that of its context
    n_sets = 1 if pair is None else 2
    hiprevs = [Signal(len(f1_y[L - 1]) - W, name=f"hiprev{c}") for c in range(n_sets)]  # the high bits
    cins = [Signal(name=f"cin{c}") for c in range(n_sets)]                              # of the last
    bins = [Signal(name=f"bin{c}") for c in range(n_sets)]                              # column, carry

    def context(k):
        return C(0, 1) if pair is None else pair & (k == 1)

    def of(regs, k):
        return regs[0] if pair is None else Mux(context(k), regs[1], regs[0])

    def update(regs, k, value):
        for c, reg in enumerate(regs):
            with m.If(context(k) == c):
                m.d.sync += reg.eq(value)

    f_last = issue_k == rows - 1
    if pair is not None:
        f_last = pair | f_last
    for j in range(L):
        if j < L - 1:
            t_next = acc_lo(j + 1)
        else:
            t_next = Mux(f_last, 0, acc_next_lo0)
        m.d.sync += f1_y[j].eq(acc_c(j) + t_next)
    m.d.sync += [f1_v.eq(issue), f1_k.eq(issue_k)]
    for j in range(L):
        y = f1_y[j]
        carry_in = of(hiprevs, f1_k) if j == 0 else f1_y[j - 1][W:]
        r = Signal(W + 1, name=f"f_r{j}")
        m.d.comb += r.eq(y[:W] + carry_in)
        m.d.sync += [
            f2_r[j].eq(r[:W]),
            f2_g[j].eq(r[W]),
            f2_p[j].eq(~r[W] & (r[:W] == (1 << W) - 1)),
        ]
    with m.If(f1_v):
        update(hiprevs, f1_k, f1_y[L - 1][W:])
    m.d.sync += [f2_v.eq(f1_v), f2_k.eq(f1_k)]
    m.d.sync += [f2_n[j].eq(n_row.word_select(j, W)) for j in range(L)]
    carries, carry_out = carry_chain(m, Cat(f2_g), Cat(f2_p), of(cins, f2_k))
    with m.If(f2_v):
        update(cins, f2_k, carry_out)
    m.d.sync += [f3_v.eq(f2_v), f3_k.eq(f2_k)]
    for j in range(L):
        m.d.sync += [f3_val[j].eq((f2_r[j] + carries[j])[:W]), f3_n[j].eq(f2_n[j])]
    for j in range(L):
        m.d.sync += [f4_g[j].eq(f3_val[j] < f3_n[j]), f4_p[j].eq(f3_val[j] == f3_n[j])]
    m.d.sync += [f4_v.eq(f3_v), f4_k.eq(f3_k)]
    m.d.sync += [f4_val[j].eq(f3_val[j]) for j in range(L)]
    m.d.sync += [f4_n[j].eq(f3_n[j]) for j in range(L)]
    borrows, borrow_out = carry_chain(m, Cat(f4_g), Cat(f4_p), of(bins, f4_k))
    diff = [(f4_val[j] - f4_n[j] - borrows[j])[:W] for j in range(L)]
    with m.If(f4_v):
        update(bins, f4_k, borrow_out)
    # V >= N iff V overflows the rows or V - N does not borrow; V < 2N, so V - N < N then.
    sels = [Signal(name=f"select{c}") for c in range(n_sets)]
    m.d.comb += [sel.eq((hiprevs[c] != 0) | cins[c] | ~bins[c]) for c, sel in enumerate(sels)]
    return SimpleNamespace(valid=f4_v, row=f4_k, value=f4_val, diff=diff, select=sels[0],
                           select_of=lambda k: of(sels, k), state=[*hiprevs, *cins, *bins])
