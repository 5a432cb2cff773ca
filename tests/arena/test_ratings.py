"""Ratings: the Plackett–Luce headline rating with its prior and intervals, scoring
semantics (all-forfeit games, win shares), unrated bots, groups, Elo, the crosstable."""

from __future__ import annotations

import random

from arena.tournament.ratings import (
    Elo,
    GameSummary,
    crosstable,
    elo_trajectory,
    final_point,
    leaderboard,
    plackett_luce,
)


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


def test_the_rating_and_elo_rank_the_bots_in_order_with_intervals() -> None:
    data = games(300, 0.2)
    rows = leaderboard(data, ["weak", "mid", "strong"])
    assert [r.name for r in rows] == ["strong", "mid", "weak"]
    assert all(r.low is not None and r.rating is not None and r.high is not None for r in rows)
    assert all(r.low <= r.rating <= r.high for r in rows)  # type: ignore[operator]  # not None: asserted above
    assert rows[0].low > rows[2].high  # type: ignore[operator]  # clearly separated
    assert rows[0].elo > rows[1].elo > rows[2].elo
    assert abs(sum(r.rating or 0 for r in rows) / 3 - 1500) < 1e-6
    assert all(r.games == 300 for r in rows)
    assert abs(sum(r.score for r in rows) - 1.5) < 1e-9  # pairwise points are shared


def test_a_shared_first_place_is_a_share_of_a_win_and_failures_are_counted() -> None:
    g = [GameSummary("g", 0, ["a", "b", "c"], [1, 1, 3], [2.0, 2.0, 0.0], [(2, "crash")])]
    rows = {r.name: r for r in leaderboard(g, None)}
    assert rows["a"].score == rows["b"].score == 0.75
    assert rows["c"].failures == {"crash": 1} and rows["a"].failures == {}
    assert rows["a"].win_rate == rows["b"].win_rate == 0.5
    elo = Elo(["a", "b", "c"])
    elo.update(g[0])
    assert elo.ratings["a"] == elo.ratings["b"] > 1500 > elo.ratings["c"]


def test_an_all_forfeit_game_is_no_win_and_no_evidence() -> None:
    lost = [
        GameSummary(
            f"f{i}", 0, ["x", "y"], [1, 1], [0.0, 0.0], [(0, "crash"), (1, "crash")], [0, 1]
        )
        for i in range(16)
    ]
    rows = {r.name: r for r in leaderboard(lost, ["x", "y"])}
    assert rows["x"].games == 16 and rows["x"].win_rate == 0.0 and rows["x"].score == 0.0
    assert not rows["x"].rated and rows["x"].rank is None  # nothing compares them
    assert rows["x"].failures == {"crash": 16}
    assert crosstable(lost, ["x", "y"])[1] == {}


def test_unplayed_bots_are_unrated_and_ranked_after_the_rated() -> None:
    g = [GameSummary(f"g{i}", 0, ["a", "b"], [2, 1], [0.0, 1.0], []) for i in range(3)]
    rows = leaderboard(g, ["a", "b", "idle"])
    assert [(r.name, r.rank, r.rated) for r in rows] == [
        ("b", 1, True),
        ("a", 2, True),
        ("idle", None, False),
    ]
    assert rows[2].to_json()["rating"] is None


def test_groups_that_never_met_are_flagged() -> None:
    g = [GameSummary("g1", 0, ["a", "b"], [1, 2], [1, 0], [])]
    g += [GameSummary("g2", 0, ["c", "d"], [1, 2], [1, 0], [])]
    g += [GameSummary("g3", 0, ["d", "e"], [1, 2], [1, 0], [])]
    fit = plackett_luce(g)
    assert fit.groups == 2 and fit.group["c"] == fit.group["e"] == 1 and fit.group["a"] == 2
    rows = {r.name: r for r in leaderboard(g)}
    assert rows["a"].group == 2 and rows["d"].group == 1
    one = leaderboard(g[:1])
    assert all(r.group is None for r in one)  # a single group needs no flag


