"""Montgomery-multiplication peripheral for RSA, as a few Amaranth components.

==================  ===========================================================================
``peripheral``      ``MontgomeryPeripheral``: status and irq; wires the others, ``CommandDecoder``
                    (a command's checks) and ``DataPort`` (bus pointers) (its Verilog:
                    ``gateware.tools.verilog.generate_verilog``).
``regfile``         ``RegisterFile``: operand slots (block RAM rows of ``lanes`` words) and the
                    modulus memory, with the arbitration of their ports.
``core``            ``MontMulCore``: one product a*b*R^-1 mod N; wires the parts below.
``control``         ``ProductControl``: the product's schedule (prologue, iterations, final passes).
``head``            ``QuotientHead``: one context's quotient digits (pipelined q_i, the classic m)
                    and its reads of a.
``lanes``           ``LanePipeline``: the column multiply-adders (stages s1..s4) and the copy of b.
``accumulator``     ``Accumulator``: the redundant accumulator's memories and their ports' users.
``resolve``         ``ResolvePass`` (resolving the accumulator, comparing with N), ``SelectPass``.
``modulus``         ``ModulusUnit``: SETMOD (odd check, n', the copy of N, N') and the modulus state.
``sequencer``       ``ExponentSequencer``: EXP_WINDOW, EXP_LADDER and EXP_FIXED as sequences of
                    products; ``ExponentReader`` (the exponent's words).
``schemes``         one machine per scheme: ``WindowExponent``, ``LadderExponent``, ``FixedExponent``.
``wordserial``      ``WordSerialUnit``: ADD, SUB, COPY and EQUAL, a word a cycle over the register
                    file.
==================  ===========================================================================

The contract (widths, slots, opcodes, errors) is ``gateware.interface``.

Simulation cost: Verilator evaluates every net of the design in every cycle, idle or not, so the RTL avoids
what is expensive there: per-lane registers and accumulator memories instead of rows packed into wide
signals, carries and differences held in Signals (an expression indexed per lane would be copied into
every use), word masks kept as registered wide values (no bit replication), dynamic word selections
through Arrays, and reset-less datapath registers (the reset input would pull their logic into the
input-change evaluation).  ``tests/gateware/verilator_speed.py`` measures it.
"""

from .core import MontMulCore
from .peripheral import MontgomeryPeripheral

__all__ = ["MontgomeryPeripheral", "MontMulCore"]
