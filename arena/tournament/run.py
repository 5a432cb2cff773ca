"""Run a tournament: schedule -> Ray -> journal -> ratings -> MLflow.

The output directory (``tournaments/<tournament id>`` unless ``out`` says otherwise)
holds everything needed to resume or re-upload:

- ``config.yaml``: the config the tournament runs with (its id must not change);
- ``tournament.json``: the id and the metric cadence;
- ``journal.jsonl``: every finished game record, exactly once (see ``arena.tournament.journal``);
- ``tracking.json``: what has reached MLflow (see ``arena.tournament.tracking``);
- ``leaderboard.csv|md|html``, ``ratings.json``, ``elo.png``: the latest results.

Running the same config again (or ``--resume``) plays only the scheduled games the
journal lacks; with more rounds or a bigger roster, only the new games. The journal
refuses lines of another tournament, and the records it holds are verified (replayed to
their digest and result) before they are rated: one that does not verify is named and
left out.

A stopping rule (``sprt`` for two bots, ``until_separated`` for more, see
``arena.tournament.sprt``) ends the run early: no new game is handed out once it has
decided (games in flight finish and are journaled), and the decision is printed and
logged to MLflow; the schedule is the budget.

A ``cmd:`` bot that cannot start on a worker (its program or script missing there) stops
the run after writing what was played: :class:`~arena.match.specs.BotStartError` names
the bot and the file, and the command exits non-zero instead of forfeiting every game.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from rich.console import Console

from arena.match.records import verify_record
from arena.match.specs import BotStartError, is_cmd
from arena.sandbox import SandboxUnavailable, sandbox_for
from arena.tournament.config import ConfigError, TournamentConfig, resume_config
from arena.tournament.journal import Journal
from arena.tournament.leaderboard import make_console
from arena.tournament.ratings import (
    GameSummary,
    Point,
    Row,
    Tally,
    crosstable,
    elo_trajectory,
    final_point,
    leaderboard,
    plackett_luce,
)
from arena.tournament.ray_runner import (
    BatchResult,
    GameSetup,
    cluster_cpus,
    play_batch,
    ray_session,
    run_on_ray,
)
from arena.tournament.reporter import Reporter
from arena.tournament.results import (
    TournamentResult,
    atomic_write,
    print_report,
    write_results,
)
from arena.tournament.schedule import ScheduledGame
from arena.tournament.sprt import pentanomial, separated, sprt_state
from arena.tournament.tracking import Tracker, default_tracking_uri, open_store

IN_PROCESS_MAX_GAMES = 8
"""A run of at most this many games is played in this process unless ``workers`` says
otherwise: starting a local Ray costs seconds (more on a busy machine) that a few games
never win back."""
DEFAULT_RAY_WORKERS = 2
"""Local Ray CPUs when ``workers`` is not given and the run is played on Ray."""

PROGRESS_LINE_SECONDS = 5.0
"""Without a terminal (piped output) a plain progress line every this many seconds."""

METRIC_POINTS = 100
"""About how many metric steps a tournament logs (every ceil(total/100) games)."""


def in_process_reason(workers: int | None, address: str | None, remaining: int) -> str | None:
    """Why the ``remaining`` games are played in this process (None: on Ray): asked for
    with ``workers=0``, or chosen for a small run when no Ray cluster is named or already
    joined (an initialised Ray, e.g. in a notebook or a test, is used)."""
    if workers == 0:
        return "--workers 0"
    if workers is not None or address or os.environ.get("RAY_ADDRESS"):
        return None
    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():
        return None
    if remaining <= IN_PROCESS_MAX_GAMES:
        return f"at most {IN_PROCESS_MAX_GAMES} games; --workers N plays them on Ray"
    return None


def verified_summaries(
    into: list[GameSummary], warn: Callable[[str], None]
) -> Callable[[dict[str, Any]], None]:
    """A journal's ``on_record``: the summary of every record that verifies goes to
    ``into``; one that does not is named (``warn``) and left out."""

    def on_record(record: dict[str, Any]) -> None:
        try:
            problem = verify_record(record).problem
            summary = GameSummary.of(record)
        except (KeyError, TypeError, ValueError) as exc:
            problem = f"malformed record: {type(exc).__name__}: {exc}"
        if problem is not None:
            warn(f"warning: game {record.get('game_id')} left out of the ratings: {problem}")
            return
        into.append(summary)

    return on_record


def final_metrics(rows: list[Row], stopping: dict[str, float]) -> dict[str, float]:
    """The headline ratings (and the stopping rule's statistics) as MLflow metrics."""
    out: dict[str, float] = {}
    for row in rows:
        out[f"elo/{row.name}"] = row.elo
        if row.rating is not None and row.low is not None and row.high is not None:
            out[f"rating/{row.name}"] = row.rating
            out[f"rating_low/{row.name}"] = row.low
            out[f"rating_high/{row.name}"] = row.high
    return {**out, **stopping}


def prepare_out_dir(cfg: TournamentConfig) -> tuple[Path, dict[str, Any]]:
    """Create/check the output dir; returns it and its ``tournament.json``."""
    out = cfg.out_dir()
    out.mkdir(parents=True, exist_ok=True)
    meta_path = out / "tournament.json"
    meta: dict[str, Any] = {}
    if meta_path.exists():
        meta = json.loads(meta_path.read_text())
        if meta.get("tournament_id") != cfg.tournament_id:
            raise ConfigError(
                f"{out} holds tournament {meta.get('tournament_id')}, not {cfg.tournament_id} "
                "(the game, options, players, seed, time control or name differ); "
                "use another --out, or --resume to continue the one there"
            )
    return out, meta


class Tournament:
    """One run of a tournament: plays every scheduled game its journal lacks.

    :meth:`run` prepares the output dir, reads the journal, plays the missing games on
    Ray, then writes the results and finishes the MLflow run. While games are played
    the Ray runner calls back :meth:`on_result` (a batch's records: appended to the
    journal), :meth:`on_lost` (a batch that could not be played) and :meth:`on_idle`
    (after every wait: the appends that became durable are counted, rated, shown by
    the :class:`~arena.tournament.reporter.Reporter` and tracked).

    ``on_progress(games in journal)`` is called after each durable append (tests use it
    to interrupt things at a chosen point).
    """

    journal: Journal
    result: TournamentResult
    reporter: Reporter
    tracker: Tracker | None

    def __init__(
        self,
        cfg: TournamentConfig,
        *,
        quiet: bool = False,
        progress: bool | None = None,
        on_progress: Callable[[int], None] | None = None,
        console: Console | None = None,
    ) -> None:
        self.cfg = cfg
        self.quiet = quiet
        self.progress = progress
        self.on_progress = on_progress
        self.err = make_console(stderr=True, quiet=quiet)
        self.stdout = console or make_console(quiet=quiet)
        self.names = [e.name for e in cfg.roster]
        self.summaries: list[GameSummary] = []
        """Every game in the journal, in the order it became durable."""
        self.tally = Tally(self.names)
        self.points: list[Point] = []
        """The ratings' trajectory: a point every ``every`` games."""
        self.every = 1
        self.started = time.perf_counter()
        self.stopped: str | None = None
        """The stopping rule's decision, once it has decided (no new game is handed out)."""
        self.stop_metrics: dict[str, float] = {}
        self._checked = 0
        self.nodes: set[str] = set()
        """The Ray nodes (IP addresses) that played this run's games."""

    def run(self) -> TournamentResult:
        """Play what is missing; returns what happened (KeyboardInterrupt: re-raised once
        the results so far are written)."""
        cfg, err = self.cfg, self.err
        self.started = time.perf_counter()
        if cfg.tracking:  # the slowest part of a small run: under way while the rest runs
            open_store(cfg.tracking_uri or default_tracking_uri())
        out, meta = prepare_out_dir(cfg)
        schedule = cfg.schedule()
        total = len(schedule)
        every = int(meta.get("metric_every") or max(1, math.ceil(total / METRIC_POINTS)))
        self.every = every
        meta = {"tournament_id": cfg.tournament_id, "metric_every": every, **meta}
        atomic_write(out / "tournament.json", json.dumps(meta, indent=1))
        atomic_write(out / "config.yaml", cfg.to_yaml())

        journal = Journal(
            out / "journal.jsonl",
            verified_summaries(self.summaries, err.print),
            owner=cfg.tournament_id,
        )
        self.journal = journal
        try:
            for i, s in enumerate(self.summaries, 1):
                self._rate(s, i)
            if meta.get("stopped") and meta.get("stopped_by") == self._rule():
                self.stopped = str(meta["stopped"])  # decided by an earlier run
                self.stop_metrics = dict(meta.get("stopping") or {})
            self._check_stop(force=True)
            already = sum(1 for sg in schedule if sg.game_id in journal)
            self.result = TournamentResult(cfg, out, total, already)
            remaining = total - already
            err.print(
                f"tournament {cfg.tournament_id}: {cfg.game}, {cfg.num_players} players, "
                f"{len(self.names)} bots"
                + (f" (a gauntlet of {cfg.gauntlet})" if cfg.gauntlet else "")
                + f", {total} games"
                + (f"; resuming: {already} already in {out}/journal.jsonl" if already else "")
            )
            if len(journal) > already:  # rated with the rest: say so, the counts differ
                err.print(
                    f"note: the journal also holds {len(journal) - already} game(s) outside "
                    "this schedule (more --rounds or bots than this run's); they are rated too"
                )
            self.tracker = Tracker(cfg, out, journal, log=err.print) if cfg.tracking else None
            if self.tracker is not None:
                self.tracker.tick(self.points, force=True)
            show_bar = (
                self.progress if self.progress is not None else (not self.quiet and err.is_terminal)
            )
            self.reporter = Reporter(
                err,
                total=total,
                already=already,
                remaining=remaining,
                board_every=cfg.leaderboard_every or max(50, math.ceil(remaining / 5)),
                show_bar=show_bar,
                live_tables=not self.quiet,
                line_every=PROGRESS_LINE_SECONDS
                if self.progress is None and not self.quiet and not show_bar
                else None,
            )
            interrupted = False
            cannot_start: BotStartError | None = None
            try:
                if remaining > 0 and self.stopped is None:
                    todo = (sg for sg in schedule if sg.game_id not in journal)
                    self._play(self._until_stopped(todo), remaining)
            except KeyboardInterrupt:
                interrupted = True
            except BotStartError as exc:  # raised by on_result: write what was played first
                cannot_start = exc
                self.on_idle(wait=True)
            self._finish(interrupted)
            if cannot_start is not None:
                raise cannot_start
        finally:
            journal.close()
        if not self.quiet:
            print_report(self.result, self.stdout)
        return self.result

    def _until_stopped(self, games: Iterable[ScheduledGame]) -> Iterator[ScheduledGame]:
        """``games`` until the stopping rule decides. With a rule in force, every result
        received so far is made durable and shown to the rule before the next game is
        handed out: otherwise a journal that falls behind (a busy disk or machine) lets
        the whole budget be handed out before the rule sees a result."""
        if self._rule() is None:
            yield from itertools.takewhile(lambda _: self.stopped is None, games)
            return
        for game in games:
            self.on_idle(wait=True)
            if self.stopped is not None:
                return
            yield game

    def _play(self, games: Iterable[ScheduledGame], remaining: int) -> None:
        cfg, result = self.cfg, self.result
        if any(is_cmd(e.spec) for e in cfg.roster):
            try:  # refuse before any game is played, not once per game
                sandbox_for(cfg.sandbox)
            except SandboxUnavailable as exc:
                raise ConfigError(str(exc)) from None
        setup = GameSetup(
            cfg.game,
            cfg.num_players,
            cfg.options,
            cfg.tournament_id,
            cfg.move_ms,
            cfg.on_failure,
            cfg.sandbox,
        )
        here = in_process_reason(cfg.workers, cfg.address, remaining)
        if here is not None:
            with self.reporter:
                self.err.print(f"playing {remaining} games in this process ({here})")
                play_start, play_cpu = time.perf_counter(), time.process_time()
                for sg in games:  # one at a time: each is journaled and shown when done
                    self.on_result(play_batch(setup, [sg]))
                self.on_idle(wait=True)
        else:
            workers = cfg.workers or DEFAULT_RAY_WORKERS
            with self.reporter, ray_session(workers, cfg.address) as where:
                self.err.print(f"playing {remaining} games on {where}")
                play_start, play_cpu = time.perf_counter(), time.process_time()
                run_on_ray(
                    setup,
                    iter(games),
                    remaining,
                    cluster_cpus(workers),  # on a cluster: keep every CPU busy
                    cfg.batch_size,
                    self.on_result,
                    self.on_lost,
                    on_idle=self.on_idle,
                )
                self.on_idle(wait=True)
        result.play_seconds = time.perf_counter() - play_start
        result.play_cpu_seconds = time.process_time() - play_cpu
        if len(self.nodes) > 1:
            shown = ", ".join(sorted(self.nodes))
            self.err.print(f"played on {len(self.nodes)} Ray nodes: {shown}")

    # -- the Ray runner's callbacks -------------------------------------------------------

    def on_result(self, res: BatchResult) -> None:
        """A batch came back: its records go to the journal (counted once durable).

        Raises BotStartError when a bot could not start on the worker (``res.fatal``):
        every other game of that bot would fail the same way.
        """
        t0 = time.perf_counter()
        self.journal.append_async(res.lines, res)
        self.result.lost.extend(res.errors)
        self.result.worker_pids.add(res.pid)
        if res.node:
            self.nodes.add(res.node)
        self.result.journal_seconds += time.perf_counter() - t0
        self.on_idle()
        if res.fatal:
            raise BotStartError(f"{res.fatal} (the tournament stopped: run it again to resume)")

    def on_idle(self, wait: bool = False) -> None:
        """Count, rate and report the games the journal has made durable since the last
        call (``wait``: wait until every append is durable)."""
        t0 = time.perf_counter()
        done = self.journal.completed(wait)
        self.result.journal_seconds += time.perf_counter() - t0
        for res, accepted in done:
            for i in accepted:
                self.summaries.append(res.summaries[i])
                self._rate(res.summaries[i], len(self.summaries))
            self.result.played += len(accepted)
            self._after(len(accepted))
        if done:
            self._check_stop()

    def _rule(self) -> str | None:
        """The stopping rule in force (a decision of another rule does not count)."""
        return self.cfg.sprt or ("until_separated" if self.cfg.until_separated else None)

    def _check_stop(self, force: bool = False) -> None:
        """Ask the stopping rule, if any, whether to stop handing out games: the SPRT
        after every durable batch, separation after every round's worth of games."""
        cfg = self.cfg
        spec = cfg.sprt_spec()
        n = len(self.summaries)
        if self.stopped is not None or n == 0:
            return
        if spec is not None:
            state = sprt_state(pentanomial(self.summaries, cfg.roster[0].name), spec)
            self.stop_metrics = state.metrics()
            if state.decision is not None:
                self.stopped = state.summary()
        elif cfg.until_separated:
            per_round = cfg.schedule().per_round
            if not force and n - self._checked < per_round:
                return
            self._checked = n
            fit = plackett_luce(self.summaries, self.names)
            self.stop_metrics = {"separated": float(separated(fit))}
            if separated(fit):
                self.stopped = (
                    f"until-separated: every adjacent pair of the {len(fit.rating)} rated "
                    f"bots has separate 95% intervals after {n} games"
                )
        if self.stopped is not None:
            self.err.print(f"stopping: {self.stopped}")

    def _rate(self, game: GameSummary, games: int) -> None:
        """Count ``game``, the ``games``-th of the journal (a trajectory point every
        ``every`` games)."""
        self.tally.add(game)
        if games % self.every == 0:
            self.points.append(self.tally.point(games))

    def on_lost(self, batch: list[ScheduledGame], reason: str) -> None:
        """A batch that could not be played (it is played again by the next run)."""
        self.result.lost.extend((sg.game_id, reason) for sg in batch)
        self._after(0)

    def _after(self, new: int) -> None:
        failures = self.tally.failed_games + len(self.result.lost)
        self.reporter.on_games(new, self.result.played, failures, self.tally)
        if self.tracker is not None:
            self.tracker.tick(self.points)
        if self.on_progress is not None:
            self.on_progress(self.journal.durable)

    # -- the end --------------------------------------------------------------------------

    def _finish(self, interrupted: bool) -> None:
        """Final ratings, result files, the last of MLflow; re-raise an interrupt."""
        result, journal, tracker, err = self.result, self.journal, self.tracker, self.err
        out = result.out_dir
        result.games_in_journal = len(journal)
        result.journal_thread_seconds = journal.writer_seconds
        n = len(self.summaries)
        result.rows = leaderboard(self.summaries, self.names)
        result.crosstable = crosstable(self.summaries, self.names)
        self._check_stop(force=True)
        if self.cfg.sprt is not None or self.cfg.until_separated:
            result.stopped = self.stopped
            result.stop_metrics = dict(self.stop_metrics)
            if self.stopped is not None:  # `arena sync` and a re-run know it is done
                meta = json.loads((out / "tournament.json").read_text())
                meta.update(
                    stopped=self.stopped, stopped_by=self._rule(), stopping=self.stop_metrics
                )
                atomic_write(out / "tournament.json", json.dumps(meta, indent=1))
        if n:  # the series ends on the leaderboard's (final-order) Elo
            if self.points and self.points[-1][0] == n:
                self.points.pop()
            self.points.append(final_point(result.rows, n))
        if tracker is not None:  # the last records and metrics go up while files are written
            tracker.tick(self.points, force=True, final=True)
        artifacts = write_results(result, self.points, journal, err.print)
        if tracker is not None:
            t0 = time.perf_counter()
            result.tracked = tracker.finish(
                self.points,
                artifacts,
                result.finished,
                timeout=10 if interrupted else 120,
                final=final_metrics(result.rows, self.stop_metrics),
                tags={"stopped": self.stopped} if self.stopped else None,
            )
            result.tracking_seconds = tracker.driver_seconds + (time.perf_counter() - t0)
            result.tracking_thread_seconds = tracker.busy_seconds
            result.run_id = tracker.run_id
            if not result.tracked:
                err.print(
                    f"warning: MLflow ({tracker.uri}) did not get everything "
                    f"({tracker.last_error or 'timed out'}); the journal has it all: "
                    f"run `arena sync {out}` when MLflow is back"
                )
        result.seconds = time.perf_counter() - self.started
        if interrupted:
            err.print(
                f"interrupted: {len(journal)} games are in {out}/journal.jsonl; "
                "run the same command again to resume"
            )
            raise KeyboardInterrupt


def run_tournament(
    cfg: TournamentConfig,
    *,
    quiet: bool = False,
    progress: bool | None = None,
    on_progress: Callable[[int], None] | None = None,
    console: Console | None = None,
) -> TournamentResult:
    """Play every scheduled game the journal lacks; returns what happened (see
    :class:`Tournament`)."""
    tournament = Tournament(
        cfg, quiet=quiet, progress=progress, on_progress=on_progress, console=console
    )
    return tournament.run()


def recorded_tracking_uri(out_dir: Path) -> str | None:
    """The tracking store a tournament's run was recorded in (``tracking.json``): the one
    with a run, the default store's if several have one; None if none has."""
    try:
        state = json.loads((out_dir / "tracking.json").read_text())
    except (OSError, ValueError):
        return None
    uris = [u for u, d in state.items() if isinstance(d, dict) and d.get("run_id")]
    if len(uris) > 1 and default_tracking_uri() in uris:
        return default_tracking_uri()
    if len(uris) > 1:
        raise ConfigError(
            f"{out_dir} was tracked in {len(uris)} stores ({', '.join(uris)}); "
            "say which with --tracking-uri"
        )
    return uris[0] if uris else None


def sync_out_dir(
    out_dir: Path, tracking_uri: str | None = None, log: Callable[[str], None] | None = None
) -> tuple[str | None, bool, int, str]:
    """``arena sync``: upload whatever MLflow lacks of the tournament in ``out_dir`` to the
    store its run was recorded in (``tracking_uri`` overrides; else the config's, else
    ``tracking.json``'s, else the default). Returns (run id, complete, records uploaded,
    the store's URI)."""
    say = log or (lambda text: print(text, file=sys.stderr))
    cfg = resume_config(out_dir, {})
    uri = tracking_uri or cfg.tracking_uri or recorded_tracking_uri(out_dir)
    cfg = resume_config(out_dir, {"tracking_uri": uri})
    if not (out_dir / "journal.jsonl").exists():
        raise ConfigError(f"{out_dir} has no journal.jsonl")
    summaries: list[GameSummary] = []
    journal = Journal(
        out_dir / "journal.jsonl", verified_summaries(summaries, say), owner=cfg.tournament_id
    )
    try:
        meta = json.loads((out_dir / "tournament.json").read_text())
        names = [e.name for e in cfg.roster]
        points = elo_trajectory(summaries, names, int(meta.get("metric_every", 1)))
        schedule = cfg.schedule()
        total = len(schedule)
        already = sum(1 for sg in schedule if sg.game_id in journal)
        result = TournamentResult(cfg, out_dir, total, already, games_in_journal=len(journal))
        result.stopped = meta.get("stopped")
        result.rows = leaderboard(summaries, names)
        result.crosstable = crosstable(summaries, names)
        if summaries:
            if points and points[-1][0] == len(summaries):
                points.pop()
            points.append(final_point(result.rows, len(summaries)))
        artifacts = write_results(result, points, journal)
        tracker = Tracker(cfg, out_dir, journal, log=say)
        say(f"syncing {out_dir} to the MLflow store {tracker.uri}")
        ok = tracker.sync_now(points, artifacts, result.finished, final_metrics(result.rows, {}))
        if not ok:
            raise ConfigError(f"MLflow at {tracker.uri} is unreachable: {tracker.last_error}")
        return tracker.run_id, result.finished, tracker.uploaded_now, tracker.uri
    finally:
        journal.close()


__all__ = ["Tournament", "TournamentResult", "run_tournament", "sync_out_dir"]
