"""The ``arena`` command line (Typer). Each area registers its commands here."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from arena.errors import UserError, user_errors

app = typer.Typer(
    help="Menagerie: play, serve, run tournaments, rate and replay board-game bots.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
bench_app = typer.Typer(help="Benchmarks (engine, grpc, arena); --json for machine output.")
app.add_typer(bench_app, name="bench")


@app.command("games")
@user_errors
def games_cmd(
    source: Annotated[
        str | None,
        typer.Argument(help="List the logged games of an MLflow run id or a record/journal file."),
    ] = None,
    bot: Annotated[str | None, typer.Option("--bot", help="Logged games of this bot.")] = None,
    lost: Annotated[bool, typer.Option("--lost", help="Only the games --bot lost.")] = False,
    game: Annotated[str | None, typer.Option("--game", help="Logged games of this game.")] = None,
    tracking_uri: Annotated[
        str | None, typer.Option("--tracking-uri", help="MLflow tracking URI.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """The registered games: ids, player counts, options with defaults and meaning.

    With SOURCE (an MLflow run id, a tournament dir or a record/journal file): the logged
    games instead, with ids, players, scores, ranks and events (--bot, --lost, --game).
    """
    from engine import GAMES

    if source is not None or bot or lost or game:
        from arena.cli_replay import list_games

        if source is None:
            raise UserError("--bot/--lost/--game filter logged games: give a run id or file")
        list_games(source, bot, lost, game, tracking_uri, as_json)
        return

    if as_json:
        out = [
            {
                "id": g.id,
                "name": g.name,
                "version": g.version,
                "players": [g.min_players, g.max_players],
                "options": {
                    k: {"default": o.default, "doc": o.doc} for k, o in g.option_specs.items()
                },
            }
            for g in GAMES.values()
        ]
        print(json.dumps(out, indent=1))
        return
    for g in GAMES.values():
        print(f"{g.id}  ({g.name}, version {g.version}, {g.min_players}-{g.max_players} players)")
        for key, opt in g.option_specs.items():
            print(f"    --options {key}={json.dumps(opt.default)}: {opt.doc}")
        print()


def parse_options(text: str | None) -> dict[str, object]:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"--options is not valid JSON: {exc.msg} (got {text!r})") from None
    if not isinstance(value, dict):
        raise UserError(f"--options must be a JSON object, got {text!r}")
    return value


@app.command("play")
@user_errors
def play_cmd(
    game: Annotated[str, typer.Argument(help="Game id (see `arena games`).")],
    bots: Annotated[str, typer.Option("--bots", help="Comma-separated bot specs, one per seat.")],
    players: Annotated[int | None, typer.Option("--players", help="Number of players.")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of chance and bots.")] = 0,
    options: Annotated[str | None, typer.Option("--options", help="Game options as JSON.")] = None,
    record: Annotated[Path | None, typer.Option("--record", help="Write the record here.")] = None,
    show: Annotated[
        str | None,
        typer.Option(
            "--show",
            help="Render the state after each step: `--show` (spectator) or `--show SEAT`.",
        ),
    ] = None,
    move_ms: Annotated[
        float | None, typer.Option("--move-ms", help="Per-move time limit (ms).")
    ] = None,
    on_failure: Annotated[
        str, typer.Option("--on-failure", help="forfeit | random: policy for bad moves.")
    ] = "forfeit",
) -> None:
    """Play one game between bots and print the result."""
    from arena.play import play_one

    play_one(game, bots, players, seed, parse_options(options), record, show, move_ms, on_failure)


@app.command("verify")
@user_errors
def verify_cmd(
    records: Annotated[list[Path], typer.Argument(help="Record files (.json or .jsonl).")],
) -> None:
    """Replay records and check each one's result and digest."""
    from arena.match.records import read_records, verify_record

    bad = 0
    total = 0
    for path in records:
        for i, rec in enumerate(read_records(path)):
            total += 1
            verified = verify_record(rec)
            label = f"{path}#{i} ({rec.get('game')}, game {rec.get('game_id') or '-'})"
            if verified.ok:
                print(f"ok    {label}")
            else:
                bad += 1
                print(f"FAIL  {label}: {verified.problem}")
    print(f"{total - bad} of {total} record(s) verified")
    if bad:
        raise SystemExit(1)


@bench_app.command("engine")
@user_errors
def bench_engine_cmd(
    game: Annotated[str | None, typer.Option("--game", help="Only this game.")] = None,
    seconds: Annotated[float, typer.Option("--seconds", help="Time per measurement.")] = 0.3,
    repeats: Annotated[int, typer.Option("--repeats", help="Measurements (median).")] = 5,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Random-playout decisions/s and games/s per game and player count."""
    from arena.bench_engine import run_engine_bench

    run_engine_bench(game, seconds, repeats, as_json)


def _normalise_show(argv: list[str]) -> list[str]:
    """Let ``--show`` take an optional value: a bare ``--show`` means the spectator."""
    out: list[str] = []
    for i, arg in enumerate(argv):
        out.append(arg)
        if arg == "--show":
            nxt = argv[i + 1] if i + 1 < len(argv) else None
            if nxt is None or nxt.startswith("-") or not (nxt.isdigit() or nxt == "spectator"):
                out[-1] = "--show=spectator"
    return out


def _register_extensions() -> None:
    """Commands that live with their area (server, tournament, replay, ...)."""
    import importlib

    for name in EXTENSIONS:
        importlib.import_module(name).register(app)


EXTENSIONS: tuple[str, ...] = (
    "arena.cli_tournament",
    "arena.server.cli",
    "arena.cli_replay",
    "arena.botcheck",
)


def main() -> None:
    _register_extensions()
    sys.argv = [sys.argv[0], *_normalise_show(sys.argv[1:])]
    app()


if __name__ == "__main__":
    # Run the importable module's main, so that extensions importing ``arena.cli``
    # (for ``bench_app``) register on the same app as ``python -m arena.cli`` uses.
    from arena.cli import main as _main

    _main()
