"""The search bots' shortcuts change nothing they compute.

ISMCTS reuses a node's prior ranking while the determinizations offer the same legal
actions, and the engines keep or skip work on their hot paths (Carson City Zoo's
resample keeps the legal-action cache, Zooloretto Mini and Panorama check a draw or a
reveal against the undrawn or unrevealed tiles). Each test runs the shortcut beside the
long way on positions of random games and asserts the same outcome.
"""

from __future__ import annotations

import random

import pytest

from bots.base import Turn
from bots.heuristics import Heuristic
from bots.ismcts import IsmctsBot, Node
from engine import CHANCE, GAMES, TERMINAL, Action, State, get_game
from engine.core import sample_outcome


class UncachedIsmcts(IsmctsBot):
    """ISMCTS that forgets every node's ranking before ranking again (the long way)."""

    def _candidates(
        self, node: Node, state: State, legal: list[Action], h: Heuristic, rng: random.Random
    ) -> list[Action]:
        node.ranked = node.ranked_for = None
        return super()._candidates(node, state, legal, h, rng)


def decisions(game_id: str, players: int, seed: int, every: int) -> list[State]:
    """Every ``every``-th decision (more than one legal action) of a random game."""
    game = get_game(game_id)
    state = game.new_game(players, game.variants(players)[0])
    rng = random.Random(seed)
    out: list[State] = []
    step = 0
    while state.current_player != TERMINAL:
        if state.current_player == CHANCE:
            state.apply(sample_outcome(state.chance_outcomes(), rng))
            continue
        legal = state.legal_actions()
        if len(legal) > 1:
            if step % every == 0:
                out.append(state.clone())
            step += 1
        state.apply(legal[rng.randrange(len(legal))])
    return out


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_ismcts_ranking_cache_gives_the_same_tree(game_id: str) -> None:
    """Root visit counts and rewards equal, bit for bit, with and without the cache."""
    compared = 0
    for state in decisions(game_id, 3 if 3 in GAMES[game_id].player_counts() else 1, 3, 7):
        seat = state.current_player
        fast = IsmctsBot(iterations=80).search(Turn.of(state, seat, random.Random(seat)), None)
        slow = UncachedIsmcts(iterations=80).search(Turn.of(state, seat, random.Random(seat)), None)
        assert {a: (c.visits, c.reward) for a, c in fast.children.items()} == {
            a: (c.visits, c.reward) for a, c in slow.children.items()
        }
        compared += 1
    assert compared >= 3


@pytest.mark.parametrize("players", [2, 4])
def test_carson_resample_keeps_the_right_legal_actions(players: int) -> None:
    """A resampled position's (kept) legal actions equal ones computed afresh."""
    checked = 0
    for state in decisions("carson_city_zoo", players, 9, 1):
        for seed in range(2):
            other = state.resample(state.current_player, random.Random(seed))
            kept = other.legal_actions()
            other._fields_changed()
            assert kept == other.legal_actions()
            checked += 1
    assert checked > 50


@pytest.mark.parametrize("game_id", ["carson_city_zoo", "panorama", "zooloretto_mini"])
def test_chance_legality_equals_the_generic_check(game_id: str) -> None:
    """At every chance node of random games, the engine's own ``is_legal`` (a lookup in
    the undealt/unrevealed/undrawn components) answers as the base class does, for every
    outcome and for outcomes that are not legal there (ones drawn earlier)."""
    checked = 0
    game = get_game(game_id)
    for players in (2, 4):
        state = game.new_game(players, game.variants(players)[0])
        rng = random.Random(players)
        seen: list[Action] = []
        while state.current_player != TERMINAL:
            if state.current_player == CHANCE:
                outcomes = state.chance_outcomes()
                for probe in [o for o, _ in outcomes] + seen[-8:]:
                    assert state.is_legal(probe) == State.is_legal(state, probe)
                    checked += 1
                outcome = sample_outcome(outcomes, rng)
                seen.append(outcome)
                state.apply(outcome)
            else:
                legal = state.legal_actions()
                state.apply(legal[rng.randrange(len(legal))])
    assert checked > 300
