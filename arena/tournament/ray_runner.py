"""Games on Ray: batched tasks, bounded in flight, records back to the driver.

Each Ray task plays a batch of games (several per task: a task costs about a
millisecond of CPU over Ray's processes, a game of random bots several) and returns each
game's record already serialised as a JSONL line plus a small summary for the ratings, so
the driver does little more than append lines to the journal. Measured on 2 cores, 100
records of 13 kB cost Ray ~2 ms more than an empty result, as one bytes blob would (a
large ``str`` is dearer): a batch's records are not worth packing further. Bots travel
as spec strings and are built inside the worker, each spec checked once a batch
(:class:`BotMaker`); a Ray worker plays a game with the same function calls as the
sequential ``play_batch`` (cProfile inside the task), its own threads add ~0.03 ms.

In-process bots are clocked by the arena (``arena.match.clock``): a decision past its
deadline is stopped and recorded as a ``timeout``; one that cannot be stopped (stuck in C
code) makes its worker exit, and Ray replaces it.

On a Ray cluster (``--address`` or ``RAY_ADDRESS``) the driver's working directory is
shipped to the workers as Ray's ``runtime_env`` ``working_dir`` (without virtualenvs,
VCS data, caches and tournament output; at most :data:`WORKING_DIR_MAX_BYTES`), so that
``cmd:`` bots with relative paths start there as they do locally; a bot that cannot start
on a worker stops the run with a message naming it (``BatchResult.fatal``). Ray's token
authentication is switched on when a token is at hand, and a connection it refuses is
reported as one line saying what to set (:func:`connect_cluster`).

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
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.errors import UserError
from arena.match.clock import set_stuck_handler
from arena.match.records import dumps_line
from arena.match.runner import FailurePolicy, MatchConfig, MatchSpec, play_match
from arena.match.specs import BotStartError, bot_builder, is_cmd
from arena.sandbox.limits import DEFAULT_LIMITS, SandboxLimits
from arena.tournament.ratings import GameSummary
from arena.tournament.ray_temp import private_temp_dir
from arena.tournament.schedule import ScheduledGame
from bots.base import Bot

TASK_MAX_RETRIES = 5
TARGET_TASK_SECONDS = 0.5
MAX_BATCH = 500

WORKING_DIR_ENV = "MENAGERIE_RAY_WORKING_DIR"
"""The folder shipped to a cluster's workers (default: the current directory; ``none``:
ship nothing, e.g. in a container image that already holds the code and the bots)."""

WORKING_DIR_EXCLUDES = (
    ".git",
    ".venv",
    "venv",
    "node_modules",
    "__pycache__",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    "/tournaments",
    "/demo-out",
    "/mlruns",
    "/mlartifacts",
    "/ladder",
    "/.cluster",
    "*.db",
    "*.db-*",
)
"""What is never shipped to the workers (gitignore-style patterns, as Ray reads them: a
leading ``/`` anchors one to the top of the folder; Ray also leaves out what the folder's
``.gitignore`` names). ``/.cluster`` holds ``make cluster-up``'s Ray token."""

WORKING_DIR_MAX_BYTES = 100 * 1024 * 1024
"""The largest working directory shipped to a cluster (Ray uploads it once per run and
every node unpacks it): a bigger one is a mistake (a dataset, a build) to exclude."""


@dataclass(frozen=True)
class GameSetup:
    """What every game of a tournament shares (sent with each task)."""

    game: str
    players: int
    options: dict[str, Any]
    tournament_id: str
    move_ms: float | None = None
    on_failure: FailurePolicy = "forfeit"
    sandbox: SandboxLimits = DEFAULT_LIMITS
    """Limits of the sandbox the games' command bots run in."""
    prepare: Callable[[ScheduledGame], ScheduledGame] | None = None
    """Called where each game is played, before it is: returns the game to play (the
    ladder fetches the submitted archives a worker lacks and points the specs at them,
    ``arena.ladder.hosting.ShippedArchives``). Its errors fail that game only."""


