"""The ladder store: every state change of a ladder, each one transaction.

:class:`LadderStore` is a repository over the tables of :mod:`arena.ladder.models`. Its
methods take and return plain frozen dataclasses (never ORM objects), so nothing outside
this module holds a session. Opening a store brings the schema to the head migration.

**Exactly once.** :meth:`LadderStore.commit_result` locks the match row, counts the result
only if the match is ``running`` (and, when a lease is given, running under that lease),
and in the same transaction updates the ratings, writes the rating history and marks the
match ``done`` with its record location. A second commit of the same match is a no-op
(``CommitOutcome.duplicate``); a commit for a match that was re-queued or voided in the
meantime is refused (:class:`StaleMatch`); and the unique (match, version) pair of the
rating history is the database's own guard behind both.

**Runners and leases.** One runner drives a ladder at a time: it holds the ladder's lease
(:meth:`acquire_lease`, :meth:`renew`, :meth:`release`); a second holder is refused while
the lease is live and takes it over once it has expired. Each acquisition gets a fresh
token; matches are started under it. A new holder calls :meth:`void_running`: matches left
``running`` under an older token are re-queued (or voided after ``max_attempts``).

**Faults.** A locked (SQLite) or unreachable (PostgreSQL) database is retried with
exponential back-off a bounded number of times; then :class:`LadderDatabaseError` says so
in one line, naming the URL without its password. Every operation is safe to retry: a
transaction either committed whole or not at all (``queue_*`` retried after a commit whose
acknowledgement was lost could queue one set twice, which only costs games).

**Time** comes from an injectable ``clock`` (aware UTC datetimes), so tests move it.
"""

from __future__ import annotations

import dataclasses
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import Engine, func, insert, select, update
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from arena.ladder import db
from arena.ladder.errors import (
    DuplicateError,
    LadderDatabaseError,
    LadderError,
    LeaseHeld,
    LeaseLost,
    StaleMatch,
    StatusError,
    UnknownBot,
    UnknownLadder,
)
from arena.ladder.matchmaking import (
    DEFAULT_PLACEMENT_GAMES,
    Candidate,
    MatchmakingSettings,
    duplicate_set,
    placement_base,
)
from arena.ladder.models import (
    FAILURE_POLICIES,
    MATCH_STATUSES,
    VERSION_KINDS,
    Bot,
    BotVersion,
    Ladder,
    Lease,
    Match,
    Rating,
    RatingHistory,
)
from arena.ladder.rating import (
    Outcome,
    OutcomeError,
    RatingSettings,
    Skill,
    ordinal,
    outcome_of,
    rate_outcome,
)
from arena.ladder.views import (
    BatchCommit,
    CommitOutcome,
    HistoryEntry,
    LadderInfo,
    LeaseInfo,
    MatchInfo,
    Recovery,
    Snapshot,
    StandingRow,
    VersionInfo,
    ladder_info,
    lease_info,
    match_info,
    sandbox_overrides,
    version_info,
)
from arena.sandbox.limits import SandboxLimits

T = TypeVar("T")

DEFAULT_BROKEN_AFTER = 3
DEFAULT_MAX_ATTEMPTS = 3
RECENT_SETS = 50
"""How many recent sets :meth:`LadderStore.snapshot` reports for pairing recency."""

TRANSITIONS: Mapping[str, frozenset[str]] = {
    "validating": frozenset({"active", "broken", "retired"}),
    "active": frozenset({"retired", "broken"}),
    "broken": frozenset({"active", "retired"}),
    "retired": frozenset({"active"}),
}
"""Allowed version status changes (a status may also be set again, to change its reason)."""


def utcnow() -> datetime:
    return datetime.now(UTC)


def _transient(exc: DBAPIError) -> bool:
    """A lock, a lost connection or a refused one: worth another try."""
    return isinstance(exc, OperationalError) or bool(exc.connection_invalidated)


def _first_line(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None) or exc
    text = str(orig).strip().splitlines()
    return text[0] if text else type(orig).__name__


# ---------------------------------------------------------------------------
# The store
# ---------------------------------------------------------------------------


