"""``arena watch ADDRESS MATCH_ID``: a live match in the terminal (the spectator view)."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli.common import rich_console, user_errors


@user_errors
def watch_cmd(
    address: Annotated[str, typer.Argument(help="The game server, HOST:PORT.")],
    match_id: Annotated[str, typer.Argument(help="The match id.")],
    brief: Annotated[
        bool, typer.Option("--brief", help="One line per step, without the view.")
    ] = False,
) -> None:
    """Follow a match live: who acted at each step, the public view after it, the final
    score. Waits for the seats to join. The server streams the spectator view only (a
    seat's own view is its bot's; `arena match join` plays a seat by hand)."""
    from arena.client.connection import Connection
    from arena.client.watch import WatchView, watch

    console = rich_console()
    with Connection(address) as conn:
        try:
            status = watch(conn, match_id, WatchView(console, brief))
        except KeyboardInterrupt:
            console.print("\n(stopped watching; the match goes on)")
            return
    if status not in ("finished",):
        raise SystemExit(1)
