"""Normalised rewards for search bots: one number in [0, 1] per seat.

A reward mixes the seat's standing (the share of rivals it beats, ties counting half)
and its margin over the best rival, squashed with ``tanh`` at the game's ``scale``, so
ISMCTS prefers winning and, among wins (or losses), a larger margin. Solo games use the
squashed score alone.

>>> [round(r, 3) for r in rewards([10.0, 10.0], scale=10.0)]
[0.5, 0.5]
>>> a, b = rewards([20.0, 10.0], scale=10.0)
>>> a > 0.5 > b and abs(a + b - 1.0) < 1e-9
True
>>> [round(r, 3) for r in rewards([5.0, 5.0], ranks=[1, 2], scale=10.0)]
[0.75, 0.25]
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def rewards(
    scores: Sequence[float],
    ranks: Sequence[int] | None = None,
    scale: float = 10.0,
    own: float = 0.0,
) -> list[float]:
    """Per-seat rewards in [0, 1] from (estimated or final) scores and optional ranks.

    With ``own`` > 0 that share of the reward is the seat's score against the average of
    the others (squashed), so the search also values points that do not change ranks.
    """
    n = len(scores)
    if n == 1:
        return [0.5 + 0.5 * math.tanh(scores[0] / (2.0 * scale))]
    keys: Sequence[float] = [-r for r in ranks] if ranks is not None else scores
    out = []
    for i in range(n):
        beaten = 0.0
        best_other = -math.inf
        for j in range(n):
            if j == i:
                continue
            if keys[i] > keys[j]:
                beaten += 1.0
            elif keys[i] == keys[j]:
                beaten += 0.5
            if scores[j] > best_other:
                best_other = scores[j]
        margin = math.tanh((scores[i] - best_other) / scale)
        reward = 0.5 * beaten / (n - 1) + 0.25 * (1.0 + margin)
        if own:
            others = (sum(scores) - scores[i]) / (n - 1)
            reward = (1.0 - own) * reward + own * 0.5 * (
                1.0 + math.tanh((scores[i] - others) / scale)
            )
        out.append(reward)
    return out
