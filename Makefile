# Quick start: `make run` (the demo) and `make test` (the whole suite). Both create .venv;
# `run` installs what running needs, `test` adds the dev tools (each has its own stamp).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: run test lint typecheck unit bench eval clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(RUN_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(DEV_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev,mcp,web]'
	touch $@

run: $(RUN_STAMP)
	$(BIN)/horizon demo

lint: $(DEV_STAMP)
	$(BIN)/ruff check daemon tests $(wildcard bench/*.py)
	$(BIN)/lint-imports

typecheck: $(DEV_STAMP)
	$(BIN)/mypy

test: lint typecheck
	$(BIN)/pytest -n 2

# The pure core alone: seconds, no daemon, no subprocess.
unit: $(DEV_STAMP)
	$(BIN)/pytest -n 2 tests/unit

bench: $(RUN_STAMP)
	$(BIN)/python bench/run.py

# What the view remembers of a long synthetic session; exits 1 when a target is not met.
eval: $(RUN_STAMP)
	$(BIN)/python bench/memory.py

clean:
	rm -rf $(VENV) demo-hive build dist daemon/*.egg-info \
		.mypy_cache .ruff_cache .pytest_cache .hypothesis .grimp_cache .import_linter_cache
