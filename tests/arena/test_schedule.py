"""The schedule: every group, every rotation, same seed per group, lazy and deterministic."""

from __future__ import annotations

import itertools
import math
import tracemalloc

import pytest

from arena.tournament.schedule import Schedule

ROSTER = [(f"b{i}", "random") for i in range(6)]


def test_round_robin_of_groups_in_every_rotation_on_a_shared_seed() -> None:
    s = Schedule("t", ROSTER, 3, rounds=2, seed=1)
    games = list(s)
    assert len(games) == len(s) == 2 * math.comb(6, 3) * 3
    assert [g.index for g in games] == list(range(len(games)))
    assert len({g.game_id for g in games}) == len(games)
    by_match: dict[str, list] = {}
    for g in games:
        by_match.setdefault(g.match_id, []).append(g)
    assert len(by_match) == 2 * math.comb(6, 3)
    for group in by_match.values():
        assert len(group) == 3 and len({g.seed for g in group}) == 1
        # each bot of the group sits in every seat once
        for seat in range(3):
            assert sorted(g.seats[seat] for g in group) == sorted(group[0].seats)
    # a fresh seed per round and group
    assert len({g.seed for g in games}) == 2 * math.comb(6, 3)
    # round-major order
    assert [g.round for g in games] == sorted(g.round for g in games)


def test_ids_are_deterministic_and_stable_when_the_roster_or_rounds_grow() -> None:
    a = [g.game_id for g in Schedule("t", ROSTER[:4], 2, 2, 5)]
    assert a == [g.game_id for g in Schedule("t", ROSTER[:4], 2, 2, 5)]
    bigger = {g.game_id for g in Schedule("t", ROSTER, 2, 3, 5)}
    assert set(a) <= bigger
    assert not set(a) & {g.game_id for g in Schedule("u", ROSTER[:4], 2, 2, 5)}
    assert not set(a) & {g.game_id for g in Schedule("t", ROSTER[:4], 2, 2, 6)}


def test_millions_of_games_are_not_materialised() -> None:
    roster = [(f"bot{i}", "random") for i in range(200)]
    s = Schedule("big", roster, 3, rounds=10, seed=0)
    assert len(s) == 10 * math.comb(200, 3) * 3 == 39_402_000
    # Memory, not time, shows what was built: taking the first 10,000 games must not
    # allocate anything like the 39 million (or the 1.3 million groups of one round).
    tracemalloc.start()
    try:
        first = list(itertools.islice(iter(s), 10_000))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert first[-1].index == 9_999
    assert peak < 32 * 1024 * 1024, f"{peak / 2**20:.0f} MiB for 10,000 games"


def test_a_gauntlet_plays_new_against_every_other_bot_in_every_rotation() -> None:
    k, rounds = 3, 2
    full = Schedule("t", ROSTER, k, rounds=rounds, seed=4)
    gauntlet = Schedule("t", ROSTER, k, rounds=rounds, seed=4, gauntlet="b2")
    games = list(gauntlet)
    others = len(ROSTER) - 1
    assert gauntlet.groups == math.comb(others, k - 1)
    assert len(games) == len(gauntlet) == rounds * math.comb(others, k - 1) * k
    assert all("b2" in g.seats for g in games)
    # every pairing of b2 with the others, each group in every seat rotation on one seed
    by_match: dict[str, list] = {}
    for g in games:
        by_match.setdefault(g.match_id, []).append(g)
    assert len(by_match) == rounds * math.comb(others, k - 1)
    for group in by_match.values():
        assert len({g.seed for g in group}) == 1
        for seat in range(k):
            assert sorted(g.seats[seat] for g in group) == sorted(group[0].seats)
    met = {name for g in games for name in g.seats if name != "b2"}
    assert met == {n for n, _ in ROSTER} - {"b2"}
    # the gauntlet's games are the round robin's games of those groups
    assert {g.game_id for g in games} <= {g.game_id for g in full}
    assert [g.index for g in games] == list(range(len(games)))


def test_a_gauntlet_needs_a_roster_bot() -> None:
    with pytest.raises(ValueError, match="not in the roster"):
        Schedule("t", ROSTER, 2, rounds=1, seed=0, gauntlet="nobody")
