"""Phase 1: the multiplayer draft (5.2), the solo draft and challenge discards (5.3), setup
chance events, and the fast legality check of chance outcomes."""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

from engine.core import CHANCE, Action
from engine.manatee_sanctuary import phases as st
from engine.manatee_sanctuary.actions import (
    DISCARDS,
    KEEPS,
    POWER_CAPS,
    SOLO_PICKS,
    BagDraw,
    Deal,
    Discard,
    Keep,
    PowerCap,
    RoundBonus,
    SoloDraw,
    SoloPick,
    Split,
)
from engine.manatee_sanctuary.data import BONUS_IDS, CARD_ID, CARD_INDEX, DOTS

if TYPE_CHECKING:
    from engine.manatee_sanctuary.state import ManateeState

_SPLITS: dict[tuple[int, ...], list[Action]] = {}


def split_actions(dealt: list[int]) -> list[Action]:
    """The 15 splits of 5 dealt cards: 5 singletons, then 10 pairs (lexicographic)."""
    key = tuple(dealt)
    acts = _SPLITS.get(key)
    if acts is None:
        ids = [CARD_ID[c] for c in dealt]
        acts = [Split((a,)) for a in ids]
        acts += [Split((ids[i], ids[j])) for i in range(5) for j in range(i + 1, 5)]
        if len(_SPLITS) > 200_000:
            _SPLITS.clear()
        _SPLITS[key] = acts
    return acts


def discard_choices(s: ManateeState) -> list[int]:
    hand = s.players[0].hand
    dots = [DOTS[c] for c in hand]
    target = max(dots) if s.discard_max else min(dots)
    return [c for c in hand if DOTS[c] == target]


def legal_draft(s: ManateeState) -> list[Action]:
    ph = s.phase
    if ph == st.PH_SPLIT:
        return list(split_actions(s.dealt[s.cur]))
    if ph == st.PH_KEEP:
        return list(KEEPS)
    if ph == st.PH_SOLO_PICK:
        return [SOLO_PICKS[c] for c in sorted(s.offer)]
    if ph == st.PH_POWER:
        return [POWER_CAPS[0]] if s.round == 3 else list(POWER_CAPS)
    if ph == st.PH_DISCARD:
        return [DISCARDS[c] for c in discard_choices(s)]
    return []


def chance_ok(s: ManateeState, action: Action) -> bool:
    """Whether ``action`` is one of the current chance outcomes (without building the list)."""
    ph = s.phase
    t = type(action)
    if ph == st.PH_DRAW:
        if t is not BagDraw:
            return False
        col = ("grey", "pink", "yellow").index(action.colour)  # type: ignore[attr-defined]
        return s.bag[col] > 0
    if ph == st.PH_DEAL:
        if t is not Deal or action.seat != s.deal_seat:  # type: ignore[attr-defined]
            return False
        c = CARD_INDEX.get(action.card)  # type: ignore[attr-defined]
        return c is not None and _in_sorted(s.deck, c)
    if ph == st.PH_SOLO_DRAW:
        if t is not SoloDraw:
            return False
        c = CARD_INDEX.get(action.card)  # type: ignore[attr-defined]
        return c is not None and _in_sorted(s.deck, c)
    if ph == st.PH_BONUS:
        return any(o == action for o, _ in s._chance_outcomes())
    return False


def _in_sorted(lst: list[int], c: int) -> bool:
    i = bisect.bisect_left(lst, c)
    return i < len(lst) and lst[i] == c


def _take_from_deck(s: ManateeState, card_id: str) -> int:
    c = CARD_INDEX[card_id]
    deck = s.deck
    del deck[bisect.bisect_left(deck, c)]
    return c


def apply_draft(s: ManateeState, action: Action) -> None:
    t = type(action)
    if t is Deal:
        assert isinstance(action, Deal)
        c = _take_from_deck(s, action.card)
        dealt = s.dealt[action.seat]
        bisect.insort(dealt, c)
        if len(dealt) == 5:
            s.deal_seat += 1
            if s.deal_seat == s.n:
                s.phase = st.PH_SPLIT
                s.split = [None] * s.n
                s.cur = 0
    elif t is Split:
        assert isinstance(action, Split)
        s.split[s.cur] = [CARD_INDEX[c] for c in action.small]
        s.cur += 1
        if s.cur == s.n:
            _resolve_split(s)
    elif t is Keep:
        assert isinstance(action, Keep)
        s.keep[s.cur] = 0 if action.stack == "small" else 1
        s.cur += 1
        if s.cur == s.n:
            _resolve_keep(s)
    elif t is SoloDraw:
        assert isinstance(action, SoloDraw)
        s.offer.append(_take_from_deck(s, action.card))
        if len(s.offer) == 2:
            s.phase = st.PH_SOLO_PICK
            s.cur = 0
    elif t is SoloPick:
        assert isinstance(action, SoloPick)
        _solo_pick(s, CARD_INDEX[action.card])
    elif t is PowerCap:
        assert isinstance(action, PowerCap)
        if action.now:
            s.power_used = True
            s.discard_max = True
            s.phase = st.PH_DISCARD
        else:
            s.start_play()
    elif t is Discard:
        assert isinstance(action, Discard)
        c = CARD_INDEX[action.card]
        p = s.players[0]
        p.hand.remove(c)
        del p.origin[c]
        s.discards.append(c)
        s.start_play()
    elif t is RoundBonus:
        assert isinstance(action, RoundBonus)
        s.bonus[action.round - 1] = BONUS_IDS.index(action.card)
        if action.round == 3:
            s.start_draft()
    else:  # pragma: no cover - guarded by legality checks
        raise AssertionError(f"unexpected action {action}")


def _resolve_split(s: ManateeState) -> None:
    stacks = []
    for o in range(s.n):
        small = s.split[o]
        assert small is not None
        large = [c for c in s.dealt[o] if c not in small]
        stacks.append([small, large])
        s.split_size[o] = len(small)
    s.stacks = stacks
    s.dealt = [[] for _ in range(s.n)]
    s.split = [None] * s.n
    s.keep = [-1] * s.n
    s.phase = st.PH_KEEP
    s.cur = 0


def _resolve_keep(s: ManateeState) -> None:
    for r in range(s.n):
        p = s.passer(r)
        k = s.keep[r]
        kept = s.stacks[p][k]
        back = s.stacks[p][1 - k]
        for c, who in ((kept, s.players[r]), (back, s.players[p])):
            for card in c:
                bisect.insort(who.hand, card)
                who.origin[card] = p
        s.kept[r] = k
    s.stacks = []
    s.keep = [-1] * s.n
    s.start_play()


def _solo_pick(s: ManateeState, c: int) -> None:
    other = s.offer[0] if s.offer[1] == c else s.offer[1]
    p = s.players[0]
    bisect.insort(p.hand, c)
    p.origin[c] = 0
    s.discards.append(other)
    s.token += 2 * (DOTS[other] - DOTS[c])
    s.offer = []
    s.picks += 1
    if s.picks < 5:
        s.phase = st.PH_SOLO_DRAW
        s.cur = CHANCE
    elif s.challenge == 6:
        s.discard_max = False
        s.phase = st.PH_DISCARD
        s.cur = 0
    elif s.challenge == 5 and not s.power_used:
        s.phase = st.PH_POWER
        s.cur = 0
    else:
        s.start_play()
