"""What the tests that add a new entry to one of the project's tables share (docs/extending.md: a new
exponent scheme, peer library or board): the tracked tree copied to a temporary directory, the doc's
list of the files each kind of entry touches, which files the copy's edits changed, and a Python
script run on the copy."""

import re
import shutil
import subprocess
import sys

from common.paths import ROOT

EXTENDING = ROOT / "docs" / "extending.md"


def doc_files(section):
    """The files of the table in docs/extending.md's section `section` (the rows' first column), in
    the table's order."""
    body = EXTENDING.read_text().split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([^`]+)` \|", body, re.M)


def copy_tracked(dest):
    """Copies the tracked files (as they stand in the working tree; no build outputs) to `dest`."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest


def snapshot(root):
    """{relative path: bytes} of every file under `root`."""
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in root.rglob("*") if path.is_file()}


def changed(root, before):
    """The files under `root` added or changed since `snapshot` gave `before`, sorted."""
    after = snapshot(root)
    assert set(before) <= set(after), f"removed: {sorted(set(before) - set(after))}"
    return sorted(name for name, content in after.items() if before.get(name) != content)


def add_entry(dest, edits):
    """The tracked tree copied to `dest` with each of `edits` (functions of the copy's root) applied:
    the copy and the files the edits added or changed, sorted."""
    copy = copy_tracked(dest)
    before = snapshot(copy)
    for edit in edits:
        edit(copy)
    return copy, changed(copy, before)


def replace(path, old, new):
    """`old`, found once in `path`, becomes `new`."""
    text = path.read_text()
    assert text.count(old) == 1, f"{path}: {old!r} found {text.count(old)} times"
    path.write_text(text.replace(old, new))


def run_python(root, script, paths=("",), timeout=300):
    """Runs `script` with the copy's directories `paths` first on the path, in the copy; returns its
    standard output, failing with its output when it fails."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(root), "PYTHONPATH": ":".join(str(root / p) for p in paths)}
    result = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True,
                            timeout=timeout, env=env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-6000:]
    return result.stdout
