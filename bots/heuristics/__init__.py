"""Per-game heuristics of the reference bots: one small module per game.

``heuristic_for(game_id)`` returns the game's :class:`~bots.heuristics.base.Heuristic`
(the generic :class:`~bots.heuristics.base.ObservedScores` for a game without a module),
so the greedy and ISMCTS bots play every registered game.
"""

from __future__ import annotations

import functools
import importlib

from bots.heuristics.base import Heuristic, ObservedScores

MODULES: dict[str, str] = {
    "zooloretto_mini": "bots.heuristics.zooloretto_mini",
    "carson_city_zoo": "bots.heuristics.carson_city_zoo",
    "dziobaki": "bots.heuristics.dziobaki",
    "panorama": "bots.heuristics.panorama",
    "manatee_sanctuary": "bots.heuristics.manatee_sanctuary",
}


@functools.cache
def heuristic_for(game_id: str) -> Heuristic:
    """The heuristic of ``game_id`` (cached; the generic fallback if there is no module)."""
    return _load(MODULES.get(game_id)) or ObservedScores(game_id)


def _load(module: str | None) -> Heuristic | None:
    if module is None:
        return None
    try:
        heuristic: Heuristic = importlib.import_module(module).HEURISTIC
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
        return None
    return heuristic


__all__ = ["Heuristic", "ObservedScores", "heuristic_for"]
