"""``arena serve``: the game server that remote bots connect to.

CreateMatch and GetMatch are admin calls: ``arena serve`` always requires the admin
token (metadata ``authorization: Bearer TOKEN``). It is ``--admin-token`` or
``MENAGERIE_ADMIN_TOKEN`` when given, else a fresh random one printed at start (a server
reachable from the internet must not let anyone create matches; a token works the same
through a proxy or a port forward, where "localhost only" would not). Bots need no
token: their seat credential is their authority.
"""

from __future__ import annotations

import contextlib
import resource
import secrets
import signal
import sys
import threading
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import CPU_WAKEUP, user_errors
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
            help="The admin token CreateMatch/GetMatch need ('authorization: Bearer TOKEN'); "
            "default: a random one, printed at start.",
        ),
    ] = "",
    max_matches: Annotated[
        int, typer.Option("--max-matches", help="Live matches at most (RESOURCE_EXHAUSTED beyond).")
    ] = 2000,
    max_pending: Annotated[
        int,
        typer.Option("--max-pending", help="Matches whose seats are still joining, at most."),
    ] = 1000,
    rejoin_grace_s: Annotated[
        float,
        typer.Option("--rejoin-grace-s", help="A seat whose stream broke may rejoin this soon."),
    ] = 2.0,
    probe_file: Annotated[
        Path | None,
        typer.Option(
            "--probe-file",
            help="Keep the server's load figures (event-loop delay, GC pauses, CPU) in this "
            "JSON file, rewritten every 0.5 s (arena bench server reads it).",
        ),
    ] = None,
    cpu_wakeup_us: CPU_WAKEUP = None,
) -> None:
    """The game server that remote bots connect to (gRPC, health, reflection).

    Matches are created with the CreateMatch RPC, which returns one credential per
    seat; bots join with them (see proto/README.md). CreateMatch/GetMatch need the admin
    token (--admin-token, MENAGERIE_ADMIN_TOKEN, or a random one printed at start).
    SIGINT/SIGTERM shut down gracefully: health turns NOT_SERVING, in-flight matches get
    --grace seconds, the rest are aborted and recorded (in <records>.aborted.jsonl); the
    process exits 0 within --grace plus about 20 s, whatever the load.
    """
    from arena.cpu_idle import wakeup_limit
    from arena.server.app import GameServer, RecordJournal, ServerError
    from arena.server.hub import GC_THRESHOLD, SWITCH_INTERVAL_S, ServerConfig

    if not 0 <= port <= 65535:
        raise UserError(f"--port must be 0-65535, got {port}")
    if max_message_kb < 1:
        raise UserError(f"--max-message-kb must be at least 1, got {max_message_kb}")
    if max_matches < 1 or max_pending < 1:
        raise UserError("--max-matches and --max-pending must be at least 1")
    if grace < 0 or rejoin_grace_s < 0:
        raise UserError("--grace and --rejoin-grace-s must not be negative")
    generated = not admin_token
    admin_token = admin_token or secrets.token_urlsafe(24)
    raise_open_files_limit()
    config = ServerConfig(
        max_message_kb=max_message_kb,
        margin_ms=margin_ms,
        stall_ms=stall_s * 1000,
        join_timeout_s=join_timeout_s,
        admin_token=admin_token,
        max_matches=max_matches,
        max_pending=max_pending,
        rejoin_grace_s=rejoin_grace_s,
        switch_interval_s=SWITCH_INTERVAL_S,
        gc_threshold=GC_THRESHOLD,
        probe_path=None if probe_file is None else str(probe_file),
    )
    journal = RecordJournal(records) if records is not None else None
    with wakeup_limit(cpu_wakeup_us):  # held until the server stops
        server = GameServer(config, on_record=journal)
        try:
            bound = server.start(host, port)
        except ServerError as exc:
            raise UserError(str(exc)) from None
        print(
            f"serving menagerie.v1.GameService on {host}:{bound} (grpc.health.v1, reflection)",
            flush=True,
        )
        if generated:
            print(f"admin token (CreateMatch/GetMatch): {admin_token}", flush=True)
        stop = threading.Event()

        def on_signal(signum: int, _frame: object) -> None:
            stop.set()

        signal.signal(signal.SIGINT, on_signal)
        signal.signal(signal.SIGTERM, on_signal)
        while not stop.wait(0.5):
            pass
        print(f"shutting down (health NOT_SERVING; {grace:g} s for in-flight matches)", flush=True)
        aborted = server.stop(grace_s=grace)
        for table in aborted[:20]:
            print(f"aborted match {table.match_id}: {table.abort_reason}", file=sys.stderr)
        if len(aborted) > 20:
            print(f"... and {len(aborted) - 20} more", file=sys.stderr)
        print(f"stopped; {len(aborted)} match(es) aborted", flush=True)


def raise_open_files_limit() -> None:
    """Raise this process's soft limit of open files to its hard limit: each connection
    is a file, and a low soft limit (often 1024, sometimes 256) would let a few hundred
    idle sockets lock every other client out."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = 1 << 20 if hard == resource.RLIM_INFINITY else hard
    if soft != resource.RLIM_INFINITY and soft < target:
        # (if refused, the limit stays; the handshake timeout still frees idle sockets)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
