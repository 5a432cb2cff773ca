"""Resampling's fast paths draw exactly what the plain code drew.

Resamples shuffle with an inlined Fisher-Yates (:func:`engine.core.shuffle`), and Carson
City Zoo's keeps each board's grouping (:class:`~engine.carson_city_zoo.state.BoardDraw`)
between draws. These tests run the reference code (``random.Random.shuffle``, the
grouping redone per call, as before the fast path) beside it with the same seed, on
positions of random games (deal phase included), and assert the same cards on the same
slots *and* the same generator state afterwards, so a seeded search draws the same
determinizations and stays reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

import pytest

from engine import CHANCE, TERMINAL, get_game
from engine.carson_city_zoo.data import CARD_VALUE, DEAL, NUM_SPACES
from engine.carson_city_zoo.state import CarsonCityZooState, draw_board_cards
from engine.core import sample_outcome, shuffle
from tests.games.kit import positions


def draw_board_cards_reference(
    pool: Iterable[int],
    visible: Sequence[tuple[int, int]],
    hidden: Sequence[int],
    rng: random.Random,
) -> tuple[dict[int, int], list[int]]:
    """The deal as written before the fast path (library shuffles, one list per call)."""
    by_value: list[list[int]] = [[] for _ in range(5)]
    for card in sorted(pool):
        by_value[CARD_VALUE[card]].append(card)
    for cards in by_value:
        rng.shuffle(cards)
    out: dict[int, int] = {}
    for slot, value in visible:
        if not 0 <= value < len(by_value) or not by_value[value]:
            raise ValueError(f"no zoo card of face value {value} is left for deal slot {slot}")
        out[slot] = by_value[value].pop()
    rest = sorted(card for cards in by_value for card in cards)
    if len(rest) < len(hidden):
        raise ValueError(f"{len(hidden)} covered cards but only {len(rest)} zoo cards left")
    rng.shuffle(rest)
    for slot in hidden:
        out[slot] = rest.pop()
    return out, sorted(rest)


def board_slots(
    state: CarsonCityZooState,
) -> tuple[list[int], list[tuple[int, int]], list[int]]:
    """(pool, visible, hidden) of ``state``'s board, as ``resample`` read them before."""
    show_faces = state.phase != DEAL
    visible: list[tuple[int, int]] = []
    hidden: list[int] = []
    pool = list(state.undealt)
    for s in range(NUM_SPACES):
        b, t = state.bottom[s], state.top[s]
        for slot, card in ((s, b), (NUM_SPACES + s, t)):
            if card < 0:
                continue
            pool.append(card)
            if show_faces and (slot >= NUM_SPACES or t < 0):
                visible.append((slot, CARD_VALUE[card]))
            else:
                hidden.append(slot)
    return pool, visible, hidden


def carson_positions(players: int, seed: int) -> list[CarsonCityZooState]:
    """Every position of one random game (chance nodes of the deal included)."""
    game = get_game("carson_city_zoo")
    state = game.new_game(players, game.variants(players)[0])
    assert isinstance(state, CarsonCityZooState)
    return positions(state, random.Random(seed))[:-1]


def test_shuffle_is_the_library_shuffle() -> None:
    """Same permutation, same generator state, for every length a deal shuffles."""
    for n in range(60):
        for seed in range(20):
            mine, theirs = random.Random(seed), random.Random(seed)
            a, b = list(range(n)), list(range(n))
            shuffle(a, mine)
            theirs.shuffle(b)
            assert a == b
            assert mine.getstate() == theirs.getstate()


class LibraryRandom(random.Random):
    """A plain generator under another class: :func:`shuffle` leaves it to the library's
    ``shuffle``, whose draws are ``random.Random``'s own (same ``_randbelow``)."""


@pytest.mark.parametrize("game_id", ["carson_city_zoo", "manatee_sanctuary"])
def test_resample_with_the_inlined_shuffle_equals_the_library_one(game_id: str) -> None:
    """Whole resamples: the same state (digest) and generator state either way."""
    game = get_game(game_id)
    compared = 0
    for players in (2, 3):
        state = game.new_game(players, game.variants(players)[0])
        rng = random.Random(players)
        step = 0
        while state.current_player != TERMINAL:
            if state.current_player == CHANCE:
                state.apply(sample_outcome(state.chance_outcomes(), rng))
                continue
            if step % 3 == 0:
                seat = state.current_player
                for k in range(2):
                    mine, theirs = random.Random(k), LibraryRandom(k)
                    assert state.resample(seat, mine).digest() == (
                        state.resample(seat, theirs).digest()
                    )
                    assert mine.getstate() == theirs.getstate()
                    compared += 1
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
            step += 1
    assert compared > 20


def test_shuffle_defers_to_other_generators() -> None:
    """A generator that is not a plain ``random.Random`` shuffles its own way."""

    class Reversing(random.Random):
        def shuffle(self, x: list[int]) -> None:  # type: ignore[override]
            x.reverse()

    cards = [1, 2, 3]
    shuffle(cards, Reversing(0))
    assert cards == [3, 2, 1]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_carson_resample_draws_what_the_reference_drew(players: int) -> None:
    compared = 0
    for seed in range(3):
        for state in carson_positions(players, seed)[::3]:
            pool, visible, hidden = board_slots(state)
            for k in range(2):
                mine, theirs = random.Random(k), random.Random(k)
                assert draw_board_cards(pool, visible, hidden, mine) == (
                    draw_board_cards_reference(pool, visible, hidden, theirs)
                )
                assert mine.getstate() == theirs.getstate()
                # the state's resample (kept grouping) deals the same cards
                mine, theirs = random.Random(k), random.Random(k)
                other = state.resample(0, mine)
                assert isinstance(other, CarsonCityZooState)
                cards, rest = draw_board_cards_reference(pool, visible, hidden, theirs)
                assert mine.getstate() == theirs.getstate()
                assert other.undealt == rest
                for slot, card in cards.items():
                    assert other.dealt[slot] == card
                    layer = other.bottom if slot < NUM_SPACES else other.top
                    assert layer[slot % NUM_SPACES] == card
                compared += 1
    assert compared > 100


def test_board_draw_rejects_what_the_reference_rejects() -> None:
    """Too many faces of one value, or too few cards left: the same clear errors."""
    with pytest.raises(ValueError, match="no zoo card of face value 4"):
        draw_board_cards([40, 41], [(25, 4), (26, 4), (27, 4)], [], random.Random(0))
    with pytest.raises(ValueError, match="2 covered cards but only 1 zoo cards left"):
        draw_board_cards([3, 40], [(25, 4)], [0, 1], random.Random(0))
