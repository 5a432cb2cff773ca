"""The game server under many matches: its capacity limits count exactly while costing
O(1) below them, hosted matches are driven by threads started off the event loop, and
the load probe (``ServerConfig.probe_path``) reports the loop delay, collector pauses
and CPU of a real server. Outcomes and counts only; waits are safety nets."""

from __future__ import annotations

import gc
import json
import time
from pathlib import Path
from typing import Any

import grpc
import pytest
from menagerie.v1 import game_service_pb2 as pb

from arena.match.runner import MatchConfig, MatchSpec
from arena.server.hub import Hub, ServerConfig
from arena.server.probe import LoadProbe, read_snapshot, window
from arena.server.streams import StreamError
from arena.server.table import Table
from tests.wire.helpers import host, play_with_sdk, running_server

WAIT_S = 60.0
"""The bound of a wait for an event: only reached when the event never comes."""


def _open(hub: Hub, seed: int = 0) -> Table:
    """A table with no remote seat (its driver would bring in-process bots)."""
    spec = MatchSpec("zooloretto_mini", 2, seed, {})
    return hub.open_table(spec, MatchConfig(), ["a", "b"], [False, False])


def _refused(hub: Hub) -> str:
    with pytest.raises(StreamError) as caught:
        _open(hub)
    assert caught.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
    return caught.value.message


def test_capacity_limits_count_exactly_joining_and_live_matches() -> None:
    """max_pending counts the tables still waiting for seats, max_matches the tables not
    over: a table that starts stops counting as joining, one that is over (marked
    finished or not yet) stops counting as live."""
    hub = Hub(ServerConfig(max_pending=2, max_matches=3))
    first, second = _open(hub), _open(hub)
    assert "still joining" in _refused(hub)
    first.wait_for_seats()  # (no remote seat: it starts at once)
    third = _open(hub)
    assert "3 live matches" in _refused(hub)
    first.abort("done")  # over, not yet marked finished: no longer live
    second.wait_for_seats()
    fourth = _open(hub)
    assert "3 live matches" in _refused(hub)
    hub.mark_finished(first)
    for table in (third, fourth):
        table.wait_for_seats()
    assert "3 live matches" in _refused(hub)
    second.abort("done")
    hub.mark_finished(second)
    _open(hub)
    assert len(hub.running()) == 3


def test_started_matches_never_fill_the_joining_limit() -> None:
    """Far more matches than max_pending, each started once opened: none is refused (the
    joining set forgets started tables when it nears the limit)."""
    hub = Hub(ServerConfig(max_pending=3, max_matches=1000))
    for seed in range(200):
        _open(hub, seed).wait_for_seats()
    assert len(hub.running()) == 200


@pytest.mark.server
def test_hosted_matches_start_and_finish_with_threads_started_off_the_loop() -> None:
    """Twenty hosted matches at once, their seats joined by SDK bots: each is driven
    (its match thread started by the server's starter, not the event loop) to the end."""
    with running_server() as server:
        tables = [host(server, seed=s) for s in range(20)]
        bots = [bot for table in tables for bot in play_with_sdk(server, table)]
        for table in tables:
            assert table.done.wait(WAIT_S)
        for bot in bots:
            bot.join(WAIT_S)
            assert bot.error is None and bot.result is not None
        assert all(t.status == pb.MATCH_STATUS_FINISHED for t in tables)


@pytest.mark.server
def test_the_load_probe_reports_a_real_servers_loop_gc_and_cpu(tmp_path: Path) -> None:
    """A server with a probe file: while a match plays, the file holds cumulative figures
    that grow (loop delay samples, CPU); a collection forced meanwhile is counted; the
    window of two snapshots turns them into figures; the hosted-matches gauge counts the
    match from its creation until it is recorded."""
    path = tmp_path / "probe.json"
    with running_server(probe_path=str(path)) as server:
        assert server.probe is not None
        deadline = time.monotonic() + WAIT_S
        while read_snapshot(path) is None and time.monotonic() < deadline:
            time.sleep(0.05)
        before = read_snapshot(path)
        assert before is not None
        assert before["gauges"] == {"hosted_matches": 0, "match_threads": 0}
        table = host(server, seed=3)
        while (read_snapshot(path) or before)["gauges"]["hosted_matches"] != 1:
            assert time.monotonic() < deadline, "the hosted match is not in the probe file"
            time.sleep(0.05)
        for bot in play_with_sdk(server, table):
            bot.join(WAIT_S)
        assert table.done.wait(WAIT_S)
        gc.collect(0)
        after = before
        while (
            after["gc_by_generation"][0] == before["gc_by_generation"][0]
            or sum(after["delay"]) == sum(before["delay"])
            or after["gauges"]["hosted_matches"] != 0  # (recorded once over)
        ):
            assert time.monotonic() < deadline, "the probe file did not move"
            time.sleep(0.1)
            after = read_snapshot(path) or before
    figures = window(before, after)
    assert figures["delay_samples"] > 0 and figures["delay_max_ms"] >= figures["delay_p99_ms"] > 0
    assert figures["gc_collections"][0] >= 1 and figures["gc_pause_total_ms"] > 0
    assert figures["cpu_cores"] > 0 and figures["seconds"] > 0
    assert json.loads(path.read_text())["time"] >= after["time"]  # the last one stays


def test_window_of_two_snapshots_is_their_difference() -> None:
    """The figures of a window come from the counts between two snapshots only."""
    probe = LoadProbe()
    zero = probe.snapshot()
    later: dict[str, Any] = {**zero}
    later["wall_s"] = zero["wall_s"] + 2.0
    later["cpu_s"] = zero["cpu_s"] + 1.0
    later["delay"] = list(zero["delay"])
    later["delay"][40] += 99  # 99 samples of ~1.1-1.3 ms
    later["delay"][60] += 1  # one of ~32-38 ms
    later["delay_sum_us"] = zero["delay_sum_us"] + 99 * 1200 + 35_000
    later["gc_by_generation"] = [zero["gc_by_generation"][0] + 2, 0, 0]
    figures = window(zero, later)
    assert figures["cpu_cores"] == 0.5 and figures["delay_samples"] == 100
    assert 1.0 < figures["delay_p99_ms"] < 1.5 and 32 < figures["delay_max_ms"] < 39
    assert figures["gc_collections"] == [2, 0, 0]
