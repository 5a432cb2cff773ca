"""The OpenSpiel games of envs.openspiel: OpenSpiel's own random simulation test for every
game, chance outcomes as the engine's, and OpenSpiel's MCTS playing on one of them."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import mcts

import envs.openspiel  # noqa: F401  # registers the games
from engine.registry import get_game
from envs.layouts import HIDDEN_STATE, SUPPORTED, spec


@pytest.mark.parametrize("game_id", SUPPORTED)
def test_openspiel_random_simulation_test_passes(game_id: str) -> None:
    game = pyspiel.load_game(f"menagerie_{game_id}", {"players": 3})
    kind = game.get_type()
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert (kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION) == (
        game_id in HIDDEN_STATE
    )
    assert game.num_distinct_actions() == spec(game_id).actions.size
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


@pytest.mark.parametrize("game_id", SUPPORTED)
def test_chance_nodes_are_the_engines(game_id: str) -> None:
    game = pyspiel.load_game(f"menagerie_{game_id}", {"players": 2})
    state = game.new_initial_state()
    engine_state = get_game(game_id).new_game(2, None)
    chance = spec(game_id).chance
    assert state.is_chance_node()
    outcomes = dict(state.chance_outcomes())
    assert outcomes == {chance.index_of(o): p for o, p in engine_state.chance_outcomes()}
    assert sum(outcomes.values()) == pytest.approx(1.0)


def test_openspiel_mcts_plays_panorama() -> None:
    game = pyspiel.load_game("menagerie_panorama", {"players": 2})
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, 1.4, 20, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    state = game.new_initial_state()
    moves = 0
    while not state.is_terminal() and moves < 4:
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
            continue
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        moves += 1
    assert moves == 4


def test_a_bad_player_count_is_named() -> None:
    with pytest.raises(Exception, match="player"):
        pyspiel.load_game("menagerie_panorama", {"players": 7})
