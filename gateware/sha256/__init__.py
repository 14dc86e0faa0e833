"""A SHA-256 engine: FIPS 180-4's compression function in gateware, knowing nothing of the SoC.

=============  ==============================================================================
``interface``  the contract: widths, the computed constants, commands, status, cycles.
``engine``     ``SHA256Engine``: a message buffer and state words by index, INIT and BLOCK, a round a cycle.
``model``      the Python reference: ``compress`` and ``EngineModel``, the engine edge by edge.
=============  ==============================================================================

Padding and the message's length are the firmware's: the engine compresses whole blocks.

``gateware.tools.sha256_formal`` proves that the status word (busy and the refusals) does not depend on the
message or the state: the same commands and writes take the same cycles whatever the data.
"""

from .engine import SHA256Engine
from .model import EngineModel, compress

__all__ = ["SHA256Engine", "EngineModel", "compress"]
