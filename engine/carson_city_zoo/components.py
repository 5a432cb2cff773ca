"""Components of Carson City Zoo: card and character ids, board geometry, actions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from engine.core import Action

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

# Character positions (``_cpos``)
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
TARGET: tuple[tuple[int, ...], ...] = tuple(
    tuple(dict(NEIGHBOURS[s]).get(d, -1) for d in range(4)) for s in range(NUM_SPACES)
)
DIR_INDEX = {d: i for i, d in enumerate(DIRS)}

# -- actions and chance outcomes ----------------------------------------------


@dataclass(frozen=True, slots=True)
class Deal(Action):
    """Chance: the next zoo card of the deal (bottom layer first, then top layer)."""

    KIND: ClassVar[str] = "deal"
    card: str

    def __str__(self) -> str:
        return f"deal {self.card}"


@dataclass(frozen=True, slots=True)
class StartPlayer(Action):
    """Chance: the seat that moves first."""

    KIND: ClassVar[str] = "start_player"
    seat: int

    def __str__(self) -> str:
        return f"start_player {self.seat}"


@dataclass(frozen=True, slots=True)
class Place(Action):
    """Send a character from hand onto a space and capture its top zoo card."""

    KIND: ClassVar[str] = "place"
    char: CharId
    space: int

    def __str__(self) -> str:
        return f"place {self.char} {self.space}"


@dataclass(frozen=True, slots=True)
class Move(Action):
    """Step an active character one space and capture what it lands on."""

    KIND: ClassVar[str] = "move"
    char: CharId
    dir: Dir

    def __str__(self) -> str:
        return f"move {self.char} {self.dir}"


DEAL_ACTIONS: tuple[Deal, ...] = tuple(Deal(cid) for cid in CARD_IDS)
PLACE_ACTIONS: dict[str, tuple[tuple[Place, ...], ...]] = {
    t: tuple(
        tuple(Place(f"{t}{v}", s) for s in range(NUM_SPACES))  # type: ignore[arg-type]
        for v in VALUES
    )
    for t in TEAM_IDS
}
MOVE_ACTIONS: dict[str, tuple[tuple[Move, ...], ...]] = {
    t: tuple(tuple(Move(f"{t}{v}", d) for d in DIRS) for v in VALUES)  # type: ignore[arg-type]
    for t in TEAM_IDS
}
