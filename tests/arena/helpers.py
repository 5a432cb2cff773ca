"""Bots and utilities for the arena tests (built inside Ray workers from py: specs)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from bots.base import Turn


class FirstBot:
    """Always the first legal action: deterministic and different from random."""

    name = "first"
    version = "1"

    def choose(self, turn: Turn) -> int:
        return 0


class SlowRandom:
    """Random, after sleeping ``ms`` per decision (paces a tournament)."""

    name = "slow-random"
    version = "1"

    def __init__(self, ms: float = 0.5) -> None:
        self.seconds = ms / 1000

    def choose(self, turn: Turn) -> int:
        time.sleep(self.seconds)
        return turn.rng.randrange(len(turn.legal))


class PidBot:
    """Random; logs its pid in ``<dir>/games.log`` when built (once per game played).

    While a file ``<dir>/hold`` exists, its next decision creates ``<dir>/busy-<pid>``
    and waits for the file to go: a test can then kill a worker that is surely in the
    middle of a task.
    """

    name = "pid"
    version = "1"

    def __init__(self, dir: str, ms: float = 0.5) -> None:
        self.dir = Path(dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.seconds = ms / 1000
        with open(self.dir / "games.log", "a") as log:
            log.write(f"{os.getpid()}\n")

    def choose(self, turn: Turn) -> int:
        hold = self.dir / "hold"
        if hold.exists():
            (self.dir / f"busy-{os.getpid()}").touch()
            deadline = time.monotonic() + 600  # only if a test forgets to remove the file
            while hold.exists() and time.monotonic() < deadline:
                time.sleep(0.01)
        time.sleep(self.seconds)
        return turn.rng.randrange(len(turn.legal))


class GatedRandom:
    """Random; logs its pid in ``<dir>/games.log`` when built (once per game played).

    From the ``after``-th game on (counted in that log, over every worker process), its
    decisions wait while a file ``<dir>/gate`` exists: a tournament with this bot makes
    progress up to that point and then surely stops short of its end until the gate
    goes (a test kills its driver there, with no race against the driver finishing).
    """

    name = "gated-random"
    version = "1"
    after = 12

    def __init__(self, dir: str) -> None:
        self.dir = Path(dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        with open(self.dir / "games.log", "a") as log:
            log.write(f"{os.getpid()}\n")
        self.gated = len((self.dir / "games.log").read_text().split()) >= self.after

    def choose(self, turn: Turn) -> int:
        if self.gated:
            deadline = time.monotonic() + 600  # only if a test forgets to open the gate
            while (self.dir / "gate").exists() and time.monotonic() < deadline:
                time.sleep(0.01)
        return turn.rng.randrange(len(turn.legal))


class CrashBot:
    """Raises on every decision: exercises the failure policy and failure counts."""

    name = "crash"
    version = "1"

    def choose(self, turn: Turn) -> int:
        raise RuntimeError("boom")


def pick_game() -> str:
    """A fast registered 2-player game for the tests."""
    from engine import GAMES

    for gid in ("dziobaki", "zooloretto_mini", "panorama", "carson_city_zoo"):
        if gid in GAMES and GAMES[gid].min_players <= 2 <= GAMES[gid].max_players:
            return gid
    return next(g.id for g in GAMES.values() if g.min_players <= 2 <= g.max_players)


class KillerBot:
    """Kills the process it plays in (as a segfaulting native extension would)."""

    name = "killer"
    version = "1"

    def choose(self, turn: Turn) -> int:
        os.kill(os.getpid(), 9)
        return 0


class OneGameBot:
    """Random, and fails a game if it was built for another one (a bot carried from one
    game to the next would see a second game's ``turn.rng``); counts the bots built."""

    name = "one-game"
    version = "1"
    built = 0
    """Bots built in this process so far."""

    def __init__(self) -> None:
        OneGameBot.built += 1
        self.rng: object | None = None

    def choose(self, turn: Turn) -> int:
        if self.rng is None:
            self.rng = turn.rng
        elif turn.rng is not self.rng:
            raise RuntimeError("a bot was reused for a second game")
        return turn.rng.randrange(len(turn.legal))
