"""Independent jobs side by side: the runner of the synthesis sweep, the softcore benchmark, the formal
proofs and the board report, and of sim.pool's simulations (each a job of this module that keeps a
console while it takes the simulation jobs from one queue).

    results = run_parallel([(label, function, args), ...], workers=2, processes=False, done=None, stop=None)

returns each job's `function(*args)` in the jobs' order. Threads suit jobs that wait on a process of
their own (Yosys, SymbiYosys, a simulation); `processes=True` runs them in forked processes (Python
work, which threads would serialise), `"spawn"` in fresh ones (jobs that must not inherit this
process's state). `done(label, result)` is called in this thread as each job ends. With one worker
the jobs run here, one after the other. `stop()`, if given, is called in this thread when a job failed
or this thread was interrupted (Ctrl-C), before waiting for the jobs still running: it makes them end
(a job that runs a simulation until a queue is empty, say, ends when its simulation is killed)."""

import multiprocessing
from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, ThreadPoolExecutor, wait

__all__ = ["run_parallel"]


def run_parallel(jobs, workers=2, processes=False, done=None, stop=None):
    jobs = list(jobs)
    results = [None] * len(jobs)
    report = done or (lambda label, result: None)
    if workers <= 1 or len(jobs) <= 1:
        for index, (label, function, args) in enumerate(jobs):
            results[index] = function(*args)
            report(label, results[index])
        return results
    if processes:
        method = processes if isinstance(processes, str) else "fork"
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context(method))
    else:
        pool = ThreadPoolExecutor(max_workers=workers)
    with pool:
        futures = {pool.submit(function, *args): index for index, (_, function, args) in enumerate(jobs)}
        pending = set(futures)
        try:
            while pending:
                finished, pending = wait(pending, return_when=FIRST_EXCEPTION)
                for future in sorted(finished, key=futures.get):
                    index = futures[future]
                    results[index] = future.result()        # raises the job's error
                    report(jobs[index][0], results[index])
        except BaseException:
            for future in pending:
                future.cancel()
            if stop is not None:
                stop()
            raise
    return results
