"""Ratings: the headline Plackett–Luce rating with 95 % intervals, and a sequential Elo.

Scoring semantics (``docs/design.md``, "Scoring"), one definition each, used by every
table, file and metric:

- **rank**: ``standing.ranks`` of a record, the engine's ranks after forfeits (forfeited
  seats share the last place).
- **all-forfeit game**: every seat forfeited. It is no win for anyone (win share 0 for
  every seat), no pairwise contest and no evidence for the rating fit; it counts in
  ``games`` and in ``failures``.
- **win share** (``win rate``): 1/m for each of the m seats sharing the first place, else
  0; the mean over a bot's games (as ``arena bench strength`` does).
- **score**: the share of pairwise contests won within games (a tie is half).
- **rating** (the headline): :func:`plackett_luce`, a Plackett–Luce fit of every game as
  one ranking (Bradley–Terry for two seats) with a stated prior (:data:`PRIOR_DRAWS`
  virtual draws against the field) and Laplace 95 % intervals, on the Elo scale (400/ln 10
  per unit of log-strength, the rated bots' mean 1500). A bot without a rated game is
  *unrated*; bots that never met, directly or through others, are in different *groups*.
- **Elo** (a sequential estimate, kept for its trajectory): each game moves the ratings of
  its players by ``K/(k-1) * (score - expected)`` summed over the player's pairs. The live
  Elo follows games as they finish; the final Elo replays them in a fixed order (by round,
  then game id), so a resumed tournament ends with the ratings of an uninterrupted one,
  and the last point of the MLflow ``elo/<bot>`` series is that final Elo.

>>> s = [GameSummary("g1", 0, ["a", "b"], [1, 2], [5.0, 3.0], []),
...      GameSummary("g2", 0, ["b", "a"], [2, 1], [1.0, 4.0], [(0, "timeout")])]
>>> elo = Elo(["a", "b"]); elo.update_all(s); round(elo.ratings["a"] - elo.ratings["b"])
31
>>> table = leaderboard(s, ["a", "b", "c"])
>>> [(r.name, r.games, r.win_rate, r.failures, r.rated) for r in table]
[('a', 2, 1.0, {}, True), ('b', 2, 0.0, {'timeout': 1}, True), ('c', 0, 0.0, {}, False)]
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from arena.match.records import is_failure

Point = tuple[int, dict[str, float], dict[str, float]]
"""A point of the ratings' trajectory: (games done, Elo per bot, score per bot)."""

ELO_START = 1500.0
ELO_K = 16.0
ELO_SCALE = 400.0 / math.log(10.0)


@dataclass(slots=True)
class GameSummary:
    """What ratings need of one game record."""

    game_id: str
    round: int
    names: list[str]
    ranks: list[int]
    """Ranks after forfeits (1 = first; equal ranks are a shared place)."""
    scores: list[float]
    failures: list[tuple[int, str]]
    """(seat, kind) of every recorded failure that names a seat (a bot's stderr log is
    an event too, and not a failure: ``arena.match.records.is_failure``)."""
    forfeited: list[int] = field(default_factory=list)
    """The seats that forfeited (``standing.forfeited``)."""

    @classmethod
    def of(cls, record: dict[str, Any]) -> GameSummary:
        standing = record.get("standing") or {}
        ranks = standing.get("ranks") or record["result"]["ranks"]
        return cls(
            game_id=record["game_id"],
            round=int((record.get("schedule") or {}).get("round", 0)),
            names=[p["name"] for p in record["players"]],
            ranks=[int(r) for r in ranks],
            scores=[float(x) for x in record["result"]["scores"]],
            failures=[
                (int(e["seat"]), str(e["kind"]))
                for e in record.get("events") or []
                if isinstance(e.get("seat"), int) and is_failure(e)
            ],
            forfeited=[int(s) for s in standing.get("forfeited") or []],
        )

    @property
    def all_forfeit(self) -> bool:
        """Every seat forfeited: no win for anyone, no comparison (see the module doc)."""
        return len(set(self.forfeited)) >= len(self.names)

    def win_share(self, seat: int) -> float:
        """1/m if ``seat`` shares the first place with m-1 others, else 0."""
        return win_share(self.ranks, self.forfeited, seat)

    def to_json(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "round": self.round,
            "names": self.names,
            "ranks": self.ranks,
            "scores": self.scores,
            "failures": self.failures,
            "forfeited": self.forfeited,
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
            [int(s) for s in data.get("forfeited") or []],
        )


