"""MLflow tracking of a tournament: one run, batched writes, resumable upload.

Only the driver talks to MLflow, and only from background threads (one imports MLflow
and opens the store as soon as a run starts, :func:`open_store`, alongside reading the
journal and playing; one does all the logging), so a slow or unreachable tracking store
never holds up the games: the journal is the source of truth and MLflow is a copy
brought up to date by :meth:`Tracker.tick`, at the end by :meth:`Tracker.finish` (within
a time bound), and later by ``arena sync`` (or the next run of the tournament).

What a run holds:

- params: the flattened config (``roster.<bot>`` = spec); tags: game, ``format`` (of
  the records), tournament format and id, code version (``git describe`` or the
  package version);
- metrics ``elo/<bot>`` (live Elo) and ``score/<bot>`` (share of pairwise contests won)
  with step = games completed, every ``every`` games, written with ``log_batch``;
- artifacts: ``records/part-NNNNN.jsonl`` (the journal in order, ≤ 500 records per part),
  ``leaderboard.csv|md|html``, ``ratings.json`` (final ratings with intervals),
  ``elo.png`` (rating over time), ``config.yaml`` and ``replays/*.html`` (self-contained
  replays of a sample of games: each bot's losses, games with failures).

What has been uploaded is kept in ``tracking.json`` next to the journal (per tracking
URI: the run id and the last metric step) and, by **game id**, in an append-only ledger
beside it (``tracking-<uri hash>.ids``: one JSON line per uploaded part, its number and
the game ids in it). A part holds the next journal records whose ids are not in the
ledger, in journal order, and is entered in the ledger only once it is in MLflow, so
uploading one again after a crash rewrites the same file with the same content; a line
that disappears from the middle of the journal (corrupted and skipped) shifts no index:
no record is ever in MLflow twice, none is skipped. ``arena sync`` uploads what the
ledger lacks to the store the run was recorded in (``tracking.json``), and says so.

The final upload adds the headline ratings as metrics at the last step:
``rating/<bot>``, ``rating_low/<bot>``, ``rating_high/<bot>`` (the leaderboard's
interval), ``elo/<bot>`` (the leaderboard's final-order Elo, so the series ends on it)
and any stopping rule's statistics (``sprt/...``, ``separated``).
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.match.records import FORMAT
from arena.tournament.config import TournamentConfig
from arena.tournament.journal import Journal

if TYPE_CHECKING:
    from arena.tournament.ratings import Point

PART_SIZE = 500
RETRY_OFFLINE_SECONDS = 30.0
TICK_SECONDS = 2.0
OPEN_TIMEOUT_SECONDS = 120.0
"""How long the MLflow thread waits for the store to open (a new SQLite store's
migrations take seconds; a database server that does not answer must not hang it)."""

# A tracking server that is down must not stall the driver for minutes of retries.
os.environ.setdefault("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "1")
os.environ.setdefault("MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR", "1")
os.environ.setdefault("MLFLOW_HTTP_REQUEST_TIMEOUT", "20")


_opening: dict[str, concurrent.futures.Future[None]] = {}
"""The store opening started by :func:`open_store`, by tracking URI."""
_opening_lock = threading.Lock()
"""Guards :data:`_opening`."""
_import_lock = threading.Lock()
"""Held while an opener imports MLflow (see :func:`open_store`)."""


def open_store(uri: str) -> concurrent.futures.Future[None]:
    """Import MLflow and open the tracking store at ``uri`` in a background thread (once
    per URI; again after a failure); the future is done when the store is ready.

    Importing MLflow and opening its store (SQLAlchemy, Alembic's schema check; the
    migrations when the SQLite file is new) is most of what tracking costs a small
    tournament: a run starts it before anything else so that it overlaps reading the
    journal and playing the games. Every MLflow call of a :class:`RunTracker` waits for
    it: MLflow caches the store per URI, so the tracker's client gets the same one; two
    threads must not create a fresh store at once (both would run its migrations) nor
    import MLflow at once (the second sees a half-initialised module and fails)."""
    with _opening_lock:
        future = _opening.get(uri)
        if future is None or (future.done() and future.exception() is not None):
            future = concurrent.futures.Future()
            _opening[uri] = future
            # not a daemon: a process that ends early (a bad out dir) waits for it rather
            # than cut a new store's migrations short and leave a half-made mlflow.db
            threading.Thread(target=_open_store, args=(uri, future), name="mlflow-open").start()
        return future


def _open_store(uri: str, future: concurrent.futures.Future[None]) -> None:
    try:
        with _import_lock:  # the openings of two URIs import it one after the other
            from mlflow import MlflowClient

        MlflowClient(tracking_uri=uri).search_experiments(max_results=1)  # opens the store
    except BaseException as exc:
        future.set_exception(exc)
    else:
        future.set_result(None)


def default_tracking_uri() -> str:
    """``MLFLOW_TRACKING_URI`` if set, else the SQLite file ``mlflow.db`` in the cwd."""
    return os.environ.get("MLFLOW_TRACKING_URI") or f"sqlite:///{Path.cwd() / 'mlflow.db'}"


def artifact_location(uri: str) -> str | None:
    """For a SQLite store, ``mlartifacts/`` next to the database file; else the store's."""
    if uri.startswith("sqlite:///"):
        db = Path(uri[len("sqlite:///") :])
        if not db.is_absolute():
            db = Path.cwd() / db
        return (db.parent / "mlartifacts").as_uri()
    return None


