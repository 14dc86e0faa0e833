"""common/cache.py: what counts as an input, and when work is redone."""

import multiprocessing
import time

import pytest

from common import cache


def test_digest_follows_values_and_file_contents(tmp_path):
    a = tmp_path / "a.v"
    a.write_text("// stamped Monday\nmodule a; endmodule\n")
    base = cache.digest("option", files=[a], ignore=cache.LINE_COMMENTS)
    a.write_text("// stamped Tuesday, a longer stamp\nmodule a; endmodule\n")
    assert cache.digest("option", files=[a], ignore=cache.LINE_COMMENTS) == base
    assert cache.digest("option", files=[a]) != cache.digest("option", files=[a], ignore=cache.LINE_COMMENTS)
    assert cache.digest("other", files=[a], ignore=cache.LINE_COMMENTS) != base
    a.write_text("module a; wire w; endmodule\n")
    assert cache.digest("option", files=[a], ignore=cache.LINE_COMMENTS) != base
    # The same bytes split differently between two files are different inputs.
    b = tmp_path / "b.v"
    a.write_text("xy")
    b.write_text("z")
    split = cache.digest(files=[a, b])
    a.write_text("x")
    b.write_text("yz")
    assert cache.digest(files=[a, b]) != split


def test_python_sources_include_sub_packages(tmp_path):
    for name in ("pkg/__init__.py", "pkg/sub/core.py", "pkg/__pycache__/core.py", "pkg/notes.txt",
                 "other/x.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    found = [p.relative_to(tmp_path).as_posix() for p in cache.python_sources("pkg", root=tmp_path)]
    assert found == ["pkg/__init__.py", "pkg/sub/core.py"]


def test_stamp(tmp_path):
    stamp = cache.Stamp(tmp_path / "out" / ".stamp")
    assert not stamp.matches("abc")
    stamp.write("abc")
    assert stamp.matches("abc") and not stamp.matches("abd")


def test_cached_dir_makes_once_redoes_unfinished_and_prunes(tmp_path):
    runs = []

    def make(directory):
        runs.append(directory)
        (directory / "result").write_text(str(len(runs)))

    first, made = cache.cached_dir(tmp_path, "top", ("inputs", 1), make)
    assert made and (first / "result").read_text() == "1"
    again, made = cache.cached_dir(tmp_path, "top", ("inputs", 1), make)
    assert not made and again == first and len(runs) == 1

    def fail(directory):
        (directory / "partial").write_text("")
        raise RuntimeError("tool crashed")

    with pytest.raises(RuntimeError):
        cache.cached_dir(tmp_path, "top", ("inputs", 2), fail)
    redone, made = cache.cached_dir(tmp_path, "top", ("inputs", 2), make)
    assert made and not (redone / "partial").exists()

    for n in range(3, 7):
        cache.cached_dir(tmp_path, "top", ("inputs", n), make, keep=3)
    assert len([d for d in tmp_path.glob("top-*")]) == 3
    assert not first.exists()


def test_cached_json_computes_once_per_key(tmp_path):
    calls = []

    def compute():
        calls.append(1)
        return {"n": "0x1f"}

    assert cache.cached_json(tmp_path, "key-512", ("seed", 1), compute) == {"n": "0x1f"}
    assert cache.cached_json(tmp_path, "key-512", ("seed", 1), compute) == {"n": "0x1f"}
    assert len(calls) == 1
    cache.cached_json(tmp_path, "key-512", ("seed", 2), compute)
    assert len(calls) == 2
    assert not list(tmp_path.glob("*.tmp"))


def _hold_lock(path, log, entered, seconds):
    with cache.locked(path):
        entered.set()
        with open(log, "a") as f:
            f.write("first in\n")
        time.sleep(seconds)
        with open(log, "a") as f:
            f.write("first out\n")


def test_locked_makes_a_second_process_wait(tmp_path):
    lock, log = tmp_path / "build.lock", tmp_path / "log"
    entered = multiprocessing.Event()
    holder = multiprocessing.Process(target=_hold_lock, args=(lock, log, entered, 0.5))
    holder.start()
    assert entered.wait(30)
    with cache.locked(lock):
        with open(log, "a") as f:
            f.write("second in\n")
    holder.join(30)
    assert log.read_text().splitlines() == ["first in", "first out", "second in"]


def _make_slowly(directory):
    with open(directory.parent / "makes", "a") as f:
        f.write("made\n")
    time.sleep(0.5)
    (directory / "out").write_text("ok")


def _cached(root):
    cache.cached_dir(root, "thing", "key", _make_slowly)


def test_cached_dir_makes_once_across_processes(tmp_path):
    workers = [multiprocessing.Process(target=_cached, args=(tmp_path,)) for _ in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(30)
        assert worker.exitcode == 0
    assert (tmp_path / "makes").read_text() == "made\n"
    directory, made = cache.cached_dir(tmp_path, "thing", "key", _make_slowly)
    assert not made and (directory / "out").read_text() == "ok"
