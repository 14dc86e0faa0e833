"""SETMOD: check and load a modulus, and hold the modulus in force.

From the slot holding N and a size s (in W-bit words) SETMOD

* reads N's first row and refuses an even N (``even`` pulses; the previous modulus stays in force);
* computes n' = -N^-1 mod 2^W two bits per cycle (W/2 steps, Hensel lifting in radix 4): with t = 1 and
  x = 0, each step keeps 1 + n_0*x = t * 2^(2*step); it adds d*n_0 to t, the digit d = -t*n_0 mod 4 making
  the sum a multiple of 4 (n_0 is its own inverse mod 4), sets bits 2*step and 2*step + 1 of x to d and
  divides t by 4 (t stays below n_0: t < (n_0 + 3*n_0)/4); 3*n_0 is formed once, before the steps;
* copies the rows of N below the size into the modulus memory, the last one masked to the size;
* computes N' = (n'*N + 1) / 2^W = floor(n'*N / 2^W) + 1 (N' <= N, as many words), the multiple of N the
  core's pipelined iterations add (``gateware.quotient_pipelining``), word-serially with one W x W
  multiplier: reading N's rows again (a word per cycle), word g of N (g = 0 .. s, 0 at s) gives
  x_g = n'*n_g + carry (the carry starts at 1, so x_0's low word is 0), word g - 1 of N' is x_g's low
  word and the carry its high one; N' goes into the modulus memory ``n_prime_row`` rows after N;
* then makes the new modulus the one in force in its bank (``done`` pulses in that cycle).

Bank 0 (``state``) is the modulus of every command, its rows at the start of the modulus memory; bank
1 (``state1``, context 1 of the pair commands) is one row, kept in the row after them (and each bank's
N' ``config.n_prime_row`` rows after its N).  Loading one
bank leaves the other as it was.  The caller checks that a bank-1 modulus fits a row.

Cycles: 2 + W/2 + ceil(s/lanes) + (s + 1) + 2 + 1 from the cycle after ``start``.

CLEAR (``wipe``, while idle) leaves no modulus in force in either bank and zeroes every register that
held words of N or of N' (n', n_0 and its multiples, the N' datapath's words and carry); the modulus
memory itself is the register file's to wipe.
"""

from types import SimpleNamespace

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..interface import SIZE_BITS, SLOT_FIELD_BITS
from .regfile import ReadPortSignature, WritePortSignature, row_address

__all__ = ["ModulusStateSignature", "ModulusUnit", "last_row_mask"]


class ModulusStateSignature(wiring.Signature):
    """The modulus in force, seen from its holder."""

    def __init__(self, config):
        super().__init__({
            "valid":         Out(1),                                # a SETMOD has succeeded
            "size":          Out(SIZE_BITS),                        # s, in W-bit words
            "rows":          Out(range(config.rows_per_slot + 1)),  # ceil(s / lanes)
            "row":           Out(range(config.modulus_rows)),       # its first row in the modulus memory
            "n_inv":         Out(config.word_bits),                        # n' = -N^-1 mod 2^W
            "last_row_mask": Out(config.row_bits),                  # the last row's words below s, all ones
        })


def last_row_mask(config, size):
    """The word mask of the last row of an operand of ``size`` words (all bits of the words below the size
    set), built by a shift rather than by replicating lane bits: a plain wide AND with it is cheap to
    simulate."""
    lanes, row_bits = config.lanes, config.row_bits
    rem = size[:lanes.bit_length() - 1]
    ones = C((1 << row_bits) - 1, row_bits)
    return Mux(rem == 0, ones, ~(ones << Cat(C(0, config.word_bits.bit_length() - 1), rem))[:row_bits])


