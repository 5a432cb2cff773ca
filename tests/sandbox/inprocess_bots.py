"""In-process (``py:``) bots that misbehave, for the arena clock tests."""

from __future__ import annotations

from typing import Any


class LoopBot:
    """Loops forever at every decision, and swallows ordinary exceptions on the way."""

    name = "loop"

    def choose(self, turn: Any) -> int:
        while True:
            try:  # noqa: SIM105  # swallowing what it can is the point
                pass
            except Exception:
                pass
