# Menagerie: `make demo` and `make test` set everything up on a fresh machine.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=

# System packages some tests need (Debian): headless Chromium for the replay viewer's
# browser test, Go + protoc for the Go example bot. Node.js 20 comes with the machine.
# PostgreSQL for the ladder store's tests (pg_ctlcluster: the server package is there).
APT_PACKAGES := chromium chromium-driver fonts-dejavu-core golang-go golang-google-grpc-dev \
	golang-google-protobuf-dev golang-github-golang-protobuf-1-5-dev protoc-gen-go \
	protoc-gen-go-grpc protobuf-compiler postgresql
SYSTEM_TOOLS := chromium go protoc protoc-gen-go protoc-gen-go-grpc node npm pg_ctlcluster

.PHONY: demo test lint typecheck pytest venv clean proto proto-baseline proto-check system-deps

venv: $(STAMP)

# (Re)build the virtual environment whenever pyproject.toml changes.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m arena.demo

test: system-deps lint typecheck proto-check pytest

# Installs the Debian packages above when a tool is missing (as root; otherwise it
# prints the command, and the tests that need the tool fail naming it).
system-deps:
	@missing=""; for t in $(SYSTEM_TOOLS); do command -v $$t >/dev/null 2>&1 || missing="$$missing $$t"; done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	echo "missing:$$missing"; \
	if [ "$$(id -u)" = 0 ]; then \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(APT_PACKAGES); \
	else echo "run as root: apt-get update && apt-get install -y $(APT_PACKAGES)"; fi

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/buf lint proto
	$(BIN)/buf breaking proto --against $(PROTO_BASELINE)

# The released wire contract that `buf breaking` compares against (a buf image, checked in):
# a CI clone has no earlier branch to compare with. Refresh it only when releasing.
PROTO_BASELINE := proto/baseline/menagerie-v1.binpb
proto-baseline: $(STAMP)
	$(BIN)/buf build proto -o $(PROTO_BASELINE)

# The generated Python code of the wire contract (proto/gen, checked in).
proto: $(STAMP)
	$(BIN)/python proto/generate.py

# Fails when proto/gen is stale (regenerates into a temporary folder and compares).
proto-check: $(STAMP)
	$(BIN)/python proto/generate.py --check

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/python -m pytest --doctest-modules engine bots arena wire tests $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) demo-out .mypy_cache .ruff_cache .pytest_cache
