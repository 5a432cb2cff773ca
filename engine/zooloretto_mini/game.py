"""Zooloretto Mini game object: options, player counts, step bound, variants, rebuilds."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import ClassVar

from engine.core import JSON, Action, Game, Option, State
from engine.zooloretto_mini.actions import ACTION_CLASSES
from engine.zooloretto_mini.data import (
    LANDSCAPE_TILES,
    MAX_BONUSES,
    SPECIES,
    SPECIES_NAMES,
    removed_count,
)
from engine.zooloretto_mini.rebuild import from_observation
from engine.zooloretto_mini.state import ZoolorettoMiniState


class ZoolorettoMiniGame(Game):
    id = "zooloretto_mini"
    name = "Zooloretto Mini"
    version = 1
    min_players = 2
    max_players = 5
    option_specs: ClassVar[dict[str, Option]] = {
        "start_player": Option(
            None,
            "seat (0..N-1) that starts round 1; default null: a start_player chance event",
            type=int,
        ),
        "removed_species": Option(
            None,
            "list of distinct species ids (S1-S7) removed at setup, exactly 3/2/1/0 of them for"
            " 2/3/4/5 players; default null: remove_species chance events",
            type=list,
        ),
    }
    action_classes: ClassVar[tuple[type[Action], ...]] = ACTION_CLASSES

    def _check_option(
        self, key: str, value: JSON, num_players: int, options: Mapping[str, JSON]
    ) -> str | None:
        """What the option's type cannot say: the seat range; the species list's items."""
        if key == "start_player" and not 0 <= value < num_players:
            return f"must be a seat 0..{num_players - 1}"
        if key == "removed_species":
            k = removed_count(num_players)
            bad = [v for v in value if v not in SPECIES]
            if bad:
                return f"unknown species {bad}; species are {', '.join(SPECIES)}"
            if len(set(value)) != len(value):
                return "species must be distinct"
            if len(value) != k:
                return f"must list exactly {k} species for {num_players} players"
        return None

    def _new_state(self, num_players: int, options: dict[str, JSON]) -> State:
        state = ZoolorettoMiniState(self, num_players, options)
        state._setup()
        return state

    def _from_observation(
        self, initial: State, seat: int, observation: Mapping[str, JSON], rng: random.Random
    ) -> State:
        """The only state consistent with ``observation`` (nothing is hidden; see
        :mod:`engine.zooloretto_mini.rebuild`)."""
        assert isinstance(initial, ZoolorettoMiniState)
        return from_observation(initial, seat, observation, rng)

    def step_bound(self, num_players: int, options: Mapping[str, JSON]) -> int:
        # Setup nodes; per tile draw + draw_tile + load + place; per round (at least one
        # tile drawn) each player takes a truck and makes at most 3 bonus decisions.
        pool = (7 - removed_count(num_players)) * 11 + len(LANDSCAPE_TILES)
        return removed_count(num_players) + 1 + 4 * pool + pool * num_players * (1 + MAX_BONUSES)

    def variants(self, num_players: int) -> list[dict[str, JSON]]:
        fixed = list(SPECIES[::-1][: removed_count(num_players)])
        return [{}, {"removed_species": fixed, "start_player": num_players - 1}]

    def components(self) -> dict[str, JSON]:
        """Static drawing data for the HTML viewer: the named species."""
        return {"species": dict(SPECIES_NAMES)}
