"""``arena tournament``, ``arena ratings`` and ``arena sync``."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cli.common import parse_options, user_errors, warn
from arena.errors import UserError
from arena.match.specs import split_bots


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
    gauntlet: Annotated[
        str | None,
        typer.Option(
            "--gauntlet",
            help="NEW (a roster name or a bot spec) plays every other bot, each pairing in "
            "every seat rotation, instead of a full round robin.",
            metavar="NEW",
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            help="Local Ray CPUs; 0: play in this process, without Ray "
            "(default: in this process for at most 8 games, else 2).",
        ),
    ] = None,
    address: Annotated[
        str | None, typer.Option("--address", help="Ray cluster address (or RAY_ADDRESS).")
    ] = None,
    batch_size: Annotated[
        int | None, typer.Option("--batch-size", help="Games per Ray task (default adaptive).")
    ] = None,
    options: Annotated[
        str | None, typer.Option("--options", help="Game options: key=value,... or a JSON object.")
    ] = None,
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
    sprt: Annotated[
        str | None,
        typer.Option(
            "--sprt",
            help="Two bots: stop early by an SPRT on pentanomial pair results, e.g. "
            "elo0=0,elo1=10,alpha=0.05,beta=0.05 (the first bot's Elo advantage; --rounds is "
            "the budget).",
            metavar="ELO0,ELO1,ALPHA,BETA",
        ),
    ] = None,
    until_separated: Annotated[
        bool,
        typer.Option(
            "--until-separated",
            help="Stop once adjacent bots' 95% rating intervals are separated (--rounds is "
            "the budget).",
        ),
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only errors.")] = False,
    no_progress: Annotated[bool, typer.Option("--no-progress", help="No progress bar.")] = False,
    allow_unsandboxed: Annotated[
        bool,
        typer.Option(
            "--allow-unsandboxed",
            help="Where the machine cannot sandbox cmd: bots, run them anyway (as your user).",
        ),
    ] = False,
) -> None:
    """Run a round-robin tournament (or a --gauntlet) on Ray; every game journaled, rated,
    tracked in MLflow.

    Re-running the same config (or --resume) plays only the games not yet recorded.

    The YAML keys (each also a flag; see examples/tournament.yaml): name, game, players,
    options, roster (a list of bot specs, or of {name, spec}), rounds, gauntlet, seed,
    workers, address, batch_size, move_ms, on_failure, tracking_uri, experiment,
    tracking, out, leaderboard_every, sprt, until_separated, sandbox (the limits of the
    cmd: bots' sandbox: address_space_mb, cpu_seconds, processes, open_files, file_size_mb,
    disk_mb, allow_unsandboxed).
    """
    from arena.tournament.config import load_config, resume_config
    from arena.tournament.run import run_tournament

    overrides: dict[str, Any] = {
        "game": game,
        "bots": split_bots(bots) if bots is not None else None,
        "players": players,
        "rounds": rounds,
        "seed": seed,
        "gauntlet": gauntlet,
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
        "sprt": sprt,
        "until_separated": until_separated or None,
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
        if resume and rounds is None and (cfg.out_dir() / "config.yaml").exists():
            # continue the tournament as it was run (e.g. with --rounds), not as the file says
            saved = resume_config(cfg.out_dir()).rounds
            if saved > cfg.rounds:
                cfg = load_config(config, {**overrides, "rounds": saved})
    if allow_unsandboxed:
        cfg = cfg.model_copy(update={"sandbox": replace(cfg.sandbox, allow_unsandboxed=True)})
    try:
        result = run_tournament(cfg, quiet=quiet, progress=False if no_progress else None)
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    if not result.finished:
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
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    with_crosstable: Annotated[
        bool,
        typer.Option("--crosstable", help="Also show the pairwise results of every two bots."),
    ] = False,
) -> None:
    """The leaderboard of a tournament: rating and its 95% interval, Elo (sequential),
    games, score, win rate, failures; with --crosstable, the pairwise results.

    Every record is verified first; one that does not replay is left out (named on
    stderr), as in `arena games/stats/export`. A tournament dir's journal refuses the
    lines of another tournament.
    """
    from arena.replay.sources import load_verified
    from arena.tournament.leaderboard import (
        crosstable_rows,
        crosstable_table,
        make_console,
        rich_table,
    )
    from arena.tournament.ratings import GameSummary, crosstable, leaderboard

    loaded = load_verified(source, tracking_uri, warn)
    label = loaded.label
    summaries = [GameSummary.of(r) for r in loaded.records]
    if not summaries:
        raise UserError(f"{label} holds no game records")
    rows = leaderboard(summaries, None)
    order, cells = crosstable(summaries, [r.name for r in rows])
    if as_json:
        data: Any = [r.to_json() for r in rows]
        if with_crosstable:
            data = {"leaderboard": data, "crosstable": crosstable_rows(order, cells)}
        print(json.dumps(data, indent=1))
        return
    console = make_console()
    console.print(rich_table(rows, f"{label}: {len(summaries)} games"))
    if with_crosstable:
        console.print(crosstable_table(order, cells, f"{label}: pairwise results"))


@user_errors
def sync_cmd(
    out_dir: Annotated[Path, typer.Argument(help="The tournament's output dir.")],
    tracking_uri: Annotated[
        str | None, typer.Option("--tracking-uri", help="Upload to this store instead.")
    ] = None,
) -> None:
    """Upload to MLflow whatever a tournament's journal has that its run lacks, to the
    store the run was recorded in (its tracking.json) unless --tracking-uri says otherwise."""
    from arena.tournament.run import sync_out_dir

    run_id, complete, uploaded, uri = sync_out_dir(out_dir, tracking_uri, warn)
    state = "complete" if complete else "incomplete (resume it to play the rest)"
    print(
        f"synced {out_dir} to MLflow run {run_id} in {uri}: {uploaded} record(s) uploaded; "
        f"the tournament is {state}"
    )
