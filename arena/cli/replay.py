"""``arena replay``, ``arena games SOURCE``, ``arena stats``, ``arena export``, ``arena viewers``.

SOURCE is a record/journal file, a tournament dir or an MLflow run id (see
``arena.replay.sources``). A record that does not verify is reported with the first step that
differs and exit status 1; it is never shown.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from arena.cli.common import TRACKING_HELP, rich_console, user_errors, warn
from arena.errors import UserError
from arena.replay.model import UnverifiedRecord


def _unverified(exc: UnverifiedRecord) -> NoReturn:
    print(f"error: {exc}", file=sys.stderr)
    raise SystemExit(1)


def _parse_at(text: str, last: int) -> int:
    if text in ("end", "last"):
        return last
    if text.lstrip("-").isdigit():
        k = int(text)
        k = last + 1 + k if k < 0 else k
        if 0 <= k <= last:
            return k
    raise UserError(f"--at must be a step 0..{last}, a negative step from the end, or 'end'")


@user_errors
def replay_cmd(
    source: Annotated[
        str, typer.Argument(help="Record/journal file, tournament dir, or MLflow run id.")
    ],
    game_id: Annotated[
        str | None,
        typer.Argument(help="Game id (or a unique prefix); needed for a run or a multi-game file."),
    ] = None,
    seat: Annotated[
        str | None,
        typer.Option(
            "--seat",
            help="View of seat S (default: the spectator): its observations, and other seats' "
            "hidden actions by their public part. With --html: a viewer of that view only.",
        ),
    ] = None,
    html: Annotated[
        Path | None,
        typer.Option(
            "--html", help="Write a self-contained HTML viewer here (every view; --seat: one)."
        ),
    ] = None,
    steps: Annotated[
        bool, typer.Option("--steps", help="Print every step as one line, then the final score.")
    ] = False,
    analysis: Annotated[
        Path | None,
        typer.Option(
            "--analysis",
            help="With --html: draw these annotations (an `arena analyse --out` file).",
        ),
    ] = None,
    at: Annotated[
        str | None,
        typer.Option("--at", help="Print the state after step N (negative: from the end; 'end')."),
    ] = None,
    tracking_uri: Annotated[str | None, typer.Option("--tracking-uri", help=TRACKING_HELP)] = None,
) -> None:
    """Step through a logged game: any seat's view or the spectator's, events highlighted.

    Interactive (n/p/j N/s SEAT/e/q) when stdin is a terminal; otherwise, or with
    --steps, every step is printed. --at N prints one state; --html writes a viewer.
    """
    from arena.replay.model import load_replay, parse_seat
    from arena.replay.sources import load_game
    from arena.replay.terminal import interactive, print_frame, print_steps

    t0 = time.perf_counter()
    record = load_game(source, game_id, tracking_uri)
    try:
        rp = load_replay(record)
    except UnverifiedRecord as exc:
        _unverified(exc)
    seat_no = parse_seat(seat, rp.num_players)
    console = rich_console()
    if analysis is not None and html is None:
        raise UserError("--analysis is drawn by the HTML viewer: give --html OUT too")
    if html is not None:
        from arena.replay.viewer import render_html

        html.parent.mkdir(parents=True, exist_ok=True)
        views = None if seat is None else [seat_no]  # --seat: that view only
        notes = None
        if analysis is not None:
            from arena.analysis.sidecar import read_annotations

            notes = [a.to_json() for a in read_annotations(analysis, record.get("game_id"))]
            if not notes:
                raise UserError(f"{analysis} holds no analysis of game {record.get('game_id')}")
        html.write_text(render_html(rp, views, notes), encoding="utf-8")
        size = html.stat().st_size
        print(
            f"viewer of {rp.game} game {record.get('game_id')} ({rp.last} steps, record verified) "
            f"written to {html} ({size / 1024:.0f} KiB) in {time.perf_counter() - t0:.2f} s",
            file=sys.stderr,
        )
        if not steps and at is None:
            return
    if at is not None:
        print_frame(console, rp, _parse_at(at, rp.last), seat_no)
    elif steps or not (sys.stdin.isatty() and sys.stdout.isatty()):
        print_steps(console, rp, seat_no)
    else:
        interactive(console, rp, seat_no)


def list_games(
    source: str,
    bot: str | None,
    only_lost: bool,
    game: str | None,
    tracking_uri: str | None,
    as_json: bool,
) -> None:
    """``arena games SOURCE``: the logged games of a run or a file (see ``games_cmd``)."""
    from arena.replay.analysis import filter_games, game_rows, games_table
    from arena.replay.sources import load_verified

    loaded = load_verified(source, tracking_uri, warn)
    records = filter_games(loaded.records, bot, only_lost, game)
    if as_json:
        print(json.dumps(game_rows(records), indent=1))
        return
    what = [f"bot {bot}"] if bot else []
    what += ["lost by it"] if only_lost else []
    what += [f"game {game}"] if game else []
    title = f"{loaded.label}: {len(records)} of {len(loaded.records)} games" + (
        f" ({', '.join(what)})" if what else ""
    )
    rich_console().print(games_table(records, title))


@user_errors
def stats_cmd(
    source: Annotated[
        str, typer.Argument(help="MLflow run id, tournament dir, or record/journal file.")
    ],
    game: Annotated[str | None, typer.Option("--game", help="Only games of this game.")] = None,
    bot: Annotated[str | None, typer.Option("--bot", help="Only games this bot played.")] = None,
    tracking_uri: Annotated[str | None, typer.Option("--tracking-uri", help=TRACKING_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Per-bot statistics: mean score by category, move-time percentiles, failures by kind,
    CPU time per game and peak memory."""
    from arena.replay.analysis import bot_stats, filter_games, stats_tables
    from arena.replay.sources import load_verified

    loaded = load_verified(source, tracking_uri, warn)
    records = filter_games(loaded.records, bot, False, game)
    if not records:
        raise UserError(f"{loaded.label} holds no matching game records")
    stats = bot_stats(records)
    if as_json:
        print(json.dumps([s.to_json() for s in stats], indent=1))
        return
    console = rich_console()
    for table in stats_tables(stats, f"{loaded.label}: {len(records)} games"):
        console.print(table)


