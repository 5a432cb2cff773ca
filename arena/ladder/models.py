"""The ladder's tables: SQLAlchemy 2 typed models (the schema's single source of truth).

The migrations in ``arena/ladder/migrations/versions`` create exactly these tables; a test
compares Alembic's autogenerate diff against this metadata and expects it to be empty.

Entities (every id is an integer surrogate key):

- ``ladders``: one continuous competition of one game at one player count, with its
  options, move clock, failure policy, rating settings and sandbox limits.
- ``bots`` (per ladder: ``(ladder, name)`` is unique) and their ``bot_versions``: a version
  is immutable once written (its spec or archive hash and entry command never change);
  only its status and reason move. A new submission of a bot is a new version row, so a
  version's games and rating never mix with another version's.
- ``matches``: one game of a duplicate set (``set_key`` groups the rotations that share one
  seed); ``seats`` is the list of bot-version ids in seat order. ``queued → running → done``
  or ``void``; ``result`` and ``record_location`` are written in the same transaction that
  updates the ratings (exactly once).
- ``ratings``: the current OpenSkill (μ, σ) and game count of a version on its ladder.
- ``rating_history``: one row per (match, version) counted; the unique constraint on that
  pair is the database's own guard against counting a match twice.
- ``leases``: at most one row per ladder, the runner that drives it and until when.

Statuses and kinds are short strings guarded by CHECK constraints (not database enums:
adding a value is then a one-line migration on every backend).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

VERSION_STATUSES = ("validating", "active", "retired", "broken")
VERSION_KINDS = ("hosted", "remote")
MATCH_STATUSES = ("queued", "running", "done", "void")
FAILURE_POLICIES = ("forfeit", "random")


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC timestamp on every backend (SQLite stores it naive)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value!r}: the ladder stores UTC times only")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class Base(DeclarativeBase):
    """Declarative base with a naming convention, so migrations name every constraint."""

    metadata = MetaData(
        naming_convention={
            "ix": "ix_%(column_0_label)s",
            "uq": "uq_%(table_name)s_%(column_0_name)s",
            "ck": "ck_%(table_name)s_%(constraint_name)s",
            "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
            "pk": "pk_%(table_name)s",
        }
    )
    type_annotation_map = {datetime: UTCDateTime(), dict[str, Any]: JSON, list[Any]: JSON}


class Ladder(Base):
    """One continuous competition: a game, a player count and how games are run and rated."""

    __tablename__ = "ladders"
    __table_args__ = (
        CheckConstraint("players >= 1", name="players"),
        CheckConstraint(_in("failure_policy", FAILURE_POLICIES), name="failure_policy"),
        CheckConstraint("broken_after >= 1", name="broken_after"),
        CheckConstraint("max_attempts >= 1", name="max_attempts"),
        CheckConstraint("placement_games >= 0", name="placement_games"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    """Unique, what commands name the ladder by."""
    game: Mapped[str] = mapped_column(String(64))
    """An ``engine.GAMES`` id."""
    players: Mapped[int] = mapped_column(Integer)
    """Players per game (k): every match seats exactly this many bot versions."""
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    """The game's options (JSON object), the same for every match."""
    move_ms: Mapped[int | None] = mapped_column(Integer)
    """The per-move clock in milliseconds (None: no limit)."""
    failure_policy: Mapped[str] = mapped_column(String(16))
    """``forfeit`` or ``random`` (as ``arena.match``): what a misbehaving seat gets."""
    mu: Mapped[float] = mapped_column(Float)
    """OpenSkill μ of a new version."""
    sigma: Mapped[float] = mapped_column(Float)
    """OpenSkill σ of a new version."""
    beta: Mapped[float] = mapped_column(Float)
    """OpenSkill β: the performance noise of one game."""
    tau: Mapped[float] = mapped_column(Float)
    """OpenSkill τ: the additive dynamics that keeps σ from collapsing."""
    provisional_sigma: Mapped[float] = mapped_column(Float)
    """A version is provisional while its σ is above this."""
    broken_after: Mapped[int] = mapped_column(Integer)
    """A version whose seat fails (forfeit/crash) this many games in a row is broken."""
    max_attempts: Mapped[int] = mapped_column(Integer)
    """How often a match whose runner died is re-queued before it is voided."""
    placement_games: Mapped[int] = mapped_column(Integer)
    """Matchmaking's placement allowance C: a version that becomes active starts this many
    games behind the most-played (``matchmaking.placement_base``)."""
    sandbox: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    """The limits its command bots run under (``arena.sandbox.limits.SandboxLimits``
    fields that differ from the defaults, as given at creation); None: the safe defaults."""
    created_at: Mapped[datetime] = mapped_column()

    bots: Mapped[list[Bot]] = relationship(back_populates="ladder")


