"""Actions and chance outcomes of Manatee Sanctuary (spec 5.8, 5.9), and the interned
action tables (actions are immutable values, so one object per action is shared)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import ClassVar, Literal

from engine.core import Action
from engine.manatee_sanctuary.data import BONUS_IDS, CARD_ID, MANATEE_NAMES, NUM_CARDS

Rotation = Literal[0, 90, 180, 270]
ROTATIONS: tuple[Rotation, Rotation, Rotation, Rotation] = (0, 90, 180, 270)
"""Rotation in degrees clockwise, by quarter turns."""

# -- chance outcomes ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RoundBonus(Action):
    """Setup (module on): round-bonus card ``card`` is assigned to round ``round``."""

    KIND: ClassVar[str] = "round_bonus"
    TEXT: ClassVar[str] = "round_bonus r{round}={card}"
    round: int
    card: str


@dataclass(frozen=True, slots=True)
class Deal(Action):
    """Draft deal: one card from the deck to ``seat`` (private to that seat)."""

    KIND: ClassVar[str] = "deal"
    TEXT: ClassVar[str] = "deal {card} to seat {seat}"
    PUBLIC_TEXT: ClassVar[str] = "deal a card to seat {seat}"
    """``deal`` outcomes are private to the receiving seat (Hidden information)."""
    seat: int
    card: str

    def owner(self, actor: int) -> int | None:
        return self.seat


@dataclass(frozen=True, slots=True)
class SoloDraw(Action):
    """Solo draft: one card from the deck, revealed."""

    KIND: ClassVar[str] = "solo_draw"
    TEXT: ClassVar[str] = "solo_draw {card}"
    card: str


@dataclass(frozen=True, slots=True)
class BagDraw(Action):
    """One random manatee from the bag."""

    KIND: ClassVar[str] = "bag_draw"
    TEXT: ClassVar[str] = "bag_draw {colour}"
    colour: Literal["grey", "pink", "yellow"]


# -- decisions ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Split(Action):
    """Draft: the 1 or 2 dealt cards (ascending ids) that form the small stack."""

    KIND: ClassVar[str] = "split"
    TEXT: ClassVar[str] = "split small={small}"
    PUBLIC_TEXT: ClassVar[str] = "seat {actor} split its cards"
    """A split is hidden until every seat has committed, and its cards stay known only to
    the splitter and the receiver (Hidden information)."""
    small: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Keep(Action):
    """Draft: keep the small or the large stack received from the passer."""

    KIND: ClassVar[str] = "keep"
    TEXT: ClassVar[str] = "keep {stack}"
    PUBLIC_TEXT: ClassVar[str] = "seat {actor} kept a stack"
    """A keep choice is hidden until every seat has committed (Hidden information); the
    observations show the kept stack's size afterwards."""
    stack: Literal["small", "large"]


@dataclass(frozen=True, slots=True)
class SoloPick(Action):
    """Solo draft: keep one of the two revealed cards."""

    KIND: ClassVar[str] = "solo_pick"
    TEXT: ClassVar[str] = "solo_pick {card}"
    card: str


@dataclass(frozen=True, slots=True)
class PowerCap(Action):
    """Solo challenge 5: use the once-per-game discard now (true) or later (false)."""

    KIND: ClassVar[str] = "power_cap"
    TEXT: ClassVar[str] = "power_cap now={now}"
    now: bool


@dataclass(frozen=True, slots=True)
class Discard(Action):
    """Solo challenges 5/6: discard a card (most/fewest dots) from the hand."""

    KIND: ClassVar[str] = "discard"
    TEXT: ClassVar[str] = "discard {card}"
    card: str


@dataclass(frozen=True, slots=True)
class Act(Action):
    """Phase 2: use a card's top half (rescue / harvest)."""

    KIND: ClassVar[str] = "act"
    TEXT: ClassVar[str] = "act {card}"
    card: str


@dataclass(frozen=True, slots=True)
class Expand(Action):
    """Phase 2: lay a card's bottom half at cell (x, y), turned ``rot`` degrees clockwise."""

    KIND: ClassVar[str] = "expand"
    TEXT: ClassVar[str] = "expand {card} ({x},{y}) r{rot}"
    card: str
    x: int
    y: int
    rot: Rotation


@dataclass(frozen=True, slots=True)
class Return(Action):
    """Return manatees to the bag (capacity in phase 2, food in phase 3), -2 points each."""

    KIND: ClassVar[str] = "return"
    TEXT: ClassVar[str] = "return grey={grey} pink={pink} yellow={yellow}"
    grey: int
    pink: int
    yellow: int


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

# -- interned actions ------------------------------------------------------------

BAG_DRAWS: tuple[BagDraw, BagDraw, BagDraw] = (
    BagDraw("grey"),
    BagDraw("pink"),
    BagDraw("yellow"),
)
"""The bag draws by manatee colour index."""
BAG_DRAW_COLOUR = {"grey": 0, "pink": 1, "yellow": 2}
"""Manatee colour index of a bag draw's colour."""
assert tuple(b.colour for b in BAG_DRAWS) == MANATEE_NAMES

SOLO_DRAWS: tuple[SoloDraw, ...] = tuple(SoloDraw(CARD_ID[i]) for i in range(NUM_CARDS))
SOLO_PICKS: tuple[SoloPick, ...] = tuple(SoloPick(CARD_ID[i]) for i in range(NUM_CARDS))
DISCARDS: tuple[Discard, ...] = tuple(Discard(CARD_ID[i]) for i in range(NUM_CARDS))
ACTS: tuple[Act, ...] = tuple(Act(CARD_ID[i]) for i in range(NUM_CARDS))
"""By card index."""
KEEPS: tuple[Keep, Keep] = (Keep("small"), Keep("large"))
"""By stack: 0 small, 1 large."""
POWER_CAPS: tuple[PowerCap, PowerCap] = (PowerCap(True), PowerCap(False))


@functools.cache
def deals_for(seat: int) -> tuple[Deal, ...]:
    """The deals of every card (by card index) to ``seat``."""
    return tuple(Deal(seat, CARD_ID[i]) for i in range(NUM_CARDS))


@functools.cache
def expand_action(card: int, x: int, y: int, rot: int) -> Expand:
    """The expand of card index ``card`` at (x, y), ``rot`` degrees."""
    return Expand(CARD_ID[card], x, y, ROTATIONS[rot // 90])


@functools.cache
def return_action(grey: int, pink: int, yellow: int) -> Return:
    return Return(grey, pink, yellow)


@functools.cache
def bonus_action(rnd: int, card: int) -> RoundBonus:
    """Round-bonus card ``card`` (index into BONUS_IDS) for round ``rnd``."""
    return RoundBonus(rnd, BONUS_IDS[card])


@functools.lru_cache(maxsize=200_000)
def split_actions(dealt: tuple[int, ...]) -> tuple[Split, ...]:
    """The 15 splits of 5 dealt cards (ascending indices): 5 singletons, then 10 pairs
    (lexicographic). Bounded: distinct deals are countless over a long run."""
    ids = [CARD_ID[c] for c in dealt]
    singles = [Split((a,)) for a in ids]
    pairs = [Split((ids[i], ids[j])) for i in range(5) for j in range(i + 1, 5)]
    return tuple(singles + pairs)
