"""``arena tournament``, ``arena ratings``, ``arena sync`` and ``arena bench arena``."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.errors import UserError, user_errors


def _split(text: str | None) -> list[str] | None:
    if text is None:
        return None
    from arena.match.specs import split_bots

    return split_bots(text)


@user_errors
def tournament_cmd(
    config: Annotated[
        Path | None, typer.Argument(help="Tournament YAML (see examples/tournament.yaml).")
    ] = None,
    game: Annotated[str | None, typer.Option("--game", help="Game id.")] = None,
    bots: Annotated[
        str | None,
        typer.Option("--bots", help="Comma-separated bot specs or roster names (B1,B2,...)."),
    ] = None,
    players: Annotated[int | None, typer.Option("--players", help="Players per game.")] = None,
    rounds: Annotated[
        int | None, typer.Option("--rounds", help="Repeats of every group and rotation.")
    ] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Tournament seed.")] = None,
    workers: Annotated[
        int | None, typer.Option("--workers", help="Local Ray CPUs (default 2).")
    ] = None,
    address: Annotated[
        str | None, typer.Option("--address", help="Ray cluster address (or RAY_ADDRESS).")
    ] = None,
    batch_size: Annotated[
        int | None, typer.Option("--batch-size", help="Games per Ray task (default adaptive).")
    ] = None,
    options: Annotated[str | None, typer.Option("--options", help="Game options as JSON.")] = None,
    move_ms: Annotated[
        float | None, typer.Option("--move-ms", help="Per-move time limit (ms).")
    ] = None,
    on_failure: Annotated[
        str | None, typer.Option("--on-failure", help="forfeit | random: policy for bad moves.")
    ] = None,
    tracking_uri: Annotated[
        str | None,
        typer.Option("--tracking-uri", help="MLflow tracking URI (default sqlite:///mlflow.db)."),
    ] = None,
    experiment: Annotated[
        str | None, typer.Option("--experiment", help="MLflow experiment name.")
    ] = None,
    tracking: Annotated[
        bool | None,
        typer.Option("--tracking/--no-tracking", help="Log to MLflow (default) or not."),
    ] = None,
    name: Annotated[str | None, typer.Option("--name", help="Tournament name.")] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Output dir (default tournaments/<id>).")
    ] = None,
    leaderboard_every: Annotated[
        int | None, typer.Option("--leaderboard-every", help="Print the leaderboard every N.")
    ] = None,
    resume: Annotated[
        bool,
        typer.Option("--resume", help="Continue the tournament in --out (or of this config)."),
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only errors.")] = False,
    no_progress: Annotated[bool, typer.Option("--no-progress", help="No progress bar.")] = False,
) -> None:
    """Run a round-robin tournament on Ray; every game journaled, rated, tracked in MLflow.

    Re-running the same config (or --resume) plays only the games not yet recorded.
    """
    from arena.cli import parse_options
    from arena.tournament.config import load_config, resume_config
    from arena.tournament.run import run_tournament

    overrides: dict[str, Any] = {
        "game": game,
        "bots": _split(bots),
        "players": players,
        "rounds": rounds,
        "seed": seed,
        "workers": workers,
        "address": address,
        "batch_size": batch_size,
        "options": parse_options(options) if options is not None else None,
        "move_ms": move_ms,
        "on_failure": on_failure,
        "tracking_uri": tracking_uri,
        "experiment": experiment,
        "tracking": tracking,
        "name": name,
        "out": str(out) if out is not None else None,
        "leaderboard_every": leaderboard_every,
    }
    if resume and config is None and out is not None:
        cfg = resume_config(out, overrides)
    else:
        if config is None and game is None:
            raise UserError(
                "give a config file, or --game G --bots B1,B2,... (or --resume --out DIR)"
            )
        cfg = load_config(config, overrides)
        if resume and not (cfg.out_dir() / "journal.jsonl").exists():
            raise UserError(f"nothing to resume: {cfg.out_dir()} has no journal.jsonl")
    try:
        result = run_tournament(cfg, quiet=quiet, progress=False if no_progress else None)
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    if not result.complete:
        raise SystemExit(1)


@user_errors
def ratings_cmd(
    source: Annotated[
        str,
        typer.Argument(help="MLflow run id, a tournament dir, or a journal/record file."),
    ],
    tracking_uri: Annotated[
        str | None, typer.Option("--tracking-uri", help="MLflow tracking URI.")
    ] = None,
    bootstrap: Annotated[
        int, typer.Option("--bootstrap", help="Bootstrap resamples for the intervals.")
    ] = 200,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the bootstrap.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """The leaderboard of a tournament: rating ± 95% CI, Elo, games, score, failures."""
    from arena.tournament.leaderboard import make_console, rich_table
    from arena.tournament.ratings import GameSummary, leaderboard

    records, label = load_records(source, tracking_uri)
    summaries = [GameSummary.of(r) for r in records]
    if not summaries:
        raise UserError(f"{label} holds no game records")
    rows = leaderboard(summaries, None, bootstrap, seed)
    if as_json:
        print(json.dumps([r.to_json() for r in rows], indent=1))
        return
    make_console().print(rich_table(rows, f"{label}: {len(summaries)} games"))


def load_records(source: str, tracking_uri: str | None) -> tuple[list[dict[str, Any]], str]:
    """Records from a tournament dir, a journal/record file, or an MLflow run's artifacts."""
    from arena.match.records import read_records
    from arena.tournament.journal import read_journal

    path = Path(source)
    if path.is_dir():
        path = path / "journal.jsonl"
        if not path.exists():
            raise UserError(f"{source} is a directory without journal.jsonl")
    if path.is_file():
        if path.suffix == ".jsonl":
            return list(read_journal(path)), str(source)
        return list(read_records(path)), str(source)
    return _run_records(source, tracking_uri)


