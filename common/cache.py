"""One way to skip work whose inputs have not changed: a digest of the inputs, kept next to the
output as a stamp, or naming a cached directory or JSON file.

Inputs are Python values (options, seeds) and files; LiteX stamps the date and a git revision
into the `//` comment lines of what it generates, so those lines can be left out of a file's digest.
"""

import fcntl
import hashlib
import json
import os
import re
import shutil
from contextlib import contextmanager
from pathlib import Path

from common.paths import ROOT

#: Whole-line `//` comments (Verilog, C++): LiteX's date and revision stamps live there.
LINE_COMMENTS = re.compile(rb"^\s*//.*$", re.M)


def digest(*values, files=(), ignore=None):
    """SHA-256 (hex) of `values` (by repr) and of each file's name and contents, with the parts
    matching the regex `ignore` removed from the contents."""
    h = hashlib.sha256(repr(values).encode())
    for path in files:
        path = Path(path)
        data = path.read_bytes()
        if ignore is not None:
            data = ignore.sub(b"", data)
        h.update(path.name.encode() + b"\0" + str(len(data)).encode() + b"\0" + data)
    return h.hexdigest()


def python_sources(*packages, root=ROOT):
    """Every `.py` file of the given top-level packages (sub-packages too), in a stable order."""
    return sorted(path for package in packages for path in (Path(root) / package).rglob("*.py")
                  if "__pycache__" not in path.parts)


@contextmanager
def locked(path):
    """Holds an exclusive lock on the file `path` (created if missing) while the block runs, so that
    processes making the same output (pytest-xdist workers, the CPUs of `python -m sim cpus`) take
    turns: the second one then finds the output made and reuses it. The kernel drops the lock if a
    holder dies."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


class Stamp:
    """A file holding the digest of the inputs its output was made from."""

    def __init__(self, path):
        self.path = Path(path)

    def matches(self, value):
        return self.path.exists() and self.path.read_text() == value

    def write(self, value):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(value)


def cached_dir(cache_root, name, key, make, keep=3):
    """`<cache_root>/<name>-<digest of key>`, filled by `make(directory)` unless an earlier call
    with the same key completed it. The `keep` most recently used directories of `name` are kept.
    Returns (directory, True when `make` ran now)."""
    cache_root = Path(cache_root)
    directory = cache_root / f"{name}-{digest(key)[:16]}"
    done = directory / "done"
    with locked(cache_root / f".{name}.lock"):
        made = not done.exists()
        if made:
            shutil.rmtree(directory, ignore_errors=True)       # a run that did not complete
            directory.mkdir(parents=True)
            make(directory)
        done.touch()
        runs = sorted((d for d in cache_root.glob(f"{name}-*") if (d / "done").exists()),
                      key=lambda d: (d / "done").stat().st_mtime, reverse=True)
        for old in runs[keep:]:
            shutil.rmtree(old, ignore_errors=True)
    return directory, made


def cached_json(cache_root, name, key, compute):
    """The JSON value `compute()` returned for `key`, stored as `<cache_root>/<name>-<digest>.json`;
    computed only when that file is missing."""
    path = Path(cache_root) / f"{name}-{digest(key)[:16]}.json"
    if path.exists():
        return json.loads(path.read_text())
    value = compute()
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(json.dumps(value, indent=1))
    partial.replace(path)             # readers (other processes too) never see half a file
    return value
