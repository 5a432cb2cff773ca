"""Fine-grained steps of the state machine ("phase" in the code)."""

from __future__ import annotations

PH_BONUS = 0
PH_DEAL = 1
PH_SPLIT = 2
PH_KEEP = 3
PH_SOLO_DRAW = 4
PH_SOLO_PICK = 5
PH_POWER = 6
PH_DISCARD = 7
PH_PLAY = 8
PH_DRAW = 9
PH_RETURN_SPACE = 10
PH_RETURN_FOOD = 11
PH_END = 12
# Names shown in observations as "step", and the spec's phase each step belongs to.
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