def test_a_clean_sweep_gives_a_finite_rating_with_a_wide_interval() -> None:
    def sweep(n: int) -> tuple[float, float]:
        g = [GameSummary(f"g{i}", 0, ["a", "b"], [1, 2], [1.0, 0.0], []) for i in range(n)]
        fit = plackett_luce(g, ["a", "b"])
        return fit.rating["a"] - fit.rating["b"], fit.high["a"] - fit.low["a"]

    diff12, width12 = sweep(12)
    diff120, width120 = sweep(120)
    assert 200 < diff12 < 1000 and width12 > 300  # finite, and says it is unsure
    assert diff12 < diff120 < 2000 and width120 > 200  # more games: more sure, still finite


def test_a_four_player_game_is_one_ranking() -> None:
    """One 4-player game is less evidence than six independent pairs would be."""
    one = [GameSummary("g", 0, ["a", "b", "c", "d"], [1, 2, 3, 4], [3, 2, 1, 0], [])]
    pairs = [
        GameSummary(f"p{i}{j}", 0, [x, y], [1, 2], [1, 0], [])
        for i, x in enumerate("abcd")
        for j, y in enumerate("abcd")
        if i < j
    ]
    ranking, as_pairs = plackett_luce(one), plackett_luce(pairs)
    assert ranking.rating["a"] > ranking.rating["b"] > ranking.rating["c"] > ranking.rating["d"]
    assert ranking.rating["a"] - ranking.rating["d"] < as_pairs.rating["a"] - as_pairs.rating["d"]


def test_final_ratings_do_not_depend_on_the_finishing_order() -> None:
    data = games(90, 0.5, seed=3)
    shuffled = list(data)
    random.Random(1).shuffle(shuffled)
    a = [r.to_json() for r in leaderboard(data, None)]
    b = [r.to_json() for r in leaderboard(shuffled, None)]
    assert a == b


def test_trajectory_has_a_point_every_n_games_and_ends_on_the_leaderboard() -> None:
    data = games(25, 0.2)
    points = elo_trajectory(data, ["strong", "mid", "weak"], every=10)
    assert [p[0] for p in points] == [10, 20, 25]
    assert set(points[-1][1]) == {"strong", "mid", "weak"}
    rows = leaderboard(data)
    last = final_point(rows, 25)
    assert last[1] == {r.name: r.elo for r in rows}


def test_the_crosstable_counts_pairwise_points() -> None:
    g = [
        GameSummary("g1", 0, ["a", "b", "c"], [1, 2, 2], [2, 1, 1], []),
        GameSummary("g2", 0, ["b", "a"], [1, 2], [1, 0], []),
    ]
    order, cells = crosstable(g, ["a", "b", "c"])
    assert order == ["a", "b", "c"]
    assert cells[("a", "b")] == (1.0, 2) and cells[("b", "a")] == (1.0, 2)
    assert cells[("b", "c")] == (0.5, 1) and ("a", "a") not in cells


def test_a_bots_stderr_log_is_not_counted_as_a_failure() -> None:
    """A record's ``stderr`` events are a bot's log (``arena.match.records.is_failure``):
    the summary the ratings read keeps the seat's real failures only."""
    from arena.match.runner import MatchSpec, play_match
    from arena.match.specs import make_bot

    spec = MatchSpec("zooloretto_mini", 2, seed=3, options={"start_player": 0})
    record = play_match(spec, [make_bot("random", "a"), make_bot("random", "b")])
    record["events"] = [
        {"seat": 0, "kind": "stderr", "step": 0, "reason": "thinking..."},
        {"seat": 1, "kind": "stderr", "step": 2, "reason": "a log line"},
        {"seat": 1, "kind": "timeout", "step": 4, "reason": "over 10 ms"},
    ]
    summary = GameSummary.of(record)
    assert summary.failures == [(1, "timeout")]
    rows = {r.name: r for r in leaderboard([summary], None)}
    assert rows["a"].failures == {} and rows["b"].failures == {"timeout": 1}
