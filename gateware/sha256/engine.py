"""``SHA256Engine``: FIPS 180-4's compression function, one round per cycle, with a loadable state.

The 16 message words the CPU writes live in a buffer of their own, written by index in any cycle, busy
or not: the next block's words go in while a block runs.  The message schedule is a second window of 16
registers: the edge that accepts BLOCK copies the buffer into it, and in round t it holds W[t..t+15],
each round shifting it by one word, the new last word computed from four of the window's
(W[t+16] = s1(W[t+14]) + W[t+9] + s0(W[t+1]) + W[t]).  The buffer keeps its words.

A BLOCK accepted at an edge copies the buffer into the window and loads a..h from the state and
K[0] + W[0] (from the buffer) into ``kw``; each of the next 64 edges is a round, which also prepares the
next round's K[t+1] + W[t+1], so a round's T1 adds four terms (h, Sigma1(e), Ch(e, f, g), kw) rather
than five; the edge after the last round adds a..h into the state.  INIT loads the initial hash value at
the edge that accepts it.  Nothing in the sequence looks at the data: the cycles are the contract's
(``BLOCK_CYCLES``, ``INIT_CYCLES``) for every message and state.

A command or state write while busy is refused (``Status.busy_refused``), as is a state write in the
cycle of an accepted command, which has taken the state as it was; a command with an unknown code is
refused (``Status.bad_command``).  A refusal changes nothing else; the bits stay until the next accepted
command.  A message write is never refused: one in the cycle of an accepted BLOCK lands in the buffer
after the copy, for the next block.
"""

from amaranth import Array, Cat, Module, Mux, Signal
from amaranth.lib import memory, wiring
from amaranth.lib.wiring import In, Out

from .interface import (BLOCK_WORDS, COMMAND_BITS, INITIAL_HASH, MESSAGE_ADDR_BITS, ROUND_CONSTANTS, ROUNDS,
                        STATE_ADDR_BITS, STATE_WORDS, WORD_BITS, Command, Status)

__all__ = ["SHA256Engine"]


def _small_sigma0(x):
    return x.rotate_right(7) ^ x.rotate_right(18) ^ (x >> 3)


def _small_sigma1(x):
    return x.rotate_right(17) ^ x.rotate_right(19) ^ (x >> 10)


def _big_sigma0(x):
    return x.rotate_right(2) ^ x.rotate_right(13) ^ x.rotate_right(22)


def _big_sigma1(x):
    return x.rotate_right(6) ^ x.rotate_right(11) ^ x.rotate_right(25)


