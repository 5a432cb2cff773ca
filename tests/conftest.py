"""Shared fixtures. ``ray_cluster``: one real local Ray for the whole test session."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[str]:
    """A local Ray (2 CPUs, loopback, no dashboard, a short private temp dir), started
    once per test session and shut down at its end; yields its address (for
    subprocess drivers: ``RAY_ADDRESS``)."""
    import ray

    tmp = tempfile.mkdtemp(prefix="rt-", dir="/tmp")
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
