# One-command entry points. Each installs what is missing first (tools/setup.sh).
PY := .venv/bin/python
SIZES ?=
FUZZ_SECONDS ?= 60

.PHONY: bench test setup sim report fuzz clean

# The main job: the benchmark in the simulated SoC over parallel simulations (SIZES=512,1024,2048,3072,4096
# for more; FULL=1 adds the software rows without CRT from 2048 bits on). The set-up's time is passed on
# for the table of where the time went.
bench:
	@t0=$$(date +%s%N); bash tools/setup.sh; t1=$$(date +%s%N); \
	$(PY) -m sim bench --setup-seconds $$(( (t1 - t0) / 1000000 ))e-3 $(if $(SIZES),--sizes $(SIZES)) $(if $(FULL),--full)

# The whole pytest suite over pytest-xdist workers, one more than the cores (a worker often waits: on a
# build another holds the lock of, on a simulated serial link or a TLS client, on a model's exit), tests
# dealt one by one except the groups that share an expensive fixture (xdist_group: the board runs, the
# leak run), which stay on one worker; builds shared across workers take turns (a lock).
TEST_WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))
test: setup
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadgroup --durations=40

setup:
	@bash tools/setup.sh

# The console attached to this terminal.
sim: setup
	$(PY) -m sim

# The firmware's console fuzzed on the host (libFuzzer, AddressSanitizer, UndefinedBehaviorSanitizer) for
# FUZZ_SECONDS in one process; findings in build/fuzz/<bits>/findings/ (docs/console.md).
fuzz: setup
	$(PY) tests/firmware/console_fuzz.py --seconds $(FUZZ_SECONDS)

# Synthesis and timing reports (Yosys, no vendor tools): the peripheral with the firmware's RSA-2048 count
# on the simulated SoC, then the whole SoC for the board.
report: setup
	$(PY) -m sim report
	$(PY) -m boards.pynq_z2 --report

clean:
	rm -rf build