class SHA256Engine(wiring.Component):
    message_addr: In(MESSAGE_ADDR_BITS)   # which message word ``message_data`` writes
    message_data: In(WORD_BITS)
    message_we: In(1)                     # write ``message_data`` into the buffer (any cycle)
    state_addr: In(STATE_ADDR_BITS)       # which state word is written and read
    state_data: In(WORD_BITS)
    state_we: In(1)                       # write ``state_data`` (refused while busy)
    state_rdata: Out(WORD_BITS)           # the state word at ``state_addr``, this cycle
    command: In(COMMAND_BITS)             # a ``Command`` code
    command_stb: In(1)                    # issue ``command``
    status: Out(Status)

    def elaborate(self, platform):
        m = Module()
        state = [Signal(WORD_BITS, name=f"state{i}") for i in range(STATE_WORDS)]
        message = [Signal(WORD_BITS, name=f"message{i}") for i in range(BLOCK_WORDS)]
        # the schedule window, the working variables and kw are loaded before every use: no reset needed
        window = [Signal(WORD_BITS, name=f"window{i}", reset_less=True) for i in range(BLOCK_WORDS)]
        work = [Signal(WORD_BITS, name=name, reset_less=True) for name in "abcdefgh"]
        kw = Signal(WORD_BITS, reset_less=True)      # K[t] + W[t] for the coming round t
        busy = Signal()
        round_index = Signal(range(ROUNDS + 1))      # the round the next edge does; ROUNDS: the addition

        start_init, start_block, write_ok = self._control(m, busy)
        running = busy & (round_index != ROUNDS)
        finishing = busy & (round_index == ROUNDS)

        with m.If(start_block):
            m.d.sync += [busy.eq(1), round_index.eq(0)]
        with m.Elif(finishing):
            m.d.sync += busy.eq(0)
        with m.Elif(running):
            m.d.sync += round_index.eq(round_index + 1)

        self._message(m, message)
        self._schedule(m, message, window, kw, round_index, start_block, running)
        self._rounds(m, work, kw, state, start_block, running)
        self._state(m, state, work, start_init, finishing, write_ok)
        m.d.comb += self.state_rdata.eq(Array(state)[self.state_addr])
        return m

    def _control(self, m, busy):
        """Accepts or refuses the strobes, keeps the status; returns (start INIT, start BLOCK, a state write
        may land) for this cycle."""
        known = Signal()
        accepted = Signal()
        busy_refused = Signal()
        bad_command = Signal()
        writing = self.state_we            # message writes are never refused
        m.d.comb += [
            known.eq(Cat(self.command == code for code in Command).any()),
            accepted.eq(self.command_stb & ~busy & known),
        ]
        with m.If(accepted):
            # a new command forgets the old refusals, not the one of its own cycle
            m.d.sync += [busy_refused.eq(writing), bad_command.eq(0)]
        with m.Else():
            m.d.sync += [
                busy_refused.eq(busy_refused | (busy & (self.command_stb | writing))),
                bad_command.eq(bad_command | (~busy & self.command_stb & ~known)),
            ]
        m.d.comb += [
            self.status.busy.eq(busy),
            self.status.busy_refused.eq(busy_refused),
            self.status.bad_command.eq(bad_command),
        ]
        return (accepted & (self.command == Command.INIT), accepted & (self.command == Command.BLOCK),
                ~busy & ~accepted)

    def _message(self, m, message):
        """The message buffer: a word written by index in any cycle."""
        with m.If(self.message_we):
            for index, word in enumerate(message):
                with m.If(self.message_addr == index):
                    m.d.sync += word.eq(self.message_data)

    def _schedule(self, m, message, window, kw, round_index, start, running):
        """The schedule window: the buffer copied in at the start, shifted one word per round; and ``kw``."""
        m.submodules.round_constants = constants = memory.Memory(
            shape=WORD_BITS, depth=ROUNDS, init=ROUND_CONSTANTS)
        k = constants.read_port(domain="comb")
        # K[0] for the edge that starts a block, K[t + 1] during round t (past the last round: unused)
        m.d.comb += k.addr.eq(Mux(running, round_index + 1, 0))

        with m.If(start):
            m.d.sync += [kw.eq(k.data + message[0])]
            m.d.sync += [scheduled.eq(word) for scheduled, word in zip(window, message)]
        with m.Elif(running):
            next_word = (_small_sigma1(window[14]) + window[9]) + (_small_sigma0(window[1]) + window[0])
            m.d.sync += [kw.eq(k.data + window[1]), window[-1].eq(next_word)]
            m.d.sync += [older.eq(newer) for older, newer in zip(window, window[1:])]

    def _rounds(self, m, work, kw, state, start, running):
        """The working variables a..h: loaded from the state at the start, one round per cycle after."""
        a, b, c, d, e, f, g, h = work
        t1 = Signal(WORD_BITS)
        t2 = Signal(WORD_BITS)
        m.d.comb += [
            # paired so that no sum chains more than two adders before a and e add the third
            t1.eq((h + kw) + (_big_sigma1(e) + ((e & f) ^ (~e & g)))),
            t2.eq(_big_sigma0(a) + ((a & b) ^ (a & c) ^ (b & c))),
        ]
        with m.If(start):
            m.d.sync += [var.eq(word) for var, word in zip(work, state)]
        with m.Elif(running):
            m.d.sync += [var.eq(value) for var, value in zip(work, (t1 + t2, a, b, c, d + t1, e, f, g))]

    def _state(self, m, state, work, start_init, finishing, write_ok):
        """The hash state: the initial value on INIT, a..h added in at the end of a block, or a word written."""
        with m.If(start_init):
            m.d.sync += [word.eq(value) for word, value in zip(state, INITIAL_HASH)]
        with m.Elif(finishing):
            m.d.sync += [word.eq(word + var) for word, var in zip(state, work)]
        with m.Elif(self.state_we & write_ok):
            for index, word in enumerate(state):
                with m.If(self.state_addr == index):
                    m.d.sync += word.eq(self.state_data)
