"""Manatee Sanctuary's hot-path shortcuts answer what the long way answers.

A sanctuary remembers its expand actions per card until it changes (copies share them
until one of them places a card), and a play's legality is checked without listing the
plays. On every position of random games these are compared with the long way: the
expands listed from ``placements_for`` afresh, and ``action in legal_actions()`` for
every act and for every expand on and around the frontier (legal or not).
"""

from __future__ import annotations

import random

import pytest

from engine import CHANCE, TERMINAL, Action, get_game
from engine.core import sample_outcome
from engine.manatee_sanctuary.actions import ACTS, ROTATIONS, Expand, expand_action
from engine.manatee_sanctuary.data import CARD_ID
from engine.manatee_sanctuary.geometry import DX, DY
from engine.manatee_sanctuary.state import ManateeSanctuaryState
from engine.manatee_sanctuary.steps import PLAY


def plays_the_long_way(state: ManateeSanctuaryState) -> list[Action]:
    """The legal plays listed from the geometry afresh (no remembered expands)."""
    p = state.players[state.current]
    out: list[Action] = []
    for c in p.hand:
        out.append(ACTS[c])
        out.extend(expand_action(c, x, y, r) for x, y, r in p.sanctuary.placements_for(c))
    return out


GAME = get_game("manatee_sanctuary")
CASES = [
    (players, variant)
    for players in (1, 2, 3, 4, 8)
    for variant in range(len(GAME.variants(players)))
]
"""Every variant of 1-4 seats (solo challenges, round bonuses) and a Scramble table."""


def play_positions(players: int, seed: int, variant: int = 0) -> list[ManateeSanctuaryState]:
    """The play-step positions of one random game, played on copies (so the sanctuaries
    of the kept positions share remembered expands with the copies that moved on)."""
    state = GAME.new_game(players, GAME.variants(players)[variant])
    assert isinstance(state, ManateeSanctuaryState)
    rng = random.Random(seed)
    out: list[ManateeSanctuaryState] = []
    while state.current_player != TERMINAL:
        if state.current_player == CHANCE:
            state.apply(sample_outcome(state.chance_outcomes(), rng))
            continue
        legal = state.legal_actions()
        if state.step == PLAY:
            out.append(state)
            state = state.clone()
        state.apply(legal[rng.randrange(len(legal))])
    return out


@pytest.mark.parametrize(("players", "variant"), CASES)
def test_plays_and_their_legality_equal_the_long_way(players: int, variant: int) -> None:
    checked = 0
    for seed in range(2):
        positions = play_positions(players, seed, variant)
        assert positions
        for state in positions:
            legal = state.legal_actions()
            assert legal == plays_the_long_way(state)
            p = state.players[state.current]
            cards = sorted(set(p.hand) | {0, 17, len(CARD_ID) - 1})
            cells = {(x + dx, y + dy) for x, y in p.sanctuary.cells for dx in DX for dy in DY}
            for c in cards:
                assert state.is_legal(ACTS[c]) == (ACTS[c] in legal)
                for x, y in cells:
                    for rot in ROTATIONS:
                        action = Expand(CARD_ID[c], x, y, rot)
                        assert state.is_legal(action) == (action in legal), action
                        checked += 1
            # a rotation that is no quarter turn is never legal
            assert not state.is_legal(Expand(CARD_ID[p.hand[0]], 1, 0, 45))  # type: ignore[arg-type]
    assert checked > 500


def test_a_copy_that_expands_does_not_change_the_original_plays() -> None:
    """Copies share remembered expands only while their sanctuaries are the same."""
    for state in play_positions(3, 5)[:12]:
        before = state.legal_actions()
        expands = [a for a in before if isinstance(a, Expand)]
        for action in expands[:3]:
            other = state.clone()
            other.apply(action)
            assert state.legal_actions() == before == plays_the_long_way(state)
            # the copy's seat plays again later with its own (changed) sanctuary
            seat = state.current
            mine = other.players[seat]
            fresh = [
                expand_action(c, x, y, r)
                for c in mine.hand
                for x, y, r in mine.sanctuary.placements_for(c)
            ]
            assert [e for c in mine.hand for e in mine.sanctuary.expands(c)] == fresh
