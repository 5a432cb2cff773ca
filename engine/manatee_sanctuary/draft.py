"""Phase 1: the multiplayer draft (5.2), the solo draft and challenge discards (5.3), and
the setup chance events."""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

from engine.core import CHANCE, Action
from engine.manatee_sanctuary import steps as st
from engine.manatee_sanctuary.actions import (
    DISCARDS,
    KEEPS,
    POWER_CAPS,
    SOLO_PICKS,
    Deal,
    Discard,
    SoloDraw,
    SoloPick,
    Split,
    split_actions,
)
from engine.manatee_sanctuary.data import CARD_INDEX, DOTS, card_ids

if TYPE_CHECKING:
    from engine.manatee_sanctuary.state import ManateeSanctuaryState


def discard_choices(s: ManateeSanctuaryState) -> list[int]:
    """The cards of the solo hand a challenge discard may take (most or fewest dots)."""
    hand = s.players[0].hand
    dots = [DOTS[c] for c in hand]
    target = max(dots) if s.discard_most_dots else min(dots)
    return [c for c in hand if DOTS[c] == target]


def legal_draft(s: ManateeSanctuaryState) -> list[Action]:
    step = s.step
    if step == st.SPLIT:
        return list(split_actions(tuple(s.dealt[s.current])))
    if step == st.KEEP:
        return list(KEEPS)
    if step == st.SOLO_PICK:
        return [SOLO_PICKS[c] for c in sorted(s.solo_offer)]
    if step == st.POWER_CAP:
        return [POWER_CAPS[0]] if s.round == 3 else list(POWER_CAPS)
    if step == st.DISCARD:
        return [DISCARDS[c] for c in discard_choices(s)]
    return []


def in_deck(s: ManateeSanctuaryState, card: str) -> bool:
    """Whether card id ``card`` is in the deck (kept sorted)."""
    c = CARD_INDEX.get(card)
    if c is None:
        return False
    deck = s.deck
    i = bisect.bisect_left(deck, c)
    return i < len(deck) and deck[i] == c


def _take_from_deck(s: ManateeSanctuaryState, c: int) -> None:
    deck = s.deck
    del deck[bisect.bisect_left(deck, c)]


# -- applying actions ---------------------------------------------------------------


def round_bonus(s: ManateeSanctuaryState, rnd: int, card: int) -> None:
    """Setup: round-bonus card ``card`` (index into BONUS_IDS) scores in round ``rnd``."""
    s.round_bonus[rnd - 1] = card
    if rnd == 3:
        s.start_draft()


def deal(s: ManateeSanctuaryState, seat: int, c: int) -> None:
    _take_from_deck(s, c)
    dealt = s.dealt[seat]
    bisect.insort(dealt, c)
    if len(dealt) == 5:
        s.deal_seat += 1
        if s.deal_seat == s.seats:
            s.step = st.SPLIT
            s.splits = [None] * s.seats
            s.current = 0


def split(s: ManateeSanctuaryState, small: list[int]) -> None:
    s.splits[s.current] = small
    s.current += 1
    if s.current == s.seats:
        _resolve_split(s)


def keep(s: ManateeSanctuaryState, stack: int) -> None:
    s.keep_choices[s.current] = stack
    s.current += 1
    if s.current == s.seats:
        _resolve_keep(s)


def solo_draw(s: ManateeSanctuaryState, c: int) -> None:
    _take_from_deck(s, c)
    s.solo_offer.append(c)
    if len(s.solo_offer) == 2:
        s.step = st.SOLO_PICK
        s.current = 0


def power_cap(s: ManateeSanctuaryState, now: bool) -> None:
    if now:
        s.power_cap_used = True
        s.discard_most_dots = True
        s.step = st.DISCARD
    else:
        s.start_play()


def discard(s: ManateeSanctuaryState, c: int) -> None:
    p = s.players[0]
    p.hand.remove(c)
    del p.origin[c]
    s.solo_discards.append(c)
    s.start_play()


def _resolve_split(s: ManateeSanctuaryState) -> None:
    n = s.seats
    stacks = []
    for o in range(n):
        small = s.splits[o]
        assert small is not None
        large = [c for c in s.dealt[o] if c not in small]
        stacks.append([small, large])
        s.split_size[o] = len(small)
    s.stacks = stacks
    s.dealt = [[] for _ in range(n)]
    s.splits = [None] * n
    s.keep_choices = [-1] * n
    s.step = st.KEEP
    s.current = 0


def _resolve_keep(s: ManateeSanctuaryState) -> None:
    for r in range(s.seats):
        p = s.passer(r)
        k = s.keep_choices[r]
        kept = s.stacks[p][k]
        back = s.stacks[p][1 - k]
        for c, who in ((kept, s.players[r]), (back, s.players[p])):
            for card in c:
                bisect.insort(who.hand, card)
                who.origin[card] = p
        s.kept[r] = k
    s.stacks = []
    s.keep_choices = [-1] * s.seats
    s.start_play()


def solo_pick(s: ManateeSanctuaryState, c: int) -> None:
    """Keep ``c`` of the two revealed cards; the other's dots move the token (5.3)."""
    offer = s.solo_offer
    other = offer[0] if offer[1] == c else offer[1]
    p = s.players[0]
    bisect.insort(p.hand, c)
    p.origin[c] = 0
    s.solo_discards.append(other)
    s.solo_token += 2 * (DOTS[other] - DOTS[c])
    s.solo_offer = []
    s.solo_picks += 1
    if s.solo_picks < 5:
        s.step = st.SOLO_DRAW
        s.current = CHANCE
    elif s.challenge == 6:
        s.discard_most_dots = False
        s.step = st.DISCARD
        s.current = 0
    elif s.challenge == 5 and not s.power_cap_used:
        s.step = st.POWER_CAP
        s.current = 0
    else:
        s.start_play()


# -- illegal actions ----------------------------------------------------------------


def why_illegal(s: ManateeSanctuaryState, action: Action) -> str | None:
    """A precise message for a deal, solo draw, split, solo pick or discard that is not
    legal now (None: the generic message will do)."""
    step = s.step
    match action:
        case Deal(seat=seat, card=card) if step == st.DEAL:
            if seat != s.deal_seat:
                return f"the next deal goes to seat {s.deal_seat}, not seat {seat}"
            return f"card {card!r} is not in the deck"
        case SoloDraw(card=card) if step == st.SOLO_DRAW:
            return f"card {card!r} is not in the deck"
        case Split(small=small) if step == st.SPLIT:
            dealt = card_ids(s.dealt[s.current])
            if len(small) not in (1, 2):
                return f"small must hold 1 or 2 cards, got {len(small)}"
            for cid in small:
                if cid not in dealt:
                    return (
                        f"card {cid!r} was not dealt to seat {s.current} "
                        f"(dealt: {', '.join(dealt)})"
                    )
            if len(small) == 2 and small[0] >= small[1]:
                return "small must list 2 distinct card ids in ascending order"
        case SoloPick(card=card) if step == st.SOLO_PICK:
            offer = ", ".join(card_ids(s.solo_offer))
            return f"card {card!r} is not one of the two revealed cards ({offer})"
        case Discard(card=card) if step == st.DISCARD:
            which = "most" if s.discard_most_dots else "fewest"
            return f"discard must be a card with the {which} dots in hand; {card!r} is not"
    return None
