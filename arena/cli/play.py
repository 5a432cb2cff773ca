"""``arena games``, ``arena play`` and ``arena verify``: the games, one game, records."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cli.common import parse_options, user_errors
from arena.cli.replay import list_games
from arena.errors import UserError
from arena.match.cmdbots import open_bots
from arena.match.records import RecordError, scan_records, verify_record, write_record
from arena.match.runner import FailurePolicy, MatchConfig, MatchSpec
from arena.match.specs import split_bots
from engine import CHANCE, GAMES, Action, State, get_game
from engine.core import JSON


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
    if source is not None or bot or lost or game:
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
                    k: {"default": o.default, "accepts": o.accepts(), "doc": o.doc}
                    for k, o in g.option_specs.items()
                },
            }
            for g in GAMES.values()
        ]
        print(json.dumps(out, indent=1))
        return
    for g in GAMES.values():
        print(f"{g.id}  ({g.name}, version {g.version}, {g.min_players}-{g.max_players} players)")
        for key, opt in g.option_specs.items():
            print(f"    {key}: {opt.accepts()}, default {json.dumps(opt.default)}. {opt.doc}")
        if g.option_specs:
            key, opt = next(iter(g.option_specs.items()))
            print(f"    (as JSON: --options '{json.dumps({key: opt.default})}')")
        print()


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
    play_one(game, bots, players, seed, parse_options(options), record, show, move_ms, on_failure)


@user_errors
def verify_cmd(
    records: Annotated[list[Path], typer.Argument(help="Record files (.json or .jsonl).")],
) -> None:
    """Replay records and check each one's result and digest."""
    bad = 0
    total = 0
    for path in records:
        for i, (where, rec, problem) in enumerate(scan_records(path)):
            total += 1
            if rec is None and not where.startswith(f"{path}:"):
                raise RecordError(problem or where)  # the file as a whole is not records
            if rec is None:  # a bad line (bad bytes, bad JSON, not a record): no traceback
                bad += 1
                print(f"FAIL  {where}: {problem}")
                continue
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


def parse_show(show: str | None, num_players: int) -> tuple[bool, int | None]:
    """``--show`` value -> (show at all, seat or None for the spectator)."""
    if show is None:
        return False, None
    if show in ("", "spectator"):
        return True, None
    if not show.isdigit() or not 0 <= int(show) < num_players:
        raise UserError(f"--show takes a seat 0..{num_players - 1} or nothing, got {show!r}")
    return True, int(show)


def normalise_show(argv: list[str]) -> list[str]:
    """Let ``--show`` take an optional value: a bare ``--show`` means the spectator."""
    out: list[str] = []
    for i, arg in enumerate(argv):
        out.append(arg)
        if arg == "--show":
            nxt = argv[i + 1] if i + 1 < len(argv) else None
            if nxt is None or nxt.startswith("-") or not (nxt.isdigit() or nxt == "spectator"):
                out[-1] = "--show=spectator"
    return out


def play_one(
    game_id: str,
    bots: str,
    players: int | None,
    seed: int,
    options: dict[str, JSON],
    record_path: Path | None,
    show: str | None,
    move_ms: float | None,
    on_failure: str,
) -> dict[str, Any]:
    game = get_game(game_id)
    specs = split_bots(bots)
    num_players = players if players is not None else len(specs)
    if len(specs) == 1 and num_players > 1:
        specs = specs * num_players
    if len(specs) != num_players:
        raise UserError(f"--players is {num_players} but --bots names {len(specs)} bot(s)")
    if on_failure not in ("forfeit", "random"):
        raise UserError(f"--on-failure must be forfeit or random, got {on_failure!r}")
    policy: FailurePolicy = "forfeit" if on_failure == "forfeit" else "random"
    game.new_game(num_players, options)  # validate before starting bots
    do_show, seat = parse_show(show, num_players)

    def on_step(state: State, player: int, action: Action) -> None:
        who = "chance" if player == CHANCE else f"seat {player} ({specs[player]})"
        print(f"--- step {len(state.history)}: {who}: {action.text_for(player, seat)}")
        print(state.render(seat))

    spec = MatchSpec(
        game.id, num_players, seed, options, match_id=f"play-{seed}", game_id=f"play-{seed}"
    )
    if do_show:
        print(game.new_game(num_players, options).render(seat))
    # cmd: bots run as programs connected to an embedded game server (arena.match.cmdbots).
    with open_bots(specs, spec, MatchConfig(move_ms, policy)) as session:
        record = session.play(on_step if do_show else None)
    print_summary(record)
    if record_path is not None:
        write_record(record, record_path)
        print(f"record written to {record_path}")
    return record


def print_summary(record: dict[str, Any]) -> None:
    result = record["result"]
    ranks = record["standing"]["ranks"]
    print(f"{record['game']}: {len(record['steps'])} steps, seed {record['seed']}")
    for p in record["players"]:
        s = p["seat"]
        cats = ", ".join(f"{k} {v}" for k, v in result["breakdown"][s].items() if k != "total")
        print(
            f"  rank {ranks[s]}  seat {s} {p['name']:<12} score {result['scores'][s]:>6}  ({cats})"
        )
    for ev in record["events"]:
        print(f"  event at step {ev['step']}: seat {ev['seat']} {ev['kind']}: {ev['reason']}")
