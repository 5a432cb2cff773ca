"""The ladder store on SQLite and on a real PostgreSQL server (every test runs on both).

What is proved: state changes are refused or applied whole; a result counts exactly once;
one runner holds a ladder and a dead runner's matches go back to the queue; versions never
share games or ratings; a failing version is broken with its reason.
"""

from __future__ import annotations

import dataclasses
import itertools
import threading
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from arena.ladder.errors import (
    DuplicateError,
    LadderError,
    LeaseHeld,
    LeaseLost,
    StaleMatch,
    StatusError,
    UnknownBot,
    UnknownLadder,
)
from arena.ladder.rating import DEFAULT_MU, DEFAULT_SIGMA
from arena.ladder.store import LadderStore, LeaseInfo, VersionInfo
from tests.ladder.conftest import Clock

WIN = {"ranks": [1, 2]}
LOSS = {"ranks": [2, 1]}


def crash_record(seat: int, ranks: list[int]) -> dict[str, Any]:
    """A game record (the fields ratings read) in which ``seat`` crashed and forfeited."""
    return {
        "result": {"ranks": ranks, "scores": [0] * len(ranks)},
        "events": [
            {"step": 3, "seat": seat, "kind": "crash", "reason": "ZeroDivisionError: boom"},
            {"step": 3, "seat": seat, "kind": "forfeit", "reason": "crash: seat forfeits"},
        ],
        "standing": {"ranks": ranks, "forfeited": [seat]},
    }


def two_bots(store: LadderStore, ladder: str = "zoo") -> tuple[VersionInfo, VersionInfo]:
    store.create_ladder(ladder, "zooloretto_mini", 2)
    a = store.add_version(ladder, "alice", owner="ann", spec="random", status="active")
    b = store.add_version(ladder, "bob", owner="bo", spec="greedy", status="active")
    return a, b


def play(store: LadderStore, lease: LeaseInfo, group: list[int], result: Mapping[str, Any]) -> int:
    """Queue one game, start it under ``lease`` and commit ``result``; its match id."""
    match = store.queue_match(lease.ladder, group, seed=1)
    store.start_match(match.id, lease)
    assert store.commit_result(match.id, result, f"rec:{match.id}", lease=lease).counted
    return match.id


# ---------------------------------------------------------------------------
# Ladders, bots, versions
# ---------------------------------------------------------------------------


def test_ladder_settings_round_trip_and_duplicates_are_refused(store: LadderStore) -> None:
    info = store.create_ladder(
        "pano", "panorama", 3, options={"rounds": 2}, move_ms=250, failure_policy="random"
    )
    again = store.ladder("pano")
    assert again == info
    assert (again.players, again.options, again.move_ms, again.failure_policy) == (
        3,
        {"rounds": 2},
        250,
        "random",
    )
    assert again.rating.mu == DEFAULT_MU and again.created_at.tzinfo is not None
    with pytest.raises(DuplicateError, match="already exists"):
        store.create_ladder("pano", "panorama", 3)
    with pytest.raises(UnknownLadder, match="no ladder named 'nope' \\(ladders: pano\\)"):
        store.ladder("nope")
    with pytest.raises(LadderError, match="2 or more players"):
        store.create_ladder("solo", "dziobaki", 1)
    with pytest.raises(LadderError, match="failure policy"):
        store.create_ladder("bad", "panorama", 2, failure_policy="ignore")


