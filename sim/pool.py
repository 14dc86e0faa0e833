"""Jobs spread over parallel simulations of the same firmware: the runner behind `python -m sim bench`,
`keygen` and `leak`. Each of `simulations` threads boots a console on the SoC its next job asks for (with
or without the peripheral), keeps it while its jobs ask for the same SoC, and records what each
simulation ran, for how long, and how many cycles it simulated. The simulations are common.jobs's
jobs, one each, taking the jobs from one queue."""

import dataclasses
import queue
import threading
import time

from common.jobs import run_parallel
from soc import console_protocol as protocol


class ImplRow:
    """A row a runner measures, a frozen dataclass with an `impl` field: `name`, its fields joined by
    ':' as the reports and progress lines show it, and `peripheral`, whether its implementation runs
    on the SoC with the peripheral (the job's `peripheral` flag of run_jobs)."""

    @property
    def name(self):
        return ":".join(str(getattr(self, f.name)) for f in dataclasses.fields(self))

    @property
    def peripheral(self):
        return self.impl in protocol.PERIPHERAL_IMPLS


def run_jobs(builds, jobs, run_job, listed="rows", simulations=2, timeout=7200):
    """Runs every job of `jobs` (each with a `peripheral` flag, taken in their order) as
    `run_job(console, job)`, which returns the names the simulation's record lists (under `listed`)
    for it.
    `builds`: {True: the SoC with the peripheral, False: without} (sim.build.SimBuild, or anything
    with `model` and `gateware_dir`). `run_job` is called from several threads: it guards what it
    shares. The first error stops every simulation at its next job and is raised once all have
    stopped; Ctrl-C (or any exception in the calling thread) ends the simulations at once and is
    raised. Returns the simulations' records: soc, peripheral, `listed`, seconds, cycles and
    cycles_per_second."""
    from link.console import SimConsole
    todo = queue.Queue()
    for job in jobs:
        todo.put(job)
    records, errors, running = [], [], set()
    lock = threading.Lock()
    deadline = time.monotonic() + timeout

    def worker():
        console, record, started = None, None, None

        def close():
            if console is not None:
                with lock:
                    running.discard(console)
                console.close()
                transport = console.transport
                record["seconds"] = round(time.monotonic() - started, 2)
                record["cycles"] = transport.cycles
                record["cycles_per_second"] = round(transport.cycles / transport.seconds) \
                    if transport.cycles and transport.seconds else None
                with lock:
                    records.append(record)
        try:
            while not errors:
                try:
                    job = todo.get_nowait()
                except queue.Empty:
                    break
                if console is None or record["peripheral"] != job.peripheral:
                    close()
                    build = builds[job.peripheral]
                    console = SimConsole(build.model, build.gateware_dir, timeout=max(60, deadline - time.monotonic()),
                                         entropy=build.entropy)
                    with lock:
                        running.add(console)
                    record = {"soc": "with the peripheral" if job.peripheral else "without the peripheral",
                              "peripheral": job.peripheral, listed: []}
                    started = time.monotonic()
                    console.wait_prompt()
                record[listed] += run_job(console, job)
        except BaseException as error:      # raised below, once every worker has stopped
            errors.append(error)
        finally:
            try:
                close()
            except BaseException as error:
                errors.append(error)

    def stop():                     # Ctrl-C: end the simulations, then let it go on
        errors.append(None)
        with lock:
            for console in running:
                if console.proc.poll() is None:
                    console.proc.kill()

    count = max(1, simulations)
    run_parallel([(f"simulation {i + 1}", worker, ()) for i in range(count)], count, stop=stop)
    errors = [error for error in errors if error is not None]
    if errors:
        raise errors[0]
    return records
