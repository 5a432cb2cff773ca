"""Ladder ratings: OpenSkill's Plackett–Luce model, updated after every counted game.

Pure functions over plain data (no database): the store calls :func:`rate_outcome` inside
the transaction that commits a result.

**Model.** OpenSkill (Joshi 2024, after Weng & Lin 2011, "A Bayesian approximation method
for online ranking") keeps a Gaussian belief N(μ, σ²) per bot version. The Plackett–Luce
model rates a game of any number of players from its ranks alone (1 = best; equal ranks
are ties), so one update rule serves 2- to 6-player ladders. Defaults are OpenSkill's
(and TrueSkill's): μ₀ = 25, σ₀ = 25/3, β = σ₀/2 (the performance noise of one game),
τ = σ₀/100 (added to σ before every game, so σ never collapses and a bot that improves
can still move).

**Forfeits.** A seat that forfeited (the record's ``standing.forfeited``, or an event of
kind ``forfeit``, ``crash`` or ``disconnect`` — under the ``random`` failure policy a crash
does not forfeit the game, but the program is gone) is ranked last, tied with any other
forfeited seat; the other seats keep their order (as ``arena.records.standing``).

**Ordinal.** Standings sort by the conservative ordinal ``μ − 3σ``: a lower bound that the
true skill exceeds with about 99.9 % probability under the model (TrueSkill's leaderboard
uses the same), so a new version with few games is not ranked above a proven one by luck.

**Provisional.** A version is provisional while ``σ > β`` (default 25/6 ≈ 4.17 = σ₀/2):
until its skill uncertainty is no larger than the noise of a single game, its rank says
little. Against a settled field that takes a median of 22 games at 2 players, 19 at 3
and 21 at 4 (``arena.bench.ladder.bench_placement``, results drawn from the model); lichess
likewise shows a rating as provisional until its Glicko-2 deviation has shrunk to a
fraction (110) of its initial value (500).

>>> s = RatingSettings()
>>> a, b = rate(s, [s.initial(), s.initial()], [1, 2])
>>> a.mu > 25 > b.mu and a.sigma < s.sigma
True
>>> effective_ranks([1, 2, 3], forfeited=[0])
[3, 1, 2]
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from openskill.models import PlackettLuce

DEFAULT_MU = 25.0
DEFAULT_SIGMA = DEFAULT_MU / 3
DEFAULT_BETA = DEFAULT_SIGMA / 2
DEFAULT_TAU = DEFAULT_MU / 300
PROVISIONAL_SIGMA = DEFAULT_BETA
"""σ above which a version is provisional: β, one game's performance noise."""
ORDINAL_Z = 3.0
"""The ordinal is ``μ − ORDINAL_Z·σ``."""
FORFEIT_KINDS = frozenset({"forfeit", "crash", "disconnect"})
"""Record event kinds that put a seat last (and count as a failure towards ``broken``)."""


class OutcomeError(ValueError):
    """A result that cannot be rated (wrong seat count, malformed ranks)."""


@dataclass(frozen=True, slots=True)
class RatingSettings:
    """A ladder's rating parameters (stored on the ladder row)."""

    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA
    beta: float = DEFAULT_BETA
    tau: float = DEFAULT_TAU
    provisional_sigma: float = PROVISIONAL_SIGMA

    def __post_init__(self) -> None:
        for name in ("sigma", "beta", "provisional_sigma"):
            if not getattr(self, name) > 0:
                raise ValueError(f"rating setting {name} must be positive")
        if self.tau < 0:
            raise ValueError("rating setting tau must not be negative")

    def initial(self) -> Skill:
        """The rating of a version that has not played."""
        return Skill(self.mu, self.sigma)

    def model(self) -> PlackettLuce:
        return _model(self.mu, self.sigma, self.beta, self.tau)


@functools.lru_cache(maxsize=32)
def _model(mu: float, sigma: float, beta: float, tau: float) -> PlackettLuce:
    return PlackettLuce(mu=mu, sigma=sigma, beta=beta, tau=tau)


