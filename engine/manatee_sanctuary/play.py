"""Phase 2 (expand or act, 5.4) and phase 3 (feeding, 5.6), including ``return`` decisions."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.core import CHANCE, JSON, Action
from engine.manatee_sanctuary import steps as st
from engine.manatee_sanctuary.actions import (
    ACTS,
    Act,
    BagDraw,
    Expand,
    Return,
    return_action,
)
from engine.manatee_sanctuary.data import (
    CARD_INDEX,
    CAT,
    FOOD_CAP,
    FOOD_VALUE,
    HABITAT,
    MANATEE_NAMES,
    N_HARVEST,
    N_PINK,
    N_RANDOM,
    N_RESCUE,
    N_YELLOW,
    RETURN_PENALTY,
    SPACE_VALUE,
    card_ids,
)

if TYPE_CHECKING:
    from engine.manatee_sanctuary.player import Player
    from engine.manatee_sanctuary.state import ManateeSanctuaryState


@dataclass(slots=True)
class PendingAct:
    """The act being resolved (5.4 steps 3-7): drawn manatees wait here until housed."""

    seat: int
    """The acting seat."""
    card: int
    """The card whose top half is used."""
    draws_left: int
    """Random bag draws still due (? icons plus the yellow bonus)."""
    new: list[int]
    """Manatees gained so far, not housed yet: grey, pink, yellow."""
    harvest_icons: int
    """Harvest icons of the card (food per completed flower once housed)."""

    def copy(self) -> PendingAct:
        return PendingAct(self.seat, self.card, self.draws_left, self.new[:], self.harvest_icons)

    def to_json(self) -> JSON:
        """The digest's form: [seat, card, draws left, new grey, pink, yellow, harvest]."""
        return [self.seat, self.card, self.draws_left, *self.new, self.harvest_icons]


def card_habitat(s: ManateeSanctuaryState, card: int) -> int:
    """Habitat added by ``card`` (Tight Fit: one less, never below 0; D20)."""
    h = HABITAT[card]
    if s.challenge == 2:
        return h - 1 if h > 0 else 0
    return h


# -- legal actions ------------------------------------------------------------------


def legal_plays(s: ManateeSanctuaryState) -> list[Action]:
    p = s.players[s.current]
    out: list[Action] = []
    sanctuary = p.sanctuary
    for c in p.hand:
        out.append(ACTS[c])
        out.extend(sanctuary.expands(c))
    return out


def is_legal_play(s: ManateeSanctuaryState, action: Action) -> bool:
    """Whether ``action`` is in :func:`legal_plays` (without listing them: rollouts check
    every action they apply, and an expand list is long)."""
    if type(action) is Act:
        c = CARD_INDEX.get(action.card)
        return c is not None and c in s.players[s.current].hand
    if type(action) is Expand:
        c = CARD_INDEX.get(action.card)
        p = s.players[s.current]
        return (
            c is not None
            and c in p.hand
            and p.sanctuary.can_expand(c, action.x, action.y, action.rot)
        )
    return False


def return_options(
    avail: list[int], values: tuple[int, int, int], deficit: int
) -> list[tuple[int, int, int]]:
    """Inclusion-minimal sets covering ``deficit`` (D8), ascending by (grey, pink, yellow)."""
    vg, vp, vy = values
    out = []
    for g in range(avail[0] + 1):
        for pk in range(avail[1] + 1):
            for y in range(avail[2] + 1):
                v = g * vg + pk * vp + y * vy
                if v < deficit:
                    continue
                if g and v - vg >= deficit:
                    continue
                if pk and v - vp >= deficit:
                    continue
                if y and v - vy >= deficit:
                    continue
                out.append((g, pk, y))
    return out


def return_context(s: ManateeSanctuaryState) -> tuple[list[int], tuple[int, int, int]]:
    """(available manatees, values) of the pending return decision."""
    if s.step == st.RETURN_SPACE:
        assert s.resolving is not None
        return s.resolving.new, SPACE_VALUE
    return s.players[s.current].housed, FOOD_VALUE