@user_errors
def export_cmd(
    source: Annotated[
        str, typer.Argument(help="MLflow run id, tournament dir, or record/journal file.")
    ],
    out: Annotated[Path, typer.Option("--out", help="games.parquet or games.csv.")],
    game: Annotated[str | None, typer.Option("--game", help="Only games of this game.")] = None,
    bot: Annotated[str | None, typer.Option("--bot", help="Only games this bot played.")] = None,
    tracking_uri: Annotated[str | None, typer.Option("--tracking-uri", help=TRACKING_HELP)] = None,
) -> None:
    """Export records for notebooks: one row per game and seat (Parquet or CSV)."""
    from arena.replay.analysis import export, filter_games
    from arena.replay.sources import load_verified

    loaded = load_verified(source, tracking_uri, warn)
    records = filter_games(loaded.records, bot, False, game)
    rows = export(records, out)
    print(f"{rows} rows ({len(records)} games x seats) written to {out}")


@user_errors
def viewers_cmd(
    source: Annotated[
        str, typer.Argument(help="MLflow run id, tournament dir, or record/journal file.")
    ],
    out: Annotated[
        Path | None, typer.Option("--out", help="Write the viewers into this directory.")
    ] = None,
    log: Annotated[
        bool, typer.Option("--log", help="Log them to the MLflow run SOURCE under replays/.")
    ] = False,
    per_bot_lost: Annotated[
        int, typer.Option("--per-bot-lost", help="Lost games per bot to include.")
    ] = 2,
    limit: Annotated[int, typer.Option("--limit", help="At most this many viewers.")] = 10,
    tracking_uri: Annotated[str | None, typer.Option("--tracking-uri", help=TRACKING_HELP)] = None,
) -> None:
    """HTML viewers for a sample of games (each bot's lost games, games with failures)."""
    from arena.replay.sources import is_file_source, load_source
    from arena.replay.viewer import log_viewers, write_sample_viewers

    if out is None and not log:
        raise UserError("give --out DIR, --log (to the MLflow run), or both")
    if log and is_file_source(source):
        raise UserError("--log needs SOURCE to be an MLflow run id")
    loaded = load_source(source, tracking_uri)
    if out is not None:
        paths = write_sample_viewers(loaded.records, out, per_bot_lost, limit, warn)
        for p in paths:
            print(f"{p}  ({p.stat().st_size / 1024:.0f} KiB)")
    if log:
        names = log_viewers(
            source,
            loaded.records,
            tracking_uri=tracking_uri,
            per_bot_lost=per_bot_lost,
            limit=limit,
            warn=warn,
        )
        print(f"logged {len(names)} viewer(s) to MLflow run {source} under replays/")
