"""The encoders from a state's fields (envs.direct) against the layouts' encoding of the
JSON observation, the reference: equal at every position of many random games, for
every seat, every player count and every variant, so a direct encoder carries exactly
what the observation carries (no hidden information: what ``tests/envs/test_tensors``
proves of the layout holds for it). The encoders keep the last vector of each seat and
rewrite only the parts whose inputs changed, so the games are played two at a time in
lockstep through one encoder, each seat observed in a shuffled order: a part left over
from the other game or from a seat's older position would show as a difference. Both
implementations are checked: the mypyc build that ``make test`` loads and the interpreted
source that runs without it (envs.native)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from engine.core import JSON, State, sample_outcome
from engine.registry import get_game
from envs.direct import ENCODERS, Direct
from envs.layouts import SUPPORTED, spec
from envs.native import interpreted

IMPLEMENTATIONS = {
    "loaded": ENCODERS,  # the build, in `make test` (tests/envs/test_native.py)
    "interpreted": interpreted("envs.direct").ENCODERS,
}

GAMES = 4
"""Random games per player count and variant (played two at a time)."""
MANATEE_GAMES = 2
"""Manatee Sanctuary's games per player count and variant (up to 12 seats, long games)."""


def test_every_game_has_an_encoder_from_its_fields() -> None:
    assert set(ENCODERS) == set(SUPPORTED)


def _advance(state: State, rng: random.Random) -> bool:
    """One step of a random playout (chance sampled); False once the game is over."""
    if state.is_terminal():
        return False
    if state.is_chance_node():
        state.apply(sample_outcome(state.chance_outcomes(), rng))
    else:
        state.apply(rng.choice(state.legal_actions()))
    return True


def _check_lockstep(
    game_id: str, num_players: int, options: dict[str, JSON], seed: int, direct: Direct
) -> int:
    """Two random games at once through ``direct``; every seat of each, at every
    position, equals the layout's encoding of its observation. Returns the checks."""
    game, layout = get_game(game_id), spec(game_id).layout
    rng = random.Random(seed)
    states = [game.new_game(num_players, options) for _ in range(2)]
    going = [True, True]
    checked = 0
    while any(going):
        for k, state in enumerate(states):
            if not going[k]:
                continue
            seats = list(range(num_players))
            rng.shuffle(seats)
            for seat in seats[: min(num_players, 4)]:
                expected = layout.encode(state.observation(seat), num_players)
                got = direct(state, seat)
                assert got.dtype == np.float32 and got.shape == (layout.size,)
                if not np.array_equal(got, expected):
                    wrong = np.flatnonzero(got != expected)[:5].tolist()
                    names = [
                        n for at, w, n, _ in layout.describe() for i in wrong if at <= i < at + w
                    ]
                    raise AssertionError(
                        f"{game_id} {num_players}p {options} seed {seed}, seat {seat} at step "
                        f"{len(state.history)}: positions {wrong} ({names}) differ"
                    )
                got[:] = -1.0  # a vector handed out is the caller's: the next one is unharmed
                checked += 1
            going[k] = _advance(state, rng)
    return checked


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@pytest.mark.parametrize("game_id", SUPPORTED)
def test_the_direct_encoder_equals_the_observations_encoding(
    game_id: str, implementation: str
) -> None:
    encoders = IMPLEMENTATIONS[implementation]
    game = get_game(game_id)
    games = MANATEE_GAMES if game_id == "manatee_sanctuary" else GAMES
    checked = 0
    for num_players in game.player_counts():
        direct = encoders[game_id](spec(game_id).layout, num_players)
        for v, options in enumerate(game.variants(num_players)):
            for pair in range(games // 2):
                seed = 1000 * num_players + 10 * v + pair
                checked += _check_lockstep(game_id, num_players, options, seed, direct)
    assert checked > 1000
