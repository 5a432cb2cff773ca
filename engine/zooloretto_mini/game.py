"""Zooloretto Mini game object: options, player counts, step bound, variants."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import ClassVar

from engine.core import JSON, Action, Game, Option, State
from engine.zooloretto_mini.actions import (
    BonusDiscard,
    BonusSkip,
    BonusTake,
    Draw,
    DrawTile,
    Load,
    Place,
    RemoveSpecies,
    StartPlayer,
    TakeTruck,
)
from engine.zooloretto_mini.components import (
    LANDSCAPE_TILES,
    MAX_BONUSES,
    SPECIES,
    removed_count,
)
from engine.zooloretto_mini.rebuild import rebuild
from engine.zooloretto_mini.state import ZoolorettoState


class ZoolorettoMini(Game):
    id = "zooloretto_mini"
    name = "Zooloretto Mini"
    version = 1
    min_players = 2
    max_players = 5
    option_specs: ClassVar[dict[str, Option]] = {
        "start_player": Option(
            None, "seat (0..N-1) that starts round 1; default null: a start_player chance event"
        ),
        "removed_species": Option(
            None,
            "list of distinct species ids (S1-S7) removed at setup, exactly 3/2/1/0 of them for"
            " 2/3/4/5 players; default null: remove_species chance events",
        ),
    }
    action_classes: ClassVar[tuple[type[Action], ...]] = (
        Draw,
        TakeTruck,
        Load,
        Place,
        BonusTake,
        BonusDiscard,
        BonusSkip,
        RemoveSpecies,
        StartPlayer,
        DrawTile,
    )

    def _check_option(
        self, key: str, value: JSON, num_players: int, options: Mapping[str, JSON]
    ) -> str | None:
        if value is None:
            return None
        if key == "start_player":
            if not isinstance(value, int) or isinstance(value, bool):
                return "must be an integer seat or null"
            if not 0 <= value < num_players:
                return f"must be a seat 0..{num_players - 1}"
            return None
        if key == "removed_species":
            k = removed_count(num_players)
            if not isinstance(value, list | tuple):
                return "must be a list of species ids"
            bad = [v for v in value if v not in SPECIES]
            if bad:
                return f"unknown species {bad}; species are {', '.join(SPECIES)}"
            if len(set(value)) != len(value):
                return "species must be distinct"
            if len(value) != k:
                return f"must list exactly {k} species for {num_players} players"
        return None

    def _new_state(self, num_players: int, options: dict[str, JSON]) -> State:
        state = ZoolorettoState(self, num_players, options)
        state._setup()
        return state

    def _from_observation(
        self, initial: State, seat: int, observation: Mapping[str, JSON], rng: random.Random
    ) -> State:
        """The only state consistent with ``observation`` (nothing is hidden; see ``rebuild``)."""
        assert isinstance(initial, ZoolorettoState)
        return rebuild(initial, seat, observation, rng)

    def step_bound(self, num_players: int, options: Mapping[str, JSON]) -> int:
        # Setup nodes; per tile draw + draw_tile + load + place; per round (at least one
        # tile drawn) each player takes a truck and makes at most 3 bonus decisions.
        pool = (7 - removed_count(num_players)) * 11 + len(LANDSCAPE_TILES)
        return removed_count(num_players) + 1 + 4 * pool + pool * num_players * (1 + MAX_BONUSES)

    def variants(self, num_players: int) -> list[dict[str, JSON]]:
        fixed = list(SPECIES[::-1][: removed_count(num_players)])
        return [{}, {"removed_species": fixed, "start_player": num_players - 1}]


GAME = ZoolorettoMini()
