"""The ladder runner (``arena ladder run``): bots play continuously, every result counted
exactly once.

One runner drives a ladder at a time. :meth:`LadderRunner.run`:

1. **takes the ladder's lease** (:meth:`~arena.ladder.store.LadderStore.acquire_lease`;
   refused while another runner's lease is live, except that a runner of this host whose
   process is gone is taken over at once) and renews it from a background thread every
   third of its time to live; a lease lost to another runner stops this one;
2. **recovers** what a dead runner left ``running``: a match whose record already
   reached the records file is counted from that record (never played twice); the
   others go back to the queue (:meth:`~arena.ladder.store.LadderStore.void_running`;
   voided after ``max_attempts`` starts);
3. **validates** waiting versions (:mod:`arena.ladder.validation`), then, and every
   :data:`VALIDATE_EVERY_S` seconds when there are new ones;
4. **loops**: claim queued matches, or take a snapshot, pick groups
   (:func:`~arena.ladder.matchmaking.pick_group`, seeded by the ladder and the pick
   number) and queue each as a duplicate set (every seat rotation on one seed); play them
   with the tournaments' batch machinery (:func:`arena.tournament.ray_runner.run_on_ray`
   and its :func:`~arena.tournament.ray_runner.play_batch` task, at most C matches in
   flight; ``workers=0`` plays in this process, one game at a time); append each record
   to the ladder's records file (a :class:`~arena.tournament.journal.Journal`: written,
   fsynced, exactly one line per game id) and only then commit its result
   (:meth:`~arena.ladder.store.LadderStore.commit_result` under the lease, exactly once).
   With a lobby (``--serve``), remote versions are picked only while their bot is online
   with a free slot, and a match with a remote seat is played on a game server by
   :class:`arena.ladder.remote.RemoteMatches`; its record comes back to the same journal
   and commit.

**Exactly once.** A game's id names the match and the attempt (``<ladder>-m<id>-a<n>``),
so a replayed match never reuses a record. A runner killed anywhere leaves each of its
matches either committed (done), or running with its record in the file (counted from
it by the next runner), or running without a record (re-queued and played again): no
match is counted twice (the store counts only a running match, once, and its rating
history is unique per match and version), none is lost.

**Stopping.** :meth:`LadderRunner.request_stop` (the first Ctrl-C, or SIGTERM) stops
claiming: the matches in flight finish and are committed. A second Ctrl-C
(``KeyboardInterrupt``) abandons them: they go back to the queue
(:meth:`~arena.ladder.store.LadderStore.requeue`). Either way the standings are written,
MLflow is brought up to date and the lease is released.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import hashlib
import json
import math
import os
import queue
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.ladder.errors import LadderError, LeaseHeld, LeaseLost, StatusError
from arena.ladder.hosting import (
    LadderFiles,
    ShippedArchives,
    game_id,
    hosted_spec,
    record_location,
)
from arena.ladder.matchmaking import Candidate, MatchmakingSettings, pick_group
from arena.ladder.rating import FORFEIT_KINDS, Outcome, outcome_of
from arena.ladder.remote import RemoteMatches
from arena.ladder.store import RECENT_SETS, LadderStore
from arena.ladder.submission import Archives
from arena.ladder.tracking import EXPERIMENT, LadderTracker
from arena.ladder.validation import validate_version
from arena.ladder.views import CommitOutcome, LadderInfo, LeaseInfo, MatchInfo, VersionInfo
from arena.sandbox.limits import SandboxLimits
from arena.tournament.journal import Journal
from arena.tournament.ratings import GameSummary, Point
from arena.tournament.ray_runner import (
    TARGET_TASK_SECONDS,
    BatchResult,
    BatchSizer,
    GameSetup,
    cluster_cpus,
    play_batch,
    ray_session,
    run_on_ray,
)
from arena.tournament.results import atomic_write
from arena.tournament.schedule import ScheduledGame

LEASE_TTL_S = 60.0
"""How long a runner's lease lasts unless renewed (renewed every third of it)."""
IN_FLIGHT_PER_WORKER = 128
"""Default C: the most matches in flight per Ray worker. Two tasks per worker, each sized
like a tournament's (about ``TARGET_TASK_SECONDS`` of games, :class:`BatchSizer`) but at
most C/2 games: fast games travel in big batches, so that claiming and committing, one
transaction per batch, cost little per game; slow games one or a few at a time."""
VALIDATE_EVERY_S = 30.0
REFRESH_S = 60.0
"""How often the standings files, viewers and MLflow artifacts are refreshed."""
IDLE_S = 5.0
"""How long a runner without enough active bots waits before it looks again."""
SNAPSHOT_S = 1.0
"""How long a runner on Ray picks groups from one snapshot of the active versions (their
ratings then lag the committed ones by at most this; a version that leaves matchmaking
meanwhile is caught by the store, and the runner takes a new snapshot)."""
PROGRESS_EVERY = 100
METRIC_EVERY = 10
"""A metric point (μ and ordinal of the versions that played since the last) every this
many counted matches, and when the runner stops."""