def _run_records(run_id: str, tracking_uri: str | None) -> tuple[list[dict[str, Any]], str]:
    from mlflow import MlflowClient

    from arena.tournament.journal import read_journal
    from arena.tournament.tracking import default_tracking_uri

    uri = tracking_uri or default_tracking_uri()
    client = MlflowClient(tracking_uri=uri)
    try:
        run = client.get_run(run_id)
    except Exception as exc:
        raise UserError(
            f"{run_id!r} is neither a file nor an MLflow run in {uri}: "
            f"{str(exc).splitlines()[0][:200]}"
        ) from None
    with tempfile.TemporaryDirectory(prefix="mnr-ratings-") as tmp:
        try:
            local = client.download_artifacts(run_id, "records", tmp)
        except Exception as exc:
            raise UserError(f"run {run_id} has no records artifacts: {exc}") from None
        records: list[dict[str, Any]] = []
        seen: set[str] = set()
        for part in sorted(Path(local).glob("*.jsonl")):
            for rec in read_journal(part):
                if rec["game_id"] not in seen:
                    seen.add(rec["game_id"])
                    records.append(rec)
    return records, f"run {run.info.run_name or run_id}"


@user_errors
def sync_cmd(
    out_dir: Annotated[Path, typer.Argument(help="The tournament's output dir.")],
    tracking_uri: Annotated[
        str | None, typer.Option("--tracking-uri", help="Upload to this store instead.")
    ] = None,
) -> None:
    """Upload to MLflow whatever a tournament's journal has that its run lacks."""
    from arena.tournament.run import sync_out_dir

    run_id, complete = sync_out_dir(out_dir, tracking_uri)
    state = "complete" if complete else "incomplete (resume it to play the rest)"
    print(f"synced {out_dir} to MLflow run {run_id}; the tournament is {state}")


@user_errors
def bench_arena_cmd(
    game: Annotated[str | None, typer.Option("--game", help="Game (default: a fast one).")] = None,
    games: Annotated[int, typer.Option("--games", help="Games per measurement.")] = 3000,
    bot: Annotated[str, typer.Option("--bot", help="Bot spec of all 5 bots.")] = "random",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Tournament games/s on Ray (1 and 2 workers) vs sequential, and logging overhead."""
    from arena.bench_arena import run_arena_bench

    run_arena_bench(game, games, as_json, bot)


def register(app: typer.Typer) -> None:
    from arena.cli import bench_app

    app.command("tournament")(tournament_cmd)
    app.command("ratings")(ratings_cmd)
    app.command("sync")(sync_cmd)
    bench_app.command("arena")(bench_arena_cmd)
