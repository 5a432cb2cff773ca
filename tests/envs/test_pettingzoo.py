"""The PettingZoo environments of envs.pettingzoo: PettingZoo's own API and seed tests for
every game at two player counts, full games whose rewards follow the engine's result, and
clear errors for bad arguments and illegal actions."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from engine.core import IllegalActionError
from engine.registry import get_game
from envs.layouts import SUPPORTED
from envs.pettingzoo import env

CASES = [(g, n) for g in SUPPORTED for n in sorted({2, get_game(g).max_players})]
"""Every game at two players and at its largest count (with the options of the count's
first variant: Manatee Sanctuary needs Scramble for more than 6)."""


def _quiet_api_test(game_id: str, num_players: int) -> None:
    options = get_game(game_id).variants(num_players)[0]
    with warnings.catch_warnings():
        # the dict observation (observation + action_mask) is what PettingZoo's own
        # classic games use; api_test warns about it for them too
        warnings.filterwarnings("ignore", message="Observation space for each agent")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        api_test(env(game_id, num_players, options, seed=3), num_cycles=1000)


@pytest.mark.parametrize(("game_id", "num_players"), CASES)
def test_pettingzoo_api_and_seed_tests_pass(game_id: str, num_players: int) -> None:
    _quiet_api_test(game_id, num_players)
    options = get_game(game_id).variants(num_players)[0]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Observation")
        seed_test(lambda: env(game_id, num_players, options), num_cycles=200)


def _play(game_id: str, num_players: int, seed: int, reward: str) -> tuple[Any, dict[str, float]]:
    """A full game with the lowest legal index each turn; (env, total reward per agent)."""
    aec = env(game_id, num_players=num_players, seed=seed, reward=reward)  # type: ignore[arg-type]
    aec.reset()
    totals = dict.fromkeys(aec.possible_agents, 0.0)
    for agent in aec.agent_iter(max_iter=10_000):
        observation, reward_now, terminated, truncated, _ = aec.last()
        totals[agent] += reward_now
        if terminated or truncated:
            aec.step(None)
            continue
        assert observation["observation"].shape == aec.observation_space(agent)["observation"].shape
        aec.step(int(np.flatnonzero(observation["action_mask"])[0]))
    assert not aec.agents, "the game did not end"
    return aec, totals


@pytest.mark.parametrize("game_id", SUPPORTED)
def test_a_full_game_rewards_the_final_ranks_or_scores(game_id: str) -> None:
    aec, by_rank = _play(game_id, 3, seed=5, reward="rank")
    result = aec.unwrapped.game_state.result()
    assert by_rank == {
        f"player_{s}": 1.0 - (result.ranks[s] - 1) for s in range(3)
    }  # three seats: +1, 0, -1
    aec2, by_score = _play(game_id, 3, seed=5, reward="score")
    assert by_score == {f"player_{s}": float(result.scores[s]) for s in range(3)}
    assert aec2.unwrapped.game_state.digest() == aec.unwrapped.game_state.digest()


def test_bad_arguments_and_illegal_actions_are_named() -> None:
    with pytest.raises(ValueError, match="reward must be one of rank, score"):
        env("panorama", reward="elo")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        env("chess")
    with pytest.raises(ValueError, match="player"):
        env("panorama", num_players=9)
    aec = env("panorama", num_players=2, seed=1)
    aec.reset()
    mask = aec.last()[0]["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalActionError, match=f"action {illegal} .* is not legal now"):
        aec.step(illegal)
    with pytest.raises(IllegalActionError, match=r"action -1 is outside 0\.\.\d+"):
        aec.step(-1)


def test_observations_are_built_once_per_step_and_only_after_reset() -> None:
    """``observe`` encodes a seat's observation once per step (a second call returns the
    same arrays), a new step builds a new one, and a seat not to move gets an all-zero
    mask; stepping or observing before ``reset`` is refused."""
    aec = env("dziobaki", num_players=2, seed=2)
    with pytest.raises(RuntimeError, match="reset"):
        aec.step(0)
    with pytest.raises(RuntimeError, match="reset"):
        aec.observe("player_0")
    aec.reset()
    mover = aec.agent_selection
    other = next(a for a in aec.possible_agents if a != mover)
    first = aec.observe(mover)
    assert aec.observe(mover) is first
    assert first["action_mask"].any() and not aec.observe(other)["action_mask"].any()
    aec.step(int(np.flatnonzero(first["action_mask"])[0]))
    assert aec.observe(mover) is not first
