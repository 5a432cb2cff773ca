"""Run a tournament: schedule -> Ray -> journal -> ratings -> MLflow.

The output directory (``tournaments/<tournament id>`` unless ``out`` says otherwise)
holds everything needed to resume or re-upload:

- ``config.yaml``: the config the tournament runs with (its id must not change);
- ``tournament.json``: the id and the metric cadence;
- ``journal.jsonl``: every finished game record, exactly once (see ``arena.journal``);
- ``tracking.json``: what has reached MLflow (see ``arena.tracking``);
- ``leaderboard.csv|md|html``, ``ratings.json``, ``elo.png``: the latest results.

Running the same config again (or ``--resume``) plays only the scheduled games the
journal lacks; with more rounds or a bigger roster, only the new games.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from arena.config import ConfigError, TournamentConfig, load_config
from arena.journal import Journal
from arena.leaderboard import make_console, plot_ratings, rich_table, to_csv, to_html, to_markdown
from arena.ratings import GameSummary, Row, Tally, leaderboard, live_leaderboard, scores_of
from arena.schedule import ScheduledGame

BOOTSTRAP = 200
METRIC_POINTS = 100
"""About how many metric steps a tournament logs (every ceil(total/100) games)."""


@dataclass
class TournamentResult:
    """What a run of a tournament did and where things are."""

    config: TournamentConfig
    out_dir: Path
    total: int
    already: int
    played: int = 0
    lost: list[tuple[str, str]] = field(default_factory=list)
    worker_pids: set[int] = field(default_factory=set)
    rows: list[Row] = field(default_factory=list)
    run_id: str | None = None
    tracked: bool = False
    seconds: float = 0.0
    play_seconds: float = 0.0
    play_cpu_seconds: float = 0.0
    journal_seconds: float = 0.0
    journal_thread_seconds: float = 0.0
    tracking_seconds: float = 0.0
    tracking_thread_seconds: float = 0.0
    games_in_journal: int = 0

    @property
    def complete(self) -> bool:
        return self.already + self.played >= self.total

    def to_json(self) -> dict[str, Any]:
        return {
            "tournament_id": self.config.tournament_id,
            "game": self.config.game,
            "players": self.config.num_players,
            "scheduled": self.total,
            "games": self.games_in_journal,
            "complete": self.complete,
            "leaderboard": [r.to_json() for r in self.rows],
        }


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


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


def resume_config(out_dir: Path, overrides: dict[str, Any]) -> TournamentConfig:
    """The config saved in ``out_dir`` with ``overrides`` (flags) applied."""
    path = out_dir / "config.yaml"
    if not path.exists():
        raise ConfigError(f"{out_dir} holds no tournament (no config.yaml)")
    overrides = {**overrides, "out": str(out_dir)}
    return load_config(path, overrides)


def run_tournament(
    cfg: TournamentConfig,
    *,
    quiet: bool = False,
    progress: bool | None = None,
    on_progress: Callable[[int], None] | None = None,
    console: Console | None = None,
) -> TournamentResult:
    """Play every scheduled game the journal lacks; returns what happened.

    ``on_progress(games in journal)`` is called after each durable append (tests use it
    to interrupt things at a chosen point).
    """
    from arena.ray_runner import BatchResult, GameSetup, cluster_cpus, ray_session, run_on_ray
    from arena.tracking import Tracker

    started = time.perf_counter()
    out, meta = prepare_out_dir(cfg)
    err = make_console(stderr=True, quiet=quiet)
    stdout = console or make_console(quiet=quiet)
    names = [e.name for e in cfg.roster]
    schedule = cfg.schedule()
    total = len(schedule)
    every = int(meta.get("metric_every") or max(1, math.ceil(total / METRIC_POINTS)))
    meta = {"tournament_id": cfg.tournament_id, "metric_every": every, **meta}
    _atomic_write(out / "tournament.json", json.dumps(meta, indent=1))
    _atomic_write(out / "config.yaml", cfg.to_yaml())

    summaries: list[GameSummary] = []
    journal = Journal(out / "journal.jsonl", lambda r: summaries.append(GameSummary.of(r)))
    try:
        tally = Tally(names)
        points: list[tuple[int, dict[str, float], dict[str, float]]] = []
        for i, s in enumerate(summaries, 1):
            tally.add(s)
            if i % every == 0:
                points.append((i, dict(tally.elo.ratings), scores_of(tally)))
        already = sum(1 for sg in schedule if sg.game_id in journal)
        result = TournamentResult(cfg, out, total, already)
        remaining = total - already
        err.print(
            f"tournament {cfg.tournament_id}: {cfg.game}, {cfg.num_players} players, "
            f"{len(names)} bots, {total} games"
            + (f"; resuming: {already} already in {out}/journal.jsonl" if already else "")
        )
        tracker = Tracker(cfg, out, journal, log=err.print) if cfg.tracking else None
        if tracker is not None:
            tracker.tick(points, force=True)

        board_every = cfg.leaderboard_every or max(50, math.ceil(remaining / 5))
        show_bar = progress if progress is not None else (not quiet and err.is_terminal)
        bar = Progress(
            TextColumn("[bold]games"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]:>7.1f} games/s"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TextColumn("failures {task.fields[failures]}"),
            console=err,
            disable=not show_bar,
        )
        task = bar.add_task("games", total=total, completed=already, rate=0.0, failures=0)
        run_start = time.perf_counter()
        next_board = board_every

        def on_result(res: BatchResult) -> None:
            t0 = time.perf_counter()
            journal.append_async(res.lines, res)  # counted once durable, in count_durable
            result.lost.extend(res.errors)
            result.worker_pids.add(res.pid)
            result.journal_seconds += time.perf_counter() - t0
            count_durable()

        def count_durable(wait: bool = False) -> None:
            t0 = time.perf_counter()
            done = journal.completed(wait)
            result.journal_seconds += time.perf_counter() - t0
            for res, accepted in done:
                for i in accepted:
                    s = res.summaries[i]
                    summaries.append(s)
                    tally.add(s)
                    if len(summaries) % every == 0:
                        points.append((len(summaries), dict(tally.elo.ratings), scores_of(tally)))
                result.played += len(accepted)
                _after(len(accepted))

        def on_lost(batch: list[ScheduledGame], reason: str) -> None:
            result.lost.extend((sg.game_id, reason) for sg in batch)
            _after(0)

        def _after(n: int) -> None:
            nonlocal next_board
            rate = result.played / max(time.perf_counter() - run_start, 1e-9)
            fails = tally.failed_games + len(result.lost)
            bar.update(task, advance=n, rate=rate, failures=fails)
            if tracker is not None:
                tracker.tick(points)
            if not quiet and result.played >= next_board and result.played < remaining:
                next_board += board_every
                title = f"after {already + result.played}/{total} games (live Elo)"
                bar.console.print(rich_table(live_leaderboard(tally), title, live=True))
            if on_progress is not None:
                on_progress(journal.durable)

        interrupted = False
        try:
            if remaining > 0:
                setup = GameSetup(
                    cfg.game,
                    cfg.num_players,
                    cfg.options,
                    cfg.tournament_id,
                    cfg.move_ms,
                    cfg.on_failure,
                )
                games = (sg for sg in schedule if sg.game_id not in journal)
                with bar, ray_session(cfg.workers, cfg.address) as where:
                    err.print(f"playing {remaining} games on {where}")
                    play_start, play_cpu = time.perf_counter(), time.process_time()
                    run_on_ray(
                        setup,
                        games,
                        remaining,
                        cluster_cpus(cfg.workers),  # on a cluster: keep every CPU busy
                        cfg.batch_size,
                        on_result,
                        on_lost,
                        on_idle=count_durable,
                    )
                    count_durable(wait=True)
                    result.play_seconds = time.perf_counter() - play_start
                    result.play_cpu_seconds = time.process_time() - play_cpu
        except KeyboardInterrupt:
            interrupted = True
        result.games_in_journal = len(journal)
        result.journal_thread_seconds = journal.writer_seconds
        if summaries and (not points or points[-1][0] != len(summaries)):
            points.append((len(summaries), dict(tally.elo.ratings), scores_of(tally)))
        if tracker is not None:  # the last records and metrics go up while the fit runs
            tracker.tick(points, force=True, final=True)
        result.rows = leaderboard(summaries, names, BOOTSTRAP, cfg.seed)
        artifacts = write_results(result, points, journal, err.print)
        if tracker is not None:
            t0 = time.perf_counter()
            result.tracked = tracker.finish(
                points, artifacts, result.complete, timeout=10 if interrupted else 120
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
        result.seconds = time.perf_counter() - started
        if interrupted:
            err.print(
                f"interrupted: {len(journal)} games are in {out}/journal.jsonl; "
                "run the same command again to resume"
            )
            raise KeyboardInterrupt
    finally:
        journal.close()
    if not quiet:
        print_report(result, stdout)
    return result


def write_results(
    result: TournamentResult,
    points: list[tuple[int, dict[str, float], dict[str, float]]],
    journal: Journal | None = None,
    warn: Callable[[str], None] | None = None,
) -> list[Path]:
    """The leaderboard (CSV, Markdown, HTML), ratings JSON and Elo plot in the out dir,
    and HTML replays of a sample of the latest games (``replays/``)."""
    out = result.out_dir
    title = f"{result.config.tournament_id} ({result.config.game})"
    files = {
        "leaderboard.csv": to_csv(result.rows),
        "leaderboard.md": to_markdown(result.rows, title),
        "leaderboard.html": to_html(result.rows, title),
        "ratings.json": json.dumps(result.to_json(), indent=1) + "\n",
    }
    paths = []
    for name, text in files.items():
        _atomic_write(out / name, text)
        paths.append(out / name)
    if points:
        plot_ratings(points, out / "elo.png", f"Elo over games: {title}")
        paths.append(out / "elo.png")
    paths.append(out / "config.yaml")
    if journal is not None and journal.durable:
        replays = write_replays(journal, out / "replays", warn)
        if replays is not None:
            paths.append(replays)
    return paths


REPLAY_SAMPLE_FROM = 300
"""HTML replays are picked among this many of the latest games..."""
REPLAYS = 6
"""... at most this many (each bot's latest loss first, then games with failures)."""


def write_replays(
    journal: Journal, folder: Path, warn: Callable[[str], None] | None = None
) -> Path | None:
    """Self-contained HTML replays of a few games (each bot's losses, games with
    failures; see ``arena.viewer``), or None if they cannot be made."""
    import shutil

    try:
        from arena.viewer import write_sample_viewers

        start = max(0, journal.durable - REPLAY_SAMPLE_FROM)
        records = [json.loads(line) for line in journal.lines(start, journal.durable)]
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        write_sample_viewers(records, folder, per_bot_lost=1, limit=REPLAYS, warn=warn)
    except Exception as exc:  # replays are a bonus: never fail a tournament for them
        if warn is not None:
            warn(f"warning: no HTML replays: {type(exc).__name__}: {exc}")
        return None
    return folder


def print_report(result: TournamentResult, console: Console) -> None:
    cfg = result.config
    title = (
        f"{cfg.tournament_id}: {result.games_in_journal} games of {cfg.game} "
        f"({result.total} scheduled)"
    )
    console.print(rich_table(result.rows, title))
    console.print(
        f"played {result.played} games in {result.seconds:.1f} s"
        + (f"; {result.already} were already in the journal" if result.already else "")
    )
    if result.lost:
        gid, reason = result.lost[0]
        console.print(
            f"[red]{len(result.lost)} game(s) could not be played[/red] (first: {gid}: "
            f"{reason}); run the same command again to retry them"
        )
    console.print(f"results: {result.out_dir}/ (journal.jsonl, leaderboard.md, elo.png)")
    if result.run_id:
        uri = cfg.tracking_uri or "sqlite:///mlflow.db"
        console.print(
            f"MLflow run {result.run_id} in experiment {cfg.experiment!r}; "
            f"see it with: .venv/bin/mlflow ui --backend-store-uri {uri}"
        )


def sync_out_dir(out_dir: Path, tracking_uri: str | None = None) -> tuple[str | None, bool]:
    """``arena sync``: upload whatever MLflow lacks of the tournament in ``out_dir``."""
    from arena.tracking import Tracker

    overrides: dict[str, Any] = {"tracking_uri": tracking_uri}
    cfg = resume_config(out_dir, overrides)
    if not (out_dir / "journal.jsonl").exists():
        raise ConfigError(f"{out_dir} has no journal.jsonl")
    summaries: list[GameSummary] = []
    journal = Journal(out_dir / "journal.jsonl", lambda r: summaries.append(GameSummary.of(r)))
    try:
        meta = json.loads((out_dir / "tournament.json").read_text())
        names = [e.name for e in cfg.roster]
        from arena.ratings import elo_trajectory

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


__all__ = ["TournamentResult", "resume_config", "run_tournament", "sync_out_dir"]