def holder_name() -> str:
    """This process as a lease holder: ``host:pid``."""
    return f"{socket.gethostname()}:{os.getpid()}"


def dead_local_holder(holder: str) -> bool:
    """True when ``holder`` is a process of this host that no longer exists."""
    host, _, pid = holder.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit() or int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def derive(ladder: str, what: str, n: int) -> int:
    """A seed of the ladder's ``n``-th pick (``what``: ``pick`` or ``game``).

    >>> derive("zoo", "pick", 0) == derive("zoo", "pick", 0) != derive("zoo", "game", 0)
    True
    """
    digest = hashlib.sha256(f"{what}\x1f{ladder}\x1f{n}".encode()).hexdigest()
    return int(digest[:15], 16)


@dataclass
class RunnerConfig:
    """How a runner plays."""

    workers: int = 2
    """Local Ray CPUs (or, on a cluster, the in-flight budget); 0: in this process."""
    address: str | None = None
    """A Ray cluster to join (else ``RAY_ADDRESS``, else a private local Ray)."""
    games: int | None = None
    """Stop after this many matches (None: until stopped)."""
    in_flight: int | None = None
    """C: the most matches claimed and not yet committed (default
    :data:`IN_FLIGHT_PER_WORKER` per worker; 1 in this process)."""
    lease_ttl_s: float = LEASE_TTL_S
    tracking: bool = True
    tracking_uri: str | None = None
    experiment: str = EXPERIMENT
    refresh_s: float = REFRESH_S
    metric_every: int = METRIC_EVERY
    idle_s: float = IDLE_S
    validate_every_s: float = VALIDATE_EVERY_S
    sandbox: SandboxLimits | None = None
    """Limits of the sandbox the ladder's command bots run in (``arena.sandbox``); None:
    the ladder's own (``arena ladder create --sandbox``, else the defaults)."""
    ship_archives: bool | None = None
    """Ship the submitted archives with the Ray tasks (``hosting.ShippedArchives``); None:
    when on a Ray cluster (``address`` or ``RAY_ADDRESS``), where the workers may not
    see the ladder home."""
    worker_home: str | None = None
    """The ladder home on the workers for shipped archives (None: each node's
    ``$MENAGERIE_LADDER_HOME``, else ``./ladder`` in the worker's directory)."""


@dataclass
class RunSummary:
    """What one run of a runner did."""

    ladder: str
    counted: int = 0
    """Results this run committed (counted in the ratings)."""
    salvaged: int = 0
    """Of those, matches of a dead runner counted from the record it had written."""
    requeued_at_start: tuple[int, ...] = ()
    voided_at_start: tuple[int, ...] = ()
    requeued_at_stop: int = 0
    voided: list[tuple[int, str]] = field(default_factory=list)
    """Matches this run voided (a game that could not be played), with the reason."""
    stale: int = 0
    """Results refused because the match had been taken back (a lost lease)."""
    broken: list[str] = field(default_factory=list)
    validated: list[tuple[str, bool, str]] = field(default_factory=list)
    """(version, passed, reason) of every validation this run made."""
    play_seconds: float = 0.0
    seconds: float = 0.0
    stopped: str = ""
    tracked: bool | None = None
    run_id: str | None = None

    @property
    def games_per_s(self) -> float:
        return self.counted / self.play_seconds if self.play_seconds > 0 else 0.0


