"""The Carson City Zoo game: options, variants, step bound, rebuild and drawing tables."""

from __future__ import annotations

import random
from collections.abc import Mapping

from engine.carson_city_zoo import rebuild
from engine.carson_city_zoo.actions import ACTION_CLASSES
from engine.carson_city_zoo.data import NUM_CARDS, TEAM_COLOURS, TEAM_IDS
from engine.carson_city_zoo.state import CarsonCityZooState
from engine.core import JSON, Game, Option, State


class CarsonCityZooGame(Game):
    id = "carson_city_zoo"
    name = "Apocalypse au Zoo de Carson City"
    version = 1
    min_players = 2
    max_players = 4
    option_specs = {
        "start_player": Option(
            None,
            "seat (0..N-1) that moves first; null (default): drawn by a chance event",
            type=int,
        ),
        "teams": Option(
            None,
            "list of N distinct team ids from Y (yellow), B (blue), G (green), R (red), one "
            'per seat; cosmetic (character ids); null (default): ["Y","B","G","R"][:N]',
            type=list,
        ),
    }
    action_classes = ACTION_CLASSES

    def _check_option(
        self, key: str, value: JSON, num_players: int, options: Mapping[str, JSON]
    ) -> str | None:
        if key == "start_player":
            if not 0 <= value < num_players:
                return f"must be a seat 0..{num_players - 1} or null"
            return None
        if key == "teams":
            if len(value) != num_players:
                return f"must list exactly {num_players} team ids (one per seat)"
            for t in value:
                if t not in TEAM_IDS or not isinstance(t, str):
                    return f"{t!r} is not a team id; team ids are Y, B, G, R"
            if len(set(value)) != len(value):
                return "team ids must be distinct"
        return None

    def _new_state(self, num_players: int, options: dict[str, JSON]) -> State:
        if options.get("teams") is not None:
            options["teams"] = list(options["teams"])
        return CarsonCityZooState(self, num_players, options)

    def _from_observation(
        self, initial: State, seat: int, observation: Mapping[str, JSON], rng: random.Random
    ) -> State:
        assert isinstance(initial, CarsonCityZooState)
        return rebuild.rebuild(initial, seat, observation, rng)

    def step_bound(self, num_players: int, options: Mapping[str, JSON]) -> int:
        # 50 deal nodes + 1 start-player node + at most 50 zoo + 16 character captures.
        return NUM_CARDS + 1 + NUM_CARDS + 16

    def variants(self, num_players: int) -> list[dict[str, JSON]]:
        last = num_players - 1
        return [{}, {"start_player": last, "teams": list(reversed(TEAM_IDS))[:num_players]}]

    def components(self) -> dict[str, JSON]:
        """The static drawing tables of the HTML viewer: each team's colour."""
        return {"team_colours": dict(TEAM_COLOURS)}
