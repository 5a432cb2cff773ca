"""Run a tournament: schedule -> Ray -> journal -> ratings -> MLflow.

The output directory (``tournaments/<tournament id>`` unless ``out`` says otherwise)
holds everything needed to resume or re-upload:

- ``config.yaml``: the config the tournament runs with (its id must not change);
- ``tournament.json``: the id and the metric cadence;
- ``journal.jsonl``: every finished game record, exactly once (see ``arena.tournament.journal``);
- ``tracking.json``: what has reached MLflow (see ``arena.tournament.tracking``);
- ``leaderboard.csv|md|html``, ``ratings.json``, ``elo.png``: the latest results.

Running the same config again (or ``--resume``) plays only the scheduled games the
journal lacks; with more rounds or a bigger roster, only the new games.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from rich.console import Console

from arena.tournament.config import ConfigError, TournamentConfig, resume_config
from arena.tournament.journal import Journal
from arena.tournament.leaderboard import make_console
from arena.tournament.ratings import GameSummary, Point, Tally, elo_trajectory, leaderboard
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
from arena.tournament.tracking import Tracker

IN_PROCESS_MAX_GAMES = 8
"""A run of at most this many games is played in this process unless ``workers`` says
otherwise: starting a local Ray costs seconds (more on a busy machine) that a few games
never win back."""
DEFAULT_RAY_WORKERS = 2
"""Local Ray CPUs when ``workers`` is not given and the run is played on Ray."""

PROGRESS_LINE_SECONDS = 5.0
"""Without a terminal (piped output) a plain progress line every this many seconds."""

BOOTSTRAP = 200
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

    def run(self) -> TournamentResult:
        """Play what is missing; returns what happened (KeyboardInterrupt: re-raised once
        the results so far are written)."""
        cfg, err = self.cfg, self.err
        self.started = time.perf_counter()
        out, meta = prepare_out_dir(cfg)
        schedule = cfg.schedule()
        total = len(schedule)
        every = int(meta.get("metric_every") or max(1, math.ceil(total / METRIC_POINTS)))
        self.every = every
        meta = {"tournament_id": cfg.tournament_id, "metric_every": every, **meta}
        atomic_write(out / "tournament.json", json.dumps(meta, indent=1))
        atomic_write(out / "config.yaml", cfg.to_yaml())

        journal = Journal(out / "journal.jsonl", lambda r: self.summaries.append(GameSummary.of(r)))
        self.journal = journal
        try:
            for i, s in enumerate(self.summaries, 1):
                self._rate(s, i)
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
            try:
                if remaining > 0:
                    self._play((sg for sg in schedule if sg.game_id not in journal), remaining)
            except KeyboardInterrupt:
                interrupted = True
            self._finish(interrupted)
        finally:
            journal.close()
        if not self.quiet:
            print_report(self.result, self.stdout)
        return self.result

    def _play(self, games: Iterable[ScheduledGame], remaining: int) -> None:
        cfg, result = self.cfg, self.result
        setup = GameSetup(
            cfg.game, cfg.num_players, cfg.options, cfg.tournament_id, cfg.move_ms, cfg.on_failure
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

    # -- the Ray runner's callbacks -------------------------------------------------------

    def on_result(self, res: BatchResult) -> None:
        """A batch came back: its records go to the journal (counted once durable)."""
        t0 = time.perf_counter()
        self.journal.append_async(res.lines, res)
        self.result.lost.extend(res.errors)
        self.result.worker_pids.add(res.pid)
        self.result.journal_seconds += time.perf_counter() - t0
        self.on_idle()

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
        if n and (not self.points or self.points[-1][0] != n):
            self.points.append(self.tally.point(n))
        if tracker is not None:  # the last records and metrics go up while the fit runs
            tracker.tick(self.points, force=True, final=True)
        result.rows = leaderboard(self.summaries, self.names, BOOTSTRAP, self.cfg.seed)
        artifacts = write_results(result, self.points, journal, err.print)
        if tracker is not None:
            t0 = time.perf_counter()
            result.tracked = tracker.finish(
                self.points, artifacts, result.complete, timeout=10 if interrupted else 120
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


def sync_out_dir(out_dir: Path, tracking_uri: str | None = None) -> tuple[str | None, bool]:
    """``arena sync``: upload whatever MLflow lacks of the tournament in ``out_dir``."""
    overrides: dict[str, Any] = {"tracking_uri": tracking_uri}
    cfg = resume_config(out_dir, overrides)
    if not (out_dir / "journal.jsonl").exists():
        raise ConfigError(f"{out_dir} has no journal.jsonl")
    summaries: list[GameSummary] = []
    journal = Journal(out_dir / "journal.jsonl", lambda r: summaries.append(GameSummary.of(r)))
    try:
        meta = json.loads((out_dir / "tournament.json").read_text())
        names = [e.name for e in cfg.roster]
        points = elo_trajectory(summaries, names, int(meta.get("metric_every", 1)))
        schedule = cfg.schedule()
        total = len(schedule)
        already = sum(1 for sg in schedule if sg.game_id in journal)
        result = TournamentResult(cfg, out_dir, total, already, games_in_journal=len(journal))
        result.rows = leaderboard(summaries, names, BOOTSTRAP, cfg.seed)
        artifacts = write_results(result, points, journal)
        tracker = Tracker(cfg, out_dir, journal)
        ok = tracker.sync_now(points, artifacts, result.complete)
        if not ok:
            raise ConfigError(f"MLflow at {tracker.uri} is unreachable: {tracker.last_error}")
        return tracker.run_id, result.complete
    finally:
        journal.close()


__all__ = ["Tournament", "TournamentResult", "run_tournament", "sync_out_dir"]
