"""Ratings: sequential Elo and a Bradley–Terry fit with bootstrap confidence intervals.

A game of k players is decomposed into its k(k-1)/2 pairs: within a pair the better
rank (``standing.ranks``: the ranks after forfeits) scores 1, a tie 0.5 each.

- **Elo** is sequential: each game moves the ratings of its players by
  ``K/(k-1) * (score - expected)`` summed over the player's pairs (all computed from the
  ratings before the game). The live Elo follows the games as they finish; the final
  Elo replays them in a fixed order (by round, then game id) so a resumed tournament
  ends with exactly the ratings of an uninterrupted one.
- **Bradley–Terry** is fitted once on all games (``choix.ilsr_pairwise_dense`` with a
  small regularisation), shown on the Elo scale (400/ln 10 per unit, mean 1500); its
  95% confidence interval comes from refitting on games resampled with replacement.

>>> s = [GameSummary("g1", 0, ["a", "b"], [1, 2], [5.0, 3.0], []),
...      GameSummary("g2", 0, ["b", "a"], [2, 1], [1.0, 4.0], [(0, "timeout")])]
>>> elo = Elo(["a", "b"]); elo.update_all(s); round(elo.ratings["a"] - elo.ratings["b"])
31
>>> table = leaderboard(s, ["a", "b"], bootstrap=20)
>>> [(r.name, r.games, r.win_rate, r.failures) for r in table]
[('a', 2, 1.0, {}), ('b', 2, 0.0, {'timeout': 1})]
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Point = tuple[int, dict[str, float], dict[str, float]]
"""A point of the ratings' trajectory: (games done, Elo per bot, score per bot)."""

ELO_START = 1500.0
ELO_K = 16.0
ELO_SCALE = 400.0 / math.log(10.0)
BT_ALPHA = 0.01


