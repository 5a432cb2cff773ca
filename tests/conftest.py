"""Shared fixtures and the suite's tiers.

``ray_cluster``: one real local Ray for the whole test session (of one xdist worker).
``run_cli``: the ``arena`` command line in-process (``tests/cli.py``).
``free_port``: a loopback port no other test (or ephemeral connection) will take.

The suite runs on pytest-xdist with ``--dist loadgroup`` (``make test``). Tests that
share something expensive or exclusive carry ``@pytest.mark.xdist_group(NAME)``, so that
one worker runs them all and builds the thing once:

- ``ray``: the session's Ray cluster (``ray_cluster``);
- ``node`` / ``go``: the example bots' builds (``npm ci``, ``make -C bots/go``; see
  ``tests/bots/conftest.py``), which write into the repository;
- ``browser``: the headless Chromium of the viewer test;
- ``mlflow``: the replay tests' MLflow store (``logged_run``), slow to create;
- ``postgres``: the ladder tests' PostgreSQL server (``tests/ladder/conftest.py``);
- ``cluster``: the deployment tests' local stack, a two-node Ray cluster with PostgreSQL and
  MLflow (``stack`` in ``tests/deploy/test_cluster.py``, from ``deploy/localstack.py``).

Tiers (markers, registered in pyproject.toml): ``browser``, ``toolchain``, ``server``,
``slow``. A test that uses one of the fixtures above without its group and tier marker
fails before the fixture is built (``pytest_collection_modifyitems``), so a new test
cannot make two workers build the same thing at once.
"""

from __future__ import annotations

import os
import random
import shutil
import socket
import tempfile
from collections.abc import Callable, Iterator

import pytest

from tests.cli import CliResult
from tests.cli import run_cli as _run_cli

# fixture -> (xdist group, tier marker) that every test using it must carry
EXCLUSIVE_FIXTURES = {
    "ray_cluster": ("ray", "server"),
    "node_bot": ("node", "toolchain"),
    "go_bot": ("go", "toolchain"),
    "browser": ("browser", "browser"),
    "logged_run": ("mlflow", "slow"),
    "postgres": ("postgres", "server"),
    "stack": ("cluster", "server"),
}


MISSING_GROUP = pytest.StashKey[str]()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Note each test that uses an exclusive fixture without its group and tier marker; it
    fails at setup, before the fixture is built (an error raised here would be lost in
    an xdist worker's crash report)."""
    for item in items:
        names = getattr(item, "fixturenames", ())
        for fixture, (group, tier) in EXCLUSIVE_FIXTURES.items():
            if fixture not in names:
                continue
            mark = item.get_closest_marker("xdist_group")
            got = None if mark is None else (mark.args[0] if mark.args else mark.kwargs.get("name"))
            if got != group or item.get_closest_marker(tier) is None:
                item.stash[MISSING_GROUP] = (
                    f"{item.nodeid} uses {fixture}, so it needs "
                    f"@pytest.mark.xdist_group({group!r}) and @pytest.mark.{tier} "
                    "(see tests/conftest.py)"
                )


def pytest_runtest_setup(item: pytest.Item) -> None:
    if MISSING_GROUP in item.stash:
        pytest.fail(item.stash[MISSING_GROUP], pytrace=False)
    # Under `--dist loadgroup` xdist appends @GROUP to the id of each grouped test (in
    # the workers); with a pytest it does not know that may silently not happen, and then
    # the groups do not hold (two workers building the same thing).
    grouped = item.get_closest_marker("xdist_group") is not None
    if grouped and getattr(item.config.option, "loadgroup", False) and "@" not in item.nodeid:
        pytest.fail(
            "--dist loadgroup did not group this test: this pytest-xdist does not work "
            "with this pytest (see the pin in pyproject.toml)",
            pytrace=False,
        )


def worker_id() -> str:
    """``gw0``, ``gw1``, ... under xdist; ``main`` otherwise."""
    return os.environ.get("PYTEST_XDIST_WORKER", "main")


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[str]:
    """A local Ray (2 CPUs, loopback, no dashboard, a short private temp dir), started
    once per test session and shut down at its end; yields its address (for
    subprocess drivers: ``RAY_ADDRESS``)."""
    import ray

    tmp = tempfile.mkdtemp(prefix=f"rt-{worker_id()}-", dir="/tmp")
    ray.init(
        address="local",
        num_cpus=2,
        _node_ip_address="127.0.0.1",
        include_dashboard=False,
        _temp_dir=tmp,
        object_store_memory=256 * 1024 * 1024,
    )
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture
def run_cli() -> Callable[..., CliResult]:
    """``run_cli(*args, input=None, cwd=None)``: ``arena ARGS`` in-process -> CliResult."""
    return _run_cli


def _ephemeral_range() -> range:
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as fh:
            low, high = (int(x) for x in fh.read().split())
    except (OSError, ValueError):
        low, high = 32768, 60999
    return range(low, high + 1)


@pytest.fixture
def free_port() -> int:
    """A free loopback port below the ephemeral range, in a band of its own per xdist
    worker: the kernel never hands it out for a ``port 0`` bind or an outgoing
    connection, so a test may stop its server and start it again on the same port."""
    ephemeral = _ephemeral_range()
    digits = "".join(c for c in worker_id() if c.isdigit())
    band = 20_000 + (int(digits) % 20 if digits else 20) * 500
    candidates = [p for p in range(band, band + 500) if p not in ephemeral]
    random.shuffle(candidates)
    for port in candidates:
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    pytest.fail(f"no free port in {band}-{band + 499}")
