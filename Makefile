# Menagerie: `make demo` and `make test` set everything up on a fresh machine.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=

.PHONY: demo test lint typecheck pytest venv clean proto proto-check

venv: $(STAMP)

# (Re)build the virtual environment whenever pyproject.toml changes.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m arena.demo

test: lint typecheck proto-check pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/buf lint proto
	@if git ls-tree -r --name-only main -- proto/menagerie 2>/dev/null | grep -q '\.proto$$'; then \
		echo "$(BIN)/buf breaking proto --against '.git#branch=main,subdir=proto'"; \
		$(BIN)/buf breaking proto --against '.git#branch=main,subdir=proto'; \
	else echo "buf breaking: main has no proto files yet (skipped)"; fi

# The generated Python code of the wire contract (proto/gen, checked in).
proto: $(STAMP)
	$(BIN)/python proto/generate.py

# Fails when proto/gen is stale (regenerates into a temporary folder and compares).
proto-check: $(STAMP)
	$(BIN)/python proto/generate.py --check

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/python -m pytest --doctest-modules engine bots arena tests $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) demo-out .mypy_cache .ruff_cache .pytest_cache
