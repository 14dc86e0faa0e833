"""common.jobs.run_parallel: results in the jobs' order whatever order they end in, each reported once
as it ends, the first error raised, on threads, forked processes or none."""

import os
import time

import pytest

from common.jobs import run_parallel


def _slow_square(x, delay):
    time.sleep(delay)
    return x * x, os.getpid()


def _fail(message):
    raise ValueError(message)


@pytest.mark.parametrize("workers, processes", [(1, False), (2, False), (2, True)])
def test_results_in_order_and_each_reported(workers, processes):
    jobs = [(f"job{i}", _slow_square, (i, 0.05 * (3 - i))) for i in range(4)]
    seen = []
    results = run_parallel(jobs, workers, processes=processes, done=lambda label, result: seen.append(label))
    assert [r[0] for r in results] == [0, 1, 4, 9]
    assert sorted(seen) == [label for label, _, _ in jobs]
    pids = {pid for _, pid in results}
    assert (os.getpid() not in pids) == bool(processes)


@pytest.mark.parametrize("workers, processes", [(1, False), (2, False), (2, True)])
def test_the_first_error_is_raised(workers, processes):
    jobs = [("ok", _slow_square, (2, 0)), ("bad", _fail, ("no good",)), ("late", _slow_square, (3, 0))]
    with pytest.raises(ValueError, match="no good"):
        run_parallel(jobs, workers, processes=processes)


def test_stop_is_called_when_a_job_fails_and_ends_the_others():
    """`stop` runs before the pool waits for the jobs still running: here it ends a job that would
    otherwise wait for good."""
    import threading
    released = threading.Event()

    def wait_for_stop():
        assert released.wait(10), "stop was not called"
        return "stopped"

    with pytest.raises(ValueError, match="no good"):
        run_parallel([("waits", wait_for_stop, ()), ("bad", _fail, ("no good",))], 2, stop=released.set)
    assert released.is_set()