@dataclass(slots=True)
class GameSummary:
    """What ratings need of one game record."""

    game_id: str
    round: int
    names: list[str]
    ranks: list[int]
    scores: list[float]
    failures: list[tuple[int, str]]

    @classmethod
    def of(cls, record: dict[str, Any]) -> GameSummary:
        ranks = (record.get("standing") or {}).get("ranks") or record["result"]["ranks"]
        return cls(
            game_id=record["game_id"],
            round=int((record.get("schedule") or {}).get("round", 0)),
            names=[p["name"] for p in record["players"]],
            ranks=[int(r) for r in ranks],
            scores=[float(x) for x in record["result"]["scores"]],
            failures=[
                (int(e["seat"]), str(e["kind"]))
                for e in record.get("events") or []
                if isinstance(e.get("seat"), int)
            ],
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "round": self.round,
            "names": self.names,
            "ranks": self.ranks,
            "scores": self.scores,
            "failures": self.failures,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameSummary:
        return cls(
            data["game_id"],
            data["round"],
            list(data["names"]),
            list(data["ranks"]),
            list(data["scores"]),
            [(int(s), str(k)) for s, k in data["failures"]],
        )


def pair_score(rank_a: int, rank_b: int) -> float:
    return 1.0 if rank_a < rank_b else 0.5 if rank_a == rank_b else 0.0


def final_order(summaries: Iterable[GameSummary]) -> list[GameSummary]:
    """The fixed order final ratings replay games in (independent of finishing order)."""
    return sorted(summaries, key=lambda s: (s.round, s.game_id))


class Elo:
    """Sequential multiplayer Elo (pairwise decomposition by rank)."""

    def __init__(self, names: Iterable[str], k: float = ELO_K) -> None:
        self.k = k
        self.ratings: dict[str, float] = {n: ELO_START for n in names}

    def update(self, game: GameSummary) -> None:
        n = len(game.names)
        if n < 2:
            return
        r = [self.ratings.setdefault(name, ELO_START) for name in game.names]
        delta = [0.0] * n
        k = self.k / (n - 1)
        for i in range(n):
            for j in range(i + 1, n):
                expected = 1.0 / (1.0 + 10.0 ** ((r[j] - r[i]) / 400.0))
                d = k * (pair_score(game.ranks[i], game.ranks[j]) - expected)
                delta[i] += d
                delta[j] -= d
        for name, d in zip(game.names, delta, strict=True):
            self.ratings[name] += d

    def update_all(self, games: Iterable[GameSummary]) -> None:
        for g in games:
            self.update(g)


@dataclass
class BotTally:
    """Running counts of one bot (pairwise points, games, wins, failures)."""

    games: int = 0
    pair_points: float = 0.0
    pairs: int = 0
    points: float = 0.0
    wins: int = 0
    failures: Counter[str] = field(default_factory=Counter)

    def add(self, game: GameSummary, seat: int) -> None:
        self.games += 1
        self.points += game.scores[seat]
        if game.ranks[seat] == 1:
            self.wins += 1
        for other in range(len(game.names)):
            if other != seat:
                self.pairs += 1
                self.pair_points += pair_score(game.ranks[seat], game.ranks[other])

    @property
    def score(self) -> float:
        """Share of pairwise contests won (ties count half)."""
        return self.pair_points / self.pairs if self.pairs else 0.0


class Tally:
    """Running per-bot counts and live Elo, updated one game at a time."""

    def __init__(self, names: Iterable[str]) -> None:
        self.names = list(names)
        self.elo = Elo(self.names)
        self.stats: dict[str, BotTally] = {n: BotTally() for n in self.names}
        self.failed_games = 0

    def add(self, game: GameSummary) -> None:
        self.elo.update(game)
        for seat, name in enumerate(game.names):
            self.stats.setdefault(name, BotTally()).add(game, seat)
        for seat, kind in game.failures:
            self.stats[game.names[seat]].failures[kind] += 1
        if game.failures:
            self.failed_games += 1

    def point(self, games: int) -> Point:
        """The trajectory point after ``games`` games: live Elo and scores now."""
        return (games, dict(self.elo.ratings), scores_of(self))


# ---------------------------------------------------------------------------
# Bradley–Terry
# ---------------------------------------------------------------------------


def _pair_rows(
    games: Sequence[GameSummary], index: dict[str, int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(game, cell a*n+b, weight) rows: the share of a win of a over b in each game."""
    n = len(index)
    g_rows: list[int] = []
    cells: list[int] = []
    weights: list[float] = []
    for g, game in enumerate(games):
        seats = [index[name] for name in game.names]
        for i in range(len(seats)):
            for j in range(len(seats)):
                if i == j:
                    continue
                s = pair_score(game.ranks[i], game.ranks[j])
                if s > 0:
                    g_rows.append(g)
                    cells.append(seats[i] * n + seats[j])
                    weights.append(s)
    return np.array(g_rows, dtype=np.int64), np.array(cells, dtype=np.int64), np.array(weights)


def _fit(comp: np.ndarray) -> np.ndarray:
    import choix

    if comp.sum() == 0:
        return np.zeros(comp.shape[0])
    for alpha, iters in ((BT_ALPHA, 1000), (BT_ALPHA * 10, 5000)):
        try:
            params = choix.ilsr_pairwise_dense(comp, alpha=alpha, max_iter=iters)
            return np.asarray(params - params.mean())
        except RuntimeError:
            continue
    return np.zeros(comp.shape[0])


@dataclass
class BTFit:
    """Bradley–Terry ratings on the Elo scale with bootstrap 95% intervals."""

    rating: dict[str, float]
    low: dict[str, float]
    high: dict[str, float]


def bradley_terry(
    games: Sequence[GameSummary], names: Sequence[str], bootstrap: int = 200, seed: int = 0
) -> BTFit:
    index = {name: i for i, name in enumerate(names)}
    for game in games:
        for name in game.names:
            index.setdefault(name, len(index))
    all_names = list(index)
    n = len(all_names)
    g_rows, cells, weights = _pair_rows(games, index)

    def matrix(game_weights: np.ndarray | None) -> np.ndarray:
        w = weights if game_weights is None else weights * game_weights[g_rows]
        return np.bincount(cells, weights=w, minlength=n * n).reshape(n, n).astype(float)

    point = ELO_START + ELO_SCALE * _fit(matrix(None))
    rating = {name: float(point[i]) for i, name in enumerate(all_names)}
    if bootstrap <= 0 or not games:
        return BTFit(rating, dict(rating), dict(rating))
    rng = np.random.default_rng(seed)
    samples = np.empty((bootstrap, n))
    for b in range(bootstrap):
        counts = rng.multinomial(len(games), np.full(len(games), 1.0 / len(games)))
        samples[b] = ELO_START + ELO_SCALE * _fit(matrix(counts.astype(float)))
    lo, hi = np.percentile(samples, [2.5, 97.5], axis=0)
    return BTFit(
        rating,
        {name: float(lo[i]) for i, name in enumerate(all_names)},
        {name: float(hi[i]) for i, name in enumerate(all_names)},
    )


# ---------------------------------------------------------------------------
# The leaderboard
# ---------------------------------------------------------------------------


@dataclass
class Row:
    """One line of the leaderboard."""

    rank: int
    name: str
    rating: float
    low: float
    high: float
    elo: float
    games: int
    score: float
    points: float
    win_rate: float
    failures: dict[str, int]

    @property
    def ci(self) -> float:
        """Half-width of the 95% interval."""
        return (self.high - self.low) / 2

    def to_json(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "bot": self.name,
            "rating": round(self.rating, 2),
            "ci_low": round(self.low, 2),
            "ci_high": round(self.high, 2),
            "elo": round(self.elo, 2),
            "games": self.games,
            "score": round(self.score, 4),
            "mean_points": round(self.points, 3),
            "win_rate": round(self.win_rate, 4),
            "failures": self.failures,
        }


def leaderboard(
    games: Sequence[GameSummary],
    names: Sequence[str] | None = None,
    bootstrap: int = 200,
    seed: int = 0,
) -> list[Row]:
    """The final leaderboard: Bradley–Terry with CIs, final-order Elo, counts."""
    ordered = final_order(games)
    names = list(names or [])
    tally = Tally(names)
    for g in ordered:
        tally.add(g)
    names = list(tally.stats)
    fit = bradley_terry(ordered, names, bootstrap, seed)
    return _rows(tally, fit)


def live_leaderboard(tally: Tally) -> list[Row]:
    """Rows from running counts and live Elo (no fit): cheap enough to print often."""
    elo = tally.elo.ratings
    fit = BTFit(dict(elo), dict(elo), dict(elo))
    return _rows(tally, fit)


def _rows(tally: Tally, fit: BTFit) -> list[Row]:
    rows = []
    for name, st in tally.stats.items():
        rows.append(
            Row(
                0,
                name,
                fit.rating.get(name, ELO_START),
                fit.low.get(name, ELO_START),
                fit.high.get(name, ELO_START),
                tally.elo.ratings.get(name, ELO_START),
                st.games,
                st.score,
                st.points / st.games if st.games else 0.0,
                st.wins / st.games if st.games else 0.0,
                dict(sorted(st.failures.items())),
            )
        )
    rows.sort(key=lambda r: (-r.rating, -r.score, r.name))
    for i, row in enumerate(rows):
        row.rank = i + 1
    return rows


def elo_trajectory(games: Iterable[GameSummary], names: Sequence[str], every: int) -> list[Point]:
    """``(games done, elo per bot, score per bot)`` after every ``every`` games and at the
    end, following the games in the given (finishing) order."""
    tally = Tally(names)
    out: list[Point] = []
    done = 0
    for g in games:
        tally.add(g)
        done += 1
        if done % every == 0:
            out.append(tally.point(done))
    if done and done % every:
        out.append(tally.point(done))
    return out


def scores_of(tally: Tally) -> dict[str, float]:
    return {name: st.score for name, st in tally.stats.items()}
