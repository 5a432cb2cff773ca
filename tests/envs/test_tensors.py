"""The tensors and action spaces of envs/ (envs.tensors, envs.layouts): a fixed shape for
every state, seat and player count; every legal action indexed and back; and no hidden
information: a state resampled from a seat's view encodes the same for that seat."""

from __future__ import annotations

import random

import numpy as np
import pytest

from engine.core import sample_outcome
from engine.registry import get_game
from envs.layouts import HIDDEN_STATE, SUPPORTED, spec

PLAYOUTS = 2
"""Random playouts per game and player count (each step of each is checked)."""


@pytest.mark.parametrize("game_id", SUPPORTED)
def test_playouts_round_trip_and_keep_the_shape(game_id: str) -> None:
    game, game_spec = get_game(game_id), spec(game_id)
    space, chance, layout = game_spec.actions, game_spec.chance, game_spec.layout
    checked = 0
    for num_players in game.player_counts():
        for seed in range(PLAYOUTS):
            rng = random.Random(seed)
            state = game.new_game(num_players, None)
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    for outcome, _ in outcomes:
                        assert chance.actions[chance.index_of(outcome)] == outcome
                    state.apply(sample_outcome(outcomes, rng))
                    continue
                legal = state.legal_actions()
                mask = space.mask(legal)
                indices = np.flatnonzero(mask)
                assert [space.actions[i] for i in indices] == sorted(legal, key=space.index_of)
                assert [space.index_of(a) for a in legal] == [
                    space.index_of(space.actions[space.index_of(a)]) for a in legal
                ]
                for viewer in range(num_players):
                    vector = layout.encode(state.observation(viewer), num_players)
                    assert vector.shape == (layout.size,) and vector.dtype == np.float32
                    assert np.isfinite(vector).all()
                state.apply(space.actions[int(rng.choice(list(indices)))])
                checked += 1
    assert checked > 0


@pytest.mark.parametrize("game_id", SUPPORTED)
def test_what_a_seat_cannot_see_does_not_change_its_tensor(game_id: str) -> None:
    game, layout = get_game(game_id), spec(game_id).layout
    differing = 0
    for num_players in (game.min_players, game.max_players):
        rng = random.Random(7)
        state = game.new_game(num_players, None)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply(sample_outcome(state.chance_outcomes(), rng))
                continue
            seat = state.current_player
            resampled = state.resample(seat, random.Random(rng.random()))
            differing += resampled.digest() != state.digest()
            mine = layout.encode(state.observation(seat), num_players)
            theirs = layout.encode(resampled.observation(seat), num_players)
            assert np.array_equal(mine, theirs)
            state.apply(rng.choice(state.legal_actions()))
    if game_id in HIDDEN_STATE:
        assert differing > 0, "the resamples never differed: the test proved nothing"


@pytest.mark.parametrize("game_id", SUPPORTED)
def test_the_layout_is_described_field_by_field(game_id: str) -> None:
    layout = spec(game_id).layout
    rows = layout.describe()
    assert sum(width for _, width, _, _ in rows) == layout.size
    assert all(name for _, _, name, _ in rows)
    offsets = [offset for offset, _, _, _ in rows]
    assert offsets == sorted(offsets) and offsets[0] == 0


def test_unknown_games_and_actions_are_named() -> None:
    with pytest.raises(ValueError, match="no tensor layout for 'chess'"):
        spec("chess")
    from engine.zooloretto_mini.actions import RemoveSpecies

    with pytest.raises(ValueError, match="not in the action space"):
        spec("zooloretto_mini").actions.index_of(RemoveSpecies("S1"))


def test_describe_prints_every_part_of_the_layout() -> None:
    from envs.describe import describe, main

    text = describe("panorama")
    assert text.splitlines()[0].startswith(f"panorama: observation {spec('panorama').layout.size}")
    assert len(text.splitlines()) == 3 + len(spec("panorama").layout.describe())
    assert main(["chess"]) == 2