def test_versions_are_numbered_per_bot_and_unknown_or_duplicate_ones_are_refused(
    store: LadderStore,
) -> None:
    store.create_ladder("zoo", "zooloretto_mini", 2)
    v1 = store.add_version("zoo", "alice", owner="ann", spec="random")
    v2 = store.add_version("zoo", "alice", spec="ismcts:iterations=50")
    assert (v1.version, v2.version, v2.owner, v2.status) == (1, 2, "ann", "validating")
    assert store.version("zoo", "alice") == v2
    assert store.version("zoo", "alice", 1) == v1
    with pytest.raises(DuplicateError, match="alice@2 already exists"):
        store.add_version("zoo", "alice", spec="greedy", version=2)
    with pytest.raises(UnknownBot, match="no bot 'carol' on ladder 'zoo' \\(bots: alice\\)"):
        store.version("zoo", "carol")
    with pytest.raises(UnknownBot, match="has no version 7"):
        store.version("zoo", "alice", 7)
    with pytest.raises(UnknownLadder):
        store.add_version("nope", "alice", spec="random")
    with pytest.raises(LadderError, match="belongs to 'ann'"):
        store.add_version("zoo", "alice", owner="mallory", spec="random")
    with pytest.raises(LadderError, match="entry command"):
        store.add_version("zoo", "alice", archive_sha256="ab" * 32)
    with pytest.raises(LadderError, match="exactly one"):
        store.add_version("zoo", "alice", spec="random", archive_sha256="ab" * 32, entry="x")
    archived = store.add_version("zoo", "dave", archive_sha256="cd" * 32, entry="python bot.py")
    assert (archived.spec, archived.archive_sha256, archived.entry) == (
        None,
        "cd" * 32,
        "python bot.py",
    )
    assert [v.label for v in store.versions("zoo")] == ["alice@1", "alice@2", "dave@1"]


def test_status_transitions_are_checked(store: LadderStore) -> None:
    store.create_ladder("zoo", "zooloretto_mini", 2)
    v = store.add_version("zoo", "alice", spec="random")
    assert store.set_status(v.id, "broken", "crashed at start: ImportError").reason == (
        "crashed at start: ImportError"
    )
    assert store.set_status(v.id, "active").status == "active"
    assert store.set_status(v.id, "retired", "by its owner").status == "retired"
    with pytest.raises(StatusError, match="retired: it cannot become broken"):
        store.set_status(v.id, "broken")


def test_a_new_version_replaces_the_old_and_their_games_never_mix(
    store: LadderStore, clock: Clock
) -> None:
    a1, b = two_bots(store)
    lease = store.acquire_lease("zoo", "runner", 60)
    for _ in range(3):
        play(store, lease, [a1.id, b.id], WIN)
    queued = store.queue_set("zoo", [a1.id, b.id], seed=9)
    a2 = store.add_version("zoo", "alice", spec="ismcts")
    assert store.version_by_id(a1.id).status == "active"  # until a2 is validated
    store.set_status(a2.id, "active")
    old = store.version_by_id(a1.id)
    assert (old.status, old.reason) == ("retired", "replaced by alice@2")
    assert {store.match(m.id).status for m in queued} == {"void"}
    with pytest.raises(StatusError, match="retired, not active"):
        store.queue_match("zoo", [a1.id, b.id], seed=2)

    play(store, lease, [a2.id, b.id], LOSS)
    standings = {row.label: row for row in store.standings("zoo")}
    assert set(standings) == {"alice@2", "bob@1"}
    assert standings["alice@2"].games == 1 and standings["bob@1"].games == 4
    assert standings["alice@2"].mu < DEFAULT_MU  # one loss: a fresh rating, not alice@1's
    retired = {r.label: r for r in store.standings("zoo", statuses=["retired"])}
    assert retired["alice@1"].games == 3 and retired["alice@1"].mu > DEFAULT_MU
    assert [h.opponents for h in store.history(a2.id)] == [("bob@1",)]
    assert len(store.history(a1.id)) == 3
    assert all(store.match(h.match_id).seats[0] == a1.id for h in store.history(a1.id))


def test_a_version_kept_beside_its_successor_stays_active(store: LadderStore) -> None:
    _a1, _ = two_bots(store)
    store.add_version("zoo", "alice", spec="ismcts", replaces_previous=False, status="active")
    assert [v.label for v in store.versions("zoo", statuses=["active"])] == [
        "alice@1",
        "alice@2",
        "bob@1",
    ]


# ---------------------------------------------------------------------------
# Results: exactly once
# ---------------------------------------------------------------------------


