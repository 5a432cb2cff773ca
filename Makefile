# Menagerie: `make demo` and `make test` set everything up on a fresh machine.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=
# pytest-xdist: one worker per core; tests that share a session fixture, a build or a
# port carry @pytest.mark.xdist_group (tests/conftest.py), and loadgroup keeps each group
# on one worker. `make pytest XDIST=-n0` runs serially.
XDIST ?= -n auto --dist loadgroup
# envs/direct.py has no doctests, and its module is the compiled build (make native), whose
# path pytest would find differs from the source's: not collected for doctests
PYTEST := $(BIN)/python -m pytest $(XDIST) --doctest-modules --ignore=envs/direct.py \
	engine bots arena wire envs tests
# The edit loop's tier: no Chromium, no Node/Go builds, no Ray/MLflow/server processes,
# nothing slow (markers registered in pyproject.toml).
FAST := not browser and not toolchain and not server and not slow

# System packages some tests need (Debian): headless Chromium for the replay viewer's
# browser test, Go + protoc for the Go example bot. Node.js 20 comes with the machine.
# PostgreSQL for the ladder store's tests (pg_ctlcluster: the server package is there).
# gcc and the Python headers for the compiled tensor encoders (make native).
APT_PACKAGES := gcc python3-dev chromium chromium-driver fonts-dejavu-core golang-go \
	golang-google-grpc-dev golang-google-protobuf-dev golang-github-golang-protobuf-1-5-dev \
	protoc-gen-go protoc-gen-go-grpc protobuf-compiler postgresql
SYSTEM_TOOLS := gcc chromium go protoc protoc-gen-go protoc-gen-go-grpc node npm pg_ctlcluster

.PHONY: demo test test-fast test-under-load lint format typecheck pytest venv native clean proto \
	proto-baseline proto-check system-deps help cluster-up cluster-down

venv: $(STAMP) ## Create .venv with the project and its dev tools (again when pyproject.toml changes)

# (Re)build the virtual environment whenever pyproject.toml changes.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# envs/direct.py compiled by mypyc into build/native (envs/build.py); a no-op when the
# build is of the current sources. Without it the same code runs interpreted, slower.
native: $(STAMP) ## Compile the tensor encoders (envs/direct.py) with mypyc, when they changed
	$(BIN)/python -m envs.build

help: ## List the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | \
		awk 'BEGIN {FS = ":.*## "}; {printf "  %-18s %s\n", $$1, $$2}'

demo: $(STAMP) ## A small tournament end to end (demo-out/, mlflow.db)
	$(BIN)/python -m arena.demo

test: system-deps lint typecheck proto-check pytest ## Everything CI checks: system deps, lint, types, proto, all tests (parallel)

test-fast: native ## The edit loop: unit tests and doctests, no browser/toolchain/server/slow tests
	$(PYTEST) -m "$(FAST)" $(PYTEST_ARGS)

test-under-load: ## `make test` with two CPU-burning processes alongside (a busy CI machine)
	.ci/under-load $(MAKE) test

# Installs the Debian packages above when a tool is missing (as root; otherwise it
# prints the command, and the tests that need the tool fail naming it).
system-deps: ## Install the Debian packages some tests need, when missing (as root)
	@missing=""; for t in $(SYSTEM_TOOLS); do command -v $$t >/dev/null 2>&1 || missing="$$missing $$t"; done; \
	$(PYTHON) -c 'import pathlib, sys, sysconfig; \
		sys.exit(not pathlib.Path(sysconfig.get_paths()["include"], "Python.h").is_file())' \
		|| missing="$$missing Python.h"; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	echo "missing:$$missing"; \
	if [ "$$(id -u)" = 0 ]; then \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(APT_PACKAGES); \
	else echo "run as root: apt-get update && apt-get install -y $(APT_PACKAGES)"; fi

lint: $(STAMP) ## ruff check, ruff format --check, buf lint and buf breaking, hadolint
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/buf lint proto
	$(BIN)/buf breaking proto --against $(PROTO_BASELINE)
	$(BIN)/hadolint --config .hadolint.yaml Dockerfile

# The released wire contract that `buf breaking` compares against (a buf image, checked in):
# a CI clone has no earlier branch to compare with. Refresh it only when releasing.
PROTO_BASELINE := proto/baseline/menagerie-v1.binpb
proto-baseline: $(STAMP) ## Refresh the released wire contract buf breaking compares with (releases only)
	$(BIN)/buf build proto -o $(PROTO_BASELINE)

# The generated Python code of the wire contract (proto/gen, checked in).
proto: $(STAMP) ## Regenerate proto/gen from proto/
	$(BIN)/python proto/generate.py

# Fails when proto/gen is stale (regenerates into a temporary folder and compares).
proto-check: $(STAMP) ## Fail when proto/gen is stale
	$(BIN)/python proto/generate.py --check

format: $(STAMP) ## ruff format and ruff check --fix
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

typecheck: $(STAMP) ## mypy
	$(BIN)/mypy

pytest: native ## All tests and doctests, on pytest-xdist workers (PYTEST_ARGS=... to add options)
	$(PYTEST) --durations=10 $(PYTEST_ARGS)

clean: ## Remove .venv, demo output and caches
	rm -rf $(VENV) build demo-out .mypy_cache .ruff_cache .pytest_cache

# The local stack (deploy/cluster.py): PostgreSQL, MLflow on it, a two-node Ray cluster with
# token authentication, all on loopback; `source .cluster/env` points arena at it.
CLUSTER_DIR ?= .cluster
cluster-up: $(STAMP) ## Start the local stack: 2-node Ray, MLflow on PostgreSQL (then: source .cluster/env)
	$(BIN)/python -m deploy.cluster up --dir $(CLUSTER_DIR)

cluster-down: $(STAMP) ## Stop what cluster-up started (by process id, never with Ray's machine-wide stop command)
	$(BIN)/python -m deploy.cluster down --dir $(CLUSTER_DIR)