class LadderStore:
    """The ladders in one database (see the module docstring)."""

    def __init__(
        self,
        url: str | None = None,
        *,
        clock: Callable[[], datetime] = utcnow,
        retries: int = 6,
        backoff_s: float = 0.05,
        busy_timeout_ms: int = db.SQLITE_BUSY_MS,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.url = db.resolve_url(url)
        self.safe_url = db.safe_url(self.url)
        self.clock = clock
        self.retries = max(1, retries)
        self.backoff_s = backoff_s
        self._sleep = sleep
        try:
            self.engine: Engine = db.make_engine(self.url, busy_timeout_ms=busy_timeout_ms)
        except Exception as exc:  # a malformed URL, a missing driver
            raise LadderDatabaseError(
                f"cannot use the ladder database {self.safe_url}: {exc}"
            ) from None
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._readers = sessionmaker(
            self.engine.execution_options(**{db.READ_ONLY: True}), expire_on_commit=False
        )
        self._retrying(lambda: db.upgrade(self.engine))

    # -- plumbing ------------------------------------------------------------

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> LadderStore:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _retrying(self, fn: Callable[[], T]) -> T:
        delay = self.backoff_s
        for attempt in range(1, self.retries + 1):
            try:
                return fn()
            except DBAPIError as exc:
                if isinstance(exc, IntegrityError):
                    raise
                if not _transient(exc):  # e.g. a file that is not a database
                    raise LadderDatabaseError(
                        f"the ladder database {self.safe_url} cannot be used: {_first_line(exc)}"
                    ) from None
                if attempt == self.retries:
                    raise LadderDatabaseError(
                        f"the ladder database {self.safe_url} is locked or unreachable "
                        f"({attempt} attempts): {_first_line(exc)}"
                    ) from None
                self._sleep(delay)
                delay *= 2
        raise AssertionError("unreachable")

    def _tx(self, fn: Callable[[Session], T], *, read_only: bool = False) -> T:
        """Run ``fn`` in one transaction (retried whole on a transient database error).
        ``read_only``: it only reads (on SQLite it then never waits for a writer)."""
        sessions = self._readers if read_only else self._sessions

        def once() -> T:
            with sessions.begin() as session:
                return fn(session)

        return self._retrying(once)

    def _now(self) -> datetime:
        now = self.clock()
        if now.tzinfo is None:
            raise ValueError("the store's clock must return aware (UTC) datetimes")
        return now

    @staticmethod
    def _ladder(session: Session, name: str, *, lock: bool = False) -> Ladder:
        query = select(Ladder).where(Ladder.name == name)
        if lock:
            query = query.with_for_update()
        row = session.scalars(query).one_or_none()
        if row is None:
            known = ", ".join(session.scalars(select(Ladder.name).order_by(Ladder.name))) or "none"
            raise UnknownLadder(f"no ladder named {name!r} (ladders: {known})")
        return row

    @staticmethod
    def _version_row(session: Session, version_id: int, *, lock: bool = False) -> BotVersion:
        query = select(BotVersion).where(BotVersion.id == version_id)
        if lock:
            query = query.with_for_update()
        row = session.scalars(query).one_or_none()
        if row is None:
            raise UnknownBot(f"no bot version with id {version_id}")
        return row

    def _version_of(self, session: Session, row: BotVersion) -> VersionInfo:
        bot = session.get_one(Bot, row.bot_id)
        return version_info(row, bot, session.get_one(Ladder, bot.ladder_id).name)

    # -- ladders -------------------------------------------------------------

    def create_ladder(
        self,
        name: str,
        game: str,
        players: int,
        *,
        options: Mapping[str, Any] | None = None,
        move_ms: int | None = None,
        failure_policy: str = "forfeit",
        rating: RatingSettings | None = None,
        broken_after: int = DEFAULT_BROKEN_AFTER,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        placement_games: int = DEFAULT_PLACEMENT_GAMES,
        sandbox: SandboxLimits | None = None,
    ) -> LadderInfo:
        """A new ladder. The game and its options are the caller's to check (the engine).
        ``sandbox``: its command bots' limits (None: the defaults); only the fields that
        differ from the defaults are stored, so a ladder follows the defaults elsewhere."""
        name = name.strip()
        if not name:
            raise LadderError("a ladder needs a name")
        if players < 2:
            raise LadderError(f"a ladder rates games of 2 or more players, not {players}")
        if failure_policy not in FAILURE_POLICIES:
            raise LadderError(
                f"failure policy {failure_policy!r}: expected one of {', '.join(FAILURE_POLICIES)}"
            )
        if move_ms is not None and move_ms <= 0:
            raise LadderError("the move clock must be a positive number of milliseconds")
        if broken_after < 1 or max_attempts < 1 or placement_games < 0:
            raise LadderError("broken_after and max_attempts must be >= 1, placement_games >= 0")
        settings = rating or RatingSettings()

        def tx(session: Session) -> LadderInfo:
            if session.scalars(select(Ladder.id).where(Ladder.name == name)).first() is not None:
                raise DuplicateError(f"a ladder named {name!r} already exists")
            row = Ladder(
                name=name,
                game=game,
                players=players,
                options=dict(options or {}),
                move_ms=move_ms,
                failure_policy=failure_policy,
                mu=settings.mu,
                sigma=settings.sigma,
                beta=settings.beta,
                tau=settings.tau,
                provisional_sigma=settings.provisional_sigma,
                broken_after=broken_after,
                max_attempts=max_attempts,
                placement_games=placement_games,
                sandbox=(sandbox_overrides(sandbox) or None) if sandbox else None,
                created_at=self._now(),
            )
            session.add(row)
            try:
                session.flush()
            except IntegrityError:
                raise DuplicateError(f"a ladder named {name!r} already exists") from None
            return ladder_info(row)

        return self._tx(tx)

    def ladder(self, name: str) -> LadderInfo:
        return self._tx(lambda s: ladder_info(self._ladder(s, name)), read_only=True)

    def ladders(self) -> list[LadderInfo]:
        return self._tx(
            lambda s: [ladder_info(r) for r in s.scalars(select(Ladder).order_by(Ladder.name))],
            read_only=True,
        )

    # -- bots and versions ---------------------------------------------------

    def add_version(
        self,
        ladder: str,
        bot: str,
        *,
        owner: str | None = None,
        spec: str | None = None,
        archive_sha256: str | None = None,
        entry: str | None = None,
        kind: str = "hosted",
        version: int | None = None,
        replaces_previous: bool = True,
        status: str = "validating",
    ) -> VersionInfo:
        """A new version of ``bot`` (created with ``owner`` if new): a spec, or an archive
        with its entry command. Its number is the next one unless ``version`` is given.
        It starts ``validating`` (or ``active``: trusted specs); when it becomes active,
        the bot's other active versions are retired unless ``replaces_previous`` is False."""
        bot = bot.strip()
        if not bot or "@" in bot:
            raise LadderError(f"bot name {bot!r}: must be non-empty, without '@'")
        if kind not in VERSION_KINDS:
            raise LadderError(f"bot kind {kind!r}: expected one of {', '.join(VERSION_KINDS)}")
        if kind == "hosted" and (spec is None) == (archive_sha256 is None):
            raise LadderError("a hosted bot version needs exactly one of a spec or an archive")
        if archive_sha256 is not None and not (entry and entry.strip()):
            raise LadderError(
                "a submitted archive needs an entry command (e.g. --cmd 'python bot.py')"
            )
        if status not in ("validating", "active"):
            raise LadderError(f"a new version starts validating or active, not {status!r}")
        if version is not None and version < 1:
            raise LadderError("version numbers start at 1")

        def tx(session: Session) -> VersionInfo:
            lad = self._ladder(session, ladder)
            now = self._now()
            row = session.scalars(
                select(Bot).where(Bot.ladder_id == lad.id, Bot.name == bot).with_for_update()
            ).one_or_none()
            if row is None:
                row = Bot(ladder_id=lad.id, name=bot, owner=owner or "anonymous", created_at=now)
                session.add(row)
                try:
                    session.flush()
                except IntegrityError:
                    raise DuplicateError(
                        f"bot {bot!r} was just created by another process"
                    ) from None
            elif owner is not None and owner != row.owner:
                raise LadderError(f"bot {bot!r} on ladder {ladder!r} belongs to {row.owner!r}")
            latest = session.scalar(
                select(func.max(BotVersion.version)).where(BotVersion.bot_id == row.id)
            )
            number = version if version is not None else (latest or 0) + 1
            if latest is not None and session.scalar(
                select(BotVersion.id).where(
                    BotVersion.bot_id == row.id, BotVersion.version == number
                )
            ):
                raise DuplicateError(f"{bot}@{number} already exists on ladder {ladder!r}")
            new = BotVersion(
                bot_id=row.id,
                version=number,
                kind=kind,
                spec=spec,
                archive_sha256=archive_sha256,
                entry=entry,
                status="validating",
                reason=None,
                replaces_previous=replaces_previous,
                failures_in_row=0,
                created_at=now,
            )
            session.add(new)
            try:
                session.flush()
            except IntegrityError:
                raise DuplicateError(
                    f"{bot}@{number} already exists on ladder {ladder!r}"
                ) from None
            session.add(
                Rating(
                    ladder_id=lad.id,
                    version_id=new.id,
                    mu=lad.mu,
                    sigma=lad.sigma,
                    games=0,
                    games_base=0,
                    updated_at=now,
                )
            )
            if status == "active":
                session.flush()
                self._activate(session, lad, new, row, now)
            session.flush()
            return version_info(new, row, lad.name)

        return self._tx(tx)

    def version(self, ladder: str, bot: str, version: int | None = None) -> VersionInfo:
        """``bot@version`` on ``ladder`` (the latest version if ``version`` is None)."""

        def tx(session: Session) -> VersionInfo:
            lad = self._ladder(session, ladder)
            row = session.scalars(
                select(Bot).where(Bot.ladder_id == lad.id, Bot.name == bot)
            ).one_or_none()
            if row is None:
                known = ", ".join(
                    session.scalars(
                        select(Bot.name).where(Bot.ladder_id == lad.id).order_by(Bot.name)
                    )
                )
                raise UnknownBot(f"no bot {bot!r} on ladder {ladder!r} (bots: {known or 'none'})")
            query = select(BotVersion).where(BotVersion.bot_id == row.id)
            if version is None:
                query = query.order_by(BotVersion.version.desc()).limit(1)
            else:
                query = query.where(BotVersion.version == version)
            found = session.scalars(query).first()
            if found is None:
                raise UnknownBot(f"bot {bot!r} on ladder {ladder!r} has no version {version}")
            return version_info(found, row, lad.name)

        return self._tx(tx, read_only=True)

    def version_by_id(self, version_id: int) -> VersionInfo:
        return self._tx(
            lambda s: self._version_of(s, self._version_row(s, version_id)), read_only=True
        )

    def versions(
        self, ladder: str, *, bot: str | None = None, statuses: Iterable[str] | None = None
    ) -> list[VersionInfo]:
        """The versions of a ladder (or of one bot), by bot name and version number."""
        wanted = None if statuses is None else list(statuses)

        def tx(session: Session) -> list[VersionInfo]:
            lad = self._ladder(session, ladder)
            query = (
                select(BotVersion, Bot)
                .join(Bot, BotVersion.bot_id == Bot.id)
                .where(Bot.ladder_id == lad.id)
                .order_by(Bot.name, BotVersion.version)
            )
            if bot is not None:
                query = query.where(Bot.name == bot)
            if wanted is not None:
                query = query.where(BotVersion.status.in_(wanted))
            return [version_info(v, b, lad.name) for v, b in session.execute(query)]

        return self._tx(tx, read_only=True)

    def set_status(self, version_id: int, status: str, reason: str | None = None) -> VersionInfo:
        """Move a version to ``status`` (see :data:`TRANSITIONS`) with the reason shown to its
        author. Becoming active places it (``matchmaking.placement_base``) and retires the
        bot's other active versions if it replaces them; leaving active voids its queued
        matches."""

        def tx(session: Session) -> VersionInfo:
            row = self._version_row(session, version_id, lock=True)
            bot = session.get_one(Bot, row.bot_id)
            lad = session.get_one(Ladder, bot.ladder_id)
            now = self._now()
            if status != row.status and status not in TRANSITIONS.get(row.status, ()):
                raise StatusError(
                    f"{bot.name}@{row.version} is {row.status}: it cannot become {status}"
                )
            if status == "active" and row.status != "active":
                self._activate(session, lad, row, bot, now)
            elif status in ("retired", "broken") and row.status != status:
                self._deactivate(session, lad, row, status, reason or status, now)
            row.status = status
            row.reason = reason
            session.flush()
            return version_info(row, bot, lad.name)

        return self._tx(tx)

    def _activate(
        self, session: Session, lad: Ladder, row: BotVersion, bot: Bot, now: datetime
    ) -> None:
        """``row`` becomes active: placed C games behind the field, replaces its siblings."""
        if row.replaces_previous:
            siblings = session.scalars(
                select(BotVersion).where(
                    BotVersion.bot_id == bot.id,
                    BotVersion.id != row.id,
                    BotVersion.status == "active",
                )
            ).all()
            for old in siblings:
                self._deactivate(
                    session, lad, old, "retired", f"replaced by {bot.name}@{row.version}", now
                )
                old.status = "retired"
                old.reason = f"replaced by {bot.name}@{row.version}"
        field = [c.games for c in self._candidates(session, lad) if c.version_id != row.id]
        rating = session.get_one(Rating, (lad.id, row.id))
        floor = placement_base(field, lad.players, _mm_settings(lad))
        rating.games_base = max(rating.games_base, floor - rating.games)
        rating.updated_at = now
        row.status = "active"
        row.reason = None
        row.failures_in_row = 0

    def _deactivate(
        self,
        session: Session,
        lad: Ladder,
        row: BotVersion,
        status: str,
        reason: str,
        now: datetime,
    ) -> None:
        """Void the queued matches of a version that leaves matchmaking."""
        for match in session.scalars(
            select(Match)
            .where(Match.ladder_id == lad.id, Match.status == "queued")
            .with_for_update()
        ):
            if row.id in match.seats:
                match.status = "void"
                match.finished_at = now
                match.result = {"void": f"version {row.id} {status}: {reason}"}

    # -- matches -------------------------------------------------------------

    def _check_groups(self, session: Session, lad: Ladder, groups: Sequence[Sequence[int]]) -> None:
        """Every group seats ``players`` distinct active versions of the ladder (one query)."""
        for seats in groups:
            if len(seats) != lad.players:
                raise LadderError(f"ladder {lad.name!r} seats {lad.players} bots, not {len(seats)}")
            if len(set(seats)) != len(seats):
                raise LadderError(f"a version cannot take two seats of one game: {list(seats)}")
        wanted = sorted({int(v) for seats in groups for v in seats})
        rows = session.execute(
            select(BotVersion.id, BotVersion.status, Bot.ladder_id)
            .join(Bot, BotVersion.bot_id == Bot.id)
            .where(BotVersion.id.in_(wanted))
        ).all()
        found = {r.id: r for r in rows}
        for v in wanted:
            if v not in found or found[v].ladder_id != lad.id:
                raise UnknownBot(f"version {v} is not on ladder {lad.name!r}")
            if found[v].status != "active":
                raise StatusError(f"version {v} is {found[v].status}, not active")

    def queue_match(
        self,
        ladder: str,
        seats: Sequence[int],
        seed: int,
        *,
        set_key: str | None = None,
        rotation: int = 0,
    ) -> MatchInfo:
        """Queue one game of active versions (``seats``: version ids in seat order)."""
        return self.queue_set(
            ladder, seats, seed, rotations=False, set_key=set_key, first=rotation
        )[0]

    def queue_set(
        self,
        ladder: str,
        group: Sequence[int],
        seed: int,
        *,
        rotations: bool = True,
        set_key: str | None = None,
        first: int = 0,
    ) -> list[MatchInfo]:
        """Queue a duplicate set: every cyclic seat rotation of ``group`` on one ``seed``."""
        return self.queue_sets(
            ladder, [(group, seed)], rotations=rotations, set_keys=[set_key], first=first
        )[0]

    def queue_sets(
        self,
        ladder: str,
        sets: Sequence[tuple[Sequence[int], int]],
        *,
        rotations: bool = True,
        set_keys: Sequence[str | None] | None = None,
        first: int = 0,
        lease: LeaseInfo | None = None,
        start: int = 0,
    ) -> list[list[MatchInfo]]:
        """Queue several duplicate sets ``(group, seed)`` in one transaction (all or none).

        ``lease`` and ``start``: the runner that queues them starts the first ``start``
        games at once (inserted ``running`` under its live lease, as :meth:`claim` would
        start them; the rest stay queued): one transaction per batch of new games instead
        of two."""
        keys = list(set_keys) if set_keys is not None else [None] * len(sets)
        plans = [
            (
                duplicate_set(group) if rotations else [tuple(group)],
                int(seed),
                key or uuid.uuid4().hex,
            )
            for (group, seed), key in zip(sets, keys, strict=True)
        ]

        def tx(session: Session) -> list[list[MatchInfo]]:
            lad = self._ladder(session, ladder)
            now = self._now()
            if lease is not None:
                if lease.ladder_id != lad.id:
                    raise LadderError(f"the lease is on ladder {lease.ladder!r}, not {ladder!r}")
                self._live_lease(session, lease, now)
            self._check_groups(session, lad, [list(group) for group, _ in sets])
            waiting = {"status": "queued", "attempts": 0, "started_at": None, "lease_token": None}
            started = (
                waiting
                if lease is None
                else {
                    "status": "running",
                    "attempts": 1,
                    "started_at": now,
                    "lease_token": lease.token,
                }
            )
            n = iter(range(10**12))
            queued = [
                [
                    {
                        "ladder_id": lad.id,
                        "seed": seed,
                        "seats": [int(v) for v in seats],
                        "set_key": key,
                        "rotation": first + r,
                        "created_at": now,
                    }
                    | (started if next(n) < start else waiting)
                    for r, seats in enumerate(seats_list)
                ]
                for seats_list, seed, key in plans
            ]
            values = [row for rows in queued for row in rows]
            ids = iter(  # one bulk INSERT, the new ids in the order of the rows
                session.scalars(
                    insert(Match).returning(Match.id, sort_by_parameter_order=True), values
                ).all()
            )
            return [[_new_match(next(ids), row) for row in rows] for rows in queued]

        return self._tx(tx)

    def match(self, match_id: int) -> MatchInfo:
        def tx(session: Session) -> MatchInfo:
            row = session.get(Match, match_id)
            if row is None:
                raise UnknownBot(f"no match with id {match_id}")
            return match_info(row)

        return self._tx(tx, read_only=True)

    def matches(
        self, ladder: str, *, statuses: Iterable[str] | None = None, limit: int | None = None
    ) -> list[MatchInfo]:
        """A ladder's matches, oldest first (the newest ``limit`` if given)."""
        wanted = None if statuses is None else list(statuses)

        def tx(session: Session) -> list[MatchInfo]:
            lad = self._ladder(session, ladder)
            query = select(Match).where(Match.ladder_id == lad.id).order_by(Match.id.desc())
            if wanted is not None:
                query = query.where(Match.status.in_(wanted))
            if limit is not None:
                query = query.limit(limit)
            return [match_info(r) for r in reversed(session.scalars(query).all())]

        return self._tx(tx, read_only=True)

    def _live_lease(self, session: Session, lease: LeaseInfo, now: datetime) -> Lease:
        row = session.scalars(
            select(Lease).where(Lease.ladder_id == lease.ladder_id).with_for_update()
        ).one_or_none()
        if row is None or row.token != lease.token:
            holder = "nobody" if row is None else row.holder
            raise LeaseLost(
                f"the lease on ladder {lease.ladder!r} is no longer ours (held by {holder})"
            )
        if row.expires_at <= now:
            raise LeaseLost(f"the lease on ladder {lease.ladder!r} expired at {row.expires_at}")
        return row

    def start_match(self, match_id: int, lease: LeaseInfo) -> MatchInfo:
        """``queued → running`` under ``lease`` (which must be live)."""

        def tx(session: Session) -> MatchInfo:
            now = self._now()
            self._live_lease(session, lease, now)
            row = session.scalars(
                select(Match).where(Match.id == match_id).with_for_update()
            ).one_or_none()
            if row is None:
                raise UnknownBot(f"no match with id {match_id}")
            if row.ladder_id != lease.ladder_id:
                raise LadderError(f"match {match_id} is not on ladder {lease.ladder!r}")
            if row.status != "queued":
                raise StatusError(f"match {match_id} is {row.status}, not queued")
            self._start(row, lease, now)
            return match_info(row)

        return self._tx(tx)

    @staticmethod
    def _start(row: Match, lease: LeaseInfo, now: datetime) -> None:
        row.status = "running"
        row.attempts += 1
        row.started_at = now
        row.lease_token = lease.token

    def claim(self, lease: LeaseInfo, limit: int = 1) -> list[MatchInfo]:
        """Start up to ``limit`` of the oldest queued matches of the lease's ladder."""

        def tx(session: Session) -> list[MatchInfo]:
            now = self._now()
            self._live_lease(session, lease, now)
            rows = session.execute(
                select(*Match.__table__.columns)
                .where(Match.ladder_id == lease.ladder_id, Match.status == "queued")
                .order_by(Match.id)
                .limit(limit)
                .with_for_update(skip_locked=True)
            ).all()
            if not rows:
                return []
            session.execute(  # one bulk UPDATE by primary key: _start, for many rows
                update(Match),
                [
                    {
                        "id": r.id,
                        "status": "running",
                        "attempts": r.attempts + 1,
                        "started_at": now,
                        "lease_token": lease.token,
                    }
                    for r in rows
                ],
            )
            return [
                dataclasses.replace(
                    match_info(r),
                    status="running",
                    attempts=r.attempts + 1,
                    started_at=now,
                    lease_token=lease.token,
                )
                for r in rows
            ]

        return self._tx(tx)

    def commit_result(
        self,
        match_id: int,
        result: Mapping[str, Any] | Outcome,
        record_location: str,
        *,
        lease: LeaseInfo | None = None,
    ) -> CommitOutcome:
        """Count a running match's result exactly once, with its record location.

        ``result``: the game record, or an :class:`Outcome` (or its JSON). In one
        transaction: the ratings of its seats, their history rows, each seat's failure
        streak (``broken_after`` in a row → broken, its queued matches voided) and the
        match (``done``). A repeated commit returns ``counted=False`` and changes nothing;
        a match that is not running (re-queued or voided since), or runs under another
        lease than ``lease``, is refused with :class:`StaleMatch`."""
        batch = self.commit_results([(match_id, result, record_location)], lease=lease)
        if match_id in batch.stale:
            raise StaleMatch(batch.stale[match_id])
        return batch.outcomes[0]

    def commit_results(
        self,
        results: Sequence[tuple[int, Mapping[str, Any] | Outcome, str]],
        *,
        lease: LeaseInfo | None = None,
    ) -> BatchCommit:
        """Count several results ``(match id, result, record location)`` in one
        transaction, in the order given, each exactly as :meth:`commit_result` counts one
        (a match twice in the batch counts once). A stale match (not running, or under
        another lease) is left out with the reason in ``stale`` and does not stop the
        others. The rows are read as tuples in four queries and written with one bulk
        statement per table (a version that becomes broken goes through the ORM, as in
        :meth:`set_status`), so a runner commits a batch of games for little more than
        one."""
        items: list[tuple[int, Outcome, str]] = []
        for match_id, result, location in results:
            if not location:
                raise LadderError("a result needs its record location")
            try:
                outcome = result if isinstance(result, Outcome) else outcome_of(result)
            except OutcomeError as exc:
                raise LadderError(f"match {match_id}: {exc}") from None
            items.append((int(match_id), outcome, location))
        if not items:
            return BatchCommit((), {})

        def tx(session: Session) -> BatchCommit:
            ids = sorted({m for m, _, _ in items})
            matches = {
                r.id: r
                for r in session.execute(
                    select(Match.id, Match.ladder_id, Match.status, Match.seats, Match.lease_token)
                    .where(Match.id.in_(ids))
                    .order_by(Match.id)
                    .with_for_update()
                )
            }
            for match_id in ids:
                if match_id not in matches:
                    raise UnknownBot(f"no match with id {match_id}")
            status = {i: r.status for i, r in matches.items()}
            running = [r for r in matches.values() if r.status == "running"]
            ladder_ids = sorted({r.ladder_id for r in running})
            ladders = {i: session.get_one(Ladder, i) for i in ladder_ids}
            versions = sorted({int(v) for r in running for v in r.seats})
            skills = {
                (r.ladder_id, r.version_id): [r.mu, r.sigma, r.games]
                for r in session.execute(
                    select(
                        Rating.ladder_id, Rating.version_id, Rating.mu, Rating.sigma, Rating.games
                    )
                    .where(Rating.ladder_id.in_(ladder_ids), Rating.version_id.in_(versions))
                    .order_by(Rating.ladder_id, Rating.version_id)
                    .with_for_update()
                )
            }
            streaks = {
                r.id: [r.status, r.failures_in_row]
                for r in session.execute(
                    select(BotVersion.id, BotVersion.status, BotVersion.failures_in_row)
                    .where(BotVersion.id.in_(versions))
                    .order_by(BotVersion.id)
                    .with_for_update()
                )
            }
            now = self._now()
            outcomes: list[CommitOutcome] = []
            stale: dict[int, str] = {}
            history: list[dict[str, Any]] = []
            done: list[dict[str, Any]] = []
            rated: set[tuple[int, int]] = set()
            streaked: set[int] = set()
            broken: list[tuple[Ladder, int, str]] = []
            for match_id, outcome, location in items:
                match = matches[match_id]
                if status[match_id] == "done":
                    outcomes.append(CommitOutcome(match_id, counted=False))
                    continue
                if status[match_id] != "running":
                    stale[match_id] = (
                        f"match {match_id} is {status[match_id]} (its runner's lease was "
                        "lost): this result is not counted"
                    )
                    continue
                if lease is not None and match.lease_token != lease.token:
                    stale[match_id] = (
                        f"match {match_id} now runs under another lease: this result is not counted"
                    )
                    continue
                seats = [int(v) for v in match.seats]
                if outcome.seats != len(seats):
                    raise LadderError(
                        f"match {match_id} has {len(seats)} seats, the result {outcome.seats}"
                    )
                lad = ladders[match.ladder_id]
                before = [Skill(*skills[(lad.id, v)][:2]) for v in seats]
                after = rate_outcome(_settings(lad), before, outcome)
                ranks = outcome.effective_ranks
                newly_broken: list[int] = []
                for seat, v in enumerate(seats):
                    skill = skills[(lad.id, v)]
                    skill[0], skill[1], skill[2] = after[seat].mu, after[seat].sigma, skill[2] + 1
                    rated.add((lad.id, v))
                    history.append(
                        {
                            "match_id": match_id,
                            "version_id": v,
                            "seat": seat,
                            "rank": ranks[seat],
                            "forfeited": seat in outcome.forfeited,
                            "mu_before": before[seat].mu,
                            "sigma_before": before[seat].sigma,
                            "mu_after": after[seat].mu,
                            "sigma_after": after[seat].sigma,
                            "created_at": now,
                        }
                    )
                    streak = streaks[v]
                    failed = seat in outcome.forfeited
                    if not failed and streak[1] == 0:
                        continue
                    streak[1] = streak[1] + 1 if failed else 0
                    streaked.add(v)
                    if failed and streak[1] >= lad.broken_after and streak[0] == "active":
                        why = outcome.reasons.get(seat) or "forfeited"
                        streak[0] = "broken"
                        broken.append((lad, v, f"failed {streak[1]} games in a row (last: {why})"))
                        newly_broken.append(v)
                status[match_id] = "done"
                done.append(
                    {
                        "id": match_id,
                        "status": "done",
                        "result": outcome.to_json(),
                        "record_location": location,
                        "finished_at": now,
                    }
                )
                outcomes.append(
                    CommitOutcome(
                        match_id,
                        counted=True,
                        ratings={v: after[s] for s, v in enumerate(seats)},
                        broken=tuple(newly_broken),
                    )
                )
            if done:  # bulk statements: one executemany each
                session.execute(insert(RatingHistory), history)
                session.execute(
                    update(Rating),
                    [
                        {
                            "ladder_id": lad_id,
                            "version_id": v,
                            "mu": skills[(lad_id, v)][0],
                            "sigma": skills[(lad_id, v)][1],
                            "games": skills[(lad_id, v)][2],
                            "updated_at": now,
                        }
                        for lad_id, v in sorted(rated)
                    ],
                )
                session.execute(update(Match), done)
            gone = {v for _, v, _ in broken}
            if streaked - gone:
                session.execute(
                    update(BotVersion),
                    [{"id": v, "failures_in_row": streaks[v][1]} for v in sorted(streaked - gone)],
                )
            for lad, v, reason in broken:  # rare: the ORM, as set_status does
                row = session.get_one(BotVersion, v)
                self._deactivate(session, lad, row, "broken", reason, now)
                row.status, row.reason, row.failures_in_row = "broken", reason, streaks[v][1]
            session.flush()
            return BatchCommit(tuple(outcomes), stale)

        return self._tx(tx)

    def void_match(self, match_id: int, reason: str) -> MatchInfo:
        """Void a queued or running match (it is never counted)."""

        def tx(session: Session) -> MatchInfo:
            row = session.scalars(
                select(Match).where(Match.id == match_id).with_for_update()
            ).one_or_none()
            if row is None:
                raise UnknownBot(f"no match with id {match_id}")
            if row.status not in ("queued", "running"):
                raise StatusError(
                    f"match {match_id} is {row.status}: only queued or running ones are voided"
                )
            row.status = "void"
            row.result = {"void": reason}
            row.finished_at = self._now()
            return match_info(row)

        return self._tx(tx)

    def void_running(self, lease: LeaseInfo) -> Recovery:
        """Take back what a dead runner left running on the lease's ladder: every match
        running under another token goes back to the queue, or is voided once it has been
        started ``max_attempts`` times."""

        def tx(session: Session) -> Recovery:
            now = self._now()
            self._live_lease(session, lease, now)
            lad = session.get_one(Ladder, lease.ladder_id)
            requeued: list[int] = []
            voided: list[int] = []
            for row in session.scalars(
                select(Match)
                .where(Match.ladder_id == lad.id, Match.status == "running")
                .order_by(Match.id)
                .with_for_update()
            ):
                if row.lease_token == lease.token:
                    continue
                if row.attempts >= lad.max_attempts:
                    row.status = "void"
                    row.finished_at = now
                    row.result = {
                        "void": f"its runner died {row.attempts} times (max_attempts "
                        f"{lad.max_attempts})"
                    }
                    voided.append(row.id)
                else:
                    row.status = "queued"
                    row.started_at = None
                    row.lease_token = None
                    requeued.append(row.id)
            return Recovery(tuple(requeued), tuple(voided))

        return self._tx(tx)

    def requeue(self, lease: LeaseInfo, match_ids: Iterable[int]) -> list[int]:
        """Give back matches this runner started but will not finish (a clean stop): each
        one still running under ``lease`` goes back to the queue, its attempt not counted.
        Returns the ids re-queued (others were finished, voided or taken over meanwhile)."""
        wanted = sorted(set(match_ids))

        def tx(session: Session) -> list[int]:
            if not wanted:
                return []
            done: list[int] = []
            for row in session.scalars(
                select(Match).where(Match.id.in_(wanted)).order_by(Match.id).with_for_update()
            ):
                if row.status != "running" or row.lease_token != lease.token:
                    continue
                row.status = "queued"
                row.started_at = None
                row.lease_token = None
                row.attempts = max(0, row.attempts - 1)
                done.append(row.id)
            return done

        return self._tx(tx)

    def match_counts(self, ladder: str) -> dict[str, int]:
        """How many of the ladder's matches are in each status, and ``sets``: how many
        duplicate sets were ever queued (matchmaking's pick number)."""

        def tx(session: Session) -> dict[str, int]:
            lad = self._ladder(session, ladder)
            counts = {status: 0 for status in MATCH_STATUSES}
            for status, n in session.execute(
                select(Match.status, func.count())
                .where(Match.ladder_id == lad.id)
                .group_by(Match.status)
            ):
                counts[status] = int(n)
            counts["sets"] = int(
                session.scalar(
                    select(func.count()).where(Match.ladder_id == lad.id, Match.rotation == 0)
                )
                or 0
            )
            return counts

        return self._tx(tx, read_only=True)

    # -- leases --------------------------------------------------------------

    def acquire_lease(
        self, ladder: str, holder: str, ttl_s: float, *, take_over: str | None = None
    ) -> LeaseInfo:
        """Drive ``ladder`` for ``ttl_s`` seconds (renew before it runs out). Refused with
        :class:`LeaseHeld` while another holder's lease is live; an expired one is taken
        over, and so is a live one held by ``take_over`` (a holder the caller knows is
        dead, e.g. a runner of this host whose process is gone). Every acquisition has a
        fresh token."""
        if ttl_s <= 0:
            raise LadderError("a lease needs a positive time to live")

        def tx(session: Session) -> LeaseInfo:
            lad = self._ladder(session, ladder)
            now = self._now()
            row = session.scalars(
                select(Lease).where(Lease.ladder_id == lad.id).with_for_update()
            ).one_or_none()
            token = uuid.uuid4().hex
            expires = now + timedelta(seconds=ttl_s)
            if row is None:
                row = Lease(
                    ladder_id=lad.id,
                    holder=holder,
                    token=token,
                    acquired_at=now,
                    expires_at=expires,
                )
                session.add(row)
                try:
                    session.flush()
                except IntegrityError:
                    raise LeaseHeld(
                        f"ladder {ladder!r}: another runner took the lease just now"
                    ) from None
            elif row.expires_at > now and row.holder not in (holder, take_over):
                raise LeaseHeld(
                    f"ladder {ladder!r} is driven by {row.holder} (lease until "
                    f"{row.expires_at:%Y-%m-%d %H:%M:%S} UTC)"
                )
            else:
                row.holder, row.token = holder, token
                row.acquired_at, row.expires_at = now, expires
            return lease_info(row, lad.name)

        return self._tx(tx)

    def renew(self, lease: LeaseInfo, ttl_s: float) -> LeaseInfo:
        """Extend a lease that is still ours (:class:`LeaseLost` if it was taken over)."""

        def tx(session: Session) -> LeaseInfo:
            now = self._now()
            row = session.scalars(
                select(Lease).where(Lease.ladder_id == lease.ladder_id).with_for_update()
            ).one_or_none()
            if row is None or row.token != lease.token:
                holder = "nobody" if row is None else row.holder
                raise LeaseLost(f"the lease on ladder {lease.ladder!r} is held by {holder} now")
            row.expires_at = now + timedelta(seconds=ttl_s)
            return lease_info(row, lease.ladder)

        return self._tx(tx)

    def release(self, lease: LeaseInfo) -> None:
        """Give the lease up (a no-op if it is no longer ours)."""

        def tx(session: Session) -> None:
            row = session.scalars(
                select(Lease).where(Lease.ladder_id == lease.ladder_id).with_for_update()
            ).one_or_none()
            if row is not None and row.token == lease.token:
                session.delete(row)

        self._tx(tx)

    def lease(self, ladder: str) -> LeaseInfo | None:
        """The ladder's current lease row (live or expired), if any."""

        def tx(session: Session) -> LeaseInfo | None:
            lad = self._ladder(session, ladder)
            row = session.get(Lease, lad.id)
            return None if row is None else lease_info(row, lad.name)

        return self._tx(tx, read_only=True)

    # -- reading -------------------------------------------------------------

    def standings(self, ladder: str, *, statuses: Iterable[str] = ("active",)) -> list[StandingRow]:
        """The versions with these statuses, best first: by ordinal ``mu − 3·sigma``, then
        mu, then name."""
        wanted = list(statuses)

        def tx(session: Session) -> list[StandingRow]:
            lad = self._ladder(session, ladder)
            rows = session.execute(
                select(Rating, BotVersion, Bot)
                .join(BotVersion, Rating.version_id == BotVersion.id)
                .join(Bot, BotVersion.bot_id == Bot.id)
                .where(Rating.ladder_id == lad.id, BotVersion.status.in_(wanted))
            )
            ordered = sorted(
                rows,
                key=lambda t: (-ordinal(t[0].mu, t[0].sigma), -t[0].mu, t[2].name, t[1].version),
            )
            return [
                StandingRow(
                    rank=i,
                    version_id=v.id,
                    bot=b.name,
                    version=v.version,
                    owner=b.owner,
                    status=v.status,
                    mu=r.mu,
                    sigma=r.sigma,
                    games=r.games,
                    provisional=r.sigma > lad.provisional_sigma,
                )
                for i, (r, v, b) in enumerate(ordered, 1)
            ]

        return self._tx(tx, read_only=True)

    def history(self, version_id: int, *, limit: int | None = None) -> list[HistoryEntry]:
        """A version's counted games with its rating before and after, oldest first (the
        newest ``limit`` if given)."""

        def tx(session: Session) -> list[HistoryEntry]:
            self._version_row(session, version_id)
            query = (
                select(RatingHistory, Match)
                .join(Match, RatingHistory.match_id == Match.id)
                .where(RatingHistory.version_id == version_id)
                .order_by(RatingHistory.id.desc())
            )
            if limit is not None:
                query = query.limit(limit)
            rows = list(reversed(session.execute(query).all()))
            ids = {int(v) for _, m in rows for v in m.seats}
            labels = {
                v.id: f"{b.name}@{v.version}"
                for v, b in session.execute(
                    select(BotVersion, Bot)
                    .join(Bot, BotVersion.bot_id == Bot.id)
                    .where(BotVersion.id.in_(ids))
                )
            }
            return [
                HistoryEntry(
                    match_id=m.id,
                    set_key=m.set_key,
                    seat=h.seat,
                    rank=h.rank,
                    forfeited=h.forfeited,
                    mu_before=h.mu_before,
                    sigma_before=h.sigma_before,
                    mu_after=h.mu_after,
                    sigma_after=h.sigma_after,
                    at=h.created_at,
                    record_location=m.record_location,
                    opponents=tuple(labels[int(v)] for v in m.seats if int(v) != version_id),
                )
                for h, m in rows
            ]

        return self._tx(tx, read_only=True)

    def _candidates(self, session: Session, lad: Ladder) -> list[Candidate]:
        in_flight: dict[int, int] = {}
        for seats in session.scalars(
            select(Match.seats).where(
                Match.ladder_id == lad.id, Match.status.in_(("queued", "running"))
            )
        ):
            for v in seats:
                in_flight[int(v)] = in_flight.get(int(v), 0) + 1
        rows = session.execute(
            select(Rating)
            .join(BotVersion, Rating.version_id == BotVersion.id)
            .where(Rating.ladder_id == lad.id, BotVersion.status == "active")
            .order_by(Rating.version_id)
        ).scalars()
        return [
            Candidate(
                version_id=r.version_id,
                mu=r.mu,
                sigma=r.sigma,
                games=r.games + r.games_base + in_flight.get(r.version_id, 0),
            )
            for r in rows
        ]

    def snapshot(self, ladder: str, *, recent_sets: int = RECENT_SETS) -> Snapshot:
        """The active versions as matchmaking sees them, and the latest sets' groups."""

        def tx(session: Session) -> Snapshot:
            lad = self._ladder(session, ladder)
            firsts = session.scalars(
                select(Match.seats)
                .where(Match.ladder_id == lad.id, Match.rotation == 0)
                .order_by(Match.id.desc())
                .limit(recent_sets)
            ).all()
            return Snapshot(
                ladder=ladder_info(lad),
                candidates=tuple(self._candidates(session, lad)),
                recent=tuple(tuple(int(v) for v in s) for s in reversed(firsts)),
            )

        return self._tx(tx, read_only=True)


def _new_match(match_id: int, row: Mapping[str, Any]) -> MatchInfo:
    """The view of a match just queued (or started) from the values it was inserted with."""
    return MatchInfo(
        id=match_id,
        ladder_id=row["ladder_id"],
        seed=row["seed"],
        seats=tuple(row["seats"]),
        set_key=row["set_key"],
        rotation=row["rotation"],
        status=row["status"],
        result=None,
        record_location=None,
        attempts=row["attempts"],
        lease_token=row.get("lease_token"),
        created_at=row["created_at"],
        started_at=row.get("started_at"),
        finished_at=None,
    )


def _settings(lad: Ladder) -> RatingSettings:
    return RatingSettings(lad.mu, lad.sigma, lad.beta, lad.tau, lad.provisional_sigma)


def _mm_settings(lad: Ladder) -> MatchmakingSettings:
    return MatchmakingSettings(placement_games=lad.placement_games)
