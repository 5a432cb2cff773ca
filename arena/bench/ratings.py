"""``arena bench ratings``: do the leaderboard's 95 % intervals cover the truth?

Games are drawn from a known Plackett–Luce model (Bradley–Terry for two seats): each bot
has a true Elo, a game seats ``players`` bots drawn at random, and its ranking is the
order of ``true strength + Gumbel noise`` (exactly a Plackett–Luce draw). The fit
(:func:`arena.tournament.ratings.plackett_luce` by default) is run on every replication
and the table reports how often each bot's interval holds its true (centred) rating.

Rows: 2 and 4 players at 10, 40 and 200 games per bot over :data:`TRUE_ELO`, and the
*dominant* case: a +450 bot among equals, 12 games each, counted only in the
replications where it never lost (the sweep that used to give "2342 ±77").

It also runs the SPRT (:mod:`arena.tournament.sprt`) on pairs of games drawn with a true
Elo advantage of exactly ``elo0`` and exactly ``elo1`` (draw rate :data:`DRAW_RATE`): how
often it accepts H1 (should be ≈ alpha at elo0, ≈ 1 − beta at elo1) and how many games it
needs on average.

Both tables are repeated in batches of ``--reps`` replications (each with the next seed)
until their figures settle (:data:`HEADLINE`, :mod:`arena.bench.report`), and pool
every replication.

    arena bench ratings --reps 200
    arena bench ratings --reps 100 --sprt elo0=0,elo1=10 --json
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from arena.bench import report
from arena.tournament.ratings import ELO_SCALE, ELO_START, GameSummary, plackett_luce
from arena.tournament.sprt import SprtSpec, elo_to_score, sprt_state

TRUE_ELO = (-300.0, -200.0, -100.0, 0.0, 0.0, 100.0, 200.0, 300.0)
"""The true ratings (Elo offsets) of the bots of the ordinary rows."""
DOMINANT_ELO = (450.0, 0.0, 0.0, 0.0)
"""The dominant case: one bot 450 Elo above three equals."""
DOMINANT_GAMES = 12
"""Games per bot in the dominant case."""


class Intervals(Protocol):
    """What a fit returns: a rating and a 95 % interval per bot (Elo scale)."""

    rating: dict[str, float]
    low: dict[str, float]
    high: dict[str, float]


Fit = Callable[[Sequence[GameSummary], Sequence[str]], Intervals]


def synthetic_games(
    true_elo: Sequence[float], players: int, games_per_bot: int, rng: np.random.Generator
) -> tuple[list[GameSummary], list[str]]:
    """Games of random tables drawn from the Plackett–Luce model of ``true_elo``; each bot
    plays about ``games_per_bot`` of them."""
    n = len(true_elo)
    names = [f"b{i}" for i in range(n)]
    strength = np.asarray(true_elo) / ELO_SCALE
    total = max(1, round(n * games_per_bot / players))
    games = []
    for g in range(total):
        seats = rng.choice(n, size=players, replace=False)
        noisy = strength[seats] + rng.gumbel(size=players)
        ranks = np.empty(players, dtype=int)
        ranks[np.argsort(-noisy)] = np.arange(1, players + 1)
        games.append(
            GameSummary(
                f"g{g}",
                0,
                [names[i] for i in seats],
                [int(r) for r in ranks],
                [float(players - r) for r in ranks],
                [],
            )
        )
    return games, names


def _covered(fit: Intervals, names: Sequence[str], true_elo: Sequence[float]) -> list[bool]:
    mean = float(np.mean(true_elo))
    return [
        fit.low[nm] <= ELO_START + t - mean <= fit.high[nm]
        for nm, t in zip(names, true_elo, strict=True)
    ]


@dataclass
class CoverageRow:
    """One line of the coverage table."""

    case: str
    players: int
    games_per_bot: int
    reps: int
    covered: int
    trials: int
    mean_half_width: float

    @property
    def coverage(self) -> float:
        return self.covered / self.trials if self.trials else math.nan

    def to_json(self) -> dict[str, Any]:
        return {
            "case": self.case,
            "players": self.players,
            "games_per_bot": self.games_per_bot,
            "reps": self.reps,
            "coverage": round(self.coverage, 4),
            "trials": self.trials,
            "mean_half_width": round(self.mean_half_width, 1),
        }


def coverage(
    players: int, games_per_bot: int, reps: int, seed: int = 0, fit: Fit = plackett_luce
) -> CoverageRow:
    """How often the intervals of all bots of :data:`TRUE_ELO` hold the truth."""
    rng = np.random.default_rng([seed, players, games_per_bot])
    hits = trials = 0
    width = 0.0
    for _ in range(reps):
        games, names = synthetic_games(TRUE_ELO, players, games_per_bot, rng)
        result = fit(games, names)
        covered = _covered(result, names, TRUE_ELO)
        hits += sum(covered)
        trials += len(covered)
        width += sum((result.high[n] - result.low[n]) / 2 for n in names)
    return CoverageRow("spread", players, games_per_bot, reps, hits, trials, width / trials)


def dominant_coverage(sweeps: int, seed: int = 0, fit: Fit = plackett_luce) -> CoverageRow:
    """How often the dominant bot's interval holds its truth when it lost no game
    (replications are drawn until ``sweeps`` of them are sweeps)."""
    rng = np.random.default_rng([seed, 450])
    hits = trials = reps = 0
    width = 0.0
    while trials < sweeps:
        reps += 1
        games, names = synthetic_games(DOMINANT_ELO, 2, DOMINANT_GAMES, rng)
        if any(g.ranks[g.names.index(names[0])] != 1 for g in games if names[0] in g.names):
            continue
        result = fit(games, names)
        hits += _covered(result, names, DOMINANT_ELO)[0]
        trials += 1
        width += (result.high[names[0]] - result.low[names[0]]) / 2
    return CoverageRow("dominant sweep", 2, DOMINANT_GAMES, reps, hits, trials, width / trials)


TABLE_PLAYERS = (2, 4)
"""Seats per game of the ordinary rows."""
TABLE_GAMES_PER_BOT = (10, 40, 200)
"""Games per bot of the ordinary rows (one row per seat count and games per bot)."""


def coverage_table(reps: int, seed: int = 0, fit: Fit = plackett_luce) -> list[CoverageRow]:
    """The ordinary rows, then the dominant case."""
    rows = [
        coverage(players, per_bot, reps, seed, fit)
        for players in TABLE_PLAYERS
        for per_bot in TABLE_GAMES_PER_BOT
    ]
    rows.append(dominant_coverage(reps, seed, fit))
    return rows


DRAW_RATE = 0.3
"""The share of drawn games in the SPRT simulation."""
CHECK_EVERY = 4
"""The simulated SPRT looks at the LLR every this many pairs (a tournament looks after
every batch: a few pairs at a time)."""


@dataclass
class SprtRow:
    """SPRT runs at one true Elo advantage."""

    true_elo: float
    runs: int
    h1: int
    undecided: int
    mean_games: float

    def to_json(self) -> dict[str, Any]:
        return {
            "true_elo": self.true_elo,
            "runs": self.runs,
            "accept_h1": round(self.h1 / self.runs, 4),
            "undecided": self.undecided,
            "mean_games": round(self.mean_games, 1),
        }


def simulate_sprt(
    spec: SprtSpec, true_elo: float, rng: np.random.Generator, max_pairs: int = 200_000
) -> tuple[str | None, int]:
    """One SPRT on pairs of independent games (win/draw/loss with the score of
    ``true_elo``); returns (decision, pairs played)."""
    score = elo_to_score(true_elo)
    win = score - DRAW_RATE / 2
    p = [1 - win - DRAW_RATE, DRAW_RATE, win]  # first bot's points x2: 0, 1, 2
    counts = [0] * 5
    pairs = 0
    while pairs < max_pairs:
        games = rng.choice(3, size=(CHECK_EVERY, 2), p=p)
        for a, b in games:
            counts[int(a + b)] += 1
        pairs += CHECK_EVERY
        decision = sprt_state(counts, spec).decision
        if decision is not None:
            return decision, pairs
    return None, pairs


def sprt_rates(spec: SprtSpec, runs: int, seed: int = 0) -> list[SprtRow]:
    """Accept-H1 rates and mean games to a decision at ``elo0`` and at ``elo1``."""
    rng = np.random.default_rng([seed, 7])
    out = []
    for true in (spec.elo0, spec.elo1):
        results = [simulate_sprt(spec, true, rng) for _ in range(runs)]
        out.append(
            SprtRow(
                true,
                runs,
                sum(d == "H1" for d, _ in results),
                sum(d is None for d, _ in results),
                2 * float(np.mean([n for _, n in results])),
            )
        )
    return out


HEADLINE = (
    *(f"coverage.{i}.coverage" for i in range(len(TABLE_PLAYERS) * len(TABLE_GAMES_PER_BOT) + 1)),
    "sprt.rows.1.accept_h1",
    "sprt.rows.0.mean_games",
    "sprt.rows.1.mean_games",
)
"""The figures repeated until stable: each row's coverage, the SPRT's power at ``elo1``
and its games to a decision. Its false-positive rate at ``elo0`` (about alpha, a few
per cent) is reported but does not decide: a relative spread of a rate near 0 says
nothing."""


def merge_coverage(rows: Sequence[CoverageRow]) -> CoverageRow:
    """Rows of the same case from several repeats as one (replications pooled)."""
    trials = sum(r.trials for r in rows)
    width = sum(r.mean_half_width * r.trials for r in rows) / trials if trials else math.nan
    first = rows[0]
    return CoverageRow(
        first.case,
        first.players,
        first.games_per_bot,
        sum(r.reps for r in rows),
        sum(r.covered for r in rows),
        trials,
        width,
    )


def merge_sprt(rows: Sequence[SprtRow]) -> SprtRow:
    """SPRT rows at the same true Elo from several repeats as one (runs pooled)."""
    runs = sum(r.runs for r in rows)
    return SprtRow(
        rows[0].true_elo,
        runs,
        sum(r.h1 for r in rows),
        sum(r.undecided for r in rows),
        sum(r.mean_games * r.runs for r in rows) / runs,
    )


def run_ratings_bench(
    reps: int,
    seed: int,
    sprt: str,
    as_json: bool,
    repeats: int = 1,
    max_repeats: int = 1,
    earlier: Any = None,
) -> dict[str, Any]:
    """``arena bench ratings``: batches of ``reps`` replications (batch ``r`` drawn with
    seed ``seed + r``) until each :data:`HEADLINE` figure is stable (at least
    ``repeats``, at most ``max_repeats`` batches); the tables pool every replication.
    Text or JSON, with the change against ``earlier`` (an earlier run's JSON) when given."""
    spec = SprtSpec.parse(sprt)
    info = report.machine()
    if not as_json:
        print(report.header_line(info), flush=True)
    batches: list[tuple[list[CoverageRow], list[SprtRow]]] = []

    def batch() -> dict[str, Any]:
        rows = coverage_table(reps, seed + len(batches))
        sprt_rows = sprt_rates(spec, reps, seed + len(batches))
        batches.append((rows, sprt_rows))
        return _as_json(rows, spec, sprt_rows)

    repeated = report.repeat_until_stable(batch, HEADLINE, repeats, max_repeats)
    rows = [merge_coverage(same) for same in zip(*(b[0] for b in batches), strict=True)]
    sprt_rows = [merge_sprt(same) for same in zip(*(b[1] for b in batches), strict=True)]
    out = {"machine": info, **_as_json(rows, spec, sprt_rows), "stability": repeated.as_json()}
    if not as_json:
        total = reps * len(batches)
        print(
            f"95% interval coverage ({total} replications per row in {len(batches)} batches; "
            "goal 93-97%, sweep >= 90%)"
        )
        print(f"{'case':<16}{'players':>8}{'games/bot':>10}{'coverage':>10}{'±Elo':>8}")
        for r in rows:
            print(
                f"{r.case:<16}{r.players:>8}{r.games_per_bot:>10}{100 * r.coverage:>9.1f}%"
                f"{r.mean_half_width:>8.0f}"
            )
        print(f"\nSPRT {spec.text()} ({total} runs each, draw rate {DRAW_RATE:g})")
        print(f"{'true elo':>9}{'accept H1':>11}{'undecided':>11}{'mean games':>12}")
        for sr in sprt_rows:
            print(
                f"{sr.true_elo:>9g}{100 * sr.h1 / sr.runs:>10.1f}%{sr.undecided:>11}"
                f"{sr.mean_games:>12.0f}"
            )
        note = repeated.note()
        print(f"(stable after {len(batches)} batches)" if not note else note.strip())
    report.finish(out, earlier, as_json)
    return out


def _as_json(
    rows: Sequence[CoverageRow], spec: SprtSpec, sprt_rows: Sequence[SprtRow]
) -> dict[str, Any]:
    return {
        "coverage": [r.to_json() for r in rows],
        "sprt": {"spec": spec.text(), "rows": [r.to_json() for r in sprt_rows]},
    }
