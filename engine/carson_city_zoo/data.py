"""Components of Carson City Zoo: team, character and zoo card ids, values, board geometry.

Characters of a game are indexed ``c = 4 * seat + (value - 3)`` (see :class:`Roster`); zoo
cards ``0..49`` are ``Z01``..``Z50``; spaces ``s = 5 * row + col``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

TEAM_IDS: tuple[str, ...] = ("Y", "B", "G", "R")
TEAM_COLOURS = {"Y": "yellow", "B": "blue", "G": "green", "R": "red"}
VALUES = (3, 4, 5, 6)
DIRS = ("N", "E", "S", "W")
NUM_CARDS = 50
SIZE = 5
NUM_SPACES = SIZE * SIZE

CARD_IDS: tuple[str, ...] = tuple(f"Z{i + 1:02d}" for i in range(NUM_CARDS))
CARD_INDEX = {cid: i for i, cid in enumerate(CARD_IDS)}
CARD_VALUE: tuple[int, ...] = tuple(i // 10 for i in range(NUM_CARDS))
MUTANT_CARDS = frozenset((0, 10, 20, 30))
CARD_MUTANT: tuple[bool, ...] = tuple(i in MUTANT_CARDS for i in range(NUM_CARDS))

CharId = Literal[
    "Y3", "Y4", "Y5", "Y6", "B3", "B4", "B5", "B6",
    "G3", "G4", "G5", "G6", "R3", "R4", "R5", "R6",
]  # fmt: skip
Dir = Literal["N", "E", "S", "W"]

# Phases
DEAL, START, PLAY, OVER = 0, 1, 2, 3
PHASE_NAMES = ("deal", "start", "play", "over")

# Where a character is, besides a space 0..24 (``CarsonCityZooState.character_space``)
IN_HAND = -1
CAPTURED = -2


def _neighbours(s: int) -> list[tuple[int, int]]:
    """(direction index, target space) of the on-board neighbours, in N, E, S, W order."""
    r, c = divmod(s, SIZE)
    out = []
    for d, (dr, dc) in enumerate(((-1, 0), (0, 1), (1, 0), (0, -1))):
        rr, cc = r + dr, c + dc
        if 0 <= rr < SIZE and 0 <= cc < SIZE:
            out.append((d, rr * SIZE + cc))
    return out


NEIGHBOURS: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple(_neighbours(s)) for s in range(NUM_SPACES)
)
"""``NEIGHBOURS[s]``: (direction index, target space) of each on-board neighbour, N E S W."""
TARGET: tuple[tuple[int, ...], ...] = tuple(
    tuple(dict(NEIGHBOURS[s]).get(d, -1) for d in range(4)) for s in range(NUM_SPACES)
)
"""``TARGET[s][d]``: the space one step from ``s`` in direction index ``d``, -1 off the board."""
DIR_INDEX = {d: i for i, d in enumerate(DIRS)}


def character_value(char: str) -> int:
    """The value of a character id (``Y5`` -> 5)."""
    return int(char[1:])


@dataclass(frozen=True, eq=False)
class Roster:
    """The teams of a game in seat order and their characters ``c = 4 * seat + value - 3``."""

    teams: tuple[str, ...]
    names: tuple[str, ...]
    """Character ids by index (``names[c]``)."""
    index: Mapping[str, int]
    """Character id -> index."""


@functools.cache
def roster(teams: tuple[str, ...]) -> Roster:
    """The (shared, immutable) roster of the teams ``teams``, one per seat."""
    names = tuple(f"{t}{v}" for t in teams for v in VALUES)
    return Roster(teams, names, {name: c for c, name in enumerate(names)})
