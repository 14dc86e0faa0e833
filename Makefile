# One-command entry points. Each installs what is missing first (tools/setup.sh).
PY := .venv/bin/python
SIZES ?=

.PHONY: setup bench test sim report clean

setup:
	@bash tools/setup.sh

# The main job: the benchmark in the simulated SoC.
bench: setup
	$(PY) -m sim --run "help; info"

# The whole pytest suite.
test: setup
	$(PY) -m pytest

# The console attached to this terminal.
sim: setup
	$(PY) -m sim

clean:
	rm -rf build
