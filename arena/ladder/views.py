"""What the ladder store returns: plain frozen dataclasses, never ORM objects, so nothing
outside :mod:`arena.ladder.store` holds a database session."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Row

from arena.ladder.matchmaking import Candidate
from arena.ladder.models import Bot, BotVersion, Ladder, Lease, Match
from arena.ladder.rating import RatingSettings, Skill, ordinal
from arena.sandbox.limits import DEFAULT_LIMITS, SandboxLimits


@dataclass(frozen=True, slots=True)
class LadderInfo:
    id: int
    name: str
    game: str
    players: int
    options: dict[str, Any]
    move_ms: int | None
    failure_policy: str
    rating: RatingSettings
    broken_after: int
    max_attempts: int
    placement_games: int
    created_at: datetime
    sandbox: SandboxLimits
    """The limits the ladder's command bots run under (its own, over the defaults)."""

    def sandbox_settings(self) -> dict[str, Any]:
        """The sandbox limits this ladder sets differently from the defaults (what
        ``arena ladder create --sandbox`` was given): what listings show."""
        return sandbox_overrides(self.sandbox)


def sandbox_overrides(limits: SandboxLimits) -> dict[str, Any]:
    """The fields of ``limits`` that differ from the defaults (what a ladder stores).

    >>> sandbox_overrides(SandboxLimits(processes=24))
    {'processes': 24}
    """
    defaults = DEFAULT_LIMITS.to_json()
    return {k: v for k, v in limits.to_json().items() if defaults[k] != v}


@dataclass(frozen=True, slots=True)
class VersionInfo:
    id: int
    ladder: str
    bot: str
    owner: str
    version: int
    kind: str
    spec: str | None
    archive_sha256: str | None
    entry: str | None
    status: str
    reason: str | None
    failures_in_row: int
    created_at: datetime

    @property
    def label(self) -> str:
        """``bot@version``, as standings and records name it."""
        return f"{self.bot}@{self.version}"


@dataclass(frozen=True, slots=True)
class MatchInfo:
    id: int
    ladder_id: int
    seed: int
    seats: tuple[int, ...]
    """Bot-version ids in seat order."""
    set_key: str
    rotation: int
    status: str
    result: dict[str, Any] | None
    record_location: str | None
    attempts: int
    lease_token: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None


@dataclass(frozen=True, slots=True)
class LeaseInfo:
    ladder: str
    ladder_id: int
    holder: str
    token: str
    acquired_at: datetime
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class StandingRow:
    rank: int
    version_id: int
    bot: str
    version: int
    owner: str
    status: str
    mu: float
    sigma: float
    games: int
    provisional: bool

    @property
    def ordinal(self) -> float:
        """``mu − 3·sigma``, what the standings sort by."""
        return ordinal(self.mu, self.sigma)

    @property
    def label(self) -> str:
        return f"{self.bot}@{self.version}"


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    match_id: int
    set_key: str
    seat: int
    rank: int
    forfeited: bool
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    at: datetime
    record_location: str | None
    opponents: tuple[str, ...]
    """The other seats' ``bot@version`` labels, in seat order."""


@dataclass(frozen=True, slots=True)
class CommitOutcome:
    match_id: int
    counted: bool
    """True when this call counted the result; False for a repeated commit (no-op)."""
    ratings: dict[int, Skill] = field(default_factory=dict)
    """Version id -> its rating after the game (empty for a repeated commit)."""
    broken: tuple[int, ...] = ()
    """Versions this result marked broken (N failures in a row)."""

    @property
    def duplicate(self) -> bool:
        return not self.counted


@dataclass(frozen=True, slots=True)
class BatchCommit:
    """What :meth:`LadderStore.commit_results` did with a batch of results."""

    outcomes: tuple[CommitOutcome, ...]
    """One per result that was not stale, in the order given."""
    stale: dict[int, str]
    """Match id -> why its result was not counted (re-queued, voided, another lease)."""


@dataclass(frozen=True, slots=True)
class Recovery:
    """What :meth:`LadderStore.void_running` did with a dead runner's matches."""

    requeued: tuple[int, ...]
    voided: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What matchmaking needs of a ladder, read in one transaction."""

    ladder: LadderInfo
    candidates: tuple[Candidate, ...]
    recent: tuple[tuple[int, ...], ...]
    """Groups of the most recent sets (anchor first), oldest first."""


# ---------------------------------------------------------------------------
# From rows (inside the store's transactions)
# ---------------------------------------------------------------------------


def ladder_info(row: Ladder) -> LadderInfo:
    return LadderInfo(
        id=row.id,
        name=row.name,
        game=row.game,
        players=row.players,
        options=dict(row.options or {}),
        move_ms=row.move_ms,
        failure_policy=row.failure_policy,
        rating=RatingSettings(row.mu, row.sigma, row.beta, row.tau, row.provisional_sigma),
        broken_after=row.broken_after,
        max_attempts=row.max_attempts,
        placement_games=row.placement_games,
        created_at=row.created_at,
        sandbox=SandboxLimits.from_json(row.sandbox),
    )


def version_info(row: BotVersion, bot: Bot, ladder_name: str) -> VersionInfo:
    return VersionInfo(
        id=row.id,
        ladder=ladder_name,
        bot=bot.name,
        owner=bot.owner,
        version=row.version,
        kind=row.kind,
        spec=row.spec,
        archive_sha256=row.archive_sha256,
        entry=row.entry,
        status=row.status,
        reason=row.reason,
        failures_in_row=row.failures_in_row,
        created_at=row.created_at,
    )


def match_info(row: Match | Row[Any]) -> MatchInfo:
    """The view of a match row (an ORM object, or a row of its columns)."""
    return MatchInfo(
        id=row.id,
        ladder_id=row.ladder_id,
        seed=row.seed,
        seats=tuple(int(v) for v in row.seats),
        set_key=row.set_key,
        rotation=row.rotation,
        status=row.status,
        result=dict(row.result) if row.result is not None else None,
        record_location=row.record_location,
        attempts=row.attempts,
        lease_token=row.lease_token,
        created_at=row.created_at,
        started_at=row.started_at,
        finished_at=row.finished_at,
    )


def lease_info(row: Lease, ladder_name: str) -> LeaseInfo:
    return LeaseInfo(
        ladder=ladder_name,
        ladder_id=row.ladder_id,
        holder=row.holder,
        token=row.token,
        acquired_at=row.acquired_at,
        expires_at=row.expires_at,
    )
