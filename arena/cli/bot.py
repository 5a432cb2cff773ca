"""``arena bot check COMMAND``: the conformance kit for bot programs (``arena.botcheck``)."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console

from arena.cli.common import user_errors


@user_errors
def check_cmd(
    command: Annotated[
        list[str],
        typer.Argument(
            help="The bot's command line, quoted as one argument (like a cmd: spec without "
            "the prefix), or after `--`. The kit appends --address and --credential.",
            metavar="COMMAND",
            show_default=False,
        ),
    ],
    game: Annotated[
        list[str] | None,
        typer.Option("--game", help="Check only this game (repeatable or comma-separated)."),
    ] = None,
    move_ms: Annotated[
        float, typer.Option("--move-ms", help="Move clock of every turn (ms).")
    ] = 1000.0,
    join_timeout: Annotated[
        float, typer.Option("--join-timeout", help="Seconds the bot may take to join.")
    ] = 10.0,
    close_timeout: Annotated[
        float,
        typer.Option("--close-timeout", help="Seconds the bot may take to exit after a close."),
    ] = 5.0,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the first game.")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    lobby: Annotated[
        bool,
        typer.Option(
            "--lobby",
            help="Check a remote (lobby) bot: the kit appends --lobby and --token instead, "
            "and checks it connects, plays ladder matches, reconnects, stops when revoked.",
        ),
    ] = False,
) -> None:
    """Conformance kit: play short games against your bot program, report what breaks.

    Per game (default: every registered game), against random bots on 127.0.0.1:
    two games in a row (fresh process, different seats) and two games closed mid-game.

    Checks: joins with its credential; answers within the move clock; sends only legal
    moves; exits with status 0 after GameOver; exits by itself when the server closes.

    With --lobby: a private ladder and lobby; the bot gets a token and must come online,
    play its matches, reconnect after a lobby restart and exit when its token is revoked.

    Exit status 1 if any check fails. Example: arena bot check "node bots/node/bot.js"
    """
    from arena.botcheck.judge import print_report
    from arena.botcheck.lobby import check_lobby_bot
    from arena.botcheck.model import CheckConfig
    from arena.botcheck.runs import check_bot

    check = check_lobby_bot if lobby else check_bot

    games = [g.strip() for item in game or [] for g in item.split(",") if g.strip()]
    config = CheckConfig(
        move_ms=move_ms, join_timeout_s=join_timeout, close_timeout_s=close_timeout, seed=seed
    )
    if as_json:
        report = check(command, games or None, config)
        print(json.dumps(report.to_json(), indent=1))
    else:
        status = Console(stderr=True).status("starting")
        with status:
            report = check(command, games or None, config, lambda text: status.update(text))
        print_report(report)
    if not report.ok:
        raise SystemExit(1)
