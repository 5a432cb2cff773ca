"""The in-process bot interface.

A bot is an object with a ``name`` and one method, ``choose(turn) -> Action | int``
(an action or the index of one in ``turn.legal``). The runner calls it once per
decision of its seat. In-process bots are trusted: ``turn.state`` is the real state,
and a bot must look at it only through ``observation``/``resample``/``legal``, as a
remote bot would (:class:`Turn` offers exactly those).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Protocol

from engine import Action, Game, State
from engine.core import JSON


class BotSpecError(ValueError):
    """A bot spec that names no known bot or has bad parameters."""


class BotFailure(Exception):
    """Raised by a bot adapter when its bot misbehaved in a known way.

    ``kind`` is the event kind recorded for the seat: ``timeout``, ``disconnect``,
    ``stall``, ``illegal`` or ``crash``; ``reason`` says what happened.
    """

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(f"{kind}: {reason}")
        self.kind = kind
        self.reason = reason


@dataclass
class Turn:
    """One decision for one seat."""

    game: Game
    seat: int
    state: State = field(repr=False)
    legal: list[Action]
    rng: random.Random = field(repr=False)
    time_left_ms: float | None = None

    @property
    def observation(self) -> dict[str, JSON]:
        """What this seat may know now."""
        return self.state.observation(self.seat)

    def determinize(self, rng: random.Random | None = None) -> State:
        """A full state consistent with this seat's knowledge (for search bots)."""
        return self.state.resample(self.seat, rng or self.rng)


class Bot(Protocol):
    """What the match runner needs of an in-process bot."""

    name: str

    def choose(self, turn: Turn) -> Action | int: ...
