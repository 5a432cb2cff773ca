"""Panorama actions and chance outcomes (JSON exactly as in the spec).

Every value a game can need is built once here (``FLY[s]``, ``PLACE_LEFT`` ...), so the
legal-action lists hold shared instances and membership tests hit the identity check.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from engine.core import Action
from engine.panorama.tiles import GOAL_IDS, NUM_TILES, TILE_IDS

MAX_SPACES = 9
MAX_PLAYERS = 4


@dataclass(frozen=True, slots=True)
class Fly(Action):
    """Decision: fly the balloon to a free space and take its top tile."""

    KIND: ClassVar[str] = "fly"
    space: int

    def __str__(self) -> str:
        return f"fly {self.space}"


@dataclass(frozen=True, slots=True)
class Place(Action):
    """Decision: put the held tile at the left or right end of the panorama."""

    KIND: ClassVar[str] = "place"
    end: Literal["left", "right"]

    def __str__(self) -> str:
        return f"place {self.end}"


@dataclass(frozen=True, slots=True)
class Reveal(Action):
    """Chance: the tile that becomes the visible top of a stack."""

    KIND: ClassVar[str] = "reveal"
    space: int
    tile: str

    def __str__(self) -> str:
        return f"reveal {self.tile} on space {self.space}"


@dataclass(frozen=True, slots=True)
class BalloonDrop(Action):
    """Chance (setup): the seat whose balloon lands on a space."""

    KIND: ClassVar[str] = "balloon_drop"
    space: int
    seat: int

    def __str__(self) -> str:
        return f"balloon_drop seat {self.seat} on space {self.space}"


@dataclass(frozen=True, slots=True)
class GoalDraw(Action):
    """Chance (setup, goal_set "random"): the goal token drawn for a colour."""

    KIND: ClassVar[str] = "goal_draw"
    goal: str

    def __str__(self) -> str:
        return f"goal_draw {self.goal}"


FLY: tuple[Fly, ...] = tuple(Fly(s) for s in range(MAX_SPACES))
PLACE_LEFT = Place("left")
PLACE_RIGHT = Place("right")
PLACES: list[Action] = [PLACE_LEFT, PLACE_RIGHT]
REVEAL: tuple[tuple[Reveal, ...], ...] = tuple(
    tuple(Reveal(s, TILE_IDS[t]) for t in range(NUM_TILES)) for s in range(MAX_SPACES)
)
DROP: tuple[tuple[BalloonDrop, ...], ...] = tuple(
    tuple(BalloonDrop(s, q) for q in range(MAX_PLAYERS)) for s in range(MAX_PLAYERS)
)
GOAL_DRAW: dict[str, GoalDraw] = {g: GoalDraw(g) for g in GOAL_IDS}
ACTION_CLASSES: tuple[type[Action], ...] = (Fly, Place, Reveal, BalloonDrop, GoalDraw)
