"""Panorama actions and chance outcomes (JSON exactly as in the spec).

Every value a game can need is built once here (``FLY[s]``, ``PLACE_LEFT`` ...), so the
legal-action lists hold shared instances and membership tests hit the identity check.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from engine.core import Action
from engine.panorama.data import GOAL_IDS, NUM_TILES, TILE_IDS

MAX_SPACES = 9
MAX_PLAYERS = 4


@dataclass(frozen=True, slots=True)
class Fly(Action):
    """Decision: fly the balloon to a free space and take its top tile."""

    KIND: ClassVar[str] = "fly"
    TEXT: ClassVar[str] = "fly {space}"
    space: int


@dataclass(frozen=True, slots=True)
class Place(Action):
    """Decision: put the held tile at the left or right end of the panorama."""

    KIND: ClassVar[str] = "place"
    TEXT: ClassVar[str] = "place {end}"
    end: Literal["left", "right"]


@dataclass(frozen=True, slots=True)
class Reveal(Action):
    """Chance: the tile that becomes the visible top of a stack."""

    KIND: ClassVar[str] = "reveal"
    TEXT: ClassVar[str] = "reveal {tile} on space {space}"
    space: int
    tile: str


@dataclass(frozen=True, slots=True)
class BalloonDrop(Action):
    """Chance (setup): the seat whose balloon lands on a space."""

    KIND: ClassVar[str] = "balloon_drop"
    TEXT: ClassVar[str] = "balloon_drop seat {seat} on space {space}"
    space: int
    seat: int


@dataclass(frozen=True, slots=True)
class GoalDraw(Action):
    """Chance (setup, goal_set "random"): the goal token drawn for a colour."""

    KIND: ClassVar[str] = "goal_draw"
    TEXT: ClassVar[str] = "goal_draw {goal}"
    goal: str


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
