"""The device's entropy source: a noise source and SP 800-90B's health tests, knowing nothing of the SoC.

==============  ==============================================================================
``interface``   the contract: the status word, the health tests' parameters, seed sizing.
``health``      ``RepetitionCountTest``, ``AdaptiveProportionTest``.
``source``      ``EntropySource``: raw samples to health-tested words, with the status word.
``ring``        the board's noise source (``RingOscillatorBits``), its deterministic stand-in
                (``LFSRBits``) and the constraints the oscillators need (``ring_xdc``).
``model``       the Python reference of the tests and the start-up, cycle by cycle.
==============  ==============================================================================

``gateware.tools.entropy_formal`` proves that ``ready``'s timing does not depend on the raw values.
"""

from .source import EntropySource

__all__ = ["EntropySource"]
