"""``arena match create|get|list|join`` and ``arena proto``: a game server's client tools.

Host a match without writing gRPC code (``create``: the match id and one credential
per seat), inspect it (``get``, ``list``), play a seat by hand (``join``), and hand a
bot author in another language the wire contract (``proto --out DIR``). CreateMatch,
GetMatch and ListMatches are admin calls: ``--admin-token`` or ``$MENAGERIE_ADMIN_TOKEN``. The
logic is in ``arena.client`` (and ``bots.human`` for ``join``).
"""

from __future__ import annotations

import json
import secrets
import sys
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import parse_options, user_errors
from arena.client.connection import ADMIN_TOKEN_ENV
from arena.errors import UserError

ADDRESS_HELP = "The game server, HOST:PORT (as `arena serve` printed it)."
TOKEN_HELP = f"The server's admin token (default: ${ADMIN_TOKEN_ENV})."

AdminToken = Annotated[
    str | None, typer.Option("--admin-token", envvar=ADMIN_TOKEN_ENV, help=TOKEN_HELP)
]


@user_errors
def create_cmd(
    game: Annotated[str, typer.Argument(help="Game id (see `arena games`).")],
    players: Annotated[int, typer.Option("--players", help="Number of seats.")],
    address: Annotated[str, typer.Option("--address", help=ADDRESS_HELP)],
    options: Annotated[
        str | None, typer.Option("--options", help="Game options: key=value,... or a JSON object.")
    ] = None,
    move_ms: Annotated[
        int | None, typer.Option("--move-ms", help="Per-move time limit (ms; default none).")
    ] = None,
    on_failure: Annotated[
        str, typer.Option("--on-failure", help="forfeit | random: policy for bad moves.")
    ] = "forfeit",
    seed: Annotated[
        int | None, typer.Option("--seed", help="Seed of chance (default: a random one).")
    ] = None,
    names: Annotated[
        str | None, typer.Option("--names", help="Comma-separated seat names.")
    ] = None,
    admin_token: AdminToken = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Create a match on a game server; prints its id and one credential per seat.

    Each seat is played by whoever holds its credential: a bot (`--credential C`) or a
    person (`arena match join`). Seats must join within the server's join timeout.
    """
    from arena.client.connection import Connection
    from arena.client.matches import create_match

    seat_names = [n.strip() for n in names.split(",")] if names else []
    with Connection(address, admin_token) as conn:
        created = create_match(
            conn,
            game,
            players,
            parse_options(options),
            seed=secrets.randbelow(2**31) if seed is None else seed,
            move_ms=move_ms,
            on_failure=on_failure,
            names=seat_names,
        )
    if as_json:
        print(json.dumps(created.to_json(), indent=1))
        return
    print(
        f"match {created.match_id} created on {address} "
        f"({game}, {players} players, seed {created.seed})"
    )
    for seat, credential in enumerate(created.credentials):
        print(f"  seat {seat}  credential {credential}")
    print(f"play a seat: arena match join {address} {created.match_id} --credential CREDENTIAL")
    print(f"watch:       arena watch {address} {created.match_id}")


@user_errors
def get_cmd(
    address: Annotated[str, typer.Argument(help=ADDRESS_HELP)],
    match_id: Annotated[str, typer.Argument(help="The match id.")],
    admin_token: AdminToken = None,
    record: Annotated[
        Path | None,
        typer.Option("--record", help="Write the match's record here (for `arena replay`)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON (with the record).")] = False,
) -> None:
    """A match's status and, once over, its result (and record with --record or --json)."""
    from arena.cli.play import print_summary
    from arena.client.connection import Connection
    from arena.client.matches import get_match
    from arena.match.records import write_record

    with Connection(address, admin_token) as conn:
        status = get_match(conn, match_id)
    if as_json:
        print(json.dumps(status.to_json(), indent=1))
    else:
        reason = f": {status.reason}" if status.reason else ""
        print(f"match {status.match_id}: {status.status}{reason}")
        if status.status == "finished" and status.record is not None:
            print_summary(status.record)
        elif status.record is not None:
            print(f"  {len(status.record.get('steps', []))} steps played before it stopped")
    if record is not None:
        if status.record is None:
            raise UserError(f"match {match_id} is {status.status}: it has no record yet")
        write_record(status.record, record)
        print(f"record written to {record}", file=sys.stderr if as_json else sys.stdout)


@user_errors
def list_cmd(
    address: Annotated[str, typer.Argument(help=ADDRESS_HELP)],
    match_ids: Annotated[
        list[str] | None,
        typer.Argument(help="Match ids (default: the server's latest matches)."),
    ] = None,
    admin_token: AdminToken = None,
    limit: Annotated[
        int, typer.Option("--limit", help="List at most this many matches (newest first).")
    ] = 50,
    status: Annotated[
        str | None,
        typer.Option("--status", help="Only matches waiting | running | finished | aborted."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """The matches of a game server, newest first (ListMatches): id, status, game,
    creation time, players. With ids: the status of those matches. A server without
    ListMatches (older than it): the matches created from this machine with `arena
    match create`."""
    from arena.client.connection import Connection
    from arena.client.matches import history_path, list_matches

    with Connection(address, admin_token) as conn:
        listing = list_matches(conn, match_ids or [], limit=limit, status=status)
    if as_json:
        print(json.dumps([m.to_json() for m in listing.matches], indent=1))
        return
    if listing.from_history:
        print(
            f"{address} cannot list its matches (no ListMatches): the latest {limit} at most "
            f"of those created there from here (remembered in {history_path()}):"
        )
    if not listing.matches:
        print(f"no matches on {address}" + (f" with status {status}" if status else ""))
        return
    for m in listing.matches:
        reason = f"  ({m.reason})" if m.reason else ""
        print(
            f"  {m.match_id}  {m.status:<9} {m.game}  {m.created}  {', '.join(m.players)}{reason}"
        )


@user_errors
def join_cmd(
    address: Annotated[str, typer.Argument(help=ADDRESS_HELP)],
    match_id: Annotated[str, typer.Argument(help="The match id (checked against the seat's).")],
    credential: Annotated[
        str,
        typer.Option("--credential", envvar="MENAGERIE_CREDENTIAL", help="The seat's credential."),
    ],
) -> None:
    """Play a seat of a match by hand in the terminal (the seat's view, moves numbered).

    The match's move clock applies to you as to any bot, and the server's stall limit
    (60 s by default) when there is none. Ctrl-D or Ctrl-C leaves: the server then
    plays your seat by the match's failure policy.
    """
    from bots.human import PersonLeft, RemoteHuman, WrongMatch
    from bots.sdk import SdkError, run

    try:
        result = run(RemoteHuman(match_id=match_id), address, credential, connect_timeout_s=10)
    except SdkError as exc:
        raise UserError(f"the game server at {address} ended the seat's stream: {exc}") from None
    except WrongMatch as exc:
        raise UserError(str(exc)) from None
    except PersonLeft:
        print("\nyou left the match; the server plays your seat by its failure policy")
        raise SystemExit(1) from None
    if result.status != "finished":
        raise SystemExit(1)


@user_errors
def proto_cmd(
    out: Annotated[Path, typer.Option("--out", help="Folder to write menagerie/v1/*.proto into.")],
    force: Annotated[
        bool, typer.Option("--force", help="Overwrite .proto files that differ.")
    ] = False,
) -> None:
    """Write the wire contract's .proto files (menagerie/v1/...) for a bot in any language.

    Generate code from them with your language's protoc plugin, e.g.
    `protoc -I DIR --go_out=. DIR/menagerie/v1/*.proto` (see proto/README.md).
    """
    from arena.client.protos import write_protos

    for path in write_protos(out, force):
        print(path)
