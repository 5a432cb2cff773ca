"""Test helpers for Panorama: a forced setup played through the public API, and two builders
of positions that play cannot reach in a reasonable number of steps.

``setup`` applies the setup chance nodes with the given outcomes (``reveal`` for each
space's top, ``balloon_drop`` for each space's balloon). ``build_position`` and ``finished``
construct a state with :func:`engine.fields.build`, naming every field; each says what it
builds and why play cannot get there quickly.
"""

from __future__ import annotations

from engine.core import JSON, TERMINAL
from engine.fields import build
from engine.panorama import GAME, PanoramaState
from engine.panorama.data import (
    FLY_PHASE,
    GOAL_SETS,
    NUM_TILES,
    OVER,
    STACK_SIZE,
    START_TILE,
    TILE_INDEX,
)
from engine.panorama.state import order_goals
from tests.games.kit import GameKit, act

KIT = GameKit(GAME, PanoramaState)


def setup(num_players: int, tops: list[str], drops: list[int], **options: JSON) -> PanoramaState:
    """A new game with the given initial reveal outcomes and balloon drops forced."""
    state = KIT.new(num_players, options or None)
    for space, tile in enumerate(tops):
        act(state, kind="reveal", space=space, tile=tile)
    for space, seat in enumerate(drops):
        act(state, kind="balloon_drop", space=space, seat=seat)
    return state


def build_position(
    num_players: int, stacks: list[list[str]], balloons: list[int], active: int
) -> PanoramaState:
    """A mid-game position with given stacks and balloon spaces (not reachable quickly).

    The spec's C06/C07 positions have stacks of 1-3 tiles and balloons off spaces 0..p-1,
    which play reaches only after a long, contrived prefix. ``stacks[s]`` lists space s's
    tiles, top first (only the top and the count are in the state: the tiles below are
    drawn when they come up); ``balloons[q]`` is seat q's balloon space. The first game's
    goals, every balloon standing, panoramas of the start tiles only, seat ``active`` to
    fly with the token (sun) on its space. The state is the one the setup leaves (its last
    drop on space p - 1) with the stacks and balloons changed.
    """
    p = num_players
    tops = [TILE_INDEX[s[0]] for s in stacks]
    occupants = [-1] * len(stacks)
    for seat, space in enumerate(balloons):
        occupants[space] = seat
    state: PanoramaState = build(
        PanoramaState,
        GAME,
        p,
        dict(GAME.options),
        phase=FLY_PHASE,
        pending_space=p - 1,
        current=active,
        goals=list(GOAL_SETS["first_game"]),
        stack_counts=[len(s) for s in stacks],
        tops=tops,
        unrevealed=[t for t in range(NUM_TILES) if t not in tops],
        occupants=occupants,
        balloon_space=list(balloons),
        standing=[True] * p,
        panoramas=[[START_TILE[q]] for q in range(p)],
        start_index=[0] * p,
        token_space=balloons[active],
        moon=False,
        active_player=active,
        held_tile=-1,
        num_spaces=len(stacks),
        final_result=None,
    )
    return state


def finished(panoramas: list[str], starts: list[int], goals: list[str]) -> PanoramaState:
    """A finished game with given panoramas (the spec's worked examples).

    A whole game that ends with exactly these panoramas would need a long forced deal, so
    the helper builds the end directly: the given goals and panoramas (``starts[q]``: the
    position of seat q's start tile), every balloon deflated and off the board, the central
    tile as the setup found it (full stacks, nothing revealed: scoring reads only the
    panoramas and goals). Everything else is computed through ``result()``.
    """
    p = len(panoramas)
    n = 2 * p + 1
    state: PanoramaState = build(
        PanoramaState,
        GAME,
        p,
        {**GAME.options, "goals": goals},
        phase=OVER,
        pending_space=0,
        current=TERMINAL,
        goals=order_goals(goals),
        stack_counts=[STACK_SIZE] * n,
        tops=[-1] * n,
        unrevealed=list(range(NUM_TILES)),
        occupants=[-1] * n,
        balloon_space=[-1] * p,
        standing=[False] * p,
        panoramas=[[TILE_INDEX[t] for t in pan.split()] for pan in panoramas],
        start_index=list(starts),
        token_space=0,
        moon=False,
        active_player=-1,
        held_tile=-1,
        num_spaces=n,
        final_result=None,
    )
    return state
