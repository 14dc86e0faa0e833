"""The benchmark split over parallel simulations gives the figures of one run: the SoC without the
peripheral counts the same cycles as the one with it, a row timed alone (`rows=`) the same as with
every other, and the runner puts the rows back in the firmware's order. The peripheral's idle clock
gate (simulation only) changes no count either. Plus the plan itself and the firmware's refusals of
bad `rows=` entries."""

import io
import json

import pytest

from jobs import bench
from sim import build as sim_build
from link.console import ConsoleError, SimConsole
from soc import console_protocol as protocol
from soc import sim_clock_gate
from soc.console_protocol import RESULT, Error, error_code, error_lines


@pytest.fixture(scope="module")
def bare_soc(sim_soc):
    return sim_build.build_bare(sim_soc, log=lambda msg: None)


def _bench(build, command, timeout=900, model_args=()):
    console = SimConsole(build.model, build.gateware_dir, timeout=timeout, model_args=model_args)
    try:
        console.wait_prompt()
        out = console.command(command)
    finally:
        console.close()
    assert not error_lines(out), out
    return [(r["bits"], r["op"], r["impl"], r["cycles"], r["ok"]) for r in RESULT.parse_all(out)]


@pytest.fixture(scope="module")
def split_512(sim_soc, bare_soc):
    """The whole 512-bit benchmark dealt by the parallel runner to two simulations, the rows that never
    touch the peripheral on the SoC without it: (results, missing, simulation records)."""
    return bench.run_simulations({True: sim_soc, False: bare_soc}, [512], simulations=2, timeout=900,
                                 progress=io.StringIO())


def _rows_ran_on(records, peripheral):
    return {name for record in records if record["peripheral"] is peripheral for name in record["rows"]}


@pytest.mark.xdist_group("bench_512")          # the worker that has serial_boot_bench_512
def test_the_soc_without_the_peripheral_counts_the_same_cycles(split_512, serial_boot_bench_512):
    """Every row that never touches the peripheral (software, the peer libraries), timed on the SoC
    without it by the parallel runner, against the same row in one `bench 512` of every row on the SoC
    with it (the serial-port test's run, the same firmware image: tests/conftest.py): the same
    count, cycle for cycle."""
    results, missing, records = split_512
    assert not missing
    bare_rows = _rows_ran_on(records, False)
    software = {r.name for r in bench.planned_rows([512]) if not r.peripheral}
    assert bare_rows == software and len(software) >= 8
    assert not bare_rows & _rows_ran_on(records, True)
    with_it = {f"{b}:{o}:{i}": (cycles, ok) for b, o, i, cycles, ok in serial_boot_bench_512["arrived"]}
    without = {f"{r['bits']}:{r['op']}:{r['impl']}": (r["cycles"], int(r["ok"])) for r in results}
    assert {name: without[name] for name in bare_rows} == {name: with_it[name] for name in bare_rows}
    assert all(with_it[name][1] == 1 for name in bare_rows)


def test_the_soc_without_the_peripheral_keeps_the_csr_map(sim_soc, bare_soc):
    assert sim_build.csr_addresses(bare_soc.build_dir) == sim_build.csr_addresses(sim_soc.build_dir)
    assert bare_soc.firmware_bin == sim_soc.firmware_bin
    assert sim_build.main_ram_init(bare_soc.gateware_dir).read_bytes() == \
        sim_build.main_ram_init(sim_soc.gateware_dir).read_bytes()


@pytest.fixture(scope="module")
def every_hw_row(bench_ours_512_1024):
    """Every hardware row at 512 and 1024 bits on the SoC as built (the peripheral's clock gated while
    idle): those of tests/sim/test_rsa.py's `bench ours 512 1024` (tests/conftest.py's fixture: one run for
    both modules, on the worker of xdist_group "bench_ours"), as records. `bench hw` times the same
    rows on the same messages (the software rows draw none)."""
    assert not error_lines(bench_ours_512_1024), bench_ours_512_1024
    return [(r["bits"], r["op"], r["impl"], r["cycles"], r["ok"]) for r in RESULT.parse_all(bench_ours_512_1024)
            if r["impl"] != "sw"]


@pytest.mark.xdist_group("bench_ours")
def test_the_idle_clock_gate_changes_no_count(sim_soc, every_hw_row):
    """Every hardware row (the CPU loop's commands come with idle gaps between them, where the gated
    clock stops and starts again) with the gate, and with the same model's plain clock (`bench hw`)."""
    assert sim_clock_gate.MODULE in (sim_soc.gateware_dir / "sim.v").read_text()
    gated = every_hw_row
    assert len(gated) == 2 * len([row for row in protocol.bench_rows(peers=False) if row[1] != "sw"])
    assert all(ok == 1 for *_, ok in gated)
    assert _bench(sim_soc, "bench hw 512 1024", model_args=[sim_clock_gate.PLAIN_CLOCK_ARG]) == gated