class ModulusUnit(wiring.Component):
    """SETMOD and the modulus state.

    ``start`` (one cycle, with ``slot`` and ``size`` already checked by the caller) begins a SETMOD;
    ``busy`` is high until it ends with a one-cycle pulse of ``done`` (the new modulus is in ``state``
    from the next cycle) or of ``even`` (refused, ``state`` unchanged)."""

    def __init__(self, config):
        self.config = config
        super().__init__({
            "start": In(1),
            "slot":  In(SLOT_FIELD_BITS),
            "bank":  In(1),
            "size":  In(SIZE_BITS),
            "busy":  Out(1),
            "done":  Out(1),
            "even":  Out(1),
            "read":  Out(ReadPortSignature(config.operand_rows, config.row_bits)),
            "write": Out(WritePortSignature(config.modulus_rows, config.row_bits)),
            "state": Out(ModulusStateSignature(config)),
            "state1": Out(ModulusStateSignature(config)),
            "wipe":  In(1),
        })

    def _banks(self, m):
        """The moduli in force, one per bank: their registers, driving ``state`` and ``state1``."""
        cfg = self.config
        KM = cfg.rows_per_slot
        banks = []
        for b, state in enumerate((self.state, self.state1)):
            bank = dict(size=Signal(SIZE_BITS, name=f"size{b}"), rows=Signal(range(KM + 1), name=f"rows{b}"),
                        n_inv=Signal(cfg.word_bits, name=f"n_inv{b}"),
                        last_row_mask=Signal(cfg.row_bits, reset_less=True, name=f"mask{b}"),
                        valid=Signal(name=f"valid{b}"))
            m.d.comb += [getattr(state, name).eq(value) for name, value in bank.items()]
            m.d.comb += state.row.eq(cfg.bank1_row if b else 0)
            banks.append(bank)
        if not cfg.has_pairs:
            m.d.comb += self.state1.valid.eq(0)
        return banks

    def _loading(self):
        """The registers of the modulus being loaded, shared by the states and the copy and N' datapaths."""
        cfg = self.config
        W, KM = cfg.word_bits, cfg.rows_per_slot
        s = SimpleNamespace()
        s.slot = Signal(SLOT_FIELD_BITS, name="slot")
        s.new_bank = Signal(name="new_bank")
        s.new_size = Signal(SIZE_BITS, name="new_size")
        s.new_rows = Signal(range(KM + 1), name="new_rows")
        s.new_mask = Signal(cfg.row_bits, reset_less=True, name="new_mask")
        s.inv_t = Signal(W, name="inv_t")
        s.inv_n = Signal(W, name="inv_n")
        s.inv_n3 = Signal(W + 2, name="inv_n3")                # 3*n_0
        s.inv_x = Signal(W, name="inv_x")
        s.cnt = Signal(range(max(W, KM) + 2), name="cnt")
        s.cp_v = Signal(name="cp_v")
        s.cp_k = Signal(range(KM), name="cp_k")
        return s

    def _read_row(self, m, s, row):
        m.d.comb += [self.read.en.eq(1), self.read.addr.eq(row_address(self.config, s.slot, row))]

    def _bank_row(self, s, row):
        return Mux(s.new_bank, self.config.bank1_row, row)

    def _copy(self, m, s):
        """The row read in the previous cycle is written, masked, into the modulus memory."""
        rd = self.read
        m.d.sync += s.cp_v.eq(0)
        with m.If(s.cp_v):
            m.d.comb += [self.write.addr.eq(self._bank_row(s, s.cp_k)), self.write.en.eq(1),
                         self.write.data.eq(Mux(s.cp_k == s.new_rows - 1, rd.data & s.new_mask, rd.data))]

    def _n_prime(self, m, s):
        """N': the row of word g of N is read, then word g (0 from the size up) goes into the product
        register, then x_g = product + carry gives word g - 1 of N' (``prime_words``); a row of N' is
        written when its last word is made, or at g = s (the words above s are 0: N' < 2^(W*s)).  Adds
        to ``s`` what the states set: ``prime_g``, ``fetch_v``, ``fetch_g``, ``carry``, ``prime_words``."""
        cfg, rd = self.config, self.read
        L, W = cfg.lanes, cfg.word_bits
        log_lanes = L.bit_length() - 1
        prime_g = s.prime_g = Signal(SIZE_BITS + 1)     # the word of N whose row is read
        fetch_v = s.fetch_v = Signal()
        fetch_g = s.fetch_g = Signal(SIZE_BITS + 1)     # the word of N selected from the row read
        read_words = Array(rd.data.word_select(j, W) for j in range(L))
        fetched = s.fetched = Signal(W, reset_less=True)    # that word, registered: the multiplier's input
        fetched_v = Signal()
        fetched_g = Signal(SIZE_BITS + 1)
        product = s.product = Signal(2 * W, reset_less=True)
        product_v = Signal()
        product_g = Signal(SIZE_BITS + 1)
        carry = s.carry = Signal(W)
        prime_words = s.prime_words = [Signal(W, name=f"prime_word{j}", reset_less=True) for j in range(L)]
        x = Signal(2 * W)
        m.d.sync += [fetch_v.eq(0), fetched_v.eq(0), product_v.eq(0)]
        with m.If(fetch_v):
            m.d.sync += [fetched.eq(Mux(fetch_g < s.new_size, read_words[fetch_g[:log_lanes]], 0)),
                         fetched_v.eq(1), fetched_g.eq(fetch_g)]
        with m.If(fetched_v):
            m.d.sync += [product.eq(s.inv_x * fetched), product_v.eq(1), product_g.eq(fetched_g)]
        m.d.comb += x.eq(product + carry)
        with m.If(product_v & (product_g != 0)):
            out = (product_g - 1)[:log_lanes]
            m.d.sync += carry.eq(x[W:])
            for j in range(L):
                with m.If(out == j):
                    m.d.sync += prime_words[j].eq(x[:W])
            with m.If((out == L - 1) | (product_g == s.new_size)):
                out_row = ((product_g - 1) >> log_lanes)[:len(s.cp_k)]
                m.d.comb += [self.write.addr.eq(cfg.n_prime_row + self._bank_row(s, out_row)), self.write.en.eq(1),
                             self.write.data.eq(Cat(Mux(out == j, x[:W], prime_words[j]) for j in range(L)))]
                m.d.sync += [word.eq(0) for word in prime_words]
        with m.Elif(product_v):
            m.d.sync += carry.eq(x[W:])

    def _fsm(self, m, banks, s):
        """The states (module docstring): check, invert, copy, N', then the new modulus in force."""
        cfg, rd = self.config, self.read
        L, W = cfg.lanes, cfg.word_bits
        log_lanes = L.bit_length() - 1
        inv_t, inv_n, inv_x, cnt = s.inv_t, s.inv_n, s.inv_x, s.cnt
        with m.FSM():
            m.d.comb += self.busy.eq(1)
            with m.State("IDLE"):
                m.d.comb += self.busy.eq(0)
                with m.If(self.start):
                    m.d.sync += [s.slot.eq(self.slot), s.new_bank.eq(self.bank), s.new_size.eq(self.size),
                                 s.new_rows.eq((self.size + L - 1) >> log_lanes)]
                    m.next = "READ"
            with m.State("READ"):
                m.d.sync += s.new_mask.eq(last_row_mask(cfg, s.new_size))
                self._read_row(m, s, 0)
                m.next = "CHECK"
            with m.State("CHECK"):
                n0 = rd.data[:W]
                with m.If(~n0[0]):
                    m.d.comb += self.even.eq(1)
                    m.next = "IDLE"
                with m.Else():
                    m.d.sync += [inv_t.eq(1), inv_x.eq(0), inv_n.eq(n0), s.inv_n3.eq(n0 + (n0 << 1)), cnt.eq(0)]
                    m.next = "INVERT"
            with m.State("INVERT"):
                # invariant: 1 + n*x = t * 4^cnt; after W/2 steps x = -n^-1 mod 2^W
                digit = Signal(2)
                m.d.comb += digit.eq(-(inv_t[:2] * inv_n[:2]))
                multiple = Signal(W + 2)
                m.d.comb += multiple.eq(Array([0, inv_n, inv_n << 1, s.inv_n3])[digit])
                m.d.sync += [inv_t.eq((inv_t + multiple) >> 2),
                             inv_x.eq(Cat(inv_x[2:], digit))]
                m.d.sync += cnt.eq(cnt + 1)
                with m.If(cnt == W // 2 - 1):
                    m.d.sync += cnt.eq(0)
                    m.next = "COPY"
            with m.State("COPY"):
                self._read_row(m, s, cnt)
                m.d.sync += [s.cp_v.eq(1), s.cp_k.eq(cnt), cnt.eq(cnt + 1)]
                with m.If(cnt == s.new_rows - 1):
                    m.d.sync += [s.prime_g.eq(0), s.carry.eq(1), *(word.eq(0) for word in s.prime_words)]
                    m.next = "PRIME"
            with m.State("PRIME"):
                self._read_row(m, s, s.prime_g >> log_lanes)
                m.d.sync += [s.fetch_v.eq(1), s.fetch_g.eq(s.prime_g), s.prime_g.eq(s.prime_g + 1)]
                with m.If(s.prime_g == s.new_size):
                    m.next = "PRIME_LAST"
            with m.State("PRIME_LAST"):
                m.next = "PRIME_MUL"
            with m.State("PRIME_MUL"):
                m.next = "FINISH"
            with m.State("FINISH"):
                # N''s last row is written in this cycle
                m.d.comb += self.done.eq(1)
                for b, bank in enumerate(banks):
                    if b and not cfg.has_pairs:
                        continue
                    with m.If(s.new_bank == b):
                        m.d.sync += [bank["size"].eq(s.new_size), bank["rows"].eq(s.new_rows),
                                     bank["last_row_mask"].eq(s.new_mask), bank["n_inv"].eq(s.inv_x),
                                     bank["valid"].eq(1)]
                m.next = "IDLE"

    def _wipe(self, m, banks, s):
        """CLEAR: both banks empty, and nothing left of the last N in the registers."""
        with m.If(self.wipe):
            m.d.sync += [register.eq(0) for bank in banks for register in bank.values()]
            m.d.sync += [register.eq(0) for register in (s.inv_t, s.inv_n, s.inv_n3, s.inv_x, s.fetched, s.product,
                                                         s.carry, *s.prime_words)]

    def elaborate(self, platform):
        m = Module()
        banks = self._banks(m)
        s = self._loading()
        self._copy(m, s)
        self._n_prime(m, s)
        self._fsm(m, banks, s)
        self._wipe(m, banks, s)
        return m
