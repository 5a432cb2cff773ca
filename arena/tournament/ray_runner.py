"""Games on Ray: batched tasks, bounded in flight, records back to the driver.

Each Ray task plays a batch of games (several per task: a task costs about a
millisecond of scheduling, a game of random bots about as much) and returns each game's
record already serialised as a JSONL line plus a small summary for the ratings, so the
driver does little more than append lines to the journal. Bots travel as spec strings
and are built inside the worker (``arena.match.specs.make_bot``).

A task whose worker dies is retried by Ray (``max_retries``); the driver journals the
records of a batch once, when its result arrives, and skips ids it already holds. A
game that raises (an engine or bot-construction error; misbehaving bots are handled
by the match runner's failure policy) comes back as an error, is not journaled, and is
played again by the next run.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import math
import os
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from arena.errors import UserError
from arena.match.records import dumps_line
from arena.match.runner import FailurePolicy, MatchConfig, MatchSpec, play_match
from arena.match.specs import is_cmd, make_bot
from arena.tournament.ratings import GameSummary
from arena.tournament.ray_temp import private_temp_dir
from arena.tournament.schedule import ScheduledGame
from bots.base import Bot

TASK_MAX_RETRIES = 5
TARGET_TASK_SECONDS = 0.5
MAX_BATCH = 500


@dataclass(frozen=True)
class GameSetup:
    """What every game of a tournament shares (sent with each task)."""

    game: str
    players: int
    options: dict[str, Any]
    tournament_id: str
    move_ms: float | None = None
    on_failure: FailurePolicy = "forfeit"


@dataclass
class BatchResult:
    """What a task returns: one line + summary per game played, errors for the rest."""

    lines: list[tuple[str, str]] = field(default_factory=list)
    summaries: list[GameSummary] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)
    game_seconds: float = 0.0
    pid: int = 0


def play_one_game(setup: GameSetup, sg: ScheduledGame) -> dict[str, Any]:
    """Play one scheduled game and return its record (with its place in the schedule).

    In-process bots are built here from their specs; ``cmd:`` bots are programs started
    for the match that connect over gRPC to an embedded game server (``arena.match.cmdbots``).
    """
    spec = MatchSpec(
        setup.game,
        setup.players,
        sg.seed,
        dict(setup.options),
        tournament_id=setup.tournament_id,
        match_id=sg.match_id,
        game_id=sg.game_id,
    )
    config = MatchConfig(setup.move_ms, setup.on_failure)
    if any(is_cmd(s) for s in sg.specs):
        from arena.match.cmdbots import open_bots

        def build(seat: int, text: str) -> Bot:
            return make_bot(text, sg.seats[seat])

        with open_bots(sg.specs, spec, config, names=sg.seats, build=build) as session:
            record = session.play()
    else:
        bots = [make_bot(s, n) for n, s in zip(sg.seats, sg.specs, strict=True)]
        record = play_match(spec, bots, config)
    record["schedule"] = {"round": sg.round, "group": sg.group, "rotation": sg.rotation}
    return record


def play_batch(setup: GameSetup, games: list[ScheduledGame]) -> BatchResult:
    """Play ``games`` one after the other (in a Ray worker, or in-process)."""
    out = BatchResult(pid=os.getpid())
    t0 = time.perf_counter()
    for sg in games:
        try:
            record = play_one_game(setup, sg)
            if record.get("aborted"):
                raise RuntimeError(f"the match was aborted: {record.get('reason')}")
            summary = GameSummary.of(record)
            line = dumps_line(record)
        except Exception as exc:  # an engine bug or an unbuildable bot: report, go on
            tb = traceback.format_exception_only(type(exc), exc)[-1].strip()
            out.errors.append((sg.game_id, tb))
            continue
        out.lines.append((sg.game_id, line))
        out.summaries.append(summary)
    out.game_seconds = time.perf_counter() - t0
    return out


# ---------------------------------------------------------------------------
# Ray session
# ---------------------------------------------------------------------------


@contextlib.contextmanager
def ray_session(workers: int, address: str | None = None) -> Iterator[str]:
    """Make sure Ray is initialised; yields a description of the cluster.

    An already initialised Ray (tests, notebooks) is used as is and left running.
    ``address`` or ``RAY_ADDRESS`` joins a cluster; otherwise a private local Ray with
    ``workers`` CPUs is started (loopback only, no dashboard, its own temp dir) and
    shut down at the end.
    """
    import ray

    if ray.is_initialized():
        yield "the current Ray session"
        return
    address = address or os.environ.get("RAY_ADDRESS") or None
    if address and address != "local":
        ray.init(address=address, logging_level=logging.WARNING, log_to_driver=True)
        cpus = int(ray.cluster_resources().get("CPU", workers))  # type: ignore[no-untyped-call]  # ray leaves it unannotated
        where = f"the Ray cluster at {address} ({cpus} CPUs)"
        try:
            yield where
        finally:
            ray.shutdown()
        return
    with private_temp_dir() as tmp:  # removed on every exit path (arena.tournament.ray_temp)
        try:
            ray.init(
                address="local",
                num_cpus=workers,
                _node_ip_address="127.0.0.1",
                include_dashboard=False,
                _temp_dir=str(tmp),
                object_store_memory=256 * 1024 * 1024,
                logging_level=logging.WARNING,
            )
        except Exception as exc:  # a busy machine (start-up timeout), /tmp full, ...
            with contextlib.suppress(Exception):
                ray.shutdown()
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
            raise UserError(
                f"could not start a local Ray ({type(exc).__name__}: {first}); try again "
                "when the machine is less busy, --workers 0 to play in this process, or "
                "RAY_ADDRESS=HOST:PORT to join a running Ray cluster"
            ) from None
        try:
            yield f"a local Ray with {workers} worker(s)"
        finally:
            ray.shutdown()


_REMOTE: Any = None


def cluster_cpus(default: int) -> int:
    """CPUs of the Ray cluster this process is connected to."""
    import ray

    try:
        return max(1, int(ray.cluster_resources().get("CPU", default)))  # type: ignore[no-untyped-call]  # ray leaves it unannotated
    except Exception:
        return default


def _remote_play_batch() -> Any:
    global _REMOTE
    if _REMOTE is None:
        import ray

        _REMOTE = ray.remote(num_cpus=1, max_retries=TASK_MAX_RETRIES)(play_batch)
    return _REMOTE


# ---------------------------------------------------------------------------
# The dispatch loop
# ---------------------------------------------------------------------------


class BatchSizer:
    """Games per task: fixed, or adapted so a task holds ~TARGET_TASK_SECONDS of games
    (small at the end so that no worker idles while another finishes a long batch)."""

    def __init__(self, fixed: int | None, workers: int, max_batch: int = MAX_BATCH) -> None:
        self.fixed = fixed
        self.workers = workers
        self.max_batch = max_batch
        self.games = 0
        self.seconds = 0.0

    def observe(self, result: BatchResult) -> None:
        self.games += len(result.lines) + len(result.errors)
        self.seconds += result.game_seconds

    def size(self, remaining: int) -> int:
        if self.fixed is not None:
            return self.fixed
        if self.games == 0:
            size = 4
        else:
            per_game = max(self.seconds / self.games, 1e-5)
            size = round(TARGET_TASK_SECONDS / per_game)
        tail = math.ceil(remaining / (2 * self.workers))
        return max(1, min(size, self.max_batch, tail))


def run_on_ray(
    setup: GameSetup,
    games: Iterator[ScheduledGame],
    remaining: int,
    workers: int,
    batch_size: int | None,
    on_result: Callable[[BatchResult], None],
    on_lost: Callable[[list[ScheduledGame], str], None],
    max_in_flight: int | None = None,
    on_idle: Callable[[], None] | None = None,
    max_batch: int = MAX_BATCH,
) -> None:
    """Play ``games`` (``remaining`` of them) in batched Ray tasks with back-pressure:
    at most ``max_in_flight`` tasks (default 2 per worker) of at most ``max_batch`` games
    are submitted at a time.
    ``on_idle`` is called after every wait (results or not; at least every 0.2 s).

    A task that still fails after Ray's retries (a worker killed every time, e.g. by a
    game that crashes the interpreter) is split: each of its games is tried once more
    as a task of its own, so one poisonous game does not take its batch with it; a
    single game that fails again is reported to ``on_lost``."""
    import ray
    from ray.exceptions import RayError

    remote = _remote_play_batch()
    setup_ref = ray.put(setup)
    limit = max_in_flight or 2 * workers
    sizer = BatchSizer(batch_size, workers, max_batch)
    pending: dict[Any, list[ScheduledGame]] = {}
    singles: list[ScheduledGame] = []
    exhausted = False
    while True:
        while len(pending) < limit and (singles or not exhausted):
            if singles:
                batch = [singles.pop()]
                task = remote.options(max_retries=1)
            else:
                batch = list(itertools.islice(games, sizer.size(remaining)))
                if not batch:
                    exhausted = True
                    break
                remaining -= len(batch)
                task = remote.options(max_retries=TASK_MAX_RETRIES)
            pending[task.remote(setup_ref, batch)] = batch
        if not pending:
            return
        ready, _ = ray.wait(list(pending), num_returns=1, timeout=0.2)
        if on_idle is not None:
            on_idle()
        for ref in ready:
            batch = pending.pop(ref)
            try:
                result: BatchResult = ray.get(ref)
            except RayError as exc:
                if len(batch) > 1:
                    singles.extend(reversed(batch))
                else:
                    on_lost(batch, f"{type(exc).__name__}: {str(exc).splitlines()[0]}")
                continue
            sizer.observe(result)
            on_result(result)