def legal_returns(s: ManateeSanctuaryState) -> list[Action]:
    avail, values = return_context(s)
    return list(returns_for(tuple(avail), values, s.return_deficit))


@functools.lru_cache(maxsize=4096)
def returns_for(
    avail: tuple[int, ...], values: tuple[int, int, int], deficit: int
) -> tuple[Return, ...]:
    """The return actions of :func:`return_options` (a playout asks the same few again
    and again; bounded all the same)."""
    return tuple(return_action(*r) for r in return_options(list(avail), values, deficit))


# -- applying actions ---------------------------------------------------------------


def next_turn(s: ManateeSanctuaryState, prev: int) -> None:
    """Move the turn pointer clockwise after ``prev``, skipping empty hands (D14)."""
    n = s.seats
    players = s.players
    for i in range(1, n + 1):
        t = (prev + i) % n
        if players[t].hand:
            s.turn = t
            s.current = t
            s.step = st.PLAY
            return
    s.turn = -1
    s.feed_seat = 0
    continue_feeding(s)


def _remove_from_hand(p: Player, c: int) -> None:
    p.hand.remove(c)
    del p.origin[c]


def act(s: ManateeSanctuaryState, c: int) -> None:
    """Use card ``c``'s top half: take its P and Y manatees, then draw (5.4 steps 1-5)."""
    seat = s.current
    p = s.players[seat]
    _remove_from_hand(p, c)
    p.pile.append(c)
    bonus = p.housed[2] if N_RESCUE[c] else 0
    new = [0, 0, 0]
    bag = s.bag
    for col, cnt in ((1, N_PINK[c]), (2, N_YELLOW[c])):
        for _ in range(cnt):
            if bag[col] > 0:
                bag[col] -= 1
                new[col] += 1
    s.resolving = PendingAct(seat, c, N_RANDOM[c] + bonus, new, N_HARVEST[c])
    continue_act(s)


def bag_draw(s: ManateeSanctuaryState, col: int) -> None:
    """A manatee of colour ``col`` drawn for the act being resolved."""
    res = s.resolving
    assert res is not None
    s.bag[col] -= 1
    res.new[col] += 1
    res.draws_left -= 1
    continue_act(s)


def expand(s: ManateeSanctuaryState, c: int, x: int, y: int, rot: int) -> None:
    """Lay card ``c``'s bottom half: +1 food per completed flower, its habitat (5.5)."""
    seat = s.current
    p = s.players[seat]
    _remove_from_hand(p, c)
    for colour in p.sanctuary.place(c, x, y, rot):
        p.flowers[colour - 1] += 1
        p.food = min(FOOD_CAP, p.food + 1)
    p.capacity += card_habitat(s, c)
    next_turn(s, seat)


def return_manatees(s: ManateeSanctuaryState, ret: tuple[int, int, int]) -> None:
    """Return (grey, pink, yellow) manatees to the bag, -2 points each (D8, O7)."""
    cnt = ret[0] + ret[1] + ret[2]
    for col in range(3):
        s.bag[col] += ret[col]
    if s.challenge == 8:
        s.saver_lost = True
    if s.step == st.RETURN_SPACE:
        res = s.resolving
        assert res is not None
        for col in range(3):
            res.new[col] -= ret[col]
        s.players[res.seat].points[CAT["returned_space"]] -= RETURN_PENALTY * cnt
        finish_act(s)
    else:
        p = s.players[s.current]
        for col in range(3):
            p.housed[col] -= ret[col]
        p.points[CAT["returned_food"]] -= RETURN_PENALTY * cnt
        p.food -= p.need()
        s.feed_seat = s.current + 1
        continue_feeding(s)