def test_a_result_committed_twice_is_counted_once(store: LadderStore) -> None:
    a, b = two_bots(store)
    lease = store.acquire_lease("zoo", "runner", 60)
    match = store.queue_match("zoo", [a.id, b.id], seed=5)
    store.start_match(match.id, lease)
    first = store.commit_result(match.id, WIN, "rec/1.json", lease=lease)
    second = store.commit_result(match.id, WIN, "rec/1.json", lease=lease)
    third = store.commit_result(match.id, LOSS, "rec/other.json")
    assert first.counted and not second.counted and not third.counted and third.duplicate
    assert [r.games for r in store.standings("zoo")] == [1, 1]
    assert len(store.history(a.id)) == len(store.history(b.id)) == 1
    done = store.match(match.id)
    assert (done.status, done.record_location, done.result["ranks"]) == (  # type: ignore[index]  # done: has a result
        "done",
        "rec/1.json",
        [1, 2],
    )
    assert first.ratings[a.id].mu > DEFAULT_MU > first.ratings[b.id].mu


def test_concurrent_commits_of_one_match_count_it_once(
    open_store: Callable[..., LadderStore],
) -> None:
    stores = [open_store() for _ in range(4)]
    a, b = two_bots(stores[0])
    lease = stores[0].acquire_lease("zoo", "runner", 60)
    match = stores[0].queue_match("zoo", [a.id, b.id], seed=5)
    stores[0].start_match(match.id, lease)
    barrier = threading.Barrier(len(stores))
    counted: list[bool] = []

    def commit(s: LadderStore) -> None:
        barrier.wait()
        counted.append(s.commit_result(match.id, WIN, "rec/1.json", lease=lease).counted)

    threads = [threading.Thread(target=commit, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(counted) == [False, False, False, True]
    assert [r.games for r in stores[1].standings("zoo")] == [1, 1]


def test_results_are_checked_before_they_count(store: LadderStore) -> None:
    a, b = two_bots(store)
    lease = store.acquire_lease("zoo", "runner", 60)
    match = store.queue_match("zoo", [a.id, b.id], seed=5)
    with pytest.raises(StaleMatch, match="is queued"):
        store.commit_result(match.id, WIN, "rec")
    store.start_match(match.id, lease)
    with pytest.raises(LadderError, match="2 seats, the result 3"):
        store.commit_result(match.id, {"ranks": [1, 2, 3]}, "rec")
    with pytest.raises(LadderError, match="record location"):
        store.commit_result(match.id, WIN, "")
    with pytest.raises(UnknownBot, match="no match with id 999"):
        store.commit_result(999, WIN, "rec")
    assert store.match(match.id).status == "running"
    assert [r.games for r in store.standings("zoo")] == [0, 0]


def test_queue_checks_seats(store: LadderStore) -> None:
    a, b = two_bots(store)
    with pytest.raises(LadderError, match="seats 2 bots, not 3"):
        store.queue_match("zoo", [a.id, b.id, a.id], seed=1)
    with pytest.raises(LadderError, match="two seats"):
        store.queue_match("zoo", [a.id, a.id], seed=1)
    store.create_ladder("other", "panorama", 2)
    c = store.add_version("other", "carol", spec="random", status="active")
    with pytest.raises(UnknownBot, match="not on ladder 'zoo'"):
        store.queue_match("zoo", [a.id, c.id], seed=1)
    rotations = store.queue_set("zoo", [a.id, b.id], seed=77)
    assert [m.seats for m in rotations] == [(a.id, b.id), (b.id, a.id)]
    assert {m.seed for m in rotations} == {77} and len({m.set_key for m in rotations}) == 1


# ---------------------------------------------------------------------------
# Leases and dead runners
# ---------------------------------------------------------------------------


def test_a_second_runner_is_refused_until_the_lease_expires(
    store: LadderStore, clock: Clock
) -> None:
    two_bots(store)
    first = store.acquire_lease("zoo", "host-a:1", ttl_s=30)
    with pytest.raises(LeaseHeld, match="driven by host-a:1"):
        store.acquire_lease("zoo", "host-b:2", ttl_s=30)
    clock.advance(20)
    first = store.renew(first, ttl_s=30)  # now valid until t = 50 s
    clock.advance(25)
    with pytest.raises(LeaseHeld):
        store.acquire_lease("zoo", "host-b:2", ttl_s=30)
    clock.advance(10)  # t = 55 s: expired
    second = store.acquire_lease("zoo", "host-b:2", ttl_s=30)
    assert second.token != first.token and store.lease("zoo") == second
    with pytest.raises(LeaseLost, match="held by host-b:2"):
        store.renew(first, ttl_s=30)
    store.release(first)  # not ours any more: a no-op
    assert store.lease("zoo") == second
    store.release(second)
    assert store.lease("zoo") is None
    assert store.acquire_lease("zoo", "host-a:1", ttl_s=30).holder == "host-a:1"


def test_an_expired_lease_cannot_start_matches(store: LadderStore, clock: Clock) -> None:
    a, b = two_bots(store)
    lease = store.acquire_lease("zoo", "runner", ttl_s=10)
    match = store.queue_match("zoo", [a.id, b.id], seed=1)
    clock.advance(11)
    with pytest.raises(LeaseLost, match="expired"):
        store.start_match(match.id, lease)
    with pytest.raises(LeaseLost):
        store.claim(lease, 5)
    assert store.match(match.id).status == "queued"


def test_a_runner_queues_sets_and_starts_the_first_games_in_one_transaction(
    store: LadderStore, clock: Clock
) -> None:
    a, b = two_bots(store)
    lease = store.acquire_lease("zoo", "runner", ttl_s=10)
    sets = store.queue_sets("zoo", [([a.id, b.id], 7), ([b.id, a.id], 8)], lease=lease, start=3)
    games = [m for s in sets for m in s]
    assert [m.status for m in games] == ["running"] * 3 + ["queued"]
    assert [m.attempts for m in games] == [1, 1, 1, 0]
    assert [m.lease_token for m in games[:3]] == [lease.token] * 3
    assert [store.match(m.id).status for m in games] == [m.status for m in games]
    assert store.claim(lease, 5) == [
        dataclasses.replace(
            games[3], status="running", attempts=1, started_at=clock(), lease_token=lease.token
        )
    ]
    other = store.create_ladder("pano", "panorama", 2)
    with pytest.raises(LadderError, match="lease is on ladder"):
        store.queue_sets(other.name, [([a.id, b.id], 1)], lease=lease, start=1)
    clock.advance(11)
    with pytest.raises(LeaseLost, match="expired"):
        store.queue_sets("zoo", [([a.id, b.id], 9)], lease=lease, start=1)
    assert len(store.matches("zoo")) == 4  # all or nothing


def test_a_dead_runners_matches_are_requeued_then_voided_and_never_counted_twice(
    store: LadderStore, clock: Clock
) -> None:
    store.create_ladder("zoo", "zooloretto_mini", 2, max_attempts=2)
    a = store.add_version("zoo", "alice", spec="random", status="active")
    b = store.add_version("zoo", "bob", spec="greedy", status="active")
    store.queue_set("zoo", [a.id, b.id], seed=3)
    store.queue_set("zoo", [a.id, b.id], seed=4)
    dead = store.acquire_lease("zoo", "runner-1", ttl_s=30)
    started = store.claim(dead, limit=3)
    assert [m.attempts for m in started] == [1, 1, 1]
    # runner-1 is killed; its lease runs out; runner-2 takes over
    clock.advance(31)
    live = store.acquire_lease("zoo", "runner-2", ttl_s=30)
    recovery = store.void_running(live)
    assert recovery.requeued == tuple(m.id for m in started) and recovery.voided == ()
    # runner-1 was only paused: its late result is refused
    with pytest.raises(StaleMatch, match="is queued"):
        store.commit_result(started[0].id, WIN, "late", lease=dead)

    again = store.claim(live, limit=4)
    assert [m.id for m in again] == [m.id for m in started] + [started[-1].id + 1]
    assert [m.attempts for m in again] == [2, 2, 2, 1]
    for m in again[:2]:
        assert store.commit_result(m.id, WIN, f"rec/{m.id}", lease=live).counted
    # runner-2 dies too: the two unfinished matches were started twice = max_attempts
    clock.advance(31)
    third = store.acquire_lease("zoo", "runner-3", ttl_s=30)
    recovery = store.void_running(third)
    assert recovery.voided == (again[2].id,) and recovery.requeued == (again[3].id,)
    assert "died 2 times" in store.match(again[2].id).result["void"]  # type: ignore[index]  # void: has a result
    with pytest.raises(StaleMatch, match="is void"):
        store.commit_result(again[2].id, WIN, "late", lease=live)
    with pytest.raises(StaleMatch, match="another lease"):
        m = store.claim(third, 1)[0]
        store.commit_result(m.id, WIN, "late", lease=live)
    assert store.commit_result(m.id, WIN, "rec", lease=third).counted
    assert [r.games for r in store.standings("zoo")] == [3, 3]
    assert sorted(m.status for m in store.matches("zoo")) == ["done"] * 3 + ["void"]


def test_void_running_needs_the_live_lease(store: LadderStore, clock: Clock) -> None:
    two_bots(store)
    lease = store.acquire_lease("zoo", "runner", ttl_s=5)
    clock.advance(6)
    with pytest.raises(LeaseLost):
        store.void_running(lease)


# ---------------------------------------------------------------------------
# Failures, standings, snapshot
# ---------------------------------------------------------------------------


def test_a_version_failing_n_games_in_a_row_is_broken_with_the_reason(store: LadderStore) -> None:
    store.create_ladder("zoo", "zooloretto_mini", 2, broken_after=3)
    a = store.add_version("zoo", "alice", spec="random", status="active")
    b = store.add_version("zoo", "bob", spec="cmd:python crashy.py", status="active")
    lease = store.acquire_lease("zoo", "runner", 60)
    play(store, lease, [a.id, b.id], crash_record(1, [2, 1]))
    play(store, lease, [b.id, a.id], crash_record(0, [1, 2]))
    play(store, lease, [a.id, b.id], WIN)  # a clean game resets the streak
    assert store.version_by_id(b.id).failures_in_row == 0
    queued = store.queue_set("zoo", [a.id, b.id], seed=8)
    for seat_of_b in (1, 0):
        group = [a.id, b.id] if seat_of_b == 1 else [b.id, a.id]
        ranks = [1, 2] if seat_of_b == 1 else [2, 1]
        play(store, lease, group, crash_record(seat_of_b, ranks))
    assert store.version_by_id(b.id).status == "active"
    match = store.queue_match("zoo", [a.id, b.id], seed=2)
    store.start_match(match.id, lease)
    outcome = store.commit_result(match.id, crash_record(1, [2, 1]), "rec", lease=lease)
    assert outcome.broken == (b.id,)
    broken = store.version_by_id(b.id)
    assert broken.status == "broken"
    assert broken.reason == "failed 3 games in a row (last: crash: ZeroDivisionError: boom)"
    assert {store.match(m.id).status for m in queued} == {"void"}
    assert [r.label for r in store.standings("zoo")] == ["alice@1"]
    # the crash ranked the crashing seat last, whatever the engine's ranks said
    last = store.history(b.id)[-1]
    assert (last.rank, last.forfeited) == (2, True)


def test_standings_sort_by_the_conservative_ordinal(store: LadderStore) -> None:
    store.create_ladder("zoo", "zooloretto_mini", 2)
    ids = [store.add_version("zoo", n, spec="random", status="active").id for n in "abc"]
    lease = store.acquire_lease("zoo", "runner", 600)
    for _ in range(20):
        play(store, lease, [ids[0], ids[1]], WIN)
        play(store, lease, [ids[1], ids[2]], WIN)
        play(store, lease, [ids[0], ids[2]], WIN)
    fresh = store.add_version("zoo", "d", spec="random", status="active")
    r_threshold = store.ladder("zoo").rating.provisional_sigma
    rows = store.standings("zoo")
    # c lost every game (μ ≈ 3): below the unknown d (ordinal 25 − 3·25/3 = 0)
    assert [r.bot for r in rows] == ["a", "b", "d", "c"]
    assert [r.rank for r in rows] == [1, 2, 3, 4]
    assert all(x.ordinal >= y.ordinal for x, y in itertools.pairwise(rows))
    by_bot = {r.bot: r for r in rows}
    assert by_bot["d"].provisional and by_bot["d"].sigma == DEFAULT_SIGMA
    assert all(r.provisional == (r.sigma > r_threshold) for r in rows)
    assert by_bot["a"].games == by_bot["b"].games == by_bot["c"].games == 40
    assert by_bot["a"].sigma < DEFAULT_SIGMA and by_bot["a"].mu > by_bot["b"].mu > by_bot["c"].mu
    assert by_bot["d"].version_id == fresh.id


def test_snapshot_counts_games_in_flight_and_places_a_newcomer(store: LadderStore) -> None:
    store.create_ladder("zoo", "zooloretto_mini", 2, placement_games=10)
    a = store.add_version("zoo", "a", spec="random", status="active")
    b = store.add_version("zoo", "b", spec="random", status="active")
    lease = store.acquire_lease("zoo", "runner", 600)
    for _ in range(15):
        play(store, lease, [a.id, b.id], WIN)
    store.queue_set("zoo", [a.id, b.id], seed=1)
    snap = store.snapshot("zoo")
    assert {c.version_id: c.games for c in snap.candidates} == {a.id: 17, b.id: 17}
    assert snap.recent[-1] == (a.id, b.id) and len(snap.recent) == 16
    c = store.add_version("zoo", "c", spec="random", status="active")
    games = {x.version_id: x.games for x in store.snapshot("zoo").candidates}
    assert games[c.id] == 17 - 10  # placed C = 10 games behind the most-played
    assert [r.games for r in store.standings("zoo") if r.bot == "c"] == [0]


# ---------------------------------------------------------------------------
# What the runner needs: take-over of a dead holder, requeue on a stop, counts
# ---------------------------------------------------------------------------


def test_a_live_lease_is_taken_over_only_from_the_holder_named_dead(store: LadderStore) -> None:
    two_bots(store)
    first = store.acquire_lease("zoo", "host:1", 60)
    with pytest.raises(LeaseHeld):
        store.acquire_lease("zoo", "host:2", 60, take_over="host:9")
    second = store.acquire_lease("zoo", "host:2", 60, take_over="host:1")
    assert second.holder == "host:2" and second.token != first.token
    with pytest.raises(LeaseLost):
        store.renew(first, 60)


def test_a_clean_stop_requeues_only_its_own_running_matches(store: LadderStore) -> None:
    a, b = two_bots(store)
    lease = store.acquire_lease("zoo", "runner", 60)
    queued = store.queue_set("zoo", [a.id, b.id], seed=3)
    claimed = store.claim(lease, 2)
    assert [m.attempts for m in claimed] == [1, 1]
    store.commit_result(claimed[0].id, WIN, "rec:1", lease=lease)
    back = store.requeue(lease, [m.id for m in queued])
    assert back == [claimed[1].id]  # the done one stays done
    again = store.match(claimed[1].id)
    assert (again.status, again.attempts, again.lease_token) == ("queued", 0, None)
    other = store.acquire_lease("zoo", "runner", 60)  # a new token, same holder
    assert store.claim(other, 1)[0].id == claimed[1].id
    assert store.requeue(lease, [claimed[1].id]) == []  # running under another lease now


def test_match_counts_by_status_and_sets(store: LadderStore) -> None:
    a, b = two_bots(store)
    assert store.match_counts("zoo") == {
        "queued": 0, "running": 0, "done": 0, "void": 0, "sets": 0,
    }  # fmt: skip
    lease = store.acquire_lease("zoo", "runner", 60)
    store.queue_set("zoo", [a.id, b.id], seed=1)
    store.queue_set("zoo", [b.id, a.id], seed=2)
    first = store.claim(lease, 1)[0]
    store.commit_result(first.id, WIN, "rec", lease=lease)
    store.claim(lease, 1)
    assert store.match_counts("zoo") == {
        "queued": 2, "running": 1, "done": 1, "void": 0, "sets": 2,
    }  # fmt: skip