@dataclass(frozen=True, slots=True)
class Skill:
    """A belief about one version's skill: N(mu, sigma²)."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """The conservative rating ``mu − 3·sigma`` that standings sort by."""
        return ordinal(self.mu, self.sigma)

    def provisional(self, threshold: float = PROVISIONAL_SIGMA) -> bool:
        return self.sigma > threshold


def ordinal(mu: float, sigma: float) -> float:
    """``mu − 3·sigma``.

    >>> ordinal(25.0, 25 / 3)
    0.0
    """
    return mu - ORDINAL_Z * sigma


def effective_ranks(ranks: Sequence[int], forfeited: Iterable[int] = ()) -> list[int]:
    """Ranks with forfeited seats last (tied with each other); the others keep their order.

    >>> effective_ranks([1, 1, 3, 4], forfeited=[3])
    [1, 1, 3, 4]
    >>> effective_ranks([2, 1, 3], forfeited=[1, 2])
    [1, 2, 2]
    """
    out = set(forfeited)
    alive = [s for s in range(len(ranks)) if s not in out]
    return [
        len(alive) + 1 if s in out else 1 + sum(1 for o in alive if ranks[o] < ranks[s])
        for s in range(len(ranks))
    ]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the ladder keeps of one game: ranks, scores and who forfeited (and why)."""

    ranks: tuple[int, ...]
    """The game's own ranks (1 = best, ties share), before forfeits."""
    scores: tuple[float, ...] = ()
    forfeited: tuple[int, ...] = ()
    reasons: Mapping[int, str] = field(default_factory=dict)
    """For each forfeited seat, the first failure event's ``kind: reason``."""

    @property
    def seats(self) -> int:
        return len(self.ranks)

    @property
    def effective_ranks(self) -> list[int]:
        """The ranks the rating update uses (forfeits last)."""
        return effective_ranks(self.ranks, self.forfeited)

    def to_json(self) -> dict[str, Any]:
        return {
            "ranks": list(self.ranks),
            "scores": list(self.scores),
            "forfeited": list(self.forfeited),
            "reasons": {str(s): r for s, r in sorted(self.reasons.items())},
        }


def _ints(value: Any, what: str) -> tuple[int, ...]:
    if not isinstance(value, list | tuple) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        raise OutcomeError(f"{what} must be a list of integers, got {value!r}")
    return tuple(value)


def outcome_of(data: Mapping[str, Any]) -> Outcome:
    """The Outcome of a game record (``menagerie.record/1``) or of a stored outcome.

    A record's forfeits are its ``standing.forfeited`` seats plus every seat with an event
    of a :data:`FORFEIT_KINDS` kind.

    >>> rec = {"result": {"ranks": [1, 2], "scores": [3, 1]},
    ...        "events": [{"seat": 0, "kind": "crash", "reason": "boom"}]}
    >>> o = outcome_of(rec)
    >>> o.forfeited, o.effective_ranks, dict(o.reasons)
    ((0,), [2, 1], {0: 'crash: boom'})
    >>> outcome_of(o.to_json()) == o
    True
    """
    if "ranks" in data:  # a stored outcome
        ranks = _ints(data["ranks"], "ranks")
        return _checked(
            Outcome(
                ranks,
                tuple(float(x) for x in data.get("scores") or ()),
                _ints(list(data.get("forfeited") or []), "forfeited"),
                {int(s): str(r) for s, r in (data.get("reasons") or {}).items()},
            )
        )
    result = data.get("result")
    if not isinstance(result, Mapping):
        raise OutcomeError("a record needs a 'result' with 'ranks'")
    ranks = _ints(result.get("ranks"), "result.ranks")
    forfeited = set(_ints(list((data.get("standing") or {}).get("forfeited") or []), "forfeited"))
    reasons: dict[int, str] = {}
    for event in data.get("events") or []:
        seat = event.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool):
            continue
        kind = str(event.get("kind", ""))
        if kind in FORFEIT_KINDS or (seat in forfeited and kind != "stderr"):
            forfeited.add(seat)
            reasons.setdefault(seat, f"{kind}: {event.get('reason', '')}".rstrip(": "))
    scores = tuple(float(x) for x in result.get("scores") or ())
    return _checked(Outcome(ranks, scores, tuple(sorted(forfeited)), reasons))


def _checked(outcome: Outcome) -> Outcome:
    n = len(outcome.ranks)
    if n == 0:
        raise OutcomeError("a result needs at least one seat")
    if any(not 1 <= r <= n for r in outcome.ranks):
        raise OutcomeError(f"ranks {list(outcome.ranks)} must lie in 1..{n}")
    if outcome.scores and len(outcome.scores) != n:
        raise OutcomeError(f"{len(outcome.scores)} scores for {n} seats")
    if any(not 0 <= s < n for s in outcome.forfeited):
        raise OutcomeError(f"forfeited seats {list(outcome.forfeited)} outside 0..{n - 1}")
    return outcome


def rate(settings: RatingSettings, skills: Sequence[Skill], ranks: Sequence[int]) -> list[Skill]:
    """The seats' ratings after one game with these ranks (1 = best; equal ranks tie)."""
    if len(skills) != len(ranks):
        raise OutcomeError(f"{len(ranks)} ranks for {len(skills)} players")
    if len(skills) < 2:
        raise OutcomeError("a rated game needs at least two players")
    model = settings.model()
    teams = [[model.rating(mu=s.mu, sigma=s.sigma)] for s in skills]
    rated = model.rate(teams, ranks=[float(r) for r in ranks])
    return [Skill(float(team[0].mu), float(team[0].sigma)) for team in rated]


def rate_outcome(
    settings: RatingSettings, skills: Sequence[Skill], outcome: Outcome
) -> list[Skill]:
    """:func:`rate` with the outcome's effective ranks (forfeits last)."""
    if outcome.seats != len(skills):
        raise OutcomeError(f"the result has {outcome.seats} seats, the match {len(skills)}")
    return rate(settings, skills, outcome.effective_ranks)