def continue_act(s: ManateeSanctuaryState) -> None:
    """Draw the pending random manatees, then check housing (5.4 steps 4-6)."""
    res = s.resolving
    assert res is not None
    if res.draws_left > 0:
        if s.bag[0] + s.bag[1] + s.bag[2] > 0:
            s.step = st.BAG_DRAW
            s.current = CHANCE
            return
        res.draws_left = 0  # empty bag: the remaining draws yield nothing (D11)
    p = s.players[res.seat]
    h = p.housed
    new = res.new
    usage = (h[0] + new[0]) + (h[1] + new[1]) + 2 * (h[2] + new[2])
    if usage > p.capacity:
        s.return_deficit = usage - p.capacity
        s.step = st.RETURN_SPACE
        s.current = res.seat
        return
    finish_act(s)


def finish_act(s: ManateeSanctuaryState) -> None:
    """House the new manatees, then harvest (5.4 steps 6-7), then pass the turn."""
    res = s.resolving
    assert res is not None
    seat = res.seat
    p = s.players[seat]
    for col in range(3):
        p.housed[col] += res.new[col]
    if res.harvest_icons:
        p.food = min(
            FOOD_CAP, p.food + res.harvest_icons * (p.flowers[0] + p.flowers[1] + p.flowers[2])
        )
    s.resolving = None
    s.return_deficit = 0
    next_turn(s, seat)


def continue_feeding(s: ManateeSanctuaryState) -> None:
    """Feed seats in order from ``feed_seat``; stop at the first shortage (5.6)."""
    for seat in range(s.feed_seat, s.seats):
        p = s.players[seat]
        need = p.need()
        if p.food >= need:
            p.food -= need
            continue
        s.feed_seat = seat
        s.return_deficit = need - p.food
        s.step = st.RETURN_FOOD
        s.current = seat
        return
    s.feed_seat = s.seats
    s.return_deficit = 0
    s.finish_round()


# -- illegal actions ----------------------------------------------------------------


def why_illegal(s: ManateeSanctuaryState, action: Action) -> str | None:
    """A precise message for a bag draw, act, expand or return that is not legal now
    (None: the generic message will do)."""
    step = s.step
    match action:
        case BagDraw(colour=colour) if step == st.BAG_DRAW:
            return f"the bag holds no {colour} manatee"
        case Act(card=card) if step == st.PLAY:
            return _not_in_hand(s, card)
        case Expand(card=card, x=x, y=y, rot=rot) if step == st.PLAY:
            problem = _not_in_hand(s, card)
            if problem is None:
                why = s.players[s.current].sanctuary.explain(CARD_INDEX[card], x, y, rot)
                if why:
                    problem = f"cannot expand {card} at ({x},{y}) rot {rot}: {why}"
            return problem
        case Return(grey=grey, pink=pink, yellow=yellow) if step in st.RETURNS:
            return _why_return_illegal(s, (grey, pink, yellow))
    return None


def _not_in_hand(s: ManateeSanctuaryState, card: str) -> str | None:
    seat = s.current
    hand = s.players[seat].hand
    c = CARD_INDEX.get(card)
    if c is None or c not in hand:
        return f"card {card!r} is not in seat {seat}'s hand ({', '.join(card_ids(hand))})"
    return None


def _why_return_illegal(s: ManateeSanctuaryState, ret: tuple[int, int, int]) -> str:
    avail, values = return_context(s)
    space = s.step == st.RETURN_SPACE
    what = "new manatees of this card" if space else "housed manatees"
    for i in range(3):
        if ret[i] < 0:
            return f"{MANATEE_NAMES[i]} must be >= 0, got {ret[i]}"
        if ret[i] > avail[i]:
            return f"only {avail[i]} {MANATEE_NAMES[i]} among the {what} can be returned"
    value = sum(ret[i] * values[i] for i in range(3))
    unit = "spaces" if space else "food"
    deficit = s.return_deficit
    if value < deficit:
        return f"the returned manatees save {value} {unit}, the deficit is {deficit}"
    return (
        f"the set is not inclusion-minimal: it saves {value} {unit} for a deficit of "
        f"{deficit}, and some returned manatee could stay"
    )