@dataclass
class BatchResult:
    """What a task returns: one line + summary per game played, errors for the rest."""

    lines: list[tuple[str, str]] = field(default_factory=list)
    summaries: list[GameSummary] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)
    game_seconds: float = 0.0
    pid: int = 0
    node: str = ""
    """The Ray node (its IP address) that played the batch; empty in-process."""
    fatal: str = ""
    """Why a bot cannot start on this worker (:class:`BotStartError`): the game and the
    rest of the batch are in ``errors``, and a tournament stops (every game would fail)."""


class BotMaker:
    """Builds the in-process bots of a batch's games: each spec is parsed, loaded and
    checked once (:func:`arena.match.specs.bot_builder`), every game gets fresh bots.

    A batch plays many games between a few specs, and checking a spec (its class's
    signature and annotations) costs more than building a bot: done per game it was a
    few percent of a random bots' game."""

    def __init__(self) -> None:
        self._builders: dict[str, Callable[[str | None], Bot]] = {}
        """The builder of every spec seen so far (a spec that fails is not kept: each of
        its games fails with the same error)."""

    def make(self, spec: str, name: str) -> Bot:
        """A fresh bot of ``spec`` named ``name`` (BotSpecError if the spec is bad)."""
        build = self._builders.get(spec)
        if build is None:
            build = self._builders[spec] = bot_builder(spec)
        return build(name)


def play_one_game(
    setup: GameSetup, sg: ScheduledGame, bots: BotMaker | None = None
) -> dict[str, Any]:
    """Play one scheduled game and return its record (with its place in the schedule).

    In-process bots are built here from their specs (by ``bots``, shared by the games of
    a batch); ``cmd:`` bots are programs started for the match that connect over gRPC
    to an embedded game server (``arena.match.cmdbots``).
    """
    maker = bots or BotMaker()
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
            return maker.make(text, sg.seats[seat])

        with open_bots(
            sg.specs, spec, config, names=sg.seats, build=build, sandbox=setup.sandbox
        ) as session:
            record = session.play()
    else:
        players = [maker.make(s, n) for n, s in zip(sg.seats, sg.specs, strict=True)]
        record = play_match(spec, players, config)
    record["schedule"] = {"round": sg.round, "group": sg.group, "rotation": sg.rotation}
    return record


def play_batch(setup: GameSetup, games: list[ScheduledGame]) -> BatchResult:
    """Play ``games`` one after the other (in a Ray worker, or in-process)."""
    out = BatchResult(pid=os.getpid(), node=_node_address())
    bots = BotMaker()
    t0 = time.perf_counter()
    for n, sg in enumerate(games):
        try:
            record = play_one_game(setup, sg if setup.prepare is None else setup.prepare(sg), bots)
            if record.get("aborted"):
                raise RuntimeError(f"the match was aborted: {record.get('reason')}")
            if out.node:
                record["node"] = out.node  # where it was played (a cluster's debugging aid)
            summary = GameSummary.of(record)
            line = dumps_line(record)
        except BotStartError as exc:  # it would fail every game the same way: stop here
            out.fatal = str(exc)
            out.errors.extend((g.game_id, out.fatal) for g in games[n:])
            break
        except Exception as exc:  # an engine bug or an unbuildable bot: report, go on
            tb = traceback.format_exception_only(type(exc), exc)[-1].strip()
            out.errors.append((sg.game_id, tb))
            continue
        out.lines.append((sg.game_id, line))
        out.summaries.append(summary)
    out.game_seconds = time.perf_counter() - t0
    return out


def _node_address() -> str:
    """The IP address of the Ray node this runs on ("" outside a Ray worker; a game played
    in the driver's process does not import Ray for it: that costs half a second)."""
    try:
        ray = sys.modules.get("ray")
        if ray is None or not ray.is_initialized():
            return ""
        return str(ray.util.get_node_ip_address())
    except Exception:
        return ""


