"""The Dziobaki game: options, variants, step bound, rebuild and drawing tables."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import ClassVar

from engine.core import JSON, Game, Option, State
from engine.dziobaki.actions import ACTION_CLASSES
from engine.dziobaki.data import (
    FINE_COLS,
    ORIENTED_ANIMALS,
    ORIENTED_ARMS,
    PRINTED_CELLS,
    PRINTED_MARGINS,
    ROUNDS,
    SEAT_COLOURS,
    SIDES,
    SPECIES,
    SPECIES_LETTER,
    TILE_IDS,
)
from engine.dziobaki.rebuild import rebuild
from engine.dziobaki.state import DziobakiState


class DziobakiGame(Game):
    id = "dziobaki"
    name = "Dziobaki"
    version = 1
    min_players = 1
    max_players = 4
    option_specs: ClassVar[dict[str, Option]] = {
        "board_side": Option(
            "A",
            'side of the personal boards, the same for everybody: "A" (printed animals in '
            'the middle of the four edges) or "B" (printed animals in the four corners)',
            choices=SIDES,
        ),
        "all_together": Option(
            False,
            "optional rule 'all together': +3 per species whose animals on the finished "
            "board (placed tiles + printed animal) all lie in one single-species meadow",
            choices=(False, True),
        ),
    }
    action_classes = ACTION_CLASSES

    def _new_state(self, num_players: int, options: dict[str, JSON]) -> State:
        return DziobakiState(self, num_players, options)

    def _from_observation(
        self, initial: State, seat: int, observation: Mapping[str, JSON], rng: random.Random
    ) -> State:
        """Rebuild a state from ``seat``'s observation; see :mod:`engine.dziobaki.rebuild`."""
        assert isinstance(initial, DziobakiState)
        return rebuild(initial, seat, observation, rng)

    def step_bound(self, num_players: int, options: Mapping[str, JSON]) -> int:
        return ROUNDS * (num_players + 1)

    def variants(self, num_players: int) -> list[dict[str, JSON]]:
        return [
            {},
            {"board_side": "B"},
            {"all_together": True},
            {"board_side": "B", "all_together": True},
        ]

    def components(self) -> dict[str, JSON]:
        """The static drawing tables of the HTML viewer: species, seat colours, each tile's
        river arms and animals (as printed, rotation 0) and each side's printed animals."""
        tiles: dict[str, JSON] = {}
        for i, tid in enumerate(TILE_IDS):
            mask = ORIENTED_ARMS[4 * i]
            tiles[tid] = {
                "arms": [a for a in range(4) if mask >> a & 1],
                "animals": [[sp, q] for sp, q in ORIENTED_ANIMALS[4 * i]],
            }
        return {
            "species": list(SPECIES),
            "letters": list(SPECIES_LETTER),
            "seat_colours": list(SEAT_COLOURS),
            "tiles": tiles,
            "printed": {
                side: [
                    {"species": sp, "cell": [cell // FINE_COLS, cell % FINE_COLS], "margin": m}
                    for sp, (cell, m) in enumerate(
                        zip(PRINTED_CELLS[side], PRINTED_MARGINS[side], strict=True)
                    )
                ]
                for side in SIDES
            },
        }
