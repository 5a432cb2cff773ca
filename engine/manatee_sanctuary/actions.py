"""Actions and chance outcomes of Manatee Sanctuary (spec 5.8, 5.9), with object caches."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from engine.core import Action
from engine.manatee_sanctuary.data import BONUS_IDS, CARD_ID, MANATEE_NAMES, NUM_CARDS

# -- chance outcomes ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RoundBonus(Action):
    """Setup (module on): round-bonus card ``card`` is assigned to round ``round``."""

    KIND: ClassVar[str] = "round_bonus"
    round: int
    card: str

    def __str__(self) -> str:
        return f"round_bonus r{self.round}={self.card}"


@dataclass(frozen=True, slots=True)
class Deal(Action):
    """Draft deal: one card from the deck to ``seat`` (private to that seat)."""

    KIND: ClassVar[str] = "deal"
    seat: int
    card: str

    def __str__(self) -> str:
        return f"deal {self.card} to seat {self.seat}"


@dataclass(frozen=True, slots=True)
class SoloDraw(Action):
    """Solo draft: one card from the deck, revealed."""

    KIND: ClassVar[str] = "solo_draw"
    card: str

    def __str__(self) -> str:
        return f"solo_draw {self.card}"


@dataclass(frozen=True, slots=True)
class BagDraw(Action):
    """One random manatee from the bag."""

    KIND: ClassVar[str] = "bag_draw"
    colour: Literal["grey", "pink", "yellow"]

    def __str__(self) -> str:
        return f"bag_draw {self.colour}"


# -- decisions ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Split(Action):
    """Draft: the 1 or 2 dealt cards (ascending ids) that form the small stack."""

    KIND: ClassVar[str] = "split"
    small: tuple[str, ...]

    def __str__(self) -> str:
        return "split small=" + ",".join(self.small)


@dataclass(frozen=True, slots=True)
class Keep(Action):
    """Draft: keep the small or the large stack received from the passer."""

    KIND: ClassVar[str] = "keep"
    stack: Literal["small", "large"]

    def __str__(self) -> str:
        return f"keep {self.stack}"


@dataclass(frozen=True, slots=True)
class SoloPick(Action):
    """Solo draft: keep one of the two revealed cards."""

    KIND: ClassVar[str] = "solo_pick"
    card: str

    def __str__(self) -> str:
        return f"solo_pick {self.card}"


@dataclass(frozen=True, slots=True)
class PowerCap(Action):
    """Solo challenge 5: use the once-per-game discard now (true) or later (false)."""

    KIND: ClassVar[str] = "power_cap"
    now: bool

    def __str__(self) -> str:
        return f"power_cap now={'true' if self.now else 'false'}"


@dataclass(frozen=True, slots=True)
class Discard(Action):
    """Solo challenges 5/6: discard a card (most/fewest dots) from the hand."""

    KIND: ClassVar[str] = "discard"
    card: str

    def __str__(self) -> str:
        return f"discard {self.card}"


@dataclass(frozen=True, slots=True)
class Act(Action):
    """Phase 2: use a card's top half (rescue / harvest)."""

    KIND: ClassVar[str] = "act"
    card: str

    def __str__(self) -> str:
        return f"act {self.card}"


@dataclass(frozen=True, slots=True)
class Expand(Action):
    """Phase 2: lay a card's bottom half at cell (x, y), turned ``rot`` degrees clockwise."""

    KIND: ClassVar[str] = "expand"
    card: str
    x: int
    y: int
    rot: Literal[0, 90, 180, 270]

    def __str__(self) -> str:
        return f"expand {self.card} ({self.x},{self.y}) r{self.rot}"


@dataclass(frozen=True, slots=True)
class Return(Action):
    """Return manatees to the bag (capacity in phase 2, food in phase 3), -2 points each."""

    KIND: ClassVar[str] = "return"
    grey: int
    pink: int
    yellow: int

    def __str__(self) -> str:
        return f"return grey={self.grey} pink={self.pink} yellow={self.yellow}"


ACTION_CLASSES: tuple[type[Action], ...] = (
    RoundBonus,
    Deal,
    SoloDraw,
    BagDraw,
    Split,
    Keep,
    SoloPick,
    PowerCap,
    Discard,
    Act,
    Expand,
    Return,
)

# -- caches (actions are immutable values, so sharing them is safe) -----------

BAG_DRAWS: tuple[BagDraw, BagDraw, BagDraw] = (
    BagDraw("grey"),
    BagDraw("pink"),
    BagDraw("yellow"),
)
BAG_DRAW_COLOUR = {"grey": 0, "pink": 1, "yellow": 2}
assert tuple(b.colour for b in BAG_DRAWS) == MANATEE_NAMES

SOLO_DRAWS: list[SoloDraw] = [SoloDraw(CARD_ID[i]) for i in range(NUM_CARDS)]
SOLO_PICKS: list[SoloPick] = [SoloPick(CARD_ID[i]) for i in range(NUM_CARDS)]
DISCARDS: list[Discard] = [Discard(CARD_ID[i]) for i in range(NUM_CARDS)]
ACTS: list[Act] = [Act(CARD_ID[i]) for i in range(NUM_CARDS)]
KEEPS: tuple[Keep, Keep] = (Keep("small"), Keep("large"))
POWER_CAPS: tuple[PowerCap, PowerCap] = (PowerCap(True), PowerCap(False))
_DEALS: dict[int, list[Deal]] = {}
_EXPANDS: dict[tuple[int, int, int, int], Expand] = {}
_RETURNS: dict[tuple[int, int, int], Return] = {}
_BONUSES: dict[tuple[int, int], RoundBonus] = {}


def deals_for(seat: int) -> list[Deal]:
    lst = _DEALS.get(seat)
    if lst is None:
        lst = [Deal(seat, CARD_ID[i]) for i in range(NUM_CARDS)]
        _DEALS[seat] = lst
    return lst


def expand_action(card: int, x: int, y: int, rot: int) -> Expand:
    key = (card, x, y, rot)
    act = _EXPANDS.get(key)
    if act is None:
        act = Expand(CARD_ID[card], x, y, rot)  # type: ignore[arg-type]
        _EXPANDS[key] = act
    return act


def return_action(g: int, p: int, y: int) -> Return:
    key = (g, p, y)
    act = _RETURNS.get(key)
    if act is None:
        act = Return(g, p, y)
        _RETURNS[key] = act
    return act


def bonus_action(rnd: int, card: int) -> RoundBonus:
    key = (rnd, card)
    act = _BONUSES.get(key)
    if act is None:
        act = RoundBonus(rnd, BONUS_IDS[card])
        _BONUSES[key] = act
    return act
