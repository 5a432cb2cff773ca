"""Carson City Zoo actions and chance outcomes, and their interned tables."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, cast

from engine.carson_city_zoo.data import (
    CARD_IDS,
    DIRS,
    NUM_SPACES,
    TEAM_IDS,
    VALUES,
    CharId,
    Dir,
)
from engine.core import Action


@dataclass(frozen=True, slots=True)
class Deal(Action):
    """Chance: the next zoo card of the deal (bottom layer first, then top layer)."""

    KIND: ClassVar[str] = "deal"
    TEXT: ClassVar[str] = "deal {card}"
    PUBLIC_TEXT: ClassVar[str] = "deal a zoo card"
    """The dealt ids fix the backs, which nobody sees (Hidden information): no seat and
    no spectator reads the card (``owner`` is nobody, as for every chance outcome)."""
    card: str


@dataclass(frozen=True, slots=True)
class StartPlayer(Action):
    """Chance: the seat that moves first."""

    KIND: ClassVar[str] = "start_player"
    TEXT: ClassVar[str] = "start_player {seat}"
    seat: int


@dataclass(frozen=True, slots=True)
class Place(Action):
    """Send a character from hand onto a space and capture its top zoo card."""

    KIND: ClassVar[str] = "place"
    TEXT: ClassVar[str] = "place {char} {space}"
    char: CharId
    space: int


@dataclass(frozen=True, slots=True)
class Move(Action):
    """Step an active character one space and capture what it lands on."""

    KIND: ClassVar[str] = "move"
    TEXT: ClassVar[str] = "move {char} {dir}"
    char: CharId
    dir: Dir


ACTION_CLASSES = (Deal, StartPlayer, Place, Move)

DEAL_ACTIONS: tuple[Deal, ...] = tuple(Deal(cid) for cid in CARD_IDS)
"""``DEAL_ACTIONS[card]``: the deal outcome of zoo card ``card``."""
START_ACTIONS: tuple[StartPlayer, ...] = tuple(StartPlayer(s) for s in range(len(TEAM_IDS)))
"""``START_ACTIONS[seat]``: the start-player outcome of ``seat``."""
PLACE_ACTIONS: dict[str, tuple[tuple[Place, ...], ...]] = {
    t: tuple(tuple(Place(cast(CharId, f"{t}{v}"), s) for s in range(NUM_SPACES)) for v in VALUES)
    for t in TEAM_IDS
}
"""``PLACE_ACTIONS[team][value - 3][space]``."""
MOVE_ACTIONS: dict[str, tuple[tuple[Move, ...], ...]] = {
    t: tuple(tuple(Move(cast(CharId, f"{t}{v}"), cast(Dir, d)) for d in DIRS) for v in VALUES)
    for t in TEAM_IDS
}
"""``MOVE_ACTIONS[team][value - 3][direction index]``."""