def code_version() -> str:
    root = Path(__file__).resolve().parent.parent
    try:
        out = subprocess.run(
            ["git", "describe", "--always", "--dirty", "--tags"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        )
        if out.stdout.strip():
            return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        from importlib.metadata import version

        return version("menagerie")
    except Exception:
        return "unknown"


def metric_key(kind: str, bot: str) -> str:
    return f"{kind}/{bot}"


class SyncState:
    """``tracking.json``: what has reached which tracking store."""

    def __init__(self, path: Path, uri: str) -> None:
        self.path = path
        self.uri = uri
        self.all: dict[str, Any] = {}
        if path.exists():
            try:
                self.all = json.loads(path.read_text())
            except (OSError, ValueError):
                self.all = {}
        self.data: dict[str, Any] = self.all.setdefault(
            uri, {"run_id": None, "uploaded": 0, "parts": 0, "metrics_step": 0}
        )

    @property
    def ledger_path(self) -> Path:
        """The uploaded-ids ledger of this URI (see the module docstring)."""
        digest = hashlib.sha256(self.uri.encode()).hexdigest()[:10]
        return self.path.with_name(f"{self.path.stem}-{digest}.ids")

    def uploaded_parts(self) -> list[list[str]]:
        """The game ids of every part in MLflow, by part number (a torn last ledger line,
        a part whose upload was not confirmed, is dropped: it is uploaded again)."""
        parts: list[list[str]] = []
        try:
            with open(self.ledger_path, "rb") as fh:
                for raw in fh:
                    if not raw.endswith(b"\n"):
                        break
                    try:
                        entry = json.loads(raw)
                    except ValueError:
                        break
                    if entry.get("part") != len(parts):
                        break
                    parts.append([str(x) for x in entry["ids"]])
        except FileNotFoundError:
            pass
        return parts

    def record_part(self, part: int, ids: Sequence[str]) -> None:
        """Enter a part that is now in MLflow in the ledger (fsynced)."""
        with open(self.ledger_path, "ab") as fh:
            fh.write((json.dumps({"part": part, "ids": list(ids)}) + "\n").encode())
            fh.flush()
            os.fsync(fh.fileno())

    def save(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.all, indent=1))
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)


