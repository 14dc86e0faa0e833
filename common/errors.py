"""The project's one error type.

Library code raises ``ProjectError`` (or a subclass) with a one-line message meant for the user; only the
command-line entry points (``python -m sim``, ``python -m gateware``, ``python -m soc``) catch it, print
``error: <message>`` and exit non-zero. Nothing below ``__main__`` raises ``SystemExit``.
"""


class ProjectError(Exception):
    """A failure the user can act on (a missing tool, a failed build, bad input), with its message."""
