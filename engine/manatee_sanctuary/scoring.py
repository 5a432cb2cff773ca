"""Round scoring, round bonuses, end-game cards, solo scoreboard and challenges (5.7, 9)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core import competition_ranks
from engine.manatee_sanctuary.data import (
    BONUS_IDS,
    CAT,
    CATEGORIES,
    ENDGAME,
    GREY,
    PINK,
    RB7_POINTS,
    RB8_POINTS,
    RB8_SHAPES,
    ROUND_POINTS,
    SCOREBOARD_LOW,
    YELLOW,
)

if TYPE_CHECKING:
    from engine.manatee_sanctuary.state import ManateeState, Player


def bonus_points(card: int, rnd: int, p: Player) -> int:
    """Points of round-bonus card ``card`` (index into BONUS_IDS) in round ``rnd`` for ``p``."""
    goal = BONUS_IDS[card]
    if goal == "RB1":
        return 3 * p.housed[YELLOW]
    if goal == "RB2":
        return 2 * p.housed[PINK]
    if goal == "RB3":
        return sum(p.housed)
    if goal == "RB4":
        return 3 * p.flowers[0]
    if goal == "RB5":
        return 3 * p.flowers[1]
    if goal == "RB6":
        return 3 * p.flowers[2]
    if goal == "RB7":
        return RB7_POINTS[rnd - 1] if p.food <= 3 else 0
    return RB8_POINTS[rnd - 1] if p.sanct.contains(RB8_SHAPES[rnd - 1]) else 0


def endgame_points(p: Player) -> int:
    """Sum over the scoring cards in the sanctuary, each scoring on its own (D26)."""
    total = 0
    for card, _x, _y, _r in p.sanct.placements:
        kind = ENDGAME[card]
        if kind == "per_2_manatees_1":
            total += sum(p.housed) // 2
        elif kind == "per_pink_2":
            total += 2 * p.housed[PINK]
        elif kind == "per_yellow_3":
            total += 3 * p.housed[YELLOW]
    return total


def score_round(s: ManateeState) -> None:
    """Phase 4 for every player (after feeding)."""
    rnd = s.round
    g_pts, p_pts, y_pts = ROUND_POINTS[rnd - 1]
    bonus = s.bonus[rnd - 1]
    for p in s.players:
        h = p.housed
        p.score[CAT[f"round_{rnd}"]] += h[GREY] * g_pts + h[PINK] * p_pts + h[YELLOW] * y_pts
        if bonus >= 0:
            p.score[CAT[f"bonus_{rnd}"]] += bonus_points(bonus, rnd, p)
        if rnd == 3:
            p.score[CAT["endgame"]] += endgame_points(p)
    if s.solo:
        s.players[0].score[CAT[f"solo_{rnd}"]] += s.token
        s.token = 0


def solo_band(total: int, bonuses_on: bool) -> int:
    shift = 25 if bonuses_on else 0
    return sum(1 for low in SCOREBOARD_LOW if total >= low + shift)


def challenge_condition(s: ManateeState) -> bool:
    """Whether the solo challenge's own condition holds now (score >= 70 checked apart)."""
    p = s.players[0]
    k = s.challenge
    if k == 1:
        return p.food >= 40
    if k == 3:
        return max(p.flowers) >= 7
    if k == 4:
        return sum(p.flowers) <= 6
    if k == 7:
        return p.sanct.contains("R6")
    if k == 8:
        return sum(p.housed) >= 24 and not s.saver_lost
    return True  # 2, 5, 6: rule changes only


def breakdown(s: ManateeState, seat: int) -> dict[str, int]:
    p = s.players[seat]
    out = dict(zip(CATEGORIES, p.score, strict=True))
    total = sum(p.score)
    out["total"] = total
    if s.solo:
        out["solo_band"] = solo_band(total, s.bonuses_on)
        if s.challenge:
            won = s.phase_is_end() and total >= 70 and challenge_condition(s)
            out["challenge_won"] = 1 if won else 0
    return out


def ranks(totals: list[int], housed: list[int], food: list[int]) -> list[int]:
    """Higher total, then more housed manatees, then less food; ties share (D28)."""
    return competition_ranks([(t, h, -f) for t, h, f in zip(totals, housed, food, strict=True)])