class Bot(Base):
    """A named bot of one owner on one ladder; it plays through its versions."""

    __tablename__ = "bots"
    __table_args__ = (UniqueConstraint("ladder_id", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    ladder_id: Mapped[int] = mapped_column(ForeignKey("ladders.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(100))
    owner: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column()

    ladder: Mapped[Ladder] = relationship(back_populates="bots")
    versions: Mapped[list[BotVersion]] = relationship(
        back_populates="bot", order_by="BotVersion.version"
    )


class BotVersion(Base):
    """One immutable submission of a bot: a spec, or a content-addressed archive + entry."""

    __tablename__ = "bot_versions"
    __table_args__ = (
        UniqueConstraint("bot_id", "version"),
        CheckConstraint(_in("kind", VERSION_KINDS), name="kind"),
        CheckConstraint(_in("status", VERSION_STATUSES), name="status"),
        CheckConstraint(
            "kind = 'remote' OR spec IS NOT NULL OR archive_sha256 IS NOT NULL", name="program"
        ),
        CheckConstraint("archive_sha256 IS NULL OR entry IS NOT NULL", name="entry"),
        Index("ix_bot_versions_status", "status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer)
    """1, 2, ... per bot."""
    kind: Mapped[str] = mapped_column(String(16))
    """``hosted`` (the arena runs it) or ``remote`` (it connects to the lobby)."""
    spec: Mapped[str | None] = mapped_column(Text)
    """A bot spec stored as given (``cmd:...``, ``py:...``, ``random``, ``ismcts:...``)."""
    archive_sha256: Mapped[str | None] = mapped_column(String(64))
    """The sha256 of the submitted files' archive (``<home>/archives/<sha>.tar.gz``)."""
    entry: Mapped[str | None] = mapped_column(Text)
    """The command that starts an archived bot, run inside its unpacked directory."""
    status: Mapped[str] = mapped_column(String(16))
    """``validating``, ``active`` (in matchmaking), ``retired`` or ``broken``."""
    reason: Mapped[str | None] = mapped_column(Text)
    """Why the status is what it is (shown to the author), e.g. a crash's message."""
    replaces_previous: Mapped[bool] = mapped_column()
    """When this version becomes active, the bot's other active versions are retired."""
    failures_in_row: Mapped[int] = mapped_column(Integer)
    """Consecutive counted games in which this version's seat forfeited or crashed."""
    created_at: Mapped[datetime] = mapped_column()

    bot: Mapped[Bot] = relationship(back_populates="versions")


class Match(Base):
    """One game between bot versions: ``queued → running → done | void``."""

    __tablename__ = "matches"
    __table_args__ = (
        CheckConstraint(_in("status", MATCH_STATUSES), name="status"),
        Index("ix_matches_ladder_status", "ladder_id", "status"),
        Index("ix_matches_set_key", "set_key"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    ladder_id: Mapped[int] = mapped_column(ForeignKey("ladders.id", ondelete="CASCADE"))
    seed: Mapped[int] = mapped_column(BigInteger)
    """The game's seed (shared by every rotation of a duplicate set)."""
    seats: Mapped[list[Any]] = mapped_column(JSON)
    """Bot-version ids in seat order: ``seats[i]`` plays seat i."""
    set_key: Mapped[str] = mapped_column(String(32))
    """The duplicate set this game belongs to (every seat rotation of one group, one seed)."""
    rotation: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16))
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    """The counted outcome (``rating.Outcome.to_json``) or, when void, why."""
    record_location: Mapped[str | None] = mapped_column(Text)
    """Where the game record is (a file, or an MLflow artifact URI and game id)."""
    attempts: Mapped[int] = mapped_column(Integer)
    """How often a runner started this match."""
    lease_token: Mapped[str | None] = mapped_column(String(64))
    """The lease under which the match is (or was last) running."""
    created_at: Mapped[datetime] = mapped_column()
    started_at: Mapped[datetime | None] = mapped_column()
    finished_at: Mapped[datetime | None] = mapped_column()


class Rating(Base):
    """The current rating of a bot version on its ladder."""

    __tablename__ = "ratings"

    ladder_id: Mapped[int] = mapped_column(
        ForeignKey("ladders.id", ondelete="CASCADE"), primary_key=True
    )
    version_id: Mapped[int] = mapped_column(
        ForeignKey("bot_versions.id", ondelete="CASCADE"), primary_key=True
    )
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    """Counted games (done matches) of this version."""
    games_base: Mapped[int] = mapped_column(Integer)
    """The placement base matchmaking adds to ``games`` (set when the version becomes
    active: ``matchmaking.placement_base``); never shown as games played."""
    updated_at: Mapped[datetime] = mapped_column()


class RatingHistory(Base):
    """A version's rating before and after one counted match."""

    __tablename__ = "rating_history"
    __table_args__ = (
        UniqueConstraint("match_id", "version_id"),
        Index("ix_rating_history_version", "version_id", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    rank: Mapped[int] = mapped_column(Integer)
    """The rank the rating update used (forfeits last; 1 = best, ties share)."""
    forfeited: Mapped[bool] = mapped_column()
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu_after: Mapped[float] = mapped_column(Float)
    sigma_after: Mapped[float] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column()


class Lease(Base):
    """Who drives a ladder, until when: one row per ladder, taken over once expired."""

    __tablename__ = "leases"

    ladder_id: Mapped[int] = mapped_column(
        ForeignKey("ladders.id", ondelete="CASCADE"), primary_key=True
    )
    holder: Mapped[str] = mapped_column(String(200))
    """Who holds it (e.g. ``host:pid``), for messages."""
    token: Mapped[str] = mapped_column(String(64))
    """A fresh random token per acquisition: matches started under it carry it."""
    acquired_at: Mapped[datetime] = mapped_column()
    expires_at: Mapped[datetime] = mapped_column()


class BotToken(Base):
    """A remote bot's lobby token, stored only as its hash (``arena.ladder.tokens``).

    A bot may hold several live tokens (rotation: issue a new one, move the bot to it,
    revoke the old one); a revoked token stays as a row so its id keeps meaning the same.
    """

    __tablename__ = "bot_tokens"
    __table_args__ = (Index("ix_bot_tokens_bot", "bot_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id", ondelete="CASCADE"))
    """The bot (on its ladder) the token authenticates; its active remote versions play."""
    sha256: Mapped[str] = mapped_column(String(64), unique=True)
    """Hex sha256 of the token: the token itself is printed once and never stored."""
    created_at: Mapped[datetime] = mapped_column()
    revoked_at: Mapped[datetime | None] = mapped_column()
    """When it was revoked (None: live)."""
