"""Pure rules engines for Menagerie's games, behind one contract (see ``engine.core``).

>>> import engine
>>> game = engine.GAMES["zooloretto_mini"]
>>> state = game.new_game(2, {"removed_species": ["S5", "S6", "S7"], "start_player": 0})
>>> state.current_player, [str(a) for a in state.legal_actions()]
(0, ['draw'])
"""

from engine.core import (
    CHANCE,
    TERMINAL,
    Action,
    Game,
    GameConfigError,
    IllegalActionError,
    Result,
    State,
)
from engine.registry import GAMES, get_game

__all__ = [
    "CHANCE",
    "GAMES",
    "TERMINAL",
    "Action",
    "Game",
    "GameConfigError",
    "IllegalActionError",
    "Result",
    "State",
    "get_game",
]
