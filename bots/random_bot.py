"""``random``: uniform over the legal actions, seeded. The simplest possible bot."""

from __future__ import annotations

from bots.base import Turn


class RandomBot:
    """Picks a legal action uniformly at random with the turn's seeded RNG."""

    name = "random"
    version = "1"

    def choose(self, turn: Turn) -> int:
        return turn.rng.randrange(len(turn.legal))
