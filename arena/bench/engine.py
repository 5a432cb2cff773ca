"""``arena bench engine``: random-playout speed of every game, single process.

For each game and player count: decisions/s (bot decisions, i.e. legal_actions +
apply, chance steps included in the time but not counted) and games/s, as medians of
measurements of about ``seconds`` each, repeated until the decisions/s settle
(:mod:`arena.bench.report`: the output says when they did not), and the ratio to a trivial
pure-Python step loop (pick a random item from a 10-item list, bump a counter) timed in
the same run, which normalises away the speed of the machine.
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from arena.bench import report
from engine import CHANCE, GAMES, Game, get_game
from engine.core import sample_outcome


def random_playout(game: Game, num_players: int, rng: random.Random) -> tuple[int, int]:
    """Play one random game; returns (decisions, steps)."""
    state = game.new_game(num_players, game.variants(num_players)[0])
    decisions = steps = 0
    while not state.is_terminal():
        if state.current_player == CHANCE:
            state.apply(sample_outcome(state.chance_outcomes(), rng))
        else:
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
            decisions += 1
        steps += 1
    return decisions, steps


def measure_game(game: Game, num_players: int, seconds: float, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    games = decisions = steps = 0
    t0 = time.perf_counter()
    while True:
        d, s = random_playout(game, num_players, rng)
        games += 1
        decisions += d
        steps += s
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            break
    return {
        "decisions_per_s": decisions / elapsed,
        "games_per_s": games / elapsed,
        "decisions_per_game": decisions / games,
        "steps_per_game": steps / games,
    }


def trivial_steps_per_s(seconds: float) -> float:
    rng = random.Random(0)
    items = list(range(10))
    n = 0
    counter = 0
    t0 = time.perf_counter()
    while True:
        for _ in range(1000):
            counter += items[rng.randrange(10)]
        n += 1000
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            return n / elapsed


def run_engine_bench(
    game_id: str | None,
    seconds: float,
    repeats: int,
    as_json: bool,
    max_repeats: int | None = None,
    earlier: Any = None,
) -> dict[str, Any]:
    """Measure every game and player count, each repeated until its decisions/s is
    stable (at least ``repeats``, at most ``max_repeats`` measurements; see
    :mod:`arena.bench.report`); print text or JSON (``machine``, ``rows``, and the
    change against ``earlier``, an earlier run's JSON, when given)."""
    games = [get_game(game_id)] if game_id else list(GAMES.values())
    bound = max(repeats, max_repeats if max_repeats is not None else report.MAX_REPEATS)
    info = report.machine()
    if not as_json:
        print(report.header_line(info), flush=True)
    trivial = statistics.median(trivial_steps_per_s(seconds / 3) for _ in range(repeats))
    rows: list[dict[str, Any]] = []
    for game in games:
        for n in game.player_counts():
            runs: list[dict[str, float]] = []

            def measure(
                game: Game = game, n: int = n, runs: list[dict[str, float]] = runs
            ) -> float:
                runs.append(measure_game(game, n, seconds, len(runs)))
                return runs[-1]["decisions_per_s"]

            verdict, _ = report.until_stable(measure, repeats, bound)
            row: dict[str, Any] = {"game": game.id, "players": n}
            for key in runs[0]:
                row[key] = statistics.median(r[key] for r in runs)
            row["trivial_steps_per_s"] = trivial
            row["trivial_ratio"] = trivial / row["decisions_per_s"]
            row["stability"] = verdict.as_json()
            rows.append(row)
            if not as_json:
                print(
                    f"{game.id:<20} {n}p  {row['decisions_per_s']:>10,.0f} decisions/s  "
                    f"{row['games_per_s']:>8,.1f} games/s  {row['decisions_per_game']:>7.1f} "
                    f"decisions/game  trivial loop {row['trivial_ratio']:.1f}x faster"
                    f"{verdict.note()}",
                    flush=True,
                )
    out: dict[str, Any] = {"machine": info, "rows": rows}
    report.finish(out, earlier, as_json)
    return out
