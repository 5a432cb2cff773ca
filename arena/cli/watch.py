"""``arena watch ADDRESS MATCH_ID [--credential C]``: a live match in the terminal (the
spectator view, or one seat's view with that seat's credential)."""

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
    credential: Annotated[
        str | None,
        typer.Option(
            "--credential",
            help="A seat's credential: show that seat's view (its hidden cards) instead of "
            "the public one. Its bot plays on; watching takes no seat.",
        ),
    ] = None,
) -> None:
    """Follow a match live: who acted at each step, the view after it, the final score.
    Waits for the seats to join. The spectator view, or with --credential the view of
    that seat (only what its bot sees; `arena match join` plays a seat by hand)."""
    from arena.client.connection import Connection
    from arena.client.watch import WatchView, watch

    console = rich_console()
    with Connection(address) as conn:
        try:
            status = watch(conn, match_id, WatchView(console, brief), credential)
        except KeyboardInterrupt:
            console.print("\n(stopped watching; the match goes on)")
            return
    if status not in ("finished",):
        raise SystemExit(1)
