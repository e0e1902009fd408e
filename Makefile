# Quick start: `make run` (the demo) and `make test` (the whole suite). Both create .venv;
# `run` installs what running needs and the web view, `test` adds the dev tools (each has
# its own stamp).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: run test test-loaded lint typecheck unit bench eval mutants browser bytecode clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(RUN_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[web]'
	touch $@

$(DEV_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev,mcp,web]'
	touch $@

run: $(RUN_STAMP) bytecode
	$(BIN)/horizon demo

# An editable install leaves the package uncompiled, and PYTHONDONTWRITEBYTECODE (set on
# many CI machines) keeps Python from caching what it compiles: every new horizon process
# would then compile the whole package again (a tenth of a second). pip compiles a regular
# install; this does the same here, and only for the files that changed.
bytecode: | $(BIN)/python
	$(BIN)/python -m compileall -q daemon/horizon

lint: $(DEV_STAMP)
	$(BIN)/ruff check daemon tests $(wildcard bench/*.py) examples
	$(BIN)/lint-imports

typecheck: $(DEV_STAMP)
	$(BIN)/mypy

test: lint typecheck browser bytecode
	$(BIN)/pytest -n 2

# The whole suite beside a CPU hog on every core, as on a shared CI machine: tests wait on
# conditions with deadlines, never on a fixed sleep, and must hold here too.
test-loaded: $(DEV_STAMP)
	@hogs=""; for core in $$(seq $$(nproc)); do \
		$(BIN)/python -c "while True: pass" & hogs="$$hogs $$!"; done; \
		trap 'kill $$hogs' EXIT; $(MAKE) test

# The web view's browser tests drive Debian's chromium through its chromedriver, both by
# path and never downloaded: apt installs them (with sudo unless root) when one is missing,
# and nothing is done, no root needed, when both are there.
browser:
	@if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then \
		SUDO=""; if [ "$$(id -u)" -ne 0 ]; then SUDO="sudo"; fi; \
		$$SUDO apt-get update -qq && \
		$$SUDO env DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq chromium chromium-driver >/dev/null; \
	fi

# The pure core alone: no daemon, no subprocess; its property tests take a minute or two.
unit: $(DEV_STAMP)
	$(BIN)/pytest -n 2 tests/unit

bench: $(RUN_STAMP) bytecode
	$(BIN)/python bench/run.py

# What the view remembers of generated coding sessions (6 projects x French and English,
# 300 exchanges, and budget_net = 3000 variants), probed against what each generator
# recorded as true, then of a real Claude Code session at its compaction point, beside
# Claude Code's own summary; exits 1 when a target is not met. `make test` runs a small one.
eval: $(RUN_STAMP) bytecode
	$(BIN)/python bench/memory.py
	$(BIN)/python bench/real_sessions.py

# Each guard of a fast path deleted in turn: a test must fail for each (tests/mutants.py).
mutants: $(DEV_STAMP)
	$(BIN)/python tests/mutants.py

clean:
	rm -rf $(VENV) demo-hive build dist daemon/*.egg-info \
		.mypy_cache .ruff_cache .pytest_cache .hypothesis .grimp_cache .import_linter_cache
	find daemon -name __pycache__ -prune -exec rm -rf {} +