class _Renewer(threading.Thread):
    """Renews the runner's lease every third of its time to live."""

    def __init__(self, runner: LadderRunner, ttl_s: float) -> None:
        super().__init__(name="ladder-lease", daemon=True)
        self.runner = runner
        self.ttl_s = ttl_s
        self.halt = threading.Event()

    def run(self) -> None:
        runner = self.runner
        while not self.halt.wait(self.ttl_s / 3):
            lease = runner.lease
            if lease is None:
                return
            try:
                runner.lease = runner.store.renew(lease, self.ttl_s)
            except LeaseLost as exc:
                runner.request_stop(f"the lease was lost: {exc}")
                return
            except LadderError as exc:  # the database is down: try again next time
                runner.log(f"warning: cannot renew the lease: {exc}")

    def stop(self) -> None:
        self.halt.set()
        if self.is_alive():
            self.join(timeout=30)


class LadderRunner:
    """Drives one ladder (see the module docstring).

    ``home``: the ladder home (archives, cache, records); ``log``: progress lines (default
    stderr); ``on_commit(counted so far)``: called after every counted result (tests use it
    to interrupt at a chosen point)."""

    lease: LeaseInfo | None

    def __init__(
        self,
        store: LadderStore,
        ladder: str,
        *,
        home: str | Path | None = None,
        config: RunnerConfig | None = None,
        log: Callable[[str], None] | None = None,
        on_commit: Callable[[int], None] | None = None,
        remote: RemoteMatches | None = None,
    ) -> None:
        self.store = store
        self.remote = remote
        """Plays the matches with remote seats (``--serve``); None: remote versions are
        never scheduled."""
        self.name = ladder
        self.config = config or RunnerConfig()
        self.archives = Archives(home)
        self.files = LadderFiles.of(self.archives.home, ladder)
        self.log = log or (lambda text: print(text, file=sys.stderr, flush=True))
        self.on_commit = on_commit
        self.holder = holder_name()
        self.summary = RunSummary(ladder)
        self.lease = None
        self.finishing = False
        """True once the runner gives back, writes and releases: no longer interruptible."""
        self._stop = threading.Event()
        self._journal: Journal | None = None
        self._tracker: LadderTracker | None = None
        self._in_flight: dict[str, MatchInfo] = {}
        """Game id -> its match: claimed and handed to play, not yet committed."""
        self._buffer: collections.deque[MatchInfo] = collections.deque()
        """Claimed, not yet handed to play."""
        self._versions: dict[int, VersionInfo] = {}
        self._specs: dict[int, str] = {}
        self._picks = 0
        self._dispatched = 0
        self._done = 0
        self._points: list[Point] = []
        self._changed: tuple[dict[str, float], dict[str, float]] = ({}, {})
        """μ and ordinal of the versions that played since the last metric point."""
        self._latest: dict[str, str] = {}
        """Version label -> the record line of its latest counted game in this run."""
        self._starved = False
        self._maybe_queued = True
        self._snapshot: (
            tuple[tuple[float, int], LadderInfo, dict[int, Candidate], list[tuple[int, ...]]] | None
        )
        self._snapshot = None
        """((taken at, results counted then), ladder, field, recent groups) of :meth:`_field`;
        None: take a new one."""
        self._waiting: list[VersionInfo] = []
        self._next_validation = 0.0
        self._next_refresh = 0.0
        self._shipped: dict[str, Any] = {}
        """Archive sha256 -> the Ray ObjectRef of its bytes (put once per run)."""
        self._sent: frozenset[str] | None = None
        """The archives the tasks in flight were given (or could not be: unreadable);
        None: archives are not shipped."""
        self._sizer = BatchSizer(1, 1)
        """Games per claim: as many as a Ray task will take (the tournaments' sizer)."""
        self._cap = 1
        self._tasks = 1
        self._started = time.perf_counter()

    # -- control ---------------------------------------------------------------------

    def request_stop(self, reason: str = "stop requested") -> None:
        """Stop claiming; the matches in flight finish and are committed (thread-safe)."""
        if not self._stop.is_set():
            self.summary.stopped = reason
            self._stop.set()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def _left(self) -> float:
        """Matches this run may still hand out."""
        games = self.config.games
        return math.inf if games is None else games - self._dispatched

    # -- the run ---------------------------------------------------------------------

    def run(self) -> RunSummary:
        """Drive the ladder until stopped (or ``games`` matches); returns what happened.
        :class:`LeaseHeld` (a :class:`LadderError`) if another runner drives it."""
        started = self._started = time.perf_counter()
        self._next_refresh = time.monotonic() + self.config.refresh_s
        info = self.store.ladder(self.name)
        self.ladder: LadderInfo = info
        self.sandbox = self.config.sandbox or info.sandbox
        """The limits this run's command bots get (the config's, else the ladder's)."""
        self.setup = GameSetup(
            info.game,
            info.players,
            dict(info.options),
            f"ladder:{info.name}",
            float(info.move_ms) if info.move_ms else None,
            "random" if info.failure_policy == "random" else "forfeit",
            self.sandbox,
        )
        self.lease = self._acquire()
        renewer = _Renewer(self, self.config.lease_ttl_s)
        renewer.start()
        try:
            try:
                self._start(info)
                self._loop()
            except KeyboardInterrupt:
                self.summary.stopped = "interrupted: the matches in flight go back to the queue"
        finally:
            self.finishing = True
            renewer.stop()
            self._finish()
            self.summary.seconds = time.perf_counter() - started
        return self.summary

    def _start(self, info: LadderInfo) -> None:
        self.log(
            f"ladder {info.name} ({info.game}, {info.players} players): runner "
            f"{self.holder} holds the lease (renewed every {self.config.lease_ttl_s / 3:g} s)"
        )
        self.files.folder.mkdir(parents=True, exist_ok=True)
        if self.remote is not None:
            self.remote.halt.clear()  # the lobby may outlive a runner (tests, bot check)
            self.remote.sandbox = self.sandbox
        self._recover()
        counts = self.store.match_counts(self.name)
        self._picks, self._done = counts["sets"], counts["done"]
        if self.config.tracking:
            assert self._journal is not None
            self._tracker = LadderTracker(
                info,
                self.files,
                self._journal,
                uri=self.config.tracking_uri,
                experiment=self.config.experiment,
                log=self.log,
            )
            self._tracker.tick([], force=True)

    def _acquire(self) -> LeaseInfo:
        ttl = self.config.lease_ttl_s
        try:
            return self.store.acquire_lease(self.name, self.holder, ttl)
        except LeaseHeld:
            current = self.store.lease(self.name)
            if current is None or not dead_local_holder(current.holder):
                raise
            self.log(f"the runner {current.holder} that held the lease is gone: taking over")
            return self.store.acquire_lease(self.name, self.holder, ttl, take_over=current.holder)

    def _recover(self) -> None:
        """Count what a dead runner recorded, re-queue the rest of what it left running."""
        assert self.lease is not None
        running = self.store.matches(self.name, statuses=["running"])
        wanted = {game_id(self.name, m.id, m.attempts): m for m in running}
        found: dict[str, dict[str, Any]] = {}

        def keep(record: dict[str, Any]) -> None:
            gid = str(record.get("game_id"))
            if gid in wanted:
                found[gid] = record

        self._journal = Journal(self.files.records, keep, wanted=wanted.__contains__)
        salvage = [
            (wanted[gid].id, outcome_of(record), record_location(self.files.records, gid))
            for gid, record in found.items()
        ]
        salvaged = sum(d.counted for d in self.store.commit_results(salvage).outcomes)
        self.summary.salvaged = self.summary.counted = salvaged
        recovery = self.store.void_running(self.lease)
        self.summary.requeued_at_start = recovery.requeued
        self.summary.voided_at_start = recovery.voided
        if found or recovery.requeued or recovery.voided:
            voided = (
                f", {len(recovery.voided)} voided (started {self.ladder.max_attempts} times)"
                if recovery.voided
                else ""
            )
            self.log(
                f"recovered a dead runner's matches: {self.summary.salvaged} counted from "
                f"their records, {len(recovery.requeued)} re-queued{voided}"
            )

    def _loop(self) -> None:
        cfg = self.config
        self._waiting = self.store.versions(self.name, statuses=["validating"])
        with self._player() as play:
            while not self.stopping and self._left() > 0:
                self._validate_waiting()
                if self.stopping:
                    break
                self._starved = False
                started = time.perf_counter()
                play(self._games())
                self.summary.play_seconds += time.perf_counter() - started
                if self._starved and not self.stopping:
                    k = self.ladder.players
                    if self.remote is not None:  # remote bots may come, or free a slot
                        self.remote.wait(cfg.idle_s)
                        self._on_idle(wait=True)
                        continue
                    if cfg.games is not None:
                        self.summary.stopped = f"fewer than {k} active bots to match"
                        break
                    self._stop.wait(cfg.idle_s)
            if self.remote is not None:
                self._finish_remote()
        if not self.summary.stopped:
            self.summary.stopped = f"{self.summary.counted} matches played"

    def _finish_remote(self) -> None:
        """The remote matches in flight finish and are committed. On a stop, those still
        waiting for a remote bot's slot are given back (re-queued by ``_finish``); at the
        end of ``games`` they are waited for too."""
        assert self.remote is not None
        if self.stopping:
            self.remote.halt.set()
        while not self.remote.join(0.2):
            self._on_idle()
        self._on_idle(wait=True)

    @contextlib.contextmanager
    def _player(self) -> Iterator[Callable[[Iterator[ScheduledGame]], None]]:
        cfg = self.config
        if cfg.workers <= 0:
            self._sizer, self._cap, self._tasks = BatchSizer(1, 1), 1, 1
            self.log("playing in this process, one match at a time")
            yield self._play_in_process
            return
        with ray_session(cfg.workers, cfg.address) as where:
            cpus = cluster_cpus(cfg.workers)
            self._cap = cfg.in_flight or IN_FLIGHT_PER_WORKER * cpus
            self._tasks = max(1, min(2 * cpus, self._cap))
            self._sizer = BatchSizer(None, cpus, max(1, self._cap // self._tasks))
            self.log(
                f"playing on {where}: up to {self._cap} matches in flight, in "
                f"{self._tasks} tasks of about {TARGET_TASK_SECONDS:g} s of games"
            )
            yield self._play_on_ray

    def _play_in_process(self, games: Iterator[ScheduledGame]) -> None:
        for game in games:
            self._on_result(play_batch(self.setup, [game]))
            self._on_idle(wait=True)

    def _ships_archives(self) -> bool:
        cfg = self.config
        if cfg.ship_archives is not None:
            return cfg.ship_archives
        address = cfg.address or os.environ.get("RAY_ADDRESS") or ""
        return bool(address) and address != "local"

    def _shipping_setup(self) -> GameSetup:
        """The setup of the next round of tasks: with the archives of every hosted version
        seen so far when they are shipped (each put in Ray's object store once)."""
        if not self._ships_archives():
            return self.setup
        import ray

        offered = set(self._sent or ())
        for version in list(self._versions.values()):
            sha = version.archive_sha256
            if sha is None or sha in offered:
                continue
            offered.add(sha)
            try:
                data = self.archives.path(sha).read_bytes()
            except OSError as exc:  # its games fail on the worker, naming the archive
                self.log(f"warning: archive of {version.label} not shipped: {exc.strerror}")
                continue
            self._shipped[sha] = ray.put(data)
        self._sent = frozenset(offered)
        shipped = ShippedArchives(
            dict(self._shipped), str(self.archives.home), self.config.worker_home
        )
        return dataclasses.replace(self.setup, prepare=shipped)

    def _unshipped(self, match: MatchInfo) -> bool:
        """True when ``match`` needs an archive the tasks in flight do not carry (a version
        seen since they were sent): the next round of tasks will."""
        if self._sent is None:
            return False
        shas = (self._version(v).archive_sha256 for v in match.seats)
        return any(sha is not None and sha not in self._sent for sha in shas)

    def _play_on_ray(self, games: Iterator[ScheduledGame]) -> None:
        left = self._left()
        run_on_ray(
            self._shipping_setup(),
            games,
            int(left) if left < 10**9 else 10**9,
            self._sizer.workers,
            None,  # the task size adapts to the games' length, as in a tournament
            self._on_result,
            self._on_lost,
            max_in_flight=self._tasks,
            on_idle=self._on_idle,
            max_batch=self._sizer.max_batch,  # at most C in flight
        )
        self._on_idle(wait=True)

    # -- what to play ------------------------------------------------------------------

    def _games(self) -> Iterator[ScheduledGame]:
        """The games to play next, claimed as they are asked for. Ends when the runner
        stops, the run has handed out its ``games``, new versions wait for validation,
        or there are not enough active versions to match (``_starved``)."""
        while not self.stopping and self._left() > 0:
            if not self._buffer:
                if self._validation_due():
                    return
                self._fill(int(min(self._sizer.size(10**9), self._left())))
                if not self._buffer:
                    self._starved = True
                    return
            match = self._buffer.popleft()
            if any(self._version(v).kind == "remote" for v in match.seats):
                self._dispatch_remote(match)
                continue
            if self._unshipped(match):
                self._buffer.appendleft(match)
                return
            yield self._dispatch(match)

    def _fill(self, want: int) -> None:
        """Claim ``want`` matches: queued ones first (left by an earlier run or pick),
        then newly picked sets."""
        assert self.lease is not None
        claimed = self.store.claim(self.lease, want) if self._maybe_queued else []
        self._maybe_queued = len(claimed) == want  # a set's other rotations may wait
        if len(claimed) < want:
            new = self._start_sets(want - len(claimed))
            self._maybe_queued |= any(m.status == "queued" for m in new)
            claimed += [m for m in new if m.status == "running"]
        self._buffer.extend(claimed)

    def _field(self) -> tuple[LadderInfo, dict[int, Candidate], list[tuple[int, ...]]]:
        """Matchmaking's view: the store's snapshot, reused for :data:`SNAPSHOT_S` with
        this runner's own picks counted in (the ratings in it lag by at most that)."""
        if self._snapshot is None or self._snapshot_stale(self._snapshot[0]):
            snap = self.store.snapshot(self.name)
            field = {c.version_id: c for c in snap.candidates}
            taken = (time.monotonic(), self.summary.counted)
            self._snapshot = (taken, snap.ladder, field, list(snap.recent))
        _, ladder, field, recent = self._snapshot
        return ladder, field, recent

    def _snapshot_stale(self, taken: tuple[float, int]) -> bool:
        """In this process (``workers=0``) a snapshot serves until the next commit, so a
        run is deterministic; on Ray, for :data:`SNAPSHOT_S`."""
        at, counted = taken
        if self.config.workers == 0:
            return self.summary.counted != counted
        return time.monotonic() - at > SNAPSHOT_S

    def _start_sets(self, games: int) -> list[MatchInfo]:
        """Pick enough groups for ``games`` games (each pick counted into the next, as
        the store would count its queued games) and queue them as duplicate sets in one
        transaction, the first ``games`` started under the lease (the rest of the last
        set stays queued). A version that left matchmaking since the snapshot: a new
        snapshot."""
        assert self.lease is not None
        for _ in range(3):
            lad, field, recent = self._field()
            k = lad.players
            sets = math.ceil(games / k)
            settings = MatchmakingSettings(
                placement_games=lad.placement_games, beta=lad.rating.beta, sigma0=lad.rating.sigma
            )
            picked: list[tuple[tuple[int, ...], int]] = []
            eligible = {v: c for v, c in field.items() if self._schedulable(v)}
            """The field without the remote bots that are offline or have no slot free."""
            queued: collections.Counter[int] = collections.Counter()
            """Games picked for each version in this call (remote bots' slots)."""
            for n in range(self._picks, self._picks + sets):
                group = pick_group(
                    list(eligible.values()),
                    k,
                    seed=derive(self.name, "pick", n),
                    recent=recent[-RECENT_SETS:],
                    settings=settings,
                )
                if group is None:
                    break
                picked.append((group, derive(self.name, "game", n)))
                for v in group:
                    field[v] = eligible[v] = dataclasses.replace(field[v], games=field[v].games + k)
                    queued[v] += k
                    if not self._schedulable(v, queued[v]):
                        del eligible[v]  # a remote bot whose slots these picks fill
                recent.append(group)
            del recent[: max(0, len(recent) - RECENT_SETS)]
            if not picked:
                return []
            try:
                started = self.store.queue_sets(self.name, picked, lease=self.lease, start=games)
            except StatusError:
                self._snapshot = None
                continue
            except BaseException:
                self._snapshot = None  # its picks were counted in, but not queued
                raise
            self._picks += len(picked)
            return [m for matches in started for m in matches]
        return []

    def _version(self, version_id: int) -> VersionInfo:
        if version_id not in self._versions:
            version = self.store.version_by_id(version_id)
            self._versions[version_id] = version
            remote = version.kind == "remote"
            self._specs[version_id] = "remote" if remote else hosted_spec(version, self.archives)
        return self._versions[version_id]

    def _schedulable(self, version_id: int, picked: int = 0) -> bool:
        """Hosted versions always; a remote one only while its bot is online with a slot
        to spare beyond the ``picked`` games just picked for it."""
        version = self._version(version_id)
        if version.kind != "remote":
            return True
        return self.remote is not None and self.remote.schedulable(version, picked)

    def _dispatch_remote(self, match: MatchInfo) -> None:
        """A match with a remote seat plays on a game server (:mod:`arena.ladder.remote`)."""
        game = self._dispatch(match)
        if self.remote is None:
            self._void(game.game_id, "it has a remote seat and the runner has no lobby (--serve)")
            return
        self.remote.submit(self.ladder, game, [self._version(v) for v in match.seats])

    def _dispatch(self, match: MatchInfo) -> ScheduledGame:
        gid = game_id(self.name, match.id, match.attempts)
        self._in_flight[gid] = match
        self._dispatched += 1
        labels = tuple(self._version(v).label for v in match.seats)
        return ScheduledGame(
            index=match.id,
            round=match.attempts,
            group=match.id,
            rotation=match.rotation,
            seats=labels,
            specs=tuple(self._specs[v] for v in match.seats),
            seed=match.seed,
            game_id=gid,
            match_id=match.set_key,
        )

    # -- results ------------------------------------------------------------------------

    def _on_result(self, res: BatchResult) -> None:
        """A batch came back: its records go to the records file (committed once durable);
        a game that could not be played voids its match."""
        self._sizer.observe(res)
        self._record(res)
        self._on_idle()

    def _record(self, res: BatchResult) -> None:
        assert self._journal is not None
        if res.lines:
            self._journal.append_async(res.lines, res)
        for gid, why in res.errors:
            self._void(gid, f"the game could not be played: {why}")

    def _on_lost(self, batch: list[ScheduledGame], reason: str) -> None:
        for game in batch:
            self._void(game.game_id, f"its Ray task failed: {reason}")

    def _void(self, gid: str, reason: str) -> None:
        match = self._in_flight.pop(gid, None)
        if match is None:
            return
        try:
            self.store.void_match(match.id, reason)
        except LadderError:
            return
        self.summary.voided.append((match.id, reason))
        self.log(f"warning: match {match.id} voided: {reason}")

    def _on_idle(self, wait: bool = False) -> None:
        """Commit the results whose records are durable now (``wait``: all of them)."""
        assert self._journal is not None
        while self.remote is not None:  # remote matches' results (their own threads)
            try:
                self._record(self.remote.results.get_nowait())
            except queue.Empty:
                break
        durable = [
            (gid, line, summary)
            for res, _accepted in self._journal.completed(wait)
            for (gid, line), summary in zip(res.lines, res.summaries, strict=True)
        ]
        if durable:
            self._commit(durable)
        if self._tracker is not None:
            done = self._tracker.state.data.get("metrics_step", 0)
            if self._points and self._points[0][0] <= done:
                self._points = [p for p in self._points if p[0] > done]
            self._tracker.tick(self._points)
        if time.monotonic() >= self._next_refresh:
            self._refresh()

    @staticmethod
    def _outcome(line: str, summary: GameSummary) -> Outcome:
        """The result to rate: from the summary, or from the record when a seat failed."""
        if any(kind in FORFEIT_KINDS for _, kind in summary.failures):
            return outcome_of(json.loads(line))
        return Outcome(tuple(summary.ranks), tuple(summary.scores))

    def _commit(self, durable: list[tuple[str, str, GameSummary]]) -> None:
        """Commit these recorded games' results in one transaction (exactly once each)."""
        assert self.lease is not None
        games = [
            (gid, line, summary, match)
            for gid, line, summary in durable
            if (match := self._in_flight.pop(gid, None)) is not None
        ]
        batch = self.store.commit_results(
            [
                (match.id, self._outcome(line, summary), record_location(self.files.records, gid))
                for gid, line, summary, match in games
            ],
            lease=self.lease,
        )
        for why in batch.stale.values():
            self.summary.stale += 1
            self.log(f"warning: {why}")
        counted = [game for game in games if game[3].id not in batch.stale]
        for (_gid, line, _summary, _match), done in zip(counted, batch.outcomes, strict=True):
            if done.counted:
                self._counted(line, done)

    def _counted(self, line: str, done: CommitOutcome) -> None:
        self.summary.counted += 1
        self._done += 1
        mus, ordinals = self._changed
        for v, skill in done.ratings.items():
            label = self._version(v).label
            mus[label], ordinals[label] = skill.mu, skill.ordinal
            self._latest[label] = line
        if self._done % self.config.metric_every == 0:
            self._point()
        for v in done.broken:
            self._snapshot = None
            version = self.store.version_by_id(v)
            self._versions[v] = version
            self.summary.broken.append(version.label)
            self.log(f"{version.label} is broken: {version.reason}")
        if self.summary.counted % PROGRESS_EVERY == 0:
            rate = self.summary.counted / max(time.perf_counter() - self._started, 1e-9)
            self.log(f"{self.summary.counted} matches counted ({rate:.1f}/s)")
        if self.on_commit is not None:
            self.on_commit(self.summary.counted)

    # -- validation, standings ------------------------------------------------------------

    def _point(self) -> None:
        """A metric point: the ratings that changed since the last one, at this match."""
        mus, ordinals = self._changed
        if mus:
            self._points.append((self._done, mus, ordinals))
            self._changed = ({}, {})

    def _validation_due(self) -> bool:
        if time.monotonic() < self._next_validation:
            return False
        self._next_validation = time.monotonic() + self.config.validate_every_s
        self._waiting = self.store.versions(self.name, statuses=["validating"])
        return bool(self._waiting)

    def _validate_waiting(self) -> None:
        waiting, self._waiting = self._waiting, []
        for version in waiting:
            if self.stopping:
                return
            self.log(f"validating {version.label} against random ...")
            after, outcome = validate_version(self.store, version, self.archives)
            self.summary.validated.append((after.label, outcome.ok, outcome.reason))
            why = f" ({outcome.reason})" if outcome.reason else ""
            self.log(f"{after.label}: {after.status}{why}")
            self._snapshot = None
        self._next_validation = time.monotonic() + self.config.validate_every_s

    def _refresh(self) -> None:
        """Standings files, viewers of each active version's latest game, MLflow."""
        from arena.ladder.standings import load_standings, to_csv, to_html, to_markdown

        self._next_refresh = time.monotonic() + self.config.refresh_s
        st = load_standings(self.store, self.name)
        paths = []
        for ext, text in (("csv", to_csv(st)), ("md", to_markdown(st)), ("html", to_html(st))):
            path = self.files.standings(ext)
            atomic_write(path, text)
            paths.append(path)
        active = {row.label for row in st.rows if row.status == "active"}
        viewers = self._write_viewers(active)
        if self._tracker is not None:
            self._tracker.publish([*paths, *([viewers] if viewers else [])])
            self._tracker.tick(self._points, force=True)

    def _write_viewers(self, active: set[str]) -> Path | None:
        """``replays/latest-<bot@version>.html`` for each active version that played in
        this run (viewers of versions no longer active are removed)."""
        from arena.replay.model import UnverifiedRecord
        from arena.replay.viewer import write_viewer

        folder = self.files.replays
        folder.mkdir(parents=True, exist_ok=True)
        names = {label: f"latest-{label.replace('@', '.v')}.html" for label in active}
        for label, name in sorted(names.items()):
            line = self._latest.get(label)
            if line is None:
                continue  # keeps the viewer an earlier run wrote
            try:
                write_viewer(json.loads(line), folder / name)
            except (UnverifiedRecord, ValueError) as exc:
                self.log(f"warning: no viewer of {label}'s latest game: {exc}")
        for old in folder.glob("latest-*.html"):
            if old.name not in names.values():
                old.unlink(missing_ok=True)
        return folder if any(folder.iterdir()) else None

    # -- the end ---------------------------------------------------------------------------

    def _finish(self) -> None:
        """Give back what is in flight, write the standings, finish MLflow, release."""
        summary = self.summary
        if self.remote is not None:
            self.remote.halt.set()
        try:
            if self.lease is not None:
                leftover = [m.id for m in self._in_flight.values()] + [m.id for m in self._buffer]
                self._in_flight.clear()
                self._buffer.clear()
                if leftover:
                    summary.requeued_at_stop = len(self.store.requeue(self.lease, leftover))
            if self._journal is not None:
                try:
                    self._refresh()
                except Exception as exc:  # the standings are a view: never fail the stop
                    self.log(f"warning: standings not written: {type(exc).__name__}: {exc}")
            if self._tracker is not None:
                self._point()
                summary.tracked = self._tracker.finish(self._points, [], True, timeout=60)
                summary.run_id = self._tracker.run_id
                if not summary.tracked:
                    self.log(
                        f"warning: MLflow ({self._tracker.uri}) did not get everything "
                        f"({self._tracker.last_error or 'timed out'}); the next run uploads it"
                    )
        finally:
            if self._journal is not None:
                self._journal.close()
            if self.lease is not None:
                with contextlib.suppress(LadderError):
                    self.store.release(self.lease)
                self.lease = None