def win_share(ranks: Sequence[int], forfeited: Sequence[int], seat: int) -> float:
    """The win share of ``seat``: 1/m when it shares the first place with m-1 others,
    else 0; 0 for everyone in an all-forfeit game (the one definition of "win rate").

    >>> win_share([1, 1, 3], [], 0), win_share([1, 1], [0, 1], 0)
    (0.5, 0.0)
    """
    if len(set(forfeited)) >= len(ranks) or ranks[seat] != 1:
        return 0.0
    return 1.0 / sum(1 for r in ranks if r == 1)


def pair_score(rank_a: int, rank_b: int) -> float:
    return 1.0 if rank_a < rank_b else 0.5 if rank_a == rank_b else 0.0


def final_order(summaries: Iterable[GameSummary]) -> list[GameSummary]:
    """The fixed order final ratings replay games in (independent of finishing order)."""
    return sorted(summaries, key=lambda s: (s.round, s.game_id))


class Elo:
    """Sequential multiplayer Elo (pairwise decomposition by rank); a sequential
    estimate: compressed at small samples and dependent on the order of the games, which
    is why the headline rating is :func:`plackett_luce`."""

    def __init__(self, names: Iterable[str], k: float = ELO_K) -> None:
        self.k = k
        self.ratings: dict[str, float] = {n: ELO_START for n in names}

    def update(self, game: GameSummary) -> None:
        n = len(game.names)
        if n < 2 or game.all_forfeit:
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
    """Running counts of one bot (pairwise points, games, win shares, failures)."""

    games: int = 0
    pair_points: float = 0.0
    pairs: int = 0
    points: float = 0.0
    wins: float = 0.0
    """The sum of the bot's win shares."""
    failures: Counter[str] = field(default_factory=Counter)

    def add(self, game: GameSummary, seat: int) -> None:
        self.games += 1
        self.points += game.scores[seat]
        self.wins += game.win_share(seat)
        if game.all_forfeit:
            return
        for other in range(len(game.names)):
            if other != seat:
                self.pairs += 1
                self.pair_points += pair_score(game.ranks[seat], game.ranks[other])

    @property
    def score(self) -> float:
        """Share of pairwise contests won (ties count half)."""
        return self.pair_points / self.pairs if self.pairs else 0.0

    @property
    def win_rate(self) -> float:
        """Mean win share (a shared first place is a share)."""
        return self.wins / self.games if self.games else 0.0


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
# The rating fit: Plackett–Luce with a prior, Laplace intervals
# ---------------------------------------------------------------------------

PRIOR_DRAWS = 2.0
"""The prior: every bot is given this many virtual draws against a field bot of strength
0 (the Elo scale's 1500 before centring), as Bayeselo does. Its density on a bot's
log-strength θ is ``(σ(θ)σ(−θ))^(PRIOR_DRAWS/2)``: about a Gaussian of standard deviation
``sqrt(2/PRIOR_DRAWS)`` log-units (≈ 246 Elo) near the centre, with exponential tails, so a
clean sweep gives a finite rating whose interval stays wide until the data say more, while
a few hundred games swamp it. Two draws is the weakest prior that keeps a 10-game sweep
from running off to thousands of Elo; the coverage it achieves is measured by ``arena bench
ratings`` and checked by ``tests/arena/test_rating_coverage.py``."""

Z95 = 1.959963984540054
"""The normal quantile of a two-sided 95 % interval."""


@dataclass
class RatingFit:
    """Ratings on the Elo scale (mean of the rated bots 1500) with 95 % intervals.

    Bots without a rated game are absent from ``rating``/``low``/``high`` (unrated)."""

    rating: dict[str, float]
    low: dict[str, float]
    high: dict[str, float]
    group: dict[str, int] = field(default_factory=dict)
    """Connected group of every rated bot (1 = the largest): bots of different groups
    never met, directly or through others, so only the prior relates their ratings."""

    @property
    def groups(self) -> int:
        return len(set(self.group.values()))


def is_rated(game: GameSummary) -> bool:
    """Whether ``game`` says anything about relative strength: at least two seats, and not
    every seat forfeited (an all-forfeit game is no win for anyone and no comparison)."""
    return len(game.names) >= 2 and len(set(game.forfeited)) < len(game.names)


def _stages(
    game: GameSummary, index: dict[str, int]
) -> Iterator[tuple[tuple[int, ...], tuple[tuple[int, float], ...]]]:
    """The Plackett–Luce choices of one game: ``(bots still in, ((winner, weight), ...))``.

    Seats leave in rank order; a place shared by several seats splits one choice among
    them (weights 1/m each), so a two-seat tie is half a win each, as in Bradley–Terry
    with draws. The last place chooses nothing unless it is shared."""
    order = sorted(range(len(game.names)), key=lambda s: game.ranks[s])
    remaining = [index[game.names[s]] for s in order]
    i = 0
    while i < len(order):
        j = i
        while j < len(order) and game.ranks[order[j]] == game.ranks[order[i]]:
            j += 1
        if j - i == len(order) - i and j - i == 1:
            break  # the last one alone: no choice left
        group = remaining[i:j]
        weight = 1.0 / len(group)
        yield tuple(sorted(remaining[i:])), tuple((b, weight) for b in group)
        i = j


