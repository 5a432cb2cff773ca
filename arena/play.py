"""``arena play``: one game between bots, shown step by step if asked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.errors import UserError
from arena.match.records import write_record
from arena.match.runner import FailurePolicy, MatchConfig, MatchSpec
from arena.match.specs import split_bots
from engine import CHANCE, Action, State, get_game
from engine.core import JSON


def parse_seat(show: str | None, num_players: int) -> tuple[bool, int | None]:
    """``--show`` value -> (show at all, seat or None for the spectator)."""
    if show is None:
        return False, None
    if show in ("", "spectator"):
        return True, None
    if not show.isdigit() or not 0 <= int(show) < num_players:
        raise UserError(f"--show takes a seat 0..{num_players - 1} or nothing, got {show!r}")
    return True, int(show)


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
    do_show, seat = parse_seat(show, num_players)

    def on_step(state: State, player: int, action: Action) -> None:
        who = "chance" if player == CHANCE else f"seat {player} ({specs[player]})"
        print(f"--- step {len(state.history)}: {who}: {action}")
        print(state.render(seat))

    spec = MatchSpec(
        game.id, num_players, seed, options, match_id=f"play-{seed}", game_id=f"play-{seed}"
    )
    if do_show:
        print(game.new_game(num_players, options).render(seat))
    # cmd: bots run as programs connected to an embedded game server (arena.match.cmdbots).
    from arena.match.cmdbots import open_bots

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
