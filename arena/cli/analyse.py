"""``arena analyse``: every decision of logged games evaluated from its seat's information.

One game (a record file, or SOURCE with a GAME_ID) is printed move by move: the move, its
value, the best move and its value, the loss and a mark. A source of many games without a
GAME_ID (a journal, a tournament dir, an MLflow run) is analysed game by game and summed up
per bot (mean loss per move, marks, the phase where it loses most) as a table and, with
``--csv``, a CSV file. ``--out`` writes the annotations as a sidecar JSONL file (keyed by
game id and step) that ``arena replay ... --html OUT --analysis FILE`` draws.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cli.common import TRACKING_HELP, rich_console, user_errors, warn
from arena.errors import UserError


@user_errors
def analyse_cmd(
    source: Annotated[
        str, typer.Argument(help="Record/journal file, tournament dir, or MLflow run id.")
    ],
    game_id: Annotated[
        str | None,
        typer.Argument(help="Game id (or a unique prefix); without it every game is analysed."),
    ] = None,
    seat: Annotated[
        int | None, typer.Option("--seat", help="Analyse this seat's decisions only.")
    ] = None,
    bot: Annotated[
        str,
        typer.Option(
            "--bot",
            help="Analyser: rollout (default; value = final score margin in points), ismcts "
            "(value = ISMCTS reward 0-1), with :key=value,..., or py:module:Class.",
        ),
    ] = "rollout",
    budget: Annotated[
        str | None,
        typer.Option(
            "--budget",
            help="iterations=N (rollout: paired samples per candidate move; default per game).",
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Analysis seed (reproducible).")] = 0,
    out: Annotated[
        Path | None, typer.Option("--out", help="Write the annotations here (JSONL sidecar).")
    ] = None,
    csv_out: Annotated[
        Path | None, typer.Option("--csv", help="Write the per-bot report here (CSV).")
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            help="Analyse the games on Ray with this many workers (0: in this process; "
            "RAY_ADDRESS joins a cluster).",
        ),
    ] = 0,
    log: Annotated[
        bool,
        typer.Option(
            "--log",
            help="SOURCE is an MLflow run: log the report (analysis/*.csv, the annotations) "
            "and per-bot metrics analysis.mean_loss/<bot> to it.",
        ),
    ] = False,
    tracking_uri: Annotated[str | None, typer.Option("--tracking-uri", help=TRACKING_HELP)] = None,
) -> None:
    """Evaluate every move of logged games from what its seat knew; mark mistakes."""
    from arena.analysis.analysers import make_analyser
    from arena.analysis.distribute import analyse_many
    from arena.analysis.evaluate import Annotation
    from arena.analysis.report import bot_report
    from arena.analysis.show import annotations_table, report_table, thresholds_line
    from arena.analysis.sidecar import write_annotations
    from arena.match.records import RecordError
    from arena.replay.sources import is_file_source, load_game, load_verified

    try:
        analyser = make_analyser(bot, budget)
    except ValueError as exc:
        raise UserError(f"--bot/--budget: {exc}") from None
    if game_id is not None or _single(source, tracking_uri):
        records = [load_game(source, game_id, tracking_uri)]
    else:
        records = load_verified(source, tracking_uri, warn).records
        if not records:
            raise UserError(f"{source} holds no game that replays")
    if workers < 0:
        raise UserError(f"--workers must be >= 0, got {workers}")
    for record in records:
        if seat is not None and not 0 <= seat < int(record["num_players"]):
            raise UserError(f"--seat must be 0..{int(record['num_players']) - 1}, got {seat}")
    if log and is_file_source(source):
        raise UserError("--log logs to an MLflow run: SOURCE must be a run id")
    console = rich_console()

    def done(record: Mapping[str, Any], game_anns: list[Annotation]) -> None:
        if len(records) == 1:
            console.print(thresholds_line(analyser, str(record["game"])))
            console.print(annotations_table(record, game_anns))
        else:
            print(
                f"analysed game {record.get('game_id')} ({record['game']}): "
                f"{len(game_anns)} decisions",
                file=sys.stderr,
            )

    try:
        per_game = analyse_many(records, bot, budget, seed, seat, workers, done=done)
    except RecordError as exc:
        raise UserError(f"a game does not replay: {exc}") from None
    annotations = [a for game_anns in per_game for a in game_anns]
    if len(records) > 1:
        games = sorted({str(r["game"]) for r in records})
        for g in games:
            console.print(thresholds_line(analyser, g))
    report = bot_report(annotations)
    console.print(report_table(report, analyser.unit))
    if csv_out is not None:
        from arena.analysis.report import write_csv

        write_csv(report, csv_out)
        print(f"per-bot report written to {csv_out}", file=sys.stderr)
    if out is not None:
        n = write_annotations(annotations, out)
        print(f"{n} annotations written to {out}", file=sys.stderr)
    if log:
        from arena.analysis.tracking import log_analysis

        where = log_analysis(source, report, annotations, tracking_uri, records)
        print(f"analysis logged to MLflow run {source}: {where}", file=sys.stderr)


def _single(source: str, tracking_uri: str | None) -> bool:
    """Whether ``source`` is a file holding one game (analysed and printed move by move)."""
    from arena.replay.sources import is_file_source, load_source

    if not is_file_source(source) or Path(source).is_dir():
        return False
    return len(load_source(source, tracking_uri).records) == 1
