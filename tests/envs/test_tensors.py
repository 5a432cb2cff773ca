"""The tensors and action spaces of envs/ (envs.tensors, envs.layouts, envs.manatee): a
fixed shape for every state, seat and player count, the compiled encoder and the encoders
from a state's fields (envs.direct) equal to the fields' own; every legal action indexed
and back; and no hidden information: a state resampled from a seat's view encodes the
same for that seat."""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

import numpy as np
import pytest

from engine.core import JSON, sample_outcome
from engine.registry import get_game
from envs.direct import ENCODERS
from envs.layouts import HIDDEN_STATE, SUPPORTED, spec
from envs.manatee import ManateeActions
from envs.tensors import ActionSpace

PLAYOUTS = 2
"""Random playouts per game and player count (each step of each is checked)."""


def _check_playout(game_id: str, num_players: int, options: dict[str, JSON], seed: int) -> int:
    """One random playout, checking every step: each chance outcome and each legal action
    has its own index in range and comes back from it, each seat's tensor keeps the
    shape. Returns the decisions checked."""
    game, game_spec = get_game(game_id), spec(game_id)
    space, chance, layout = game_spec.actions, game_spec.chance, game_spec.layout
    direct = ENCODERS[game_id](layout, num_players) if game_id in ENCODERS else None
    rng = random.Random(seed)
    state = game.new_game(num_players, options)
    checked = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            for outcome, _ in outcomes:
                assert chance.actions[chance.index_of(outcome)] == outcome
            state.apply(sample_outcome(outcomes, rng))
            continue
        legal = state.legal_actions()
        by_index = space.legal(state)
        assert list(by_index.values()) == legal, "an index was given to two legal actions"
        assert all(0 <= i < space.size for i in by_index)
        assert all(space.label(i) for i in by_index)
        if isinstance(space, ActionSpace):
            assert all(space.actions[i] == a for i, a in by_index.items())
            assert np.array_equal(np.flatnonzero(space.mask(legal)), sorted(by_index))
        mover = state.current_player
        viewers = range(num_players) if num_players <= 4 else (mover, (mover + 1) % num_players)
        for viewer in viewers:
            observation = state.observation(viewer)
            vector = layout.encode(observation, num_players)
            assert vector.shape == (layout.size,) and vector.dtype == np.float32
            assert np.isfinite(vector).all()
            assert np.array_equal(vector, layout.encode_slowly(observation, num_players))
            if direct is not None:
                assert np.array_equal(vector, direct(state, viewer)), "envs.direct differs"
        state.apply(by_index[rng.choice(sorted(by_index))])
        checked += 1
    return checked


@pytest.mark.parametrize("game_id", SUPPORTED)
def test_playouts_round_trip_and_keep_the_shape(game_id: str) -> None:
    game = get_game(game_id)
    counts: Sequence[int] = game.player_counts()
    if game_id == "manatee_sanctuary":  # solo, standard at 2 and 4, Scramble at 7 and 12
        counts = (1, 2, 4, 7, 12)
    checked = 0
    for num_players in counts:
        options = game.variants(num_players)[0]
        for seed in range(PLAYOUTS if game_id != "manatee_sanctuary" else 1):
            checked += _check_playout(game_id, num_players, options, seed)
    assert checked > 0


MANATEE_GAMES = 300
"""Random Manatee Sanctuary games whose every offered action must have an index."""


def test_manatee_indexes_every_action_that_random_games_offer() -> None:
    """The hand slots, the window of cells and the return window hold every action that
    many random games offer, over every player count and variant (solo challenges,
    round bonuses, Scramble): the space is exact, never a mask that leaves one out."""
    game = get_game("manatee_sanctuary")
    space = spec("manatee_sanctuary").actions
    assert isinstance(space, ManateeActions)
    parts = space.parts()
    assert [o for o, _, _ in parts] == list(itertools.accumulate([0] + [w for _, w, _ in parts]))[
        :-1
    ]
    assert sum(w for _, w, _ in parts) == space.size
    cases = [(n, options) for n in game.player_counts() for options in game.variants(n)]
    checked = 0
    for seed in range(MANATEE_GAMES):
        num_players, options = cases[seed % len(cases)]
        checked += _check_playout_actions("manatee_sanctuary", num_players, options, seed)
    assert checked > 10_000


def _check_playout_actions(
    game_id: str, num_players: int, options: dict[str, JSON], seed: int
) -> int:
    """:func:`_check_playout` without the tensors (cheaper, for many games)."""
    game, space = get_game(game_id), spec(game_id).actions
    rng = random.Random(seed)
    state = game.new_game(num_players, options)
    checked = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply(sample_outcome(state.chance_outcomes(), rng))
            continue
        by_index = space.legal(state)
        assert list(by_index.values()) == state.legal_actions()
        assert all(0 <= i < space.size for i in by_index)
        state.apply(by_index[rng.choice(sorted(by_index))])
        checked += 1
    return checked


@pytest.mark.parametrize("game_id", SUPPORTED)
def test_what_a_seat_cannot_see_does_not_change_its_tensor(game_id: str) -> None:
    game, layout = get_game(game_id), spec(game_id).layout
    differing = 0
    for num_players in (game.min_players, game.max_players):
        rng = random.Random(7)
        state = game.new_game(num_players, game.variants(num_players)[0])
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


def test_a_value_outside_the_vocabulary_is_named_by_the_compiled_encoder_too() -> None:
    game = get_game("panorama")
    observation = game.new_game(2, None).observation(0)
    observation["token_face"] = "comet"
    with pytest.raises(ValueError, match="token_face: 'comet' is not in the layout's vocabulary"):
        spec("panorama").layout.encode(observation, 2)
