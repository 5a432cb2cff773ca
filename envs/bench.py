"""How fast the PettingZoo wrapper plays against the raw engine, and what a tensor costs.

``python -m envs.bench [--games g1,g2] [--players N] [--seconds S]`` prints, per game:

- ``engine``: decisions/s of random playouts on the raw engine (chance sampled, a random
  legal action applied), with the mover's JSON observation read at each decision, which
  is what a bot of the platform receives;
- ``env``: decisions/s of random playouts through :func:`envs.pettingzoo.env` (``last()``
  then ``step``, a random index of the mask's ones), which adds the tensor (written from
  the state's fields by :mod:`envs.direct`, compiled when built: :mod:`envs.native`),
  the mask and PettingZoo's bookkeeping. The agent finds the mask's ones through a
  boolean view: numpy scans an int8 array several times slower (up to 5 µs a decision
  for Manatee Sanctuary's 3,306 actions), a cost of the agent, not of the wrapper;
- ``ratio``: env / engine (the goal is at least 0.7): the median over rounds of an engine
  run then an environment run, repeated until that median is stable as ``arena bench``
  judges it (at least 3 rounds, at most 9; ``rounds`` says how many, and a ratio that
  did not settle says so);
- ``encode_us``: microseconds per :meth:`Layout.encode` of one JSON observation (the
  median of repeated timings over the observations of one playout);
- ``direct_us``: microseconds per tensor written from the state's fields by the game's
  :mod:`envs.direct` encoder, over the same playout's positions in order, the mover's
  at each (as the environment asks for them; each repeat starts a fresh encoder, so
  the parts it keeps from one position to the next are built as in a real game).

The first lines give the machine's cores and load and say whether :mod:`envs.direct` runs
compiled (``make native``) or interpreted. Times are the process's CPU time
(``time.process_time``), so that other work on a busy machine does not count. Numbers
only: it asserts nothing (performance goals live in benchmarks, not tests).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np

from arena.bench.report import Stability, header_line, machine, until_stable
from engine.core import State, sample_outcome
from engine.registry import get_game
from envs import native
from envs.direct import ENCODERS
from envs.layouts import SUPPORTED, spec
from envs.pettingzoo import env


def engine_rate(game_id: str, num_players: int, seconds: float) -> float:
    """Decisions per second of random playouts on the engine, observing each decision."""
    game = get_game(game_id)
    rng = random.Random(0)
    decisions, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        state = game.new_game(num_players, None)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply(sample_outcome(state.chance_outcomes(), rng))
                continue
            state.observation(state.current_player)
            state.apply(rng.choice(state.legal_actions()))
            decisions += 1
    return decisions / (time.process_time() - start)


def env_rate(game_id: str, num_players: int, seconds: float) -> float:
    """Decisions per second of random playouts through the PettingZoo environment."""
    aec = env(game_id, num_players=num_players, seed=0)
    rng = random.Random(0)
    decisions, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        aec.reset()
        for _ in aec.agent_iter():
            observation, _, terminated, truncated, _ = aec.last()
            if terminated or truncated:
                aec.step(None)
                continue
            ones = observation["action_mask"].view(np.bool_).nonzero()[0]
            aec.step(int(ones[rng.randrange(len(ones))]))
            decisions += 1
    return decisions / (time.process_time() - start)


def decisions(game_id: str, num_players: int) -> list[tuple[State, int]]:
    """The decisions of one random playout (seed 1): each position (a clone) and its mover."""
    game = get_game(game_id)
    rng = random.Random(1)
    state = game.new_game(num_players, None)
    out: list[tuple[State, int]] = []
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply(sample_outcome(state.chance_outcomes(), rng))
            continue
        out.append((state.clone(), state.current_player))
        state.apply(rng.choice(state.legal_actions()))
    return out


def encode_micros(game_id: str, num_players: int, repeats: int = 5) -> float:
    """Median microseconds per encoding of one observation (one playout's observations)."""
    layout = spec(game_id).layout
    observations = [s.observation(seat) for s, seat in decisions(game_id, num_players)]
    timings = []
    for _ in range(repeats):
        start = time.process_time()
        for observation in observations:
            layout.encode(observation, num_players)
        timings.append((time.process_time() - start) / len(observations))
    return 1e6 * statistics.median(timings)


def direct_micros(game_id: str, num_players: int, repeats: int = 5) -> float:
    """Median microseconds per tensor from :mod:`envs.direct` (one playout's positions,
    the mover's view of each, in order; a fresh encoder per repeat)."""
    layout = spec(game_id).layout
    positions = decisions(game_id, num_players)
    timings = []
    for _ in range(repeats):
        encode = ENCODERS[game_id](layout, num_players)
        start = time.process_time()
        for position, seat in positions:
            encode(position, seat)
        timings.append((time.process_time() - start) / len(positions))
    return 1e6 * statistics.median(timings)


def ratio_rounds(game_id: str, num_players: int, seconds: float) -> tuple[Stability, float, float]:
    """Rounds of an engine run then an environment run, until the median of their ratios
    is stable (:func:`arena.bench.report.until_stable`): the verdict on the ratio and
    the median engine and environment rates."""
    rates: list[tuple[float, float]] = []

    def one_round() -> float:
        raw = engine_rate(game_id, num_players, seconds)
        wrapped = env_rate(game_id, num_players, seconds)
        rates.append((raw, wrapped))
        return wrapped / raw

    verdict, _ = until_stable(one_round)
    return (
        verdict,
        statistics.median(r for r, _ in rates),
        statistics.median(w for _, w in rates),
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(SUPPORTED))
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=2.0, help="per game, loop and round")
    args = parser.parse_args(argv)
    print(header_line(machine()))
    print(f"envs.direct: {native.status()[1]}")  # the build or the interpreted source
    print(
        f"{'game':18} {'engine/s':>10} {'env/s':>10} {'ratio':>6} {'rounds':>6} "
        f"{'encode_us':>10} {'direct_us':>10}"
    )
    for game_id in args.games.split(","):
        spec(game_id)  # names an unsupported game before any timing
        verdict, raw, wrapped = ratio_rounds(game_id, args.players, args.seconds)
        micros = encode_micros(game_id, args.players)
        direct = f"{direct_micros(game_id, args.players):10.1f}" if game_id in ENCODERS else "-"
        print(
            f"{game_id:18} {raw:10.0f} {wrapped:10.0f} {verdict.median:6.2f} "
            f"{verdict.repeats:6d} {micros:10.1f} {direct:>10}{verdict.note()}"
        )


if __name__ == "__main__":
    main()