# ---------------------------------------------------------------------------
# Ray session
# ---------------------------------------------------------------------------


def working_dir_runtime_env(root: Path | None = None) -> dict[str, Any]:
    """Ray's ``runtime_env`` that ships ``root`` (default: :data:`WORKING_DIR_ENV`, else
    the current directory) to a cluster's workers; ``{}`` when it says ``none``.

    UserError when what would be shipped exceeds :data:`WORKING_DIR_MAX_BYTES` (naming
    the biggest entries, to exclude or move away).
    """
    if root is None:
        chosen = os.environ.get(WORKING_DIR_ENV, "").strip()
        if chosen.lower() == "none":
            return {}
        root = Path(chosen) if chosen else Path.cwd()
    root = root.resolve()
    if not root.is_dir():
        raise UserError(f"{WORKING_DIR_ENV}={root} is not a folder")
    sizes = _shipped_sizes(root)
    total = sum(sizes.values())
    if total > WORKING_DIR_MAX_BYTES:
        biggest = sorted(sizes.items(), key=lambda kv: -kv[1])[:3]
        shown = ", ".join(f"{name} ({size / 2**20:.0f} MiB)" for name, size in biggest)
        raise UserError(
            f"the working directory {root} is {total / 2**20:.0f} MiB, more than the "
            f"{WORKING_DIR_MAX_BYTES / 2**20:.0f} MiB shipped to a Ray cluster's workers "
            f"(biggest: {shown}); run from a smaller folder, list it in .gitignore, or set "
            f"{WORKING_DIR_ENV} to the folder the bots need (or to none)"
        )
    return {"working_dir": str(root), "excludes": list(WORKING_DIR_EXCLUDES)}


def _shipped_sizes(root: Path) -> dict[str, int]:
    """Bytes under each top-level entry of ``root`` that is not excluded by name (an upper
    bound of what Ray ships: it also honours .gitignore), until past the bound."""
    import fnmatch

    def excluded(name: str, top: bool = False) -> bool:
        return any(
            fnmatch.fnmatch(name, pattern.lstrip("/"))
            for pattern in WORKING_DIR_EXCLUDES
            if top or not pattern.startswith("/")
        )

    sizes: dict[str, int] = {}
    shipped = 0  # the walk stops once past the bound (a home folder could be millions)
    for top in root.iterdir():
        if excluded(top.name, top=True):
            continue
        total = 0
        if top.is_file():
            total = top.stat().st_size
        elif top.is_dir() and not top.is_symlink():
            for folder, dirs, files in os.walk(top):
                dirs[:] = [d for d in dirs if not excluded(d)]
                for f in files:
                    if not excluded(f):
                        with contextlib.suppress(OSError):
                            total += os.lstat(os.path.join(folder, f)).st_size
                if shipped + total > WORKING_DIR_MAX_BYTES:
                    break
        sizes[top.name] = total
        shipped += total
        if shipped > WORKING_DIR_MAX_BYTES:
            break
    return sizes


AUTH_HELP = (
    "the Ray cluster at {address} refused the connection: it requires token "
    "authentication ({detail}). Set RAY_AUTH_MODE=token and give the cluster's token as "
    "RAY_AUTH_TOKEN, or in a file named by RAY_AUTH_TOKEN_PATH, or in ~/.ray/auth_token "
    "(`ray get-auth-token` on the head node prints it)"
)


