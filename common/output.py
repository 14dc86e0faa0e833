"""Running chatty tools (LiteX, Yosys, make) with their output in a log file instead of the terminal."""

import contextlib
import logging
import os
import sys
import traceback
from pathlib import Path


@contextlib.contextmanager
def output_to(log_file, mode="w"):
    """Sends this process's stdout and stderr, and its children's, to `log_file` for the duration.
    An exception's traceback goes to the log too (then the exception goes on); the root logger's
    level is restored afterwards (LiteX leaves it at INFO)."""
    log_file = Path(log_file)
    log_file.parent.mkdir(parents=True, exist_ok=True)
    level = logging.getLogger().level
    sys.stdout.flush(); sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(log_file, mode) as log:
        os.dup2(log.fileno(), 1); os.dup2(log.fileno(), 2)
        try:
            with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
                try:
                    yield log_file
                except BaseException:
                    traceback.print_exc(file=log)
                    raise
        finally:
            sys.stdout.flush(); sys.stderr.flush()
            os.dup2(saved[0], 1); os.dup2(saved[1], 2)
            os.close(saved[0]); os.close(saved[1])
            logging.getLogger().setLevel(level)
