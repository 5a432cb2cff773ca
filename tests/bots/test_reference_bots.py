"""The reference bots (greedy, ismcts) on every registered game.

Complete games without incidents, determinism given a seed, the heuristics' contract
(one finite estimate per seat at every kind of position, a legal rollout move), the
ISMCTS time budget, and a small-sample strength check.
"""

from __future__ import annotations

import gc
import math
import random
import sys
import time
from typing import Any

import pytest

from arena.match.runner import MatchSpec, play_match
from arena.match.specs import make_bot
from bots.base import Turn
from bots.heuristics import heuristic_for
from bots.ismcts import IsmctsBot
from engine import CHANCE, GAMES, State
from engine.core import sample_outcome

GAME_IDS = sorted(GAMES)
FAST_ISMCTS = "ismcts:iterations=12,depth=8"


def _players(game_id: str) -> int:
    game = GAMES[game_id]
    return 3 if 3 in game.player_counts() else game.min_players


def _play(game_id: str, specs: list[str], seed: int) -> dict:
    spec = MatchSpec(game_id, len(specs), seed)
    return play_match(spec, [make_bot(s) for s in specs])


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_greedy_and_ismcts_play_complete_games(game_id: str) -> None:
    n = _players(game_id)
    specs = (["greedy", FAST_ISMCTS, "random", "greedy"] * 2)[:n]
    record = _play(game_id, specs, seed=11)
    assert record["events"] == [], record["events"]
    assert len(record["result"]["scores"]) == n


@pytest.mark.parametrize("game_id", GAME_IDS)
@pytest.mark.parametrize("spec", ["greedy", FAST_ISMCTS])
def test_bots_are_deterministic_given_the_seed(game_id: str, spec: str) -> None:
    n = 2 if 2 in GAMES[game_id].player_counts() else GAMES[game_id].min_players
    specs = [spec, "random"][:n] if n > 1 else [spec]
    first = _play(game_id, specs, seed=5)
    second = _play(game_id, specs, seed=5)
    assert [s["action"] for s in first["steps"]] == [s["action"] for s in second["steps"]]
    assert first["digest"] == second["digest"]


def _positions(game_id: str, count: int, seed: int) -> list[State]:
    """Decision positions spread over random playouts of ``game_id``."""
    game = GAMES[game_id]
    rng = random.Random(seed)
    out: list[State] = []
    while len(out) < count:
        state = game.new_game(_players(game_id))
        while not state.is_terminal():
            if state.current_player == CHANCE:
                state.apply(sample_outcome(state.chance_outcomes(), rng))
                continue
            if rng.random() < 0.15:
                out.append(state.clone())
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
        out.append(state)  # a terminal position too
    return out


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_heuristic_contract(game_id: str) -> None:
    h = heuristic_for(game_id)
    rng = random.Random(3)
    for state in _positions(game_id, 40, seed=2):
        est = h.estimate(state)
        assert len(est) == state.num_players
        assert all(isinstance(e, float) and math.isfinite(e) for e in est)
        if state.is_terminal():
            continue
        legal = state.legal_actions()
        assert h.rollout_action(state, legal, rng) in legal


class TickingClock:
    """Stands in for the ``time`` module of ``bots.ismcts``: ``perf_counter`` advances a
    fixed ``tick`` (seconds) at every reading, so the bot's idea of elapsed time depends
    only on how often it looks at its clock, never on how fast or busy the machine is."""

    def __init__(self, tick: float) -> None:
        self.tick = tick
        self.now = 1000.0
        self.first: float | None = None

    def perf_counter(self) -> float:
        self.now += self.tick
        if self.first is None:
            self.first = self.now
        return self.now

    def elapsed_ms(self) -> float:
        return 0.0 if self.first is None else (self.now - self.first) * 1000

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


def _choices(game_id: str, count: int) -> list[Turn]:
    """Turns at decision positions with a choice (a fixed RNG each)."""
    positions = [s for s in _positions(game_id, 30, seed=4) if not s.is_terminal()]
    turns = [
        Turn.of(s, s.current_player, random.Random(1))
        for s in positions
        if len(s.legal_actions()) >= 2
    ]
    assert turns, "no position with a choice"
    return turns[:count]


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_ismcts_stops_by_its_own_clock(game_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``ismcts:ms=M`` searches until one more iteration of average length would pass M ms
    of its clock, cutting a rollout off at the deadline: it overruns by at most about
    one iteration and does not stop early. Checked on a clock that ticks per reading, so
    the numbers are the same on any machine. (How long a move takes in real time is a
    benchmark's business: ``python -m bots.strength`` reports the mean time per move.)"""
    budget = 200.0
    module = sys.modules[IsmctsBot.__module__]
    for turn in _choices(game_id, 4):
        bot = IsmctsBot(ms=budget)
        clock = TickingClock(tick=0.001)
        monkeypatch.setattr(module, "time", clock)
        index = bot.choose(turn)
        monkeypatch.undo()
        assert 0 <= index < len(turn.legal)
        done = bot.last_iterations
        assert done >= 1
        spent = clock.elapsed_ms()
        per_iteration = spent / done
        assert spent <= budget + 2 * per_iteration, (spent, done)  # overran by ~1 iteration
        assert spent >= budget - 2 * per_iteration, (spent, done)  # used its budget


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_ismcts_with_a_time_budget_plays_on_the_real_clock(game_id: str) -> None:
    """On the real clock too: a legal move after at least one iteration, and no more CPU
    time than a generous multiple of the budget (CPU time of this thread, which a busy
    machine does not inflate the way it does wall time; the collector is paused, as a
    full collection of the test session's heap is not the bot's work)."""
    budget = 60.0
    bot = IsmctsBot(ms=budget)
    for turn in _choices(game_id, 3):
        gc.collect()
        gc.disable()
        try:
            c0 = time.thread_time()
            index = bot.choose(turn)
            cpu_ms = (time.thread_time() - c0) * 1000
        finally:
            gc.enable()
        assert 0 <= index < len(turn.legal) and bot.last_iterations >= 1
        assert cpu_ms <= budget * 20, cpu_ms


def test_ismcts_iteration_budget_is_exact() -> None:
    game_id = GAME_IDS[0]
    state = next(s for s in _positions(game_id, 20, seed=6) if len(s.legal_actions()) > 1)
    bot = IsmctsBot(iterations=37)
    turn = Turn.of(state, state.current_player, random.Random(2))
    bot.choose(turn)
    assert bot.last_iterations == 37


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game_id", "games", "iterations"),
    [("dziobaki", 6, 300), ("panorama", 6, 100)],
)
def test_small_sample_strength(game_id: str, games: int, iterations: int) -> None:
    """ismcts > greedy > random in mean score over a few seat-rotated 3-player games."""
    ismcts = f"ismcts:iterations={iterations}"
    bots = ["random", "greedy", ismcts]
    totals = dict.fromkeys(bots, 0.0)
    for i in range(games):
        k = i % 3
        order = bots[k:] + bots[:k]
        record = _play(game_id, order, seed=100 + i // 3)
        for seat, spec in enumerate(order):
            totals[spec] += record["result"]["scores"][seat]
    assert totals["greedy"] > totals["random"], totals
    assert totals[ismcts] > totals["greedy"], totals