def connect_cluster(address: str, runtime_env: dict[str, Any]) -> None:
    """``ray.init`` a cluster at ``address``, its authentication handled.

    Ray 2.5x/2.6x clusters use token authentication by default; a driver whose
    ``RAY_AUTH_MODE`` is unset does not send a token even when it has one, and fails with
    a traceback. So with ``RAY_AUTH_MODE`` unset and a token at hand (``RAY_AUTH_TOKEN``,
    ``RAY_AUTH_TOKEN_PATH``, ``~/.ray/auth_token``) token mode is switched on; a
    refused or failed connection becomes a UserError saying what to set.
    """
    import ray
    from ray.exceptions import AuthenticationError

    _token_mode_if_token_available()
    try:
        ray.init(
            address=address,
            logging_level=logging.WARNING,
            log_to_driver=True,
            runtime_env=runtime_env or None,
        )
    except (ConnectionError, RuntimeError, AuthenticationError) as exc:
        causes: list[BaseException] = []
        cause: BaseException | None = exc
        while cause is not None and len(causes) < 10:
            causes.append(cause)
            cause = cause.__cause__ or cause.__context__
        text = " ".join(str(c) for c in causes)
        if any(isinstance(c, AuthenticationError) for c in causes) or "AuthToken" in text:
            mode = os.environ.get("RAY_AUTH_MODE")
            detail = (
                f"RAY_AUTH_MODE is {mode!r}"
                if mode
                else "RAY_AUTH_MODE is unset and no token found"
            )
            if mode == "token":
                detail += ", and the token given is missing or not the cluster's"
            raise UserError(AUTH_HELP.format(address=address, detail=detail)) from None
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UserError(
            f"cannot connect to the Ray cluster at {address}: {first} "
            "(is the address right, and is the head node running?)"
        ) from None


def _token_mode_if_token_available() -> None:
    """RAY_AUTH_MODE=token when it is unset and a token is at hand (see connect_cluster)."""
    if os.environ.get("RAY_AUTH_MODE") is not None:
        return
    try:  # Ray >= 2.52: its own rule (the same as `ray start`'s)
        from ray._private.authentication.authentication_token_setup import (
            maybe_enable_token_auth_if_token_available,
        )
    except ImportError:  # an older Ray has no token authentication
        return
    maybe_enable_token_auth_if_token_available(warn_if_disabled=False)


@contextlib.contextmanager
def ray_session(
    workers: int, address: str | None = None, runtime_env: dict[str, Any] | None = None
) -> Iterator[str]:
    """Make sure Ray is initialised; yields a description of the cluster.

    An already initialised Ray (tests, notebooks) is used as is and left running.
    ``address`` or ``RAY_ADDRESS`` joins a cluster (:func:`connect_cluster`) with
    ``runtime_env`` (default: the working directory, :func:`working_dir_runtime_env`);
    otherwise a private local Ray with ``workers`` CPUs is started (loopback only, no
    dashboard, its own temp dir) and shut down at the end.
    """
    import ray

    if ray.is_initialized():
        yield "the current Ray session"
        return
    address = address or os.environ.get("RAY_ADDRESS") or None
    if address and address != "local":
        env = working_dir_runtime_env() if runtime_env is None else runtime_env
        shipped = f", shipping {env['working_dir']}" if env.get("working_dir") else ""
        connect_cluster(address, dict(env))  # a copy: Ray rewrites it
        cpus = int(ray.cluster_resources().get("CPU", workers))  # type: ignore[no-untyped-call]  # ray leaves it unannotated
        where = f"the Ray cluster at {address} ({cpus} CPUs{shipped})"
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

STUCK_EXIT_CODE = 86
"""Exit status of a Ray worker that gave up on a stuck in-process bot."""


def _abandon_worker(why: str) -> None:
    """A decision that cannot be stopped (arena.match.clock): this worker exits, Ray
    starts a fresh one and retries the task (``max_retries``); other workers, and so
    other games, are unaffected."""
    print(f"arena: {why}; this Ray worker exits to be replaced", file=sys.stderr, flush=True)
    os._exit(STUCK_EXIT_CODE)


def play_batch_on_worker(setup: GameSetup, games: list[ScheduledGame]) -> BatchResult:
    """:func:`play_batch` in a Ray worker: a stuck in-process bot ends the worker."""
    set_stuck_handler(_abandon_worker)
    return play_batch(setup, games)


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

        _REMOTE = ray.remote(num_cpus=1, max_retries=TASK_MAX_RETRIES)(play_batch_on_worker)
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
