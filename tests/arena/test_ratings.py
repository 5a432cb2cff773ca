"""Ratings: pairwise decomposition, Elo, Bradley–Terry with bootstrap intervals."""

from __future__ import annotations

import random

from arena.tournament.ratings import Elo, GameSummary, bradley_terry, elo_trajectory, leaderboard


def games(n: int, p_strong: float, seed: int = 0) -> list[GameSummary]:
    """3-player games of strong/mid/weak where stronger bots tend to rank better."""
    rng = random.Random(seed)
    out = []
    strength = {"strong": 3.0, "mid": 1.5, "weak": 0.5}
    for i in range(n):
        names = ["strong", "mid", "weak"]
        rng.shuffle(names)
        keys = [strength[x] * (p_strong + rng.random()) for x in names]
        ranks = [1 + sum(1 for o in keys if o > k) for k in keys]
        out.append(GameSummary(f"g{i}", i // 30, names, ranks, keys, []))
    return out


def test_elo_and_bt_rank_the_bots_in_order_with_intervals() -> None:
    data = games(300, 0.2)
    rows = leaderboard(data, ["weak", "mid", "strong"], bootstrap=100)
    assert [r.name for r in rows] == ["strong", "mid", "weak"]
    assert all(r.low <= r.rating <= r.high for r in rows)
    assert rows[0].low > rows[2].high  # clearly separated
    assert rows[0].elo > rows[1].elo > rows[2].elo
    assert abs(sum(r.rating for r in rows) / 3 - 1500) < 1e-6
    assert all(r.games == 300 for r in rows)
    assert abs(sum(r.score for r in rows) - 1.5) < 1e-9  # pairwise points are shared


def test_ties_share_the_points_and_failures_are_counted() -> None:
    g = [GameSummary("g", 0, ["a", "b", "c"], [1, 1, 3], [2.0, 2.0, 0.0], [(2, "crash")])]
    rows = {r.name: r for r in leaderboard(g, None, bootstrap=10)}
    assert rows["a"].score == rows["b"].score == 0.75
    assert rows["c"].failures == {"crash": 1} and rows["a"].failures == {}
    assert rows["a"].win_rate == rows["b"].win_rate == 1.0
    elo = Elo(["a", "b", "c"])
    elo.update(g[0])
    assert elo.ratings["a"] == elo.ratings["b"] > 1500 > elo.ratings["c"]


def test_final_ratings_do_not_depend_on_the_finishing_order() -> None:
    data = games(90, 0.5, seed=3)
    shuffled = list(data)
    random.Random(1).shuffle(shuffled)
    a = [r.to_json() for r in leaderboard(data, None, bootstrap=50, seed=2)]
    b = [r.to_json() for r in leaderboard(shuffled, None, bootstrap=50, seed=2)]
    assert a == b


def test_bt_handles_a_bot_that_never_wins() -> None:
    g = [GameSummary(f"g{i}", 0, ["a", "b"], [1, 2], [1.0, 0.0], []) for i in range(20)]
    fit = bradley_terry(g, ["a", "b"], bootstrap=20)
    assert fit.rating["a"] > fit.rating["b"]


def test_trajectory_has_a_point_every_n_games_and_at_the_end() -> None:
    points = elo_trajectory(games(25, 0.2), ["strong", "mid", "weak"], every=10)
    assert [p[0] for p in points] == [10, 20, 25]
    assert set(points[-1][1]) == {"strong", "mid", "weak"}
