"""``arena bench search``: ISMCTS iterations/s per game, and solo Dziobaki's first move.

The search bot's speed is what its strength at equal time rests on, so it gets a figure
of its own: for each game, ``ismcts:iterations=N`` (the greedy root prior included)
searches the first decision of a ``players``-seat game (at most the game's largest
count; the same position and seed every repeat), and the figure is iterations per CPU
second (``time.process_time``: on a shared machine, other processes' load changes wall
time far more than CPU time). Each repeat starts with the heuristic's caches emptied
(``Heuristic.forget``), so a repeat does not profit from the evaluations of the one
before. Also the CPU
time of ``ismcts:iterations=20``'s first move in solo Dziobaki, where the greedy prior
plays each of the 48 placements out to the end of the game (12,720 evaluations).
Every figure is repeated until stable (:mod:`arena.bench.report`).
"""

from __future__ import annotations

import random
import time
from typing import Any

from arena.bench import report
from bots.base import Turn
from bots.heuristics import heuristic_for
from bots.ismcts import IsmctsBot
from engine import CHANCE, GAMES, Game, State, get_game
from engine.core import sample_outcome


def first_decision(game: Game, players: int, seed: int) -> State:
    """A new game of ``game`` played through its opening chance nodes."""
    state = game.new_game(players, game.variants(players)[0])
    rng = random.Random(seed)
    while state.current_player == CHANCE:
        state.apply(sample_outcome(state.chance_outcomes(), rng))
    return state


def iterations_per_cpu_s(game: Game, players: int, iterations: int, seed: int) -> float:
    """ISMCTS iterations per CPU second on the first decision (the root prior included)."""
    state = first_decision(game, players, seed)
    heuristic_for(game.id).forget()  # every repeat starts with cold caches
    bot = IsmctsBot(iterations=iterations)
    turn = Turn.of(state, state.current_player, random.Random(seed))
    t0 = time.process_time()
    bot.search(turn, None)
    return bot.last_iterations / max(time.process_time() - t0, 1e-9)


def solo_first_move_cpu_ms(seed: int) -> float:
    """CPU ms of ``ismcts:iterations=20``'s first move in 1-player Dziobaki."""
    state = first_decision(get_game("dziobaki"), 1, seed)
    heuristic_for("dziobaki").forget()
    turn = Turn.of(state, 0, random.Random(seed))
    t0 = time.process_time()
    IsmctsBot(iterations=20).choose(turn)
    return 1000.0 * (time.process_time() - t0)


def run_search_bench(
    game_id: str | None,
    players: int,
    iterations: int,
    repeats: int,
    max_repeats: int,
    as_json: bool,
    earlier: Any = None,
    seed: int = 0,
) -> dict[str, Any]:
    """Measure (each repeat searches the same position with the same seed, so the
    repeats differ by timing noise only); print text or JSON."""
    games = [get_game(game_id)] if game_id else list(GAMES.values())
    info = report.machine()
    if not as_json:
        print(report.header_line(info), flush=True)
    rows: list[dict[str, Any]] = []
    for game in games:
        n = min(players, max(game.player_counts()))

        def measure(game: Game = game, n: int = n) -> float:
            return iterations_per_cpu_s(game, n, iterations, seed)

        verdict, _ = report.until_stable(measure, repeats, max_repeats)
        row = {
            "game": game.id,
            "players": n,
            "iterations_per_cpu_s": verdict.median,
            "stability": verdict.as_json(),
        }
        rows.append(row)
        if not as_json:
            print(
                f"{game.id:<20} {n}p  {verdict.median:>8,.0f} ISMCTS iterations/CPU s"
                f"{verdict.note()}",
                flush=True,
            )
    out: dict[str, Any] = {"machine": info, "iterations": iterations, "rows": rows}
    if game_id in (None, "dziobaki"):
        verdict, _ = report.until_stable(lambda: solo_first_move_cpu_ms(seed), repeats, max_repeats)
        out["solo_dziobaki_first_move_cpu_ms"] = verdict.median
        out["solo_dziobaki_stability"] = verdict.as_json()
        if not as_json:
            print(
                f"solo Dziobaki, ismcts:iterations=20, first move: {verdict.median:,.0f} CPU ms"
                f"{verdict.note()}"
            )
    report.finish(out, earlier, as_json)
    return out
