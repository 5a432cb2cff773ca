"""The OpenSpiel games of envs.openspiel: OpenSpiel's own random simulation test for every
game, chance outcomes as the engine's, information states that hold nothing hidden, and
OpenSpiel's MCTS, ISMCTS and outcome-sampling MCCFR running on them."""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts, outcome_sampling_mccfr

import envs.openspiel  # noqa: F401  # registers the games
from engine.core import Action
from engine.manatee_sanctuary.actions import Deal
from engine.manatee_sanctuary.data import CARD_ID
from engine.manatee_sanctuary.steps import PLAY as PLAY_STEP
from engine.registry import get_game
from envs.layouts import HIDDEN_STATE, SUPPORTED, spec
from envs.openspiel import MenagerieState

SIM_CASES = [
    *[(g, 3) for g in SUPPORTED],
    ("manatee_sanctuary", 2),
    pytest.param("manatee_sanctuary", 12, marks=pytest.mark.slow),  # 12 seats: 10-20 s
]
"""Every game at three seats, and Manatee Sanctuary at two and twelve (Scramble)."""


@pytest.mark.parametrize(("game_id", "num_players"), SIM_CASES)
def test_openspiel_random_simulation_test_passes(game_id: str, num_players: int) -> None:
    options = json.dumps(get_game(game_id).variants(num_players)[0])
    params = {"players": num_players, "options": options}
    game = pyspiel.load_game(f"menagerie_{game_id}", params)
    kind = game.get_type()
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert (kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION) == (
        game_id in HIDDEN_STATE
    )
    assert game.num_distinct_actions() == spec(game_id).actions.size
    sims = 1 if num_players > 6 else 2
    pyspiel.random_sim_test(game, num_sims=sims, serialize=False, verbose=False)


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


def test_bad_parameters_are_named() -> None:
    with pytest.raises(Exception, match="player"):
        pyspiel.load_game("menagerie_panorama", {"players": 7})
    with pytest.raises(Exception, match="options must be a JSON object"):
        pyspiel.load_game("menagerie_panorama", {"options": "[1]"})
    with pytest.raises(Exception, match="no option 'bonus'"):
        pyspiel.load_game("menagerie_dziobaki", {"options": '{"bonus": 1}'})
    with pytest.raises(Exception, match="has hidden state: imperfect must stay true"):
        pyspiel.load_game("menagerie_dziobaki", {"imperfect": False})
    scramble = pyspiel.load_game(
        "menagerie_manatee_sanctuary", {"players": 8, "options": '{"scramble": true}'}
    )
    assert scramble.new_initial_state().engine_state.options["scramble"] is True


def _index_of(state: MenagerieState, action: Action) -> int:
    """The OpenSpiel index of engine ``action`` in ``state``."""
    engine_state = state.engine_state
    game_spec = spec(state.game_id)
    if engine_state.is_chance_node():
        return game_spec.chance.index_of(action)
    return {a: i for i, a in game_spec.actions.legal(engine_state).items()}[action]


def _replay(game: Any, history: list[Action]) -> MenagerieState:
    state = game.new_initial_state()
    for action in history:
        state.apply_action(_index_of(state, action))
    return state


RESAMPLED_HISTORY = [g for g in SUPPORTED if g != "manatee_sanctuary"]
"""Games whose ``State.resample`` rewrites the history too (Manatee's does not: O4)."""


@pytest.mark.parametrize("game_id", RESAMPLED_HISTORY)
def test_histories_that_differ_only_in_hidden_info_give_one_information_state(
    game_id: str,
) -> None:
    """The seat to move and a state resampled from its view (another history of the
    same information set, replayed step by step) read the same information state."""
    game = pyspiel.load_game(f"menagerie_{game_id}", {"players": 3})
    rng = random.Random(11)
    state = game.new_initial_state()
    differing = checked = decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
            continue
        seat = state.current_player()
        decisions += 1
        if decisions % 4 == 1:
            other = state.engine_state.resample(seat, random.Random(rng.random()))
            twin = _replay(game, other.history)
            assert twin.engine_state.digest() == other.digest()
            differing += other.digest() != state.engine_state.digest()
            assert twin.information_state_string(seat) == state.information_state_string(seat)
            checked += 1
        state.apply_action(rng.choice(state.legal_actions()))
    assert checked > 5
    if game_id in HIDDEN_STATE:
        assert differing > 0, "the resamples never differed: the test proved nothing"


