"""The project's one error type, and the one way the command-line entry points report it.

Library code raises ``ProjectError`` (or a subclass) with a message meant for the user; only the
command-line entry points (``python -m sim``, ``python -m gateware``, ``python -m boards.<board>``) catch it,
print ``error: <message>`` and exit non-zero. Nothing below ``__main__`` raises ``SystemExit``.
"""

import functools
import sys


class ProjectError(Exception):
    """A failure the user can act on (a missing tool, a failed build, bad input), with its message."""


def reports_errors(main):
    """Wraps a command's `main(...) -> exit status`: a ProjectError becomes `error: <message>` on
    stderr and status 1, Ctrl-C status 130; no traceback either way."""
    @functools.wraps(main)
    def wrapper(*args, **kwargs):
        try:
            return main(*args, **kwargs)
        except ProjectError as error:
            print(f"error: {error}", file=sys.stderr, flush=True)
            return 1
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr, flush=True)
            return 130
    return wrapper
