"""The reference bots by name: ``random``, ``greedy``, ``ismcts``.

Only the table of names (and the import of a bot class). Bot specs
(``ismcts:iterations=400``, ``py:<module>:<Class>``, ``cmd:<command line>``) are parsed
and built by the arena, in one place: ``arena.match.specs``.
"""

from __future__ import annotations

import importlib
from typing import Any

from bots.base import BotSpecError

REFERENCE_BOTS: dict[str, str] = {
    "random": "bots.random_bot:RandomBot",
    "greedy": "bots.greedy:GreedyBot",
    "ismcts": "bots.ismcts:IsmctsBot",
}
"""Reference bot name -> ``module:Class``."""


def load_class(target: str) -> Any:
    """The class ``module:Class`` names (imported now); BotSpecError if there is none."""
    module_name, _, attr = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise BotSpecError(f"cannot import bot module {module_name!r}: {exc}") from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise BotSpecError(f"module {module_name!r} has no bot class {attr!r}") from None


__all__ = ["REFERENCE_BOTS", "load_class"]
