"""The tournament schedule: a lazy iterator over every game, like fastchess's scheduler.

For a k-player game, every group of k bots of the roster (``itertools.combinations``)
plays every cyclic seat rotation on the same seed (the duplicate format: each bot of
the group meets the same deal from every seat), and all of that is repeated ``rounds``
times with a fresh derived seed per round and group. The order is round-major, so any
prefix of the schedule has every group about equally often.

Nothing is materialised: the schedule of a million games is an iterator, and its size is
arithmetic (``rounds * C(n, k) * k``). Game ids are deterministic hashes of the
tournament, the seated bots (names and specs, in seat order), the round and the seed,
so a re-run of the same tournament produces the same ids (and a grown roster or more
rounds add new ids without changing the old ones).

>>> s = Schedule("t-1", [("a", "random"), ("b", "random"), ("c", "random")], 2, 2, seed=7)
>>> len(s), s.groups
(12, 3)
>>> games = list(s)
>>> [g.seats for g in games[:4]]
[('a', 'b'), ('b', 'a'), ('a', 'c'), ('c', 'a')]
>>> games[0].seed == games[1].seed != games[2].seed
True
>>> len({g.game_id for g in games})
12

A **gauntlet** (``gauntlet=NAME``) keeps only the groups that hold that bot: NAME plays
every other bot (each group in every seat rotation, as above) and the others never play
each other, the usual test of a new version. Its games are the round robin's games of
those groups (the same seeds and ids).

>>> g = Schedule("t-1", [("a", "random"), ("b", "random"), ("c", "random")], 2, 1, 7, "c")
>>> len(g), [x.seats for x in g]
(4, [('a', 'c'), ('c', 'a'), ('b', 'c'), ('c', 'b')])
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ScheduledGame:
    """One game of the schedule; bots travel as (name, spec) strings."""

    index: int
    round: int
    group: int
    rotation: int
    seats: tuple[str, ...]
    specs: tuple[str, ...]
    seed: int
    game_id: str
    match_id: str


def _hash(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()


def derive_seed(seed: int, round_: int, names: Sequence[str]) -> int:
    """The seed of one group in one round (shared by all its seat rotations)."""
    return int(_hash("seed", seed, round_, *names)[:15], 16)


class Schedule:
    """Every game of a round robin (or of a gauntlet of ``gauntlet``) of ``k``-player
    games over ``roster``, lazily."""

    def __init__(
        self,
        tournament_id: str,
        roster: Sequence[tuple[str, str]],
        players: int,
        rounds: int,
        seed: int,
        gauntlet: str | None = None,
    ) -> None:
        if not 1 <= players <= len(roster):
            raise ValueError(f"{players}-player games need at least {players} bots")
        self.tournament_id = tournament_id
        self.roster = [(str(n), str(s)) for n, s in roster]
        self.players = players
        self.rounds = rounds
        self.seed = seed
        self.gauntlet: int | None = None
        """The roster index of the gauntlet's bot (None: a round robin)."""
        if gauntlet is not None:
            names = [n for n, _ in self.roster]
            if gauntlet not in names:
                raise ValueError(f"the gauntlet's bot {gauntlet!r} is not in the roster")
            self.gauntlet = names.index(gauntlet)

    @property
    def groups(self) -> int:
        """How many groups of ``players`` bots the schedule plays."""
        if self.gauntlet is not None:
            return math.comb(len(self.roster) - 1, self.players - 1)
        return math.comb(len(self.roster), self.players)

    @property
    def per_round(self) -> int:
        return self.groups * self.players

    def __len__(self) -> int:
        return self.rounds * self.per_round

    @property
    def total(self) -> int:
        return len(self)

    def game_id(self, seats: Sequence[tuple[str, str]], round_: int, seed: int) -> str:
        return _hash("game", self.tournament_id, round_, seed, *(f"{n}={s}" for n, s in seats))[:20]

    def __iter__(self) -> Iterator[ScheduledGame]:
        index = 0
        k = self.players
        for round_ in range(self.rounds):
            groups: Iterator[tuple[int, ...]] = itertools.combinations(range(len(self.roster)), k)
            if self.gauntlet is not None:
                groups = (group for group in groups if self.gauntlet in group)
            for g, group in enumerate(groups):
                members = [self.roster[i] for i in group]
                seed = derive_seed(self.seed, round_, [n for n, _ in members])
                names = [n for n, _ in members]
                match_id = _hash("match", self.tournament_id, round_, seed, *names)[:16]
                for rotation in range(k):
                    seats = members[rotation:] + members[:rotation]
                    yield ScheduledGame(
                        index=index,
                        round=round_,
                        group=g,
                        rotation=rotation,
                        seats=tuple(n for n, _ in seats),
                        specs=tuple(s for _, s in seats),
                        seed=seed,
                        game_id=self.game_id(seats, round_, seed),
                        match_id=match_id,
                    )
                    index += 1
