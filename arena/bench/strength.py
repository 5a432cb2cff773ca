"""``arena bench strength``: the strength ladder of the reference bots.

Plays, for every game asked for, ``--games`` games in which the bots (default
``random``, ``greedy`` and ``ismcts`` with the game's iteration budget from
:data:`ISMCTS_ITERATIONS`, about 100 ms per move) all sit at one table, one seat each,
rotating the seats from game to game (each seed is played in every rotation, so seat
and luck are shared fairly). It prints, per game and bot, the mean score and the win
rate (a shared first place counts as a share of a win), each with a 95 % confidence
interval (normal approximation, 1.96 standard errors), the mean, p99 and maximum time
per move, and whether the bots are strictly ordered (each one's interval entirely above
the next one's) by mean score and by win rate.

The games are played in batches of ``--games`` games, each batch continuing the seeds of
the one before, until every bot's mean score per batch is stable
(:mod:`arena.bench.report`: at least ``--repeats``, at most ``--max-repeats`` batches);
the table is over every game played. Reproducible: the same ``--seed``, ``--games`` and
bot specs give the same games (iteration budgets, not wall-clock ones, keep the search
bots deterministic, and scores, not times, decide when to stop), whatever ``--workers``;
two batches of ``n`` are the games of one batch of ``2n``.

    arena bench strength --game zooloretto_mini --games 30 --seed 1
    arena bench strength --games 15 --workers 2 --json
"""

from __future__ import annotations

import itertools
import math
import statistics
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from arena.bench import report
from arena.errors import UserError
from arena.match.cmdbots import open_bots
from arena.match.runner import MatchConfig, MatchSpec
from arena.stats import percentile
from engine import GAMES

DEFAULT_BOTS = ("random", "greedy", "ismcts")
ISMCTS_ITERATIONS = {
    "zooloretto_mini": 300,
    "carson_city_zoo": 900,
    "dziobaki": 400,
    "panorama": 250,
    "manatee_sanctuary": 150,
}
"""Iteration budgets of about 100 ms per move on one unloaded core (``ismcts`` in the
default bot list becomes ``ismcts:iterations=N`` with the game's N; 300 otherwise)."""


def default_bots(game: str) -> list[str]:
    """The default table: random, greedy and ISMCTS at the game's iteration budget."""
    return ["random", "greedy", f"ismcts:iterations={ISMCTS_ITERATIONS.get(game, 300)}"]


@dataclass
class StrengthStats:
    """Results of one bot in one game type."""

    spec: str
    scores: list[float] = field(default_factory=list)
    wins: list[float] = field(default_factory=list)
    ms: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        mean, half = mean_ci(self.scores)
        win, win_half = mean_ci(self.wins)
        return {
            "bot": self.spec,
            "games": len(self.scores),
            "mean": mean,
            "mean_ci": half,
            "win_rate": win,
            "win_rate_ci": win_half,
            "ms_per_move": statistics.fmean(self.ms) if self.ms else 0.0,
            "p99_ms": percentile(self.ms, 99) if self.ms else 0.0,
            "max_ms": max(self.ms) if self.ms else 0.0,
        }


