"""What a tournament run leaves: its :class:`TournamentResult` and the result files.

In the output dir: ``leaderboard.csv|md|html``, ``ratings.json``, ``crosstable.csv``
(pairwise results), ``elo.png`` and HTML replays of a sample of the latest games
(``replays/``); on the terminal, the report (with the stopping rule's decision, if any).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from arena.tournament.config import TournamentConfig
from arena.tournament.journal import Journal
from arena.tournament.leaderboard import (
    LEGEND,
    crosstable_csv,
    plot_ratings,
    rich_table,
    to_csv,
    to_html,
    to_markdown,
)
from arena.tournament.ratings import Point, Row


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
    crosstable: tuple[list[str], dict[tuple[str, str], tuple[float, int]]] | None = None
    """Pairwise results (``arena.tournament.ratings.crosstable``)."""
    stopped: str | None = None
    """The stopping rule's decision (None: no rule, or it has not decided)."""
    stop_metrics: dict[str, float] = field(default_factory=dict)
    """The stopping rule's statistics (``sprt/...``, ``separated``)."""

    @property
    def complete(self) -> bool:
        """Every scheduled game is in the journal."""
        return self.already + self.played >= self.total

    @property
    def finished(self) -> bool:
        """Nothing more to play: complete, or a stopping rule has decided."""
        return self.complete or self.stopped is not None

    def to_json(self) -> dict[str, Any]:
        return {
            "tournament_id": self.config.tournament_id,
            "game": self.config.game,
            "players": self.config.num_players,
            "scheduled": self.total,
            "games": self.games_in_journal,
            "complete": self.complete,
            "stopped": self.stopped,
            "stopping": {k: round(v, 5) for k, v in self.stop_metrics.items()},
            "legend": LEGEND,
            "leaderboard": [r.to_json() for r in self.rows],
        }


def atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def write_results(
    result: TournamentResult,
    points: list[Point],
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
    if result.crosstable is not None:
        files["crosstable.csv"] = crosstable_csv(*result.crosstable)
    paths = []
    for name, text in files.items():
        atomic_write(out / name, text)
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
    failures; see ``arena.replay.viewer``), or None if they cannot be made."""
    import shutil

    try:
        from arena.replay.viewer import write_sample_viewers

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
    if result.stopped is not None:
        console.print(f"stopped early: {result.stopped}")
    groups = {r.group for r in result.rows if r.group is not None}
    if groups:
        console.print(
            f"[yellow]warning: the bots form {len(groups)} groups that never met; ratings "
            "of different groups are not comparable[/yellow]"
        )
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