def _components(games: Sequence[GameSummary], names: Sequence[str]) -> dict[str, int]:
    parent = {n: n for n in names}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for game in games:
        for other in game.names[1:]:
            parent[find(other)] = find(game.names[0])
    roots = Counter(find(n) for n in names)
    numbered = {r: i + 1 for i, (r, _) in enumerate(sorted(roots.items(), key=lambda x: -x[1]))}
    return {n: numbered[find(n)] for n in names}


def _map_fit(
    n: int, stages: dict[tuple[tuple[int, ...], tuple[tuple[int, float], ...]], float]
) -> tuple[np.ndarray, np.ndarray]:
    """The posterior mode of the log-strengths and the posterior's Hessian there
    (Newton's method; the prior makes the problem strictly concave)."""
    s = len(stages)
    mask = np.zeros((s, n), dtype=bool)
    wins = np.zeros((s, n))
    counts = np.zeros(s)
    for row, ((members, chosen), count) in enumerate(stages.items()):
        mask[row, list(members)] = True
        for b, w in chosen:
            wins[row, b] += w
        counts[row] = count
    won = counts @ wins
    theta = np.zeros(n)

    def value(t: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        logits = np.where(mask, t[None, :], -np.inf)
        top = logits.max(axis=1, keepdims=True)
        ex = np.exp(logits - top)
        tot = ex.sum(axis=1, keepdims=True)
        lse = (np.log(tot) + top)[:, 0]
        p = ex / tot
        sig = 0.5 * (1.0 + np.tanh(t / 2))  # σ(t) without overflow
        ll = float(won @ t - counts @ lse)
        ll += PRIOR_DRAWS * float(np.sum(0.5 * t - np.logaddexp(0.0, t)))
        grad = won - counts @ p + PRIOR_DRAWS * (0.5 - sig)
        cp = p * counts[:, None]
        hess = -(np.diag(cp.sum(axis=0)) - p.T @ cp)
        hess -= np.diag(PRIOR_DRAWS * sig * (1 - sig))
        return ll, grad, hess

    ll, grad, hess = value(theta)
    for _ in range(200):
        step = np.linalg.solve(hess, -grad)
        scale = 1.0
        while True:
            cand = theta + scale * step
            ll_c, grad_c, hess_c = value(cand)
            if ll_c >= ll - 1e-12 or scale < 1e-6:
                break
            scale /= 2
        done = float(np.max(np.abs(cand - theta))) < 1e-9
        theta, ll, grad, hess = cand, ll_c, grad_c, hess_c
        if done:
            break
    return theta, hess


def plackett_luce(games: Sequence[GameSummary], names: Sequence[str] = ()) -> RatingFit:
    """The headline rating: a Plackett–Luce fit (Bradley–Terry for two seats) with the
    :data:`PRIOR_DRAWS` prior, at its posterior mode, with Laplace 95 % intervals.

    A k-seat game is one ranking, not k(k−1)/2 independent pairs (which would count it as
    more evidence than it is). Only games that :func:`is_rated` count; a bot with none is
    left out (unrated). Ratings are shown on the Elo scale, centred on the rated bots'
    mean; the interval of a bot is that of its centred rating (the posterior covariance
    of the centred log-strengths, ``C H⁻¹ C``).

    >>> sweep = [GameSummary(f"g{i}", 0, ["a", "b"], [1, 2], [1.0, 0.0], []) for i in range(10)]
    >>> fit = plackett_luce(sweep)
    >>> round(fit.rating["a"]), round(fit.low["a"]), round(fit.high["a"])
    (1739, 1539, 1940)
    """
    rated = [g for g in games if is_rated(g)]
    index: dict[str, int] = {}
    for game in rated:
        for name in game.names:
            index.setdefault(name, len(index))
    order = [nm for nm in names if nm in index] + [nm for nm in index if nm not in set(names)]
    if not index:
        return RatingFit({}, {}, {})
    stages: dict[tuple[tuple[int, ...], tuple[tuple[int, float], ...]], float] = {}
    for game in rated:
        for stage in _stages(game, index):
            stages[stage] = stages.get(stage, 0.0) + 1.0
    n = len(index)
    theta, hess = _map_fit(n, stages)
    cov = np.linalg.inv(-hess)
    centre = np.eye(n) - 1.0 / n
    sd = np.sqrt(np.clip(np.diag(centre @ cov @ centre), 0.0, None))
    mid = theta - theta.mean()
    group = _components(rated, order)
    rating, low, high = {}, {}, {}
    for name in order:
        i = index[name]
        rating[name] = ELO_START + ELO_SCALE * float(mid[i])
        low[name] = ELO_START + ELO_SCALE * float(mid[i] - Z95 * sd[i])
        high[name] = ELO_START + ELO_SCALE * float(mid[i] + Z95 * sd[i])
    return RatingFit(rating, low, high, group)


# ---------------------------------------------------------------------------
# The leaderboard
# ---------------------------------------------------------------------------


@dataclass
class Row:
    """One line of the leaderboard."""

    rank: int | None
    """1, 2, ... for rated bots (by rating); None for an unrated one."""
    name: str
    rating: float | None
    """The headline rating (:func:`plackett_luce`); None: unrated (no rated game)."""
    low: float | None
    high: float | None
    elo: float
    """Sequential Elo (final order)."""
    games: int
    score: float
    points: float
    win_rate: float
    failures: dict[str, int]
    group: int | None = None
    """Connected group (None when all rated bots are in one)."""

    @property
    def rated(self) -> bool:
        return self.rating is not None

    @property
    def ci(self) -> float:
        """Half-width of the 95% interval (0 for an unrated bot)."""
        if self.high is None or self.low is None:
            return 0.0
        return (self.high - self.low) / 2

    def to_json(self) -> dict[str, Any]:
        def r2(x: float | None) -> float | None:
            return None if x is None else round(x, 2)

        return {
            "rank": self.rank,
            "bot": self.name,
            "rating": r2(self.rating),
            "ci_low": r2(self.low),
            "ci_high": r2(self.high),
            "group": self.group,
            "elo": round(self.elo, 2),
            "games": self.games,
            "score": round(self.score, 4),
            "mean_points": round(self.points, 3),
            "win_rate": round(self.win_rate, 4),
            "failures": self.failures,
        }


def leaderboard(games: Sequence[GameSummary], names: Sequence[str] | None = None) -> list[Row]:
    """The final leaderboard: the headline rating with intervals, final-order Elo, counts."""
    ordered = final_order(games)
    names = list(names or [])
    tally = Tally(names)
    for g in ordered:
        tally.add(g)
    names = list(tally.stats)
    return _rows(tally, plackett_luce(ordered, names))


def live_leaderboard(tally: Tally) -> list[Row]:
    """Rows from running counts and live Elo (no fit, ``rating`` is the live Elo):
    cheap enough to print often."""
    elo = {n: tally.elo.ratings.get(n, ELO_START) for n, st in tally.stats.items() if st.games}
    return _rows(tally, RatingFit(dict(elo), dict(elo), dict(elo)))


def _rows(tally: Tally, fit: RatingFit) -> list[Row]:
    rows = []
    split = fit.groups > 1
    for name, st in tally.stats.items():
        rows.append(
            Row(
                None,
                name,
                fit.rating.get(name),
                fit.low.get(name),
                fit.high.get(name),
                tally.elo.ratings.get(name, ELO_START),
                st.games,
                st.score,
                st.points / st.games if st.games else 0.0,
                st.win_rate,
                dict(sorted(st.failures.items())),
                fit.group.get(name) if split else None,
            )
        )
    rows.sort(key=lambda r: (r.rating is None, -(r.rating or 0.0), -r.score, r.name))
    for i, row in enumerate(rows):
        row.rank = i + 1 if row.rated else None
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


def final_point(rows: Sequence[Row], games: int) -> Point:
    """The trajectory's last point as the leaderboard has it (final-order Elo), so the
    MLflow ``elo/<bot>`` series ends on the leaderboard's value."""
    return (games, {r.name: r.elo for r in rows}, {r.name: r.score for r in rows})


def scores_of(tally: Tally) -> dict[str, float]:
    return {name: st.score for name, st in tally.stats.items()}


def crosstable(
    games: Iterable[GameSummary], names: Sequence[str] = ()
) -> tuple[list[str], dict[tuple[str, str], tuple[float, int]]]:
    """Pairwise results: ``(a, b) -> (points of a against b, contests)`` over every game
    in which both sat (a tie is half a point; all-forfeit games are no contest)."""
    order = list(names)
    cells: dict[tuple[str, str], tuple[float, int]] = {}
    for game in games:
        for name in game.names:
            if name not in order:
                order.append(name)
        if game.all_forfeit:
            continue
        for i, a in enumerate(game.names):
            for j, b in enumerate(game.names):
                if i != j:
                    pts, n = cells.get((a, b), (0.0, 0))
                    cells[(a, b)] = (pts + pair_score(game.ranks[i], game.ranks[j]), n + 1)
    return order, cells
