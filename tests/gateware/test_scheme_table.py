"""The exponent schemes' table (gateware.interface.EXPONENT_SCHEMES) is the one list of schemes: an
entry there, with its machine (gateware.montmul.schemes.MACHINES) and its program in the model
(gateware.model.EXP_PROGRAMS), is all the RTL and the model need to run it (docs/extending.md).

The dummy entry is the Montgomery ladder under a name of its own, in place of "ladder": the opcode
stays (the command word has no free code for a scheme that would do nothing new), the rest is new."""

import random

from amaranth.hdl import Fragment

from gateware import interface, model
from gateware.interface import EXPONENT_SCHEMES, ExponentScheme, Opcode, PeripheralConfig
from gateware.montmul import schemes, sequencer
from gateware.montmul.peripheral import MontgomeryPeripheral
from montmul_harness import W, bus_words, twin, mont_exp_ref

TINY = PeripheralConfig(max_bits=64, lanes=4, word_bits=W)
DUMMY = ExponentScheme("ladder_copy", Opcode.EXP_LADDER, constant_time=True)


def _install(monkeypatch):
    table = tuple(DUMMY if scheme.opcode is DUMMY.opcode else scheme for scheme in EXPONENT_SCHEMES)
    for module in (interface, sequencer):           # the table, where each reads it
        monkeypatch.setattr(module, "EXPONENT_SCHEMES", table)
    monkeypatch.setitem(schemes.MACHINES, DUMMY.name, schemes.LadderExponent)
    monkeypatch.setitem(model.EXP_PROGRAMS, DUMMY.name, model.EXP_PROGRAMS["ladder"])
    monkeypatch.delitem(schemes.MACHINES, "ladder")
    monkeypatch.delitem(model.EXP_PROGRAMS, "ladder")


def _submodule_names(elaboratable, path=("sequencer",)):
    fragment = Fragment.get(elaboratable, platform=None)
    for name in path:
        fragment = next(sub for sub, sub_name, _ in fragment.subfragments if sub_name == name)
    return {name for _, name, _ in fragment.subfragments}


def test_a_scheme_entry_runs_in_the_rtl_and_the_model(monkeypatch):
    _install(monkeypatch)
    assert interface.exponent_scheme(Opcode.EXP_LADDER) is DUMMY
    names = _submodule_names(MontgomeryPeripheral(TINY))
    assert DUMMY.name in names and "ladder" not in names

    async def scenario(d):
        rng = random.Random(7)
        bits = 48
        size = model.size_words(bits, W)
        nw = bus_words(size)
        n = rng.getrandbits(bits) | 1 | 1 << (bits - 1)
        await d.load_modulus(n, size, word_bits=W)
        a, e = rng.randrange(n), rng.getrandbits(11) | 1 << 10
        await d.write_slot(1, a, nw)
        await d.write_slot(2, e, nw)
        await d.write_slot(3, (1 << (16 * size)) % n, nw)
        cycles, status = await d.exp(3, 1, 2, 11, Opcode.EXP_LADDER)
        return cycles, status, await d.read_slot(3, nw), mont_exp_ref(a, e, n, size)

    rtl, expected = twin(TINY, scenario)
    assert rtl == expected
    cycles, status, result, reference = rtl
    assert status["error"] == 0 and result == reference
    assert cycles == model.exp_cycles(TINY, 48, DUMMY.name, exponent=None, exponent_bits=11)
