"""``arena serve``: the game server that remote bots connect to."""

from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import user_errors
from arena.errors import UserError


@user_errors
def serve_cmd(
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port (0: any free port).")] = 50051,
    records: Annotated[
        Path | None,
        typer.Option("--records", help="Append finished match records to this JSONL file."),
    ] = None,
    grace: Annotated[
        float, typer.Option("--grace", help="Seconds in-flight matches get at shutdown.")
    ] = 10.0,
    max_message_kb: Annotated[
        int, typer.Option("--max-message-kb", help="Largest message a client may send (KB).")
    ] = 64,
    margin_ms: Annotated[
        float, typer.Option("--margin-ms", help="Transport margin added to the move clock.")
    ] = 50.0,
    stall_s: Annotated[
        float, typer.Option("--stall-s", help="A seat silent this long with a turn pending stalls.")
    ] = 60.0,
    join_timeout_s: Annotated[
        float, typer.Option("--join-timeout-s", help="Seats must join this soon after creation.")
    ] = 30.0,
    admin_token: Annotated[
        str,
        typer.Option(
            "--admin-token",
            envvar="MENAGERIE_ADMIN_TOKEN",
            help="Require 'authorization: Bearer TOKEN' for CreateMatch/GetMatch.",
        ),
    ] = "",
) -> None:
    """The game server that remote bots connect to (gRPC, health, reflection).

    Matches are created with the CreateMatch RPC, which returns one credential per
    seat; bots join with them (see proto/README.md). SIGINT/SIGTERM shut down
    gracefully: health turns NOT_SERVING, in-flight matches get --grace seconds, the
    rest are aborted and recorded (in <records>.aborted.jsonl).
    """
    from arena.server.app import GameServer, RecordJournal, ServerError
    from arena.server.hub import GC_THRESHOLD, SWITCH_INTERVAL_S, ServerConfig

    if not 0 <= port <= 65535:
        raise UserError(f"--port must be 0-65535, got {port}")
    if max_message_kb < 1:
        raise UserError(f"--max-message-kb must be at least 1, got {max_message_kb}")
    config = ServerConfig(
        max_message_kb=max_message_kb,
        margin_ms=margin_ms,
        stall_ms=stall_s * 1000,
        join_timeout_s=join_timeout_s,
        admin_token=admin_token,
        switch_interval_s=SWITCH_INTERVAL_S,
        gc_threshold=GC_THRESHOLD,
    )
    journal = RecordJournal(records) if records is not None else None
    server = GameServer(config, on_record=journal)
    try:
        bound = server.start(host, port)
    except ServerError as exc:
        raise UserError(str(exc)) from None
    print(
        f"serving menagerie.v1.GameService on {host}:{bound} (grpc.health.v1, reflection)",
        flush=True,
    )
    stop = threading.Event()

    def on_signal(signum: int, _frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    while not stop.wait(0.5):
        pass
    print(f"shutting down (health NOT_SERVING; {grace:g} s for in-flight matches)", flush=True)
    aborted = server.stop(grace_s=grace)
    for table in aborted:
        print(f"aborted match {table.match_id}: {table.abort_reason}", file=sys.stderr)
    print(f"stopped; {len(aborted)} match(es) aborted", flush=True)
