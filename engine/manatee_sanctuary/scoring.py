"""Round scoring, round bonuses, end-game cards, solo scoreboard and challenges (5.7, 9)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from engine.core import competition_ranks
from engine.manatee_sanctuary import steps as st
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
    from engine.manatee_sanctuary.player import Player
    from engine.manatee_sanctuary.state import ManateeSanctuaryState


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
    return RB8_POINTS[rnd - 1] if p.sanctuary.contains(RB8_SHAPES[rnd - 1]) else 0


def endgame_card_points(kind: str, housed: Sequence[int]) -> int:
    """Points of one end-game scoring card of ``kind`` (``ENDGAME``; "" for none) for
    housed (grey, pink, yellow) manatees."""
    if kind == "per_2_manatees_1":
        return (housed[GREY] + housed[PINK] + housed[YELLOW]) // 2
    if kind == "per_pink_2":
        return 2 * housed[PINK]
    if kind == "per_yellow_3":
        return 3 * housed[YELLOW]
    return 0


def endgame_points(p: Player) -> int:
    """Sum over the scoring cards in the sanctuary, each scoring on its own (D26)."""
    return sum(
        endgame_card_points(ENDGAME[c], p.housed) for c, _x, _y, _r in p.sanctuary.placements
    )


def score_round(s: ManateeSanctuaryState) -> None:
    """Phase 4 for every player (after feeding)."""
    rnd = s.round
    g_pts, p_pts, y_pts = ROUND_POINTS[rnd - 1]
    bonus = s.round_bonus[rnd - 1]
    for p in s.players:
        h = p.housed
        p.points[CAT[f"round_{rnd}"]] += h[GREY] * g_pts + h[PINK] * p_pts + h[YELLOW] * y_pts
        if bonus >= 0:
            p.points[CAT[f"bonus_{rnd}"]] += bonus_points(bonus, rnd, p)
        if rnd == 3:
            p.points[CAT["endgame"]] += endgame_points(p)
    if s.solo:
        s.players[0].points[CAT[f"solo_{rnd}"]] += s.solo_token
        s.solo_token = 0


def solo_band(total: int, bonuses_on: bool) -> int:
    shift = 25 if bonuses_on else 0
    return sum(1 for low in SCOREBOARD_LOW if total >= low + shift)


def challenge_condition(s: ManateeSanctuaryState) -> bool:
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
        return p.sanctuary.contains("R6")
    if k == 8:
        return sum(p.housed) >= 24 and not s.saver_lost
    return True  # 2, 5, 6: rule changes only


def breakdown(s: ManateeSanctuaryState, seat: int) -> dict[str, int]:
    """Seat ``seat``'s points by category, ``total``, and the solo band and challenge."""
    p = s.players[seat]
    out = dict(zip(CATEGORIES, p.points, strict=True))
    total = sum(p.points)
    out["total"] = total
    if s.solo:
        out["solo_band"] = solo_band(total, s.bonus_module)
        if s.challenge:
            won = s.step == st.GAME_OVER and total >= 70 and challenge_condition(s)
            out["challenge_won"] = 1 if won else 0
    return out


def ranks(totals: list[int], housed: list[int], food: list[int]) -> list[int]:
    """Higher total, then more housed manatees, then less food; ties share (D28)."""
    return competition_ranks([(t, h, -f) for t, h, f in zip(totals, housed, food, strict=True)])