@pytest.mark.xdist_group("bench_ours")
def test_a_row_timed_alone_counts_what_it_counts_among_all(sim_soc, every_hw_row):
    """`bench ours 512 1024` times every hardware row; timed alone (`bench hw ... rows=`), the 1024-bit
    rows must see the same messages (the 512-bit ones are still drawn) and so give the same counts; the
    public row without its reference row (the CPU loop's, computed untimed) too."""
    every = every_hw_row
    alone = _bench(sim_soc, "bench hw 512 1024 rows=1024:private_crt:hw_seq,1024:public:hw_seq,512:mul:hw_cpu")
    assert alone == [row for row in every if f"{row[0]}:{row[1]}:{row[2]}" in
                     ("1024:private_crt:hw_seq", "1024:public:hw_seq", "512:mul:hw_cpu")]
    assert len(alone) == 3


@pytest.mark.xdist_group("bench_512")          # the worker that has serial_boot_bench_512
def test_the_parallel_runner_gives_one_run_s_figures_in_its_order(split_512, serial_boot_bench_512):
    """The whole 512-bit benchmark dealt to two simulations (the SoC without the peripheral for the
    software rows) against one `bench 512` of every row on the SoC with it (the serial-port test's, the
    same firmware image: tests/conftest.py): the same rows, in the order the firmware printed them,
    and counts."""
    bench_run = serial_boot_bench_512["bench"]
    assert bench_run.returncode == 0, bench_run.stderr
    serial = serial_boot_bench_512["arrived"]
    recorded = json.loads((serial_boot_bench_512["out_dir"] / "results.json").read_text())["results"]
    assert [(r["bits"], r["op"], r["impl"], r["cycles"], int(r["ok"])) for r in recorded] == serial
    results, missing, records = split_512
    assert not missing
    assert [(r["bits"], r["op"], r["impl"], r["cycles"], int(r["ok"])) for r in results] == serial
    assert sorted(name for record in records for name in record["rows"]) == \
        sorted(r.name for r in bench.planned_rows([512]))
    assert all(record["cycles"] and record["cycles_per_second"] for record in records)
    assert {record["peripheral"] for record in records} == {True, False}


def test_the_plan_leaves_the_largest_software_rows_to_full():
    default = bench.planned_rows([512, 2048])
    full = bench.planned_rows([512, 2048], full=True)
    left = sorted(set(full) - set(default), key=full.index)
    assert [(r.bits, r.op) for r in left] == [(2048, "private")] * 3
    assert {r.impl for r in left} == {"sw", "mbedtls", "bearssl"}
    assert all(r.peripheral for r in full if r.bits == 2048 and r.op == "private" and r in default)
    assert [r for r in full if r in default] == default           # the firmware's order kept


def test_jobs_keep_mbedtls_rows_together_in_order_and_the_peripheral_s_rows_on_its_soc():
    rows = bench.planned_rows([512, 1024])
    jobs = bench.jobs_for(rows)
    [mbedtls] = [job for job in jobs if any(r.impl == "mbedtls" for r in job.rows)]
    assert mbedtls.rows == [r for r in rows if r.impl == "mbedtls"]
    assert all(job.peripheral == any(r.peripheral for r in job.rows) for job in jobs)
    assert all(all(r.peripheral == job.peripheral for r in job.rows) for job in jobs)
    assert sorted((r for job in jobs for r in job.rows), key=rows.index) == rows
    assert [job.estimated_seconds for job in jobs] == sorted((job.estimated_seconds for job in jobs), reverse=True)


def test_a_row_that_never_came_back_is_an_error():
    rows = bench.planned_rows([512])[:2]
    first = {"bits": 512, "op": rows[0].op, "impl": rows[0].impl, "cycles": 1, "ok": True}
    with pytest.raises(ConsoleError, match=rows[1].name):
        bench._merge(rows, [first], [])


@pytest.mark.parametrize("rows, code", [
    ("512:nosuch:sw", Error.UNKNOWN_OP),
    ("512:public:nosuch", Error.UNKNOWN_IMPL),
    ("1024:public:sw", Error.UNKNOWN_SIZE),           # not among the command's sizes
    ("x:public:sw", Error.UNKNOWN_SIZE),
    ("-4294966784:public:sw", Error.UNKNOWN_SIZE),   # strtoul would wrap it to 512
    ("+512:public:sw", Error.UNKNOWN_SIZE),
    ("512public", Error.USAGE),
    ("", Error.USAGE),
    ("512:public:sw,,512:mul:sw", Error.USAGE),
])
def test_bad_rows_entries_get_one_error_line(shared_console, rows, code):
    out = shared_console.command(f"bench 512 rows={rows}")
    [line] = error_lines(out)
    assert error_code(line) == code
    assert not RESULT.parse_all(out)
    assert protocol.RESULT.parse_all(shared_console.command("bench hw 512 rows=512:mul:hw_seq"))   # carries on


@pytest.mark.parametrize("size", ["-4294966784", "+512", "0x200", "512x", "99999999999"])
def test_a_size_is_decimal_digits_only(shared_console, size):
    """A size is typed as decimal digits alone: strtoul would wrap -4294966784 to 512, and take a sign
    or a hex prefix."""
    out = shared_console.command(f"bench hw {size}")
    [line] = error_lines(out)
    assert error_code(line) is Error.UNKNOWN_SIZE and not RESULT.parse_all(out)
