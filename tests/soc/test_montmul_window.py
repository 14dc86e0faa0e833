"""soc/montmul.py's data window against a model of the peripheral's data port, in Migen's simulator: a bus
master as fast as Wishbone allows (its strobe held every cycle) gets every word in order, none stale,
and each store is one strobe. The model's rdata follows the read pointer two cycles after a strobe, as
the peripheral's does (gateware/montmul/peripheral.py, DataPort)."""

import pytest
from migen import Module
from migen.sim import run_simulation

from soc.montmul import DataWindow

WORDS = [0x1000 + 17 * k for k in range(64)]


class Peripheral:
    """The data port's read side: a strobe in cycle t moves the pointer in t+1; the operand memory
    shows the word at the pointer of cycle t in cycle t+1. ``moves`` {cycle: None} pulses ``moved`` there
    (a READ command: the pointer back to word 0); ``busy`` the cycles the peripheral is busy, in which
    it refuses strobes."""

    def __init__(self, window, words, moves=(), busy=()):
        self.window, self.words, self.moves, self.busy = window, words, set(moves), set(busy)
        self.stored = []

    def run(self, cycles):
        w, pos = self.window, 0
        for cycle in range(cycles):
            yield w.moved.eq(cycle in self.moves)
            yield w.busy.eq(cycle in self.busy)
            yield                                   # the values above hold from here on
            busy = cycle in self.busy
            yield w.rdata.eq(self.words[pos] if pos < len(self.words) else 0xdead)
            if (yield w.wdata_stb) and not busy:
                self.stored.append((yield w.wdata))
            if cycle in self.moves:
                pos = 0
            elif (yield w.rdata_stb) and not busy:
                pos += 1


def master(window, cycles, write=None, start=2):
    """Holds cyc and stb from cycle `start` on, loads or (with `write`: the words to store, one a cycle
    until acknowledged) stores; returns [(cycle, word)] of the acknowledged loads."""
    bus, answers = window.bus, []
    words = list(write or [])
    for cycle in range(cycles):
        active = cycle >= start and (write is None or bool(words))
        yield bus.cyc.eq(active)
        yield bus.stb.eq(active)
        yield bus.we.eq(write is not None)
        yield bus.sel.eq(0xf)
        if write is not None and words:
            yield bus.dat_w.eq(words[0])
        yield
        if cycle >= start and (yield bus.ack):
            if write is None:
                answers.append((cycle, (yield bus.dat_r)))
            elif words:
                words.pop(0)
    return answers


def simulate(words, cycles, write=None, moves=(), busy=()):
    window = DataWindow()
    peripheral = Peripheral(window, words, moves, busy)
    answers = []

    def bench():
        answers.extend((yield from master(window, cycles, write)))

    run_simulation(window, [bench(), peripheral.run(cycles + 2)])
    return answers, peripheral.stored


def test_loads_as_fast_as_the_bus_get_every_word_in_order():
    answers, _ = simulate(WORDS, 60)
    assert [word for _, word in answers] == WORDS[:len(answers)]
    assert len(answers) >= 15
    gaps = {b - a for (a, _), (b, _) in zip(answers, answers[1:])}
    assert gaps == {DataWindow.RDATA_LATENCY}       # no slower than rdata allows


def answers_after_moves(moves):
    """The words loaded by a master as fast as the bus allows while READ commands (at `moves`) set the
    pointer back to word 0, split where the answers start again from word 0."""
    answers, _ = simulate(WORDS, 40, moves=moves)
    words = [word for _, word in answers]
    restart = [i for i, word in enumerate(words) if word == WORDS[0]]
    return [words[begin:end] for begin, end in zip(restart, restart[1:] + [len(words)])]


@pytest.mark.parametrize("moves", [[11], [12], [11, 16], [12, 15], [13, 17]])
def test_a_load_after_a_pointer_move_gets_the_new_word(moves):
    runs = answers_after_moves(moves)
    assert len(runs) == 1 + len(moves)
    for run in runs:
        assert run == WORDS[:len(run)]


def test_a_window_answering_before_rdata_settles_is_caught(monkeypatch):
    monkeypatch.setattr(DataWindow, "RDATA_LATENCY", 1)
    assert any(run != WORDS[:len(run)] for moves in ([11], [12]) for run in answers_after_moves(moves))


def test_loads_while_busy_are_answered_at_once():
    answers, _ = simulate(WORDS, 40, busy=range(0, 30))
    assert [cycle for cycle, _ in answers][:5] == [3, 5, 7, 9, 11]


def test_stores_held_every_cycle_each_one_strobe():
    stores = [0xa0 + k for k in range(10)]
    _, stored = simulate(WORDS, 30, write=stores)
    assert stored == stores
