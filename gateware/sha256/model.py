"""Python reference of the SHA-256 engine: FIPS 180-4's compression function, and the engine edge by edge
(commands, writes, reads, refusals and the cycles each command takes), for comparing with the gateware."""

from .interface import (BLOCK_WORDS, INITIAL_HASH, ROUND_CONSTANTS, ROUNDS, STATE_WORDS, WORD_BITS, Command,
                        Status, cycles)

__all__ = ["schedule", "compress", "EngineModel"]

MASK = (1 << WORD_BITS) - 1


def _rotr(x, n):
    return (x >> n | x << (WORD_BITS - n)) & MASK


def _small_sigma0(x):
    return _rotr(x, 7) ^ _rotr(x, 18) ^ x >> 3


def _small_sigma1(x):
    return _rotr(x, 17) ^ _rotr(x, 19) ^ x >> 10


def schedule(block, count=ROUNDS):
    """The message schedule W[0..count-1] of ``block`` (16 words) (FIPS 180-4 6.2.2 step 1)."""
    assert len(block) == BLOCK_WORDS
    w = list(block)
    for t in range(BLOCK_WORDS, count):
        w.append((_small_sigma1(w[t - 2]) + w[t - 7] + _small_sigma0(w[t - 15]) + w[t - 16]) & MASK)
    return w[:count]


def compress(state, block):
    """The hash state after ``block``: 64 rounds over a..h, then their sum into ``state`` (6.2.2 steps 2-4)."""
    a, b, c, d, e, f, g, h = state
    for k, w in zip(ROUND_CONSTANTS, schedule(block)):
        big_sigma1 = _rotr(e, 6) ^ _rotr(e, 11) ^ _rotr(e, 25)
        choose = (e & f) ^ (~e & g)
        t1 = (h + big_sigma1 + choose + k + w) & MASK
        big_sigma0 = _rotr(a, 2) ^ _rotr(a, 13) ^ _rotr(a, 22)
        majority = (a & b) ^ (a & c) ^ (b & c)
        t2 = (big_sigma0 + majority) & MASK
        a, b, c, d, e, f, g, h = (t1 + t2) & MASK, a, b, c, (d + t1) & MASK, e, f, g
    return tuple((x + y) & MASK for x, y in zip(state, (a, b, c, d, e, f, g, h)))


class EngineModel:
    """``SHA256Engine`` edge by edge.  ``status`` and ``read(index)`` are what the gateware shows in a cycle;
    ``edge(...)`` applies that cycle's strobes at the clock edge that ends it."""

    def __init__(self):
        self.state = [0] * STATE_WORDS
        self.message = [0] * BLOCK_WORDS
        self.busy_refused = self.bad_command = False
        self._remaining = 0          # busy cycles left
        self._result = None          # the state the running command leaves

    @property
    def busy(self):
        return self._remaining > 0

    @property
    def status(self):
        """The status word as an integer."""
        return Status.const({"busy": self.busy, "busy_refused": self.busy_refused,
                             "bad_command": self.bad_command}).as_bits()

    def read(self, index):
        return self.state[index]

    def edge(self, command=None, message=None, state=None):
        """One clock edge.  ``command``: the code on the command port when strobed; ``message``, ``state``:
        (index, word) when that write is strobed; None for a port not strobed."""
        self._edge(command, state)
        # the buffer takes every write, after a BLOCK at this edge has taken the words before it
        if message is not None:
            self.message[message[0]] = message[1]

    def _edge(self, command, state):
        """The edge's command and state write."""
        if self.busy:
            self._remaining -= 1
            if self._remaining == 0:
                self.state = list(self._result)
            self.busy_refused |= command is not None or state is not None
            return
        accepted = command is not None and any(command == known for known in Command)
        if accepted:
            # the command takes this edge: a state write beside it is refused
            self.busy_refused, self.bad_command = state is not None, False
            self._start(Command(command))
            return
        self.bad_command |= command is not None
        if state is not None:
            self.state[state[0]] = state[1]

    def _start(self, command):
        result = INITIAL_HASH if command is Command.INIT else compress(self.state, self.message)
        self._remaining = cycles(command)
        if self._remaining:
            self._result = result
        else:
            self.state = list(result)
