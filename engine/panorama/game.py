"""Panorama game object: options, player counts, step bound, variants, rebuilds and the
viewer's component tables."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import ClassVar

from engine.core import JSON, Action, Game, Option, State
from engine.panorama.actions import ACTION_CLASSES
from engine.panorama.data import (
    GOAL_COLOURS,
    GOAL_IDS,
    GOAL_SET_VALUES,
    GOAL_TEXT,
    ITEM_ROWS,
    STACK_SIZE,
    TERRAIN_ROWS,
    TILE_IDS,
)
from engine.panorama.rebuild import from_observation
from engine.panorama.state import PanoramaState


def _check_goals(value: list[JSON]) -> str | None:
    """What is wrong with the ``goals`` option's list (None: nothing)."""
    if len(value) != 3:
        return (
            "must be a list of exactly three goal ids: "
            "one sky (S*), one river (R*), one terrain (T*)"
        )
    for g in value:
        if not isinstance(g, str) or g not in GOAL_IDS:
            return f"unknown goal id {g!r}; goal ids are {', '.join(GOAL_IDS)}"
    for prefix, colour in zip("SRT", GOAL_COLOURS, strict=True):
        k = sum(1 for g in value if g[0] == prefix)
        if k != 1:
            return f"needs exactly one {colour} goal ({prefix}1..{prefix}4), got {k}"
    return None


class PanoramaGame(Game):
    id = "panorama"
    name = "Panorama"
    version = 1
    min_players = 2
    max_players = 4
    option_specs: ClassVar[dict[str, Option]] = {
        "goal_set": Option(
            "first_game",
            "Which three goal tokens are used: 'first_game' (the starred S1 R1 T1), 'random' "
            "(one per colour, drawn by three goal_draw chance nodes) or a scenario: "
            "'animal_festival' (S2 R2 T3), 'river_lover' (S3 R4 T1), 'long_way_home' "
            "(S4 R1 T4), 'wonderful_view' (S3 R3 T3), 'riverside_walk' (S2 R2 T4), "
            "'less_is_more' (S1 R4 T2).",
            type=str,
            choices=GOAL_SET_VALUES,
        ),
        "goals": Option(
            None,
            "Explicit goals: a list of exactly three goal ids, one sky (S1-S4), one river "
            "(R1-R4), one terrain (T1-T4), in any order; overrides goal_set. null = absent.",
            type=list,
        ),
    }
    action_classes: ClassVar[tuple[type[Action], ...]] = ACTION_CLASSES

    def _check_option(
        self, key: str, value: JSON, num_players: int, options: Mapping[str, JSON]
    ) -> str | None:
        """What the option's type and choices cannot say: the ``goals`` list's items."""
        return _check_goals(value) if key == "goals" else None

    def _new_state(self, num_players: int, options: dict[str, JSON]) -> State:
        return PanoramaState(self, num_players, options)

    def _from_observation(
        self, initial: State, seat: int, observation: Mapping[str, JSON], rng: random.Random
    ) -> State:
        """Nothing in the state is hidden, so nothing is drawn (see
        :mod:`engine.panorama.rebuild`)."""
        assert isinstance(initial, PanoramaState)
        return from_observation(initial, seat, observation, rng)

    def step_bound(self, num_players: int, options: Mapping[str, JSON]) -> int:
        n = 2 * num_players + 1
        # 3 goal draws + n*4 reveals at most + p balloon drops + (fly + place) per tile taken
        return 3 + STACK_SIZE * n + num_players + 2 * STACK_SIZE * n

    def variants(self, num_players: int) -> list[dict[str, JSON]]:
        out: list[dict[str, JSON]] = [{}]
        out += [{"goal_set": g} for g in GOAL_SET_VALUES if g != "first_game"]
        out.append({"goals": ["T2", "S3", "R3"]})
        return out

    def components(self) -> dict[str, JSON]:
        """Static drawing data for the HTML viewer: every tile's terrain and item rows (top
        to bottom, 3 cells each) and every goal's text."""
        return {
            "tiles": {
                tid: {"terrain": list(TERRAIN_ROWS[i]), "items": list(ITEM_ROWS[i])}
                for i, tid in enumerate(TILE_IDS)
            },
            "goals": {g: str(GOAL_TEXT.get(g, g)) for g in GOAL_IDS},
        }