def test_manatee_deals_a_seat_cannot_see_leave_its_information_state_alone() -> None:
    """Two 3-seat Manatee games that differ only in seat 1's five cards of round 1 (it
    splits and keeps by the same positions): seat 0, which neither deals to nor receives
    from seat 1 in round 1, reads the same information state at every step until seat 1
    plays a card; seat 1 does not."""
    game = pyspiel.load_game("menagerie_manatee_sanctuary", {"players": 3})
    chance = spec("manatee_sanctuary").chance
    rng = random.Random(4)
    first, second = game.new_initial_state(), game.new_initial_state()
    swap: dict[str, str] = {}
    compared = 0
    while not first.is_terminal():
        engine_state = first.engine_state
        if engine_state.is_chance_node():
            outcomes, probs = zip(*first.chance_outcomes(), strict=True)
            index = rng.choices(outcomes, probs)[0]
            other = index
            deal = chance.actions[index]
            if isinstance(deal, Deal) and deal.seat == 1 and engine_state.round == 1:
                left = [c for c in engine_state.deck if CARD_ID[c] not in swap.values()]
                spare = [CARD_ID[c] for c in left[::-1]]  # the far end: dealt last, if ever
                swap[deal.card] = next(c for c in spare if c != deal.card)
                other = chance.index_of(Deal(1, swap[deal.card]))
        else:
            if engine_state.current_player == 1 and engine_state.step == PLAY_STEP:
                break
            index = other = rng.choice(first.legal_actions())
        first.apply_action(index)
        second.apply_action(other)
        assert first.information_state_string(0) == second.information_state_string(0)
        compared += 1
    assert len(swap) == 5 and compared > 20
    assert first.engine_state.digest() != second.engine_state.digest()
    assert first.information_state_string(1) != second.information_state_string(1)


@pytest.mark.parametrize("game_id", SUPPORTED)
def test_openspiel_ismcts_plays_a_full_game(game_id: str) -> None:
    """OpenSpiel's ISMCTS (keyed by the information state, searching states drawn by
    ``resample_from_infostate``) plays seat 0 of a whole two-seat game."""
    game = pyspiel.load_game(f"menagerie_{game_id}", {"players": 2, "imperfect": True})
    rng = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(1, rng)
    bot = ismcts.ISMCTSBot(game, evaluator, 2.0, 4, random_state=rng)
    state = game.new_initial_state()
    searched = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
            continue
        if state.current_player() == 0:
            action = bot.step(state)
            assert action in state.legal_actions()
            searched += 1
        else:
            action = int(rng.choice(state.legal_actions()))
        state.apply_action(action)
    assert searched > 5
    ranks = state.engine_state.result().ranks
    # rank rewards (a general-sum game): +1 for rank 1, -1 for rank 2; a tie is two firsts
    assert state.returns() == [1.0 if rank == 1 else -1.0 for rank in ranks]
    assert sorted(state.returns()) in ([-1.0, 1.0], [1.0, 1.0])


def test_outcome_sampling_mccfr_runs_on_dziobaki() -> None:
    """A CFR-family algorithm on a whole game: outcome-sampling MCCFR walks one sampled
    trajectory per iteration, so it runs on any of the games (tabular CFR would visit the
    whole tree, far beyond reach); its average policy is a distribution over the legal
    actions of each information state it met."""
    game = pyspiel.load_game("menagerie_dziobaki", {"players": 2})
    np.random.seed(3)
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    for _ in range(5):
        solver.iteration()
    policy = solver.average_policy()
    state = game.new_initial_state()
    while state.is_chance_node():
        outcomes, _ = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(outcomes[0])
    probabilities = policy.action_probabilities(state)
    assert set(probabilities) == set(state.legal_actions())
    assert sum(probabilities.values()) == pytest.approx(1.0)
    assert len(solver._infostates) > 10  # the tables it filled
