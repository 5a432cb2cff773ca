"""A public (spectator) view, or a seat's view, as text, drawn by the game's own renderer.

A spectator receives observations only (``Watch`` sends ``observation(None)`` after each
step), so the view is drawn by the game's renderer *of an observation*
(``engine/<game>/render.py``). Four games have one; Manatee Sanctuary draws from its
state, so its public view is shown as indented JSON (what ``State.render`` does by
default). The right home of this table is a ``Game.render_observation`` hook in
``engine.core``; until then it is here, the one place that knows it.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Mapping

from engine import get_game
from engine.core import JSON

OBSERVATION_RENDERERS: dict[str, str] = {
    "carson_city_zoo": "engine.carson_city_zoo.render:render_observation",
    "dziobaki": "engine.dziobaki.render:render_observation",
    "panorama": "engine.panorama.render:render",
    "zooloretto_mini": "engine.zooloretto_mini.render:render",
}
"""Game id -> ``module:function`` drawing an observation (a mapping) as text."""


def render_observation(game: str, observation: Mapping[str, JSON]) -> str:
    """``observation`` of ``game`` as text (indented JSON if the game has no renderer,
    or if its renderer fails on it: a spectator tool must not die on one frame)."""
    target = OBSERVATION_RENDERERS.get(game)
    if target is not None:
        module, _, name = target.partition(":")
        draw: Callable[[Mapping[str, JSON]], str] = getattr(importlib.import_module(module), name)
        try:
            return draw(observation)
        except (KeyError, IndexError, TypeError, ValueError):
            pass
    return json.dumps(observation, indent=1)


def render_seat_observation(
    game: str,
    num_players: int,
    options: Mapping[str, JSON],
    seat: int,
    observation: Mapping[str, JSON],
) -> str:
    """A seat's ``observation`` as the game draws it for that seat
    (:meth:`engine.core.Game.render_view`)."""
    return get_game(game).render_view(num_players, options, seat, observation)


__all__ = ["OBSERVATION_RENDERERS", "render_observation", "render_seat_observation"]