class RunTracker:
    """An MLflow run kept up to date from a journal (all MLflow calls run in one
    background thread); what the run is called and holds besides the records comes from
    the hooks :meth:`run_identity`, :meth:`run_params` and :meth:`point_metrics`
    (:class:`Tracker` for a tournament, ``arena.ladder.tracking`` for a ladder)."""

    def __init__(
        self,
        uri: str,
        state_path: Path,
        journal: Journal,
        log: Callable[[str], None] = lambda s: print(s, file=sys.stderr),
    ) -> None:
        self.uri = uri
        self.journal = journal
        self.state = SyncState(state_path, self.uri)
        open_store(self.uri)
        self.log = log
        self._pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="mlflow")
        self._future: concurrent.futures.Future[None] | None = None
        self._request: tuple[int, list[Point], bool] | None = None
        self._lock = threading.Lock()
        self._serving = False
        self._last_tick = 0.0
        self._client: Any = None
        self.offline_since: float | None = None
        self.last_error: str | None = None
        self.busy_seconds = 0.0
        self.driver_seconds = 0.0
        self.uploaded_now = 0
        """Records this tracker uploaded (``arena sync`` reports it)."""
        self._uploaded: set[str] | None = None
        """Game ids in MLflow (read from the ledger on the first sync)."""
        self._parts = 0
        self._scanned = 0
        """Journal records ``[0, _scanned)`` have been looked at: uploaded or pending."""
        self._pending: list[int] = []

    # -- what the run is (hooks) ---------------------------------------------------

    def run_identity(self) -> tuple[str, str, dict[str, str]]:
        """(experiment, run name, tags) of a new run."""
        raise NotImplementedError

    def run_params(self) -> dict[str, str]:
        """The run's params (logged once each; a changed value becomes a ``changed.`` tag)."""
        return {}

    def point_metrics(self, point: Point, timestamp_ms: int) -> list[Any]:
        """The MLflow ``Metric``s of one point of the ratings' trajectory."""
        raise NotImplementedError

    @property
    def run_id(self) -> str | None:
        rid: str | None = self.state.data.get("run_id")
        return rid

    @property
    def online(self) -> bool:
        return self.offline_since is None

    # -- driver side ---------------------------------------------------------------

    def tick(self, points: Sequence[Point], force: bool = False, final: bool = False) -> None:
        """Bring MLflow up to date in the background, at most every TICK_SECONDS.

        A request made while an upload is running is picked up by that upload's thread
        as soon as it is done (only the newest request counts). ``final``: upload the
        last, partial part of the records too."""
        t0 = time.perf_counter()
        now = time.monotonic()
        recent = now - self._last_tick < TICK_SECONDS
        offline = (
            self.offline_since is not None and now - self.offline_since < RETRY_OFFLINE_SECONDS
        )
        if force or not (recent or offline):
            self._last_tick = now
            with self._lock:
                self._request = (self.journal.durable, list(points), final)
                if not self._serving:
                    self._serving = True
                    self._future = self._pool.submit(self._serve)
        self.driver_seconds += time.perf_counter() - t0

    def _serve(self) -> None:
        while True:
            with self._lock:
                request, self._request = self._request, None
                if request is None:
                    self._serving = False
                    return
            self._guarded(self._sync, *request)
            if not self.online:  # retried by a tick after RETRY_OFFLINE_SECONDS
                with self._lock:
                    self._serving = False
                return

    def wait(self, timeout: float | None = None) -> None:
        if self._future is not None:
            concurrent.futures.wait([self._future], timeout=timeout)

    def finish(
        self,
        points: Sequence[Point],
        artifacts: Sequence[Path],
        complete: bool,
        timeout: float | None = None,
        final: Mapping[str, float] | None = None,
        tags: Mapping[str, str] | None = None,
    ) -> bool:
        """Final upload: every record, the metrics, the artifacts; True if all is in MLflow.
        ``final``: metrics logged at the last step whatever was logged before (the
        leaderboard's values: a series ends on them); ``tags``: set on the run.
        ``timeout`` bounds the whole of it, the upload under way included (what did not
        make it is uploaded by ``arena sync`` or the next run)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        self.wait(timeout)
        self.offline_since = None
        done = self._pool.submit(
            self._guarded,
            self._final,
            self.journal.durable,
            points,
            artifacts,
            complete,
            dict(final or {}),
            dict(tags or {}),
        )
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        concurrent.futures.wait([done], timeout=left)
        self._pool.shutdown(wait=False)
        return done.done() and self.online

    def sync_now(
        self,
        points: Sequence[Point],
        artifacts: Sequence[Path],
        complete: bool,
        final: Mapping[str, float] | None = None,
    ) -> bool:
        """Everything, synchronously (``arena sync``)."""
        self._guarded(
            self._final, self.journal.durable, points, artifacts, complete, dict(final or {})
        )
        return self.online

    # -- the MLflow thread -----------------------------------------------------------

    def _guarded(self, fn: Callable[..., None], *args: Any) -> None:
        t0 = time.perf_counter()
        try:
            # MLflow is imported by open_store's thread: no other import of it may run
            # meanwhile (a half-initialised mlflow.entities fails the second one)
            open_store(self.uri).result(timeout=OPEN_TIMEOUT_SECONDS)
            fn(*args)
            if self.offline_since is not None:
                self.log("MLflow is reachable again; uploading what is missing")
            self.offline_since = None
        except Exception as exc:
            msg = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
            if self.offline_since is None:
                self.log(
                    f"warning: MLflow at {self.uri} is unreachable ({msg[:200]}); "
                    "the tournament goes on with the journal"
                )
            self.offline_since = time.monotonic()
            self.last_error = msg
            self._client = None
        finally:
            self.busy_seconds += time.perf_counter() - t0

    def _connect(self) -> Any:
        if self._client is not None:
            return self._client
        from mlflow import MlflowClient
        from mlflow.entities import RunStatus

        client = MlflowClient(tracking_uri=self.uri)
        experiment, run_name, tags = self.run_identity()
        exp = client.get_experiment_by_name(experiment)
        if exp is None:
            exp_id = client.create_experiment(
                experiment, artifact_location=artifact_location(self.uri)
            )
        else:
            exp_id = exp.experiment_id
        run = None
        if self.run_id:
            try:
                run = client.get_run(self.run_id)
                if run.info.lifecycle_stage != "active":
                    run = None
            except Exception as exc:
                if "RESOURCE_DOES_NOT_EXIST" not in str(exc) and "not found" not in str(exc):
                    raise
                run = None
        if run is None:
            run = client.create_run(
                exp_id, run_name=run_name, tags={**tags, "code_version": code_version()}
            )
            self.state.data.update(
                {"run_id": run.info.run_id, "uploaded": 0, "parts": 0, "metrics_step": 0}
            )
            self.state.ledger_path.unlink(missing_ok=True)  # a new run holds no record yet
            self._uploaded, self._parts, self._scanned, self._pending = set(), 0, 0, []
            self.state.save()
        elif run.info.status != RunStatus.to_string(RunStatus.RUNNING):
            client.update_run(run.info.run_id, status="RUNNING")
        self._log_params(client, run)
        self._client = client
        return client

    def _log_params(self, client: Any, run: Any) -> None:
        from mlflow.entities import Param, RunTag

        have: dict[str, str] = dict(run.data.params)
        params = self.run_params()
        new = [Param(k, v[:6000]) for k, v in params.items() if k not in have]
        changed = [
            RunTag(f"changed.{k}", v[:5000])
            for k, v in params.items()
            if k in have and have[k] != v[:6000]
        ]
        for i in range(0, len(new), 100):
            client.log_batch(run.info.run_id, params=new[i : i + 100])
        if changed:
            client.log_batch(run.info.run_id, tags=changed)

    def _scan(self, journal_len: int) -> None:
        """Find the journal records not in MLflow yet (by game id), from where the last
        scan stopped (the journal only grows)."""
        if self._uploaded is None:
            parts = self.state.uploaded_parts()
            st = self.state.data
            if not parts and st.get("uploaded"):
                # a tracking.json of before the ledger: its first records went up by index
                first = [self.journal.game_id(i) for i in range(min(st["uploaded"], journal_len))]
                parts = [first[i : i + PART_SIZE] for i in range(0, len(first), PART_SIZE)]
                for k, ids in enumerate(parts):
                    self.state.record_part(k, ids)
            self._uploaded = {gid for ids in parts for gid in ids}
            self._parts = max(len(parts), int(st.get("parts") or 0))
        for i in range(self._scanned, journal_len):
            if self.journal.game_id(i) not in self._uploaded:
                self._pending.append(i)
        self._scanned = max(self._scanned, journal_len)

    def _sync(self, journal_len: int, points: Sequence[Point], final: bool = False) -> None:
        client = self._connect()
        run_id = self.run_id
        self._log_metrics(client, run_id, points)
        self._scan(journal_len)
        assert self._uploaded is not None
        st = self.state.data
        while len(self._pending) >= PART_SIZE or (final and self._pending):
            todo = self._pending[:PART_SIZE]
            ids = [self.journal.game_id(i) for i in todo]
            with tempfile.TemporaryDirectory(prefix="mnr-part-") as tmp:
                part = Path(tmp) / f"part-{self._parts:05d}.jsonl"
                part.write_bytes(b"".join(self.journal.line(i) for i in todo))
                client.log_artifact(run_id, str(part), "records")
            self.state.record_part(self._parts, ids)
            self._uploaded.update(ids)
            del self._pending[: len(todo)]
            self._parts += 1
            self.uploaded_now += len(todo)
            st["uploaded"] = len(self._uploaded)
            st["parts"] = self._parts
            self.state.save()

    def _log_metrics(self, client: Any, run_id: str | None, points: Sequence[Point]) -> None:
        st = self.state.data
        todo = [p for p in points if p[0] > st["metrics_step"]]
        if not todo:
            return
        ts = int(time.time() * 1000)
        metrics = [m for point in todo for m in self.point_metrics(point, ts)]
        for i in range(0, len(metrics), 1000):
            client.log_batch(run_id, metrics=metrics[i : i + 1000])
        st["metrics_step"] = todo[-1][0]
        self.state.save()

    def _final(
        self,
        journal_len: int,
        points: Sequence[Point],
        artifacts: Sequence[Path],
        complete: bool,
        final: dict[str, float],
        tags: dict[str, str] | None = None,
    ) -> None:
        from mlflow.entities import Metric

        self._sync(journal_len, points, final=True)
        client = self._client
        if final:
            ts = int(time.time() * 1000)
            step = max([journal_len, *(p[0] for p in points)])
            metrics = [Metric(k, round(v, 5), ts, step) for k, v in final.items()]
            for i in range(0, len(metrics), 1000):
                client.log_batch(self.run_id, metrics=metrics[i : i + 1000])
        for path in artifacts:
            if path.is_dir():
                client.log_artifacts(self.run_id, str(path), path.name)
            elif path.exists():
                client.log_artifact(self.run_id, str(path))
        client.set_tag(self.run_id, "games", str(journal_len))
        for key, value in (tags or {}).items():
            client.set_tag(self.run_id, key, value[:5000])
        client.set_terminated(self.run_id, "FINISHED" if complete else "KILLED")


class Tracker(RunTracker):
    """A tournament's MLflow run (see the module docstring)."""

    def __init__(
        self,
        cfg: TournamentConfig,
        out_dir: Path,
        journal: Journal,
        log: Callable[[str], None] = lambda s: print(s, file=sys.stderr),
    ) -> None:
        super().__init__(
            cfg.tracking_uri or default_tracking_uri(), out_dir / "tracking.json", journal, log
        )
        self.cfg = cfg
        self.out_dir = out_dir

    def run_identity(self) -> tuple[str, str, dict[str, str]]:
        cfg = self.cfg
        if cfg.gauntlet:
            how = f"gauntlet of {cfg.gauntlet}, every seat rotation on a shared seed"
        else:
            how = "round robin, every seat rotation on a shared seed"
        tags = {
            "game": cfg.game,
            "format": FORMAT,
            "tournament_format": how,
            "tournament_id": cfg.tournament_id,
            "players": str(cfg.num_players),
        }
        return cfg.experiment, cfg.tournament_id, tags

    def run_params(self) -> dict[str, str]:
        return self.cfg.flat()

    def point_metrics(self, point: Point, timestamp_ms: int) -> list[Any]:
        from mlflow.entities import Metric

        step, elo, score = point
        return [
            Metric(metric_key("elo", bot), round(value, 3), timestamp_ms, step)
            for bot, value in elo.items()
        ] + [
            Metric(metric_key("score", bot), round(value, 5), timestamp_ms, step)
            for bot, value in score.items()
        ]
