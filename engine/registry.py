"""The explicit registry of games: one line per game module in ``_MODULES``."""

from __future__ import annotations

import importlib

from engine.core import Game, GameConfigError

_MODULES: tuple[str, ...] = (
    "engine.zooloretto_mini",
    "engine.carson_city_zoo",
    "engine.dziobaki",
    "engine.panorama",
    "engine.manatee_sanctuary",
)

GAMES: dict[str, Game] = {}
for _name in _MODULES:
    _game: Game = importlib.import_module(_name).GAME
    GAMES[_game.id] = _game


def get_game(game_id: str) -> Game:
    """The registered game ``game_id``; GameConfigError names the known ids otherwise."""
    try:
        return GAMES[game_id]
    except KeyError:
        known = ", ".join(sorted(GAMES))
        raise GameConfigError(f"unknown game {game_id!r}; known games: {known}") from None
