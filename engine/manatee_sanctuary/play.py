"""Phase 2 (expand or act, 5.4) and phase 3 (feeding, 5.6), including `return` decisions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core import CHANCE, Action
from engine.manatee_sanctuary import phases as st
from engine.manatee_sanctuary.actions import (
    ACTS,
    BAG_DRAW_COLOUR,
    Act,
    BagDraw,
    Expand,
    Return,
    expand_action,
    return_action,
)
from engine.manatee_sanctuary.data import (
    CARD_INDEX,
    CAT,
    FOOD_CAP,
    FOOD_VALUE,
    HABITAT,
    N_HARVEST,
    N_PINK,
    N_RANDOM,
    N_YELLOW,
    SPACE_VALUE,
)

if TYPE_CHECKING:
    from engine.manatee_sanctuary.state import ManateeState, Player

# res layout: [seat, card, draws_left, new grey, new pink, new yellow, harvest icons]
R_SEAT, R_CARD, R_DRAWS, R_NEW, R_HARVEST = 0, 1, 2, 3, 6


def card_habitat(s: ManateeState, card: int) -> int:
    """Habitat added by ``card`` (Tight Fit: one less, never below 0; D20)."""
    h = HABITAT[card]
    if s.challenge == 2:
        return h - 1 if h > 0 else 0
    return h


def legal_plays(s: ManateeState) -> list[Action]:
    p = s.players[s.cur]
    out: list[Action] = []
    sanct = p.sanct
    for c in p.hand:
        out.append(ACTS[c])
        for x, y, r in sanct.placements_for(c):
            out.append(expand_action(c, x, y, r))
    return out


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


def return_context(s: ManateeState) -> tuple[list[int], tuple[int, int, int]]:
    """(available manatees, values) of the pending return decision."""
    if s.phase == st.PH_RETURN_SPACE:
        assert s.res is not None
        return s.res[R_NEW : R_NEW + 3], SPACE_VALUE
    return s.players[s.cur].housed, FOOD_VALUE


def legal_returns(s: ManateeState) -> list[Action]:
    avail, values = return_context(s)
    return [return_action(*r) for r in return_options(avail, values, s.deficit)]


def next_turn(s: ManateeState, prev: int) -> None:
    """Move the turn pointer clockwise after ``prev``, skipping empty hands (D14)."""
    n = s.n
    players = s.players
    for i in range(1, n + 1):
        t = (prev + i) % n
        if players[t].hand:
            s.turn = t
            s.cur = t
            s.phase = st.PH_PLAY
            return
    s.turn = -1
    s.feed_seat = 0
    continue_feeding(s)


def _remove_from_hand(p: Player, c: int) -> None:
    p.hand.remove(c)
    del p.origin[c]


def apply_play(s: ManateeState, action: Action) -> None:
    t = type(action)
    if t is BagDraw:
        assert isinstance(action, BagDraw) and s.res is not None
        col = BAG_DRAW_COLOUR[action.colour]
        s.bag[col] -= 1
        s.res[R_NEW + col] += 1
        s.res[R_DRAWS] -= 1
        continue_act(s)
    elif t is Act:
        assert isinstance(action, Act)
        seat = s.cur
        c = CARD_INDEX[action.card]
        p = s.players[seat]
        _remove_from_hand(p, c)
        p.pile.append(c)
        rescue = N_PINK[c] + N_YELLOW[c] + N_RANDOM[c]
        b = p.housed[2] if rescue else 0
        new = [0, 0, 0]
        bag = s.bag
        for col, cnt in ((1, N_PINK[c]), (2, N_YELLOW[c])):
            for _ in range(cnt):
                if bag[col] > 0:
                    bag[col] -= 1
                    new[col] += 1
        s.res = [seat, c, N_RANDOM[c] + b, new[0], new[1], new[2], N_HARVEST[c]]
        continue_act(s)
    elif t is Expand:
        assert isinstance(action, Expand)
        seat = s.cur
        c = CARD_INDEX[action.card]
        p = s.players[seat]
        _remove_from_hand(p, c)
        for colour in p.sanct.place(c, action.x, action.y, action.rot):
            p.flowers[colour - 1] += 1
            p.food = min(FOOD_CAP, p.food + 1)
        p.capacity += card_habitat(s, c)
        next_turn(s, seat)
    elif t is Return:
        assert isinstance(action, Return)
        ret = (action.grey, action.pink, action.yellow)
        cnt = ret[0] + ret[1] + ret[2]
        for col in range(3):
            s.bag[col] += ret[col]
        if s.challenge == 8:
            s.saver_lost = True
        if s.phase == st.PH_RETURN_SPACE:
            assert s.res is not None
            for col in range(3):
                s.res[R_NEW + col] -= ret[col]
            s.players[s.res[R_SEAT]].score[CAT["returned_space"]] -= 2 * cnt
            finish_act(s)
        else:
            p = s.players[s.cur]
            for col in range(3):
                p.housed[col] -= ret[col]
            p.score[CAT["returned_food"]] -= 2 * cnt
            p.food -= p.need()
            s.feed_seat = s.cur + 1
            continue_feeding(s)
    else:  # pragma: no cover
        raise AssertionError(f"unexpected action {action}")


def continue_act(s: ManateeState) -> None:
    """Draw the pending random manatees, then check housing (5.4 steps 4-6)."""
    res = s.res
    assert res is not None
    if res[R_DRAWS] > 0:
        if s.bag[0] + s.bag[1] + s.bag[2] > 0:
            s.phase = st.PH_DRAW
            s.cur = CHANCE
            return
        res[R_DRAWS] = 0  # empty bag: the remaining draws yield nothing (D11)
    p = s.players[res[R_SEAT]]
    h = p.housed
    usage = (h[0] + res[3]) + (h[1] + res[4]) + 2 * (h[2] + res[5])
    if usage > p.capacity:
        s.deficit = usage - p.capacity
        s.phase = st.PH_RETURN_SPACE
        s.cur = res[R_SEAT]
        return
    finish_act(s)


def finish_act(s: ManateeState) -> None:
    """House the new manatees, then harvest (5.4 steps 6-7), then pass the turn."""
    res = s.res
    assert res is not None
    seat = res[R_SEAT]
    p = s.players[seat]
    for col in range(3):
        p.housed[col] += res[R_NEW + col]
    if res[R_HARVEST]:
        p.food = min(
            FOOD_CAP, p.food + res[R_HARVEST] * (p.flowers[0] + p.flowers[1] + p.flowers[2])
        )
    s.res = None
    s.deficit = 0
    next_turn(s, seat)


def continue_feeding(s: ManateeState) -> None:
    """Feed seats in order from ``feed_seat``; stop at the first shortage (5.6)."""
    for seat in range(s.feed_seat, s.n):
        p = s.players[seat]
        need = p.need()
        if p.food >= need:
            p.food -= need
            continue
        s.feed_seat = seat
        s.deficit = need - p.food
        s.phase = st.PH_RETURN_FOOD
        s.cur = seat
        return
    s.feed_seat = s.n
    s.deficit = 0
    s.finish_round()
