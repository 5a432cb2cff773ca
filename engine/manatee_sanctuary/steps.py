"""The fine steps of the state machine and the spec's phase each belongs to.

``ManateeSanctuaryState.step`` is one of these integers; observations show its name as
``"step"`` and the phase it belongs to (spec section 5) as ``"phase"``.
"""

from __future__ import annotations

ROUND_BONUS = 0
"""Setup (round-bonus module): a chance node assigns the next round's bonus card."""
DEAL = 1
"""Draft: a chance node deals the next card to ``deal_seat``."""
SPLIT = 2
"""Draft: seats in order commit their small stack."""
KEEP = 3
"""Draft: seats in order commit which received stack they keep."""
SOLO_DRAW = 4
"""Solo draft: a chance node reveals the next of two cards."""
SOLO_PICK = 5
"""Solo draft: keep one of the two revealed cards."""
POWER_CAP = 6
"""Solo challenge 5: use the Power Cap discard now or later."""
DISCARD = 7
"""Solo challenges 5 and 6: discard a card with the most / fewest dots."""
PLAY = 8
"""Expand or act: the turn pointer's seat plays a card."""
BAG_DRAW = 9
"""Expand or act: a chance node draws a manatee for the act being resolved."""
RETURN_SPACE = 10
"""Expand or act: the acting seat returns new manatees it cannot house."""
RETURN_FOOD = 11
"""Feeding: ``feed_seat`` returns housed manatees it cannot feed."""
GAME_OVER = 12
"""The game is over."""

RETURNS = (RETURN_SPACE, RETURN_FOOD)
"""The steps that ask a ``return`` decision."""

STEP_NAMES = (
    "round_bonus",
    "deal",
    "split",
    "keep",
    "solo_draw",
    "solo_pick",
    "power_cap",
    "discard",
    "play",
    "bag_draw",
    "return_space",
    "return_food",
    "game_over",
)
"""The name of each step, as observations show it (``"step"``)."""

PHASE_OF_STEP = (
    "setup",
    "draft",
    "draft",
    "draft",
    "draft",
    "draft",
    "draft",
    "draft",
    "expand_or_act",
    "expand_or_act",
    "expand_or_act",
    "feeding",
    "game_over",
)
"""The spec's phase of each step, as observations show it (``"phase"``)."""
