"""Montgomery-multiplication peripheral for RSA, as a few Amaranth components.

==================  ===========================================================================
``peripheral``      ``MontgomeryPeripheral``: bus pointers, command decode and refusals, status,
                    irq; wires the others (its Verilog: ``eda.synth.generate_verilog``).
``regfile``         ``RegisterFile``: operand slots (block RAM rows of ``lanes`` words) and the
                    modulus memory, with the arbitration of their ports.
``core``            ``MontMulCore``: one product a*b*R^-1 mod N (lanes, quotient head, schedule).
``resolve``         the core's final pass: resolving the redundant accumulator, comparing with N.
``modulus``         ``ModulusUnit``: SETMOD (odd check, n', Q, the copy of N) and the modulus state.
``sequencer``       ``ExponentSequencer``: EXP_WINDOW, EXP_LADDER and EXP_FIXED as sequences of
                    products.
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