def mean_ci(values: Sequence[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95 % confidence interval.

    >>> mean_ci([1.0, 1.0, 1.0])
    (1.0, 0.0)
    """
    if not values:
        return 0.0, 0.0
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.inf
    return mean, 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def strictly_ordered(rows: Sequence[dict[str, Any]], key: str) -> bool:
    """True if each row's interval lies entirely above the next row's (rows best first)."""
    for hi, lo in itertools.pairwise(rows):
        if hi[key] - hi[key + "_ci"] <= lo[key] + lo[key + "_ci"]:
            return False
    return True


def play_one(
    game: str, bots: Sequence[str], seed: int, rotation: int
) -> tuple[list[float], list[int], list[list[float]]]:
    """One game with the bots rotated by ``rotation`` seats; results in bot order.

    A ``cmd:`` spec (e.g. ``cmd:python -m bots.ismcts_client --iterations 300``) plays
    its seat as a command bot over gRPC, through an embedded game server.
    """
    k = len(bots)
    order = [bots[(i + rotation) % k] for i in range(k)]  # seat i plays order[i]
    with open_bots(order, MatchSpec(game, k, seed), MatchConfig()) as session:
        record = session.play()
    result = record["result"]
    scores = [0.0] * k
    ranks = [0] * k
    ms: list[list[float]] = [[] for _ in range(k)]
    for seat in range(k):
        b = (seat + rotation) % k
        scores[b] = float(result["scores"][seat])
        ranks[b] = int(result["ranks"][seat])
    for step in record["steps"]:
        seat = step["seat"]
        if isinstance(seat, int) and 0 <= seat < k:
            ms[(seat + rotation) % k].append(float(step.get("ms", 0.0)))
    return scores, ranks, ms


Result = tuple[list[float], list[int], list[list[float]]]
"""One game's scores, ranks and move times (ms), in bot order (:func:`play_one`)."""


def play_games(
    game: str, bots: Sequence[str], games: int, seed: int, workers: int, first: int = 0
) -> list[Result]:
    """Games ``first`` to ``first + games - 1`` of the table's sequence: game ``g`` is
    seed ``seed + g // k`` with the bots rotated ``g % k`` seats (``k`` bots), so that a
    second batch continues the first and two batches of ``n`` are one run of ``2n``."""
    k = len(bots)
    jobs = [(game, list(bots), seed + g // k, g % k) for g in range(first, first + games)]
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(_play_job, jobs))
    return [_play_job(job) for job in jobs]


def summarise(bots: Sequence[str], results: Sequence[Result]) -> list[dict[str, Any]]:
    """One summary row per bot over ``results`` (best mean first)."""
    k = len(bots)
    stats = [StrengthStats(b) for b in bots]
    for scores, ranks, ms in results:
        first = sum(1 for r in ranks if r == 1)
        for b in range(k):
            stats[b].scores.append(scores[b])
            stats[b].wins.append(1.0 / first if ranks[b] == 1 else 0.0)
            stats[b].ms.extend(ms[b])
    rows = [s.summary() for s in stats]
    rows.sort(key=lambda r: r["mean"], reverse=True)
    return rows


def run_game(
    game: str, bots: Sequence[str], games: int, seed: int, workers: int
) -> list[dict[str, Any]]:
    """Play ``games`` games of ``game`` and return one summary row per bot (best first)."""
    return summarise(bots, play_games(game, bots, games, seed, workers))


def run_repeated(
    game: str,
    bots: Sequence[str],
    games: int,
    seed: int,
    workers: int,
    repeats: int = 1,
    max_repeats: int = 1,
) -> tuple[list[dict[str, Any]], report.Repeated]:
    """Batches of ``games`` games (:func:`play_games`, one after the other) until every
    bot's mean score per batch is stable (at least ``repeats``, at most ``max_repeats``
    batches; :func:`arena.bench.report.repeat_until_stable`); the rows are over every
    game played. Scores, not times, decide: the same seeds give the same batches. The
    means share one scale (a mean near zero is judged against the table's largest)."""
    results: list[Result] = []
    k = len(bots)

    def batch() -> dict[str, Any]:
        new = play_games(game, bots, games, seed, workers, first=len(results))
        results.extend(new)
        return {"mean": {str(i): statistics.fmean(r[0][i] for r in new) for i in range(k)}}

    headline = [f"mean.{i}" for i in range(k)]
    repeated = report.repeat_until_stable(batch, headline, repeats, max_repeats, shared_scale=True)
    return summarise(bots, results), repeated


def _play_job(job: tuple[str, list[str], int, int]) -> Result:
    return play_one(*job)


def format_rows(game: str, rows: Sequence[dict[str, Any]]) -> str:
    lines = [f"{game}"]
    for r in rows:
        lines.append(
            f"  {r['bot']:<28} mean {r['mean']:7.2f} ± {r['mean_ci']:5.2f}   "
            f"win {r['win_rate']:5.1%} ± {r['win_rate_ci']:5.1%}   "
            f"{r['ms_per_move']:7.1f} ms/move (p99 {r['p99_ms']:.0f}, max {r['max_ms']:.0f})"
        )
    by_win = sorted(rows, key=lambda r: r["win_rate"], reverse=True)
    lines.append(
        f"  ordered by mean: {'yes' if strictly_ordered(rows, 'mean') else 'no'}   "
        f"by win rate: {'yes' if strictly_ordered(by_win, 'win_rate') else 'no'}"
        f"   ({rows[0]['games'] if rows else 0} games)"
    )
    return "\n".join(lines)


def run_strength(
    games: Sequence[str] | None,
    bots: Sequence[str] | None,
    n_games: int,
    seed: int,
    workers: int,
    as_json: bool,
    repeats: int = 1,
    max_repeats: int = 1,
    earlier: Any = None,
) -> dict[str, Any]:
    """``arena bench strength``: the ladder of every game in ``games`` (default all), in
    batches of ``n_games`` games until every bot's mean score is stable
    (:func:`run_repeated`), each game printed as soon as it is done (or all of it as JSON
    at the end, with the change against ``earlier`` when given); returns the JSON."""
    chosen = list(games or GAMES)
    unknown = [g for g in chosen if g not in GAMES]
    if unknown:
        raise UserError(f"unknown game(s) {unknown}; known: {', '.join(GAMES)}")
    info = report.machine()
    if not as_json:
        print(report.header_line(info), flush=True)
    out: dict[str, Any] = {}
    for game in chosen:
        table = list(bots or default_bots(game))
        t0 = time.perf_counter()
        rows, repeated = run_repeated(game, table, n_games, seed, workers, repeats, max_repeats)
        stability = {
            spec: repeated.stability[f"mean.{i}"].as_json() for i, spec in enumerate(table)
        }
        out[game] = {
            "rows": rows,
            "seconds": round(time.perf_counter() - t0, 1),
            "repeats": len(repeated.runs),
            "stability": stability,
        }
        if not as_json:
            moving = [spec for spec, s in stability.items() if not s["stable"]]
            note = (
                f" [NOT STABLE after {len(repeated.runs)} batches: mean of {', '.join(moving)}]"
                if moving
                else ""
            )
            print(
                format_rows(game, rows),
                f"[{len(repeated.runs)} batches, {out[game]['seconds']} s]{note}",
                flush=True,
            )
    data = {"machine": info, "seed": seed, "games": n_games, "results": out}
    report.finish(data, earlier, as_json)
    return data


__all__ = [
    "StrengthStats",
    "default_bots",
    "mean_ci",
    "play_games",
    "run_game",
    "run_repeated",
    "run_strength",
    "strictly_ordered",
    "summarise",
]
