"""One seat's holdings (``ManateeSanctuaryState.players``) and the manatee arithmetic."""

from __future__ import annotations

from collections.abc import Sequence

from engine.core import JSON
from engine.manatee_sanctuary.data import CARD_ID, CATEGORIES, START_HABITAT, cards_text
from engine.manatee_sanctuary.geometry import Sanctuary


def space_used(housed: Sequence[int]) -> int:
    """Habitat spaces that housed (grey, pink, yellow) manatees take: a yellow takes two."""
    return housed[0] + housed[1] + 2 * housed[2]


def food_need(housed: Sequence[int]) -> int:
    """Food that housed (grey, pink, yellow) manatees eat in a feeding: a pink eats two."""
    return housed[0] + 2 * housed[1] + housed[2]


class Player:
    """One seat's score, food, manatees, cards and sanctuary."""

    __slots__ = (
        "capacity",
        "flowers",
        "food",
        "hand",
        "housed",
        "origin",
        "pile",
        "points",
        "sanctuary",
    )

    points: list[int]
    """Points by category (``CATEGORIES`` order); the total is their sum."""
    food: int
    """Food on the food track (0-99)."""
    flowers: list[int]
    """Completed flowers per colour: red, green, purple."""
    housed: list[int]
    """Housed manatees per colour: grey, pink, yellow."""
    pile: list[int]
    """The action pile: cards used for their top half, in play order."""
    hand: list[int]
    """Card indices in hand, ascending."""
    origin: dict[int, int]
    """Card in hand -> the seat whose deal it came from."""
    sanctuary: Sanctuary
    """The placed cards."""
    capacity: int
    """Habitat spaces: the start tile's plus the placed cards'."""

    def __init__(self) -> None:
        self.points = [0] * len(CATEGORIES)
        self.points[0] = 10
        self.food = 0
        self.flowers = [0, 0, 0]
        self.housed = [0, 0, 0]
        self.pile = []
        self.hand = []
        self.origin = {}
        self.sanctuary = Sanctuary()
        self.capacity = START_HABITAT

    def copy(self) -> Player:
        o = Player.__new__(Player)
        o.points = list(self.points)
        o.food = self.food
        o.flowers = list(self.flowers)
        o.housed = list(self.housed)
        o.pile = list(self.pile)
        o.hand = list(self.hand)
        o.origin = dict(self.origin)
        o.sanctuary = self.sanctuary.copy()
        o.capacity = self.capacity
        return o

    def to_json(self) -> JSON:
        """The digest's form: a positional list, cards as ids (hand cards with origin)."""
        ids = CARD_ID
        return [
            self.points,
            self.food,
            self.flowers,
            self.housed,
            cards_text(self.pile),
            " ".join([f"{ids[c]}/{self.origin[c]}" for c in self.hand]),
            " ".join([f"{ids[c]}@{x},{y}r{r}" for c, x, y, r in self.sanctuary.placements]),
            self.capacity,
        ]

    def usage(self) -> int:
        return space_used(self.housed)

    def need(self) -> int:
        return food_need(self.housed)
