"""The Go load generator of ``arena bench server`` (``bots/go/loadgen``) against a real
``arena serve`` process: it plays its matches over the wire, its samples are move
exchanges (not think time), its probe snapshots read with the server probe's ``window``,
and bad input gets a clear error. Built with the Go bot (``make -C bots/go``: the
``go_bot`` fixture, hence the ``go`` group and the ``toolchain`` tier)."""

from __future__ import annotations

import json
import secrets
import statistics
import subprocess
from typing import Any

import pytest

from arena.bench.grpc_server import LOADGEN, ServeProcess
from arena.server.probe import window
from tests.bots.conftest import go_bot  # noqa: F401  (the fixture: builds bots/go)

pytestmark = [pytest.mark.xdist_group("go"), pytest.mark.toolchain]

THINK_MS = 20.0


def _loadgen(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LOADGEN), *args], capture_output=True, text=True, timeout=timeout, check=False
    )


@pytest.mark.server
def test_go_loadgen_plays_matches_and_reports_move_exchanges(go_bot: str) -> None:  # noqa: F811
    token = secrets.token_hex(8)
    server = ServeProcess(token, max_pending=100)
    try:
        done = _loadgen(
            "--address", server.address, "--token", token, "--matches", "5",
            "--think-ms", str(THINK_MS), "--seconds", "3", "--warmup-s", "0.5",
            "--connections", "2",
        )  # fmt: skip
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr
    out: dict[str, Any] = json.loads(done.stdout)
    assert out["client"] == "go" and out["errors"] == {}
    latencies = out["latencies_us"]
    # 5 matches, a move every ~THINK_MS per match for 3 s: hundreds of exchanges
    assert len(latencies) >= 50, len(latencies)
    assert min(latencies) > 0
    # think time (10-30 ms) is excluded: a loopback exchange is well under it
    assert statistics.median(latencies) < THINK_MS * 0.5 * 1000
    probe = window(*out["marks"])
    assert 2.0 < probe["seconds"] < 10.0
    assert probe["cpu_cores"] > 0 and probe["delay_samples"] > 100
    assert probe["delay_max_ms"] >= probe["delay_p99_ms"] > 0


@pytest.mark.server
def test_go_loadgen_counts_refused_calls_and_exits(go_bot: str) -> None:  # noqa: F811
    """A wrong admin token: every CreateMatch is refused, counted by status, no sample."""
    server = ServeProcess(secrets.token_hex(8), max_pending=100)
    try:
        done = _loadgen(
            "--address", server.address, "--token", "wrong", "--matches", "2",
            "--seconds", "1", "--warmup-s", "0",
        )  # fmt: skip
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["latencies_us"] == [] and out["matches"] == 0
    (key,) = out["errors"]
    assert key.startswith("UNAUTHENTICATED: ") and out["errors"][key] >= 2


def test_go_loadgen_rejects_bad_arguments(go_bot: str) -> None:  # noqa: F811
    done = _loadgen("--address", "127.0.0.1:1", "--matches", "0", "--connections", "99")
    assert done.returncode == 2
    assert "--matches must be 1..100000, got 0" in done.stderr
    assert "--connections must be 1..64, got 99" in done.stderr
    done = _loadgen("--matches", "1")
    assert done.returncode == 2 and "--address is needed" in done.stderr
