"""The server's registry of tables and credentials, and the server settings."""

from __future__ import annotations

import dataclasses
import itertools
import logging
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from menagerie.v1 import game_service_pb2 as pb

from arena.match.runner import Bot, MatchConfig, MatchSpec, StepHook
from arena.server.seats import RemoteSeat
from arena.server.streams import StreamError
from arena.server.table import WAITING, MatchAborted, Table
from arena.server.timing import MoveTimes
from engine import Action, State

log = logging.getLogger("arena.server")


@dataclass
class ServerConfig:
    """Settings of a game server (every limit is per server, applied to every match)."""

    max_message_kb: int = 64
    """grpc.max_receive_message_length in KB: a larger message ends its stream."""
    margin_ms: float = 50.0
    """Added to the move clock for transport and scheduling before a move is late."""
    stall_ms: float = 60_000.0
    """A connected seat silent this long with a turn pending has stalled."""
    join_timeout_s: float = 30.0
    """A seat that has not joined this long after its match was created is disconnected;
    a hosted match that no seat joined in that time is aborted (a record, no thread)."""
    rejoin_grace_s: float = 2.0
    """A seat whose stream broke may rejoin this long (same credential) before the failure
    policy applies (``disconnect``). The move clock keeps running meanwhile; a pending
    turn is sent again on the new stream."""
    join_first_s: float = 5.0
    """A Play stream whose first message (the Join) has not come this long after it opened
    is closed with UNAUTHENTICATED (it holds no seat, only a connection)."""
    max_matches: int = 2000
    """Live matches (created and not over, joining or running) at once; CreateMatch (and
    ``create_match``/``open_table``) beyond it: RESOURCE_EXHAUSTED."""
    max_busy_matches: int = 1
    """Match threads advancing their match at once (chance, the moves of forfeited seats,
    in-process bots' answers; not the inline moves of remote seats). More wait their turn:
    hundreds of matches played out at once (their bots gone) would otherwise starve the
    event loop of the GIL (calls CANCELLED, health late). One, because every thread that
    computes beside the loop takes its share of the GIL from it: with 1,000 matches whose
    bots had all left being played out while 1,000 others played, the others' move p99
    was 0.95 s with 4 (787 moves over 100 ms in 10 s) and 27 ms with 1 (none)."""
    max_pending: int = 1000
    """Matches at once whose seats are still joining (they cost a table, no thread);
    beyond it: RESOURCE_EXHAUSTED."""
    max_streams_per_connection: int = 10_000
    """``grpc.max_concurrent_streams``: RPCs at once on one HTTP/2 connection. grpc's client
    does not reliably queue a burst beyond it: the excess is refused (RST_STREAM
    REFUSED_STREAM: UNAVAILABLE, retryable, nothing was done). Measured: 10,000 GetMatch
    at once on one channel all answered at 10,000; 38% UNAVAILABLE at 1,000."""
    max_queued_calls: int = 10_000
    """``grpc.server.max_pending_requests`` (and its hard limit): calls received and not yet
    picked up by a handler. grpc's default of 1,000 (hard 3,000) cancelled 17-52% of
    10,000 concurrent GetMatch calls (CANCELLED): bursts are queued up to this bound."""
    idle_connection_s: float = 300.0
    """``grpc.max_connection_idle_ms``: a connection with no RPC this long is closed (GOAWAY)."""
    handshake_timeout_s: float = 10.0
    """``grpc.server_handshake_timeout_ms``: a socket that has not completed the HTTP/2
    handshake this long after it connected is closed (idle raw sockets hold no fd long)."""
    flood_rate: float = 20.0
    """Unsolicited messages (not answering a pending turn) allowed per second and stream."""
    flood_burst: int = 50
    """... and saved up at most; beyond that the stream ends with RESOURCE_EXHAUSTED."""
    max_watchers: int = 64
    """Spectator streams per match."""
    watch_queue: int = 4096
    """Updates queued for a slow spectator before it is dropped (RESOURCE_EXHAUSTED)."""
    keep_finished_s: float = 600.0
    """How long a finished match stays known (GetMatch, late Join -> FAILED_PRECONDITION)."""
    admin_token: str = ""
    """When set, CreateMatch, GetMatch and ListMatches need metadata ``authorization: Bearer
    <token>`` (``arena serve`` always sets one: given, or generated and printed)."""
    switch_interval_s: float | None = None
    """When set, ``sys.setswitchinterval`` at start (process-wide). A short interval (0.5 ms)
    hands the GIL between the event loop and match threads sooner: lower move latency
    under load. ``arena serve`` and ``arena bench grpc`` set it; embedded servers do not."""
    gc_threshold: tuple[int, int, int] | None = None
    """When set, ``gc.freeze()`` once started (what is loaded by then is never scanned again),
    ``gc.set_threshold(*gc_threshold)`` (process-wide), a young collection every
    :data:`GC_PACE_S` on the event loop, its survivors frozen every ``gc_freeze_s`` and
    everything collected every ``gc_full_s``: fewer, shorter collector pauses in the event
    loop (the p99 of move latency under load). ``arena serve`` and ``arena bench grpc``
    set it (:data:`GC_THRESHOLD`); embedded servers do not."""
    gc_freeze_s: float = 1.0
    """(with ``gc_threshold``) How often the server freezes what survived its young
    collections (``gc.freeze``: a list merge, no scan), so the middle generation holds at
    most this long's survivors. Without it the middle collection scans every object in
    flight (each stream's pending read, coroutines, tasks, futures, grpc state: ~160 per
    match, 40,000 at 250 matches) whenever it runs: 25-100 ms at 250 matches, in the p99
    of move latency. A frozen object that dies is freed by its reference count as before;
    only garbage in a reference cycle waits for the next ``gc_full_s``."""
    gc_full_s: float = 600.0
    """(with ``gc_threshold``) How often the server unfreezes and collects everything (then
    freezes the survivors again): the bound on how long cyclic garbage (an exception's
    traceback, objects pointing at each other) is kept. One full collection's pause
    (~100-300 ms at 1,000 matches) every 10 minutes: under 0.1 % of the moves."""
    probe_path: str | None = None
    """When set, a :class:`arena.server.probe.LoadProbe` measures the server's event-loop
    delay, collector pauses and CPU, and this file always holds its latest cumulative
    snapshot (rewritten every 0.5 s): how ``arena bench server`` sees where a latency tail
    comes from in a server process (``arena serve --probe-file``)."""


SWITCH_INTERVAL_S = 0.0005
"""The GIL switch interval of a dedicated game server process (``arena serve``, ``arena
bench grpc``): see ``ServerConfig.switch_interval_s``."""

GC_THRESHOLD = (2_000, 3_000, 1000)
"""The game server's collector thresholds: short young collections, rare older ones.

Under load the young generation is mostly objects alive across a bot's think time (each
stream's pending read: coroutine, future, grpc state; each pending turn), and a young
collection scans those created since the last one, so its pause grows with the interval
between collections: a dedicated server paces them (:data:`GC_PACE_S`). The middle
collection scans whatever survived the young ones since the last: at 1,000 matches in
flight, their current streams and turns (~100,000 objects, each alive about one think
time) plus the steps recorded meanwhile, 75-150 ms of CPU whenever it runs (measured
with ``arena bench server``, 500 ms think, 2 cores). Run more often its pauses shrink
less than they multiply (the in-flight objects are there at any moment: at every 10 paced
young collections it took 6-40 ms ten times a second, 4 % of the server's time), so it
runs rarely: every 3,000 young collections (30 s when paced; 500 was 5 s, over 1 % of
the time, which put it in the p99 of move latency; the price is a longer pause, up to a
few hundred ms, twice a minute; freezing the survivors every ``ServerConfig.gc_freeze_s``
since bounds it to one second's survivors: about 1 ms at 250 matches, 9 ms at 1,000). The
oldest generation's threshold keeps
full collections as rare as before (CPython also waits until a quarter of the long-lived
objects are new)."""


GC_PACE_S = 0.01
"""How often a dedicated server's event loop runs a young collection itself (``gc.collect(0)``,
or the older generation whose count has reached its threshold, as the automatic trigger
would choose).

The automatic trigger cannot bound a young collection under steady load: it counts
allocations minus deallocations, and a game server's steady state frees about as many
older objects (the previous turns' messages, futures, coroutine frames, promoted while
their bot thought) as it allocates new ones. The count then hovers far below its
threshold while the young generation grows: ``arena bench server`` at 1,000 matches (500
ms think) found young collections of 30,000-57,000 objects at a count of 2,001, each
17-35 ms of CPU (the median one: 0.3 ms), which were the latency tail. A collection every
10 ms scans what the last 10 ms allocated and kept: a pause of ~0.1 ms (at most a few),
and less of the collector's CPU in all (an object that lives less than 10 ms is never
scanned). The threshold still triggers collections in bursts between two paced ones."""


class Hub:
    """Tables by match id and seats by credential (thread-safe)."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self._lock = threading.Lock()
        self.tables: dict[str, Table] = {}
        self._credentials: dict[str, tuple[Table, int]] = {}
        self.busy = threading.BoundedSemaphore(config.max_busy_matches)
        """Shared by the tables (``ServerConfig.max_busy_matches``)."""
        self._live: dict[str, Table] = {}
        """Tables not yet marked finished (what the capacity limits count)."""
        self._joining: dict[str, Table] = {}
        """Tables that may still be waiting for their seats: every such table, and some
        that no longer are (pruned only when the count matters, near ``max_pending``)."""
        self._finished_at: dict[str, float] = {}
        """Finished match ids -> when, oldest first (purged from the front)."""
        self.accepting = True
        self.move_times: MoveTimes | None = None
        """Per-move server timings (``arena bench grpc`` sets one; None: not measured)."""

    def open_table(
        self,
        spec: MatchSpec,
        config: MatchConfig,
        names: Sequence[str],
        remote: Sequence[bool],
        in_process: Mapping[int, Bot] | None = None,
    ) -> Table:
        """A new table; remote seats get credentials (``table.credentials``)."""
        if not self.accepting:
            raise StreamError(grpc.StatusCode.UNAVAILABLE, "the server is shutting down")
        match_id = spec.match_id or f"m-{uuid.uuid4().hex[:12]}"
        with self._lock:
            self._check_capacity_locked()
            if match_id in self.tables:
                match_id = f"{match_id}-{uuid.uuid4().hex[:6]}"
        if not spec.match_id:
            spec = dataclasses.replace(spec, match_id=match_id, game_id=spec.game_id or match_id)
        c = self.config
        table = Table(
            match_id,
            spec,
            config,
            names,
            remote,
            margin_ms=c.margin_ms,
            stall_ms=c.stall_ms,
            join_timeout_s=c.join_timeout_s,
            rejoin_grace_s=c.rejoin_grace_s,
            in_process=in_process,
            busy=self.busy,
        )
        with self._lock:
            self._purge()
            self._check_capacity_locked()  # (again: another table may have come meanwhile)
            self.tables[match_id] = table
            self._live[match_id] = table
            self._joining[match_id] = table
            for seat, credential in table.credentials.items():
                self._credentials[credential] = (table, seat)
        return table

    def _check_capacity_locked(self) -> None:
        """RESOURCE_EXHAUSTED when ``max_matches`` live or ``max_pending`` joining matches
        are open (lock held). ``_live`` and ``_joining`` hold at least those matches, so
        while both are under their limits nothing needs counting: O(1) a call. Only near a
        limit are they counted (O(matches), and ``_joining`` loses the tables whose seats
        have all joined), so a server holding a thousand matches does not spend a
        millisecond of its event loop on every CreateMatch."""
        c = self.config
        if len(self._live) < c.max_matches and len(self._joining) < c.max_pending:
            return
        live = sum(not table.is_over() for table in self._live.values())
        self._joining = {
            m: t for m, t in self._joining.items() if t.status == WAITING and not t.is_over()
        }
        pending = len(self._joining)
        if live >= c.max_matches:
            raise StreamError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"the server holds its limit of {c.max_matches} live matches; retry later",
            )
        if pending >= c.max_pending:
            raise StreamError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"the server holds its limit of {c.max_pending} matches whose seats are "
                "still joining; retry later",
            )

    def authenticate(self, join: pb.Join) -> RemoteSeat:
        """The seat a Join acts for; StreamError with the right status code otherwise."""
        table, seat_no = self.seat_of(join.credential, join.match_id)
        if join.HasField("seat") and join.seat != seat_no:
            raise StreamError(
                grpc.StatusCode.PERMISSION_DENIED,
                f"the credential is for seat {seat_no} of match {table.match_id}, "
                f"not seat {join.seat}",
            )
        if table.is_over():
            raise StreamError(
                grpc.StatusCode.FAILED_PRECONDITION, f"match {table.match_id} is over"
            )
        seat = table.seats[seat_no]
        assert seat is not None
        return seat

    def seat_of(self, credential: str, match_id: str) -> tuple[Table, int]:
        """The table and seat a credential opens (a Join, or a Watch of a seat's view):
        UNAUTHENTICATED when it is empty or opens no seat here, PERMISSION_DENIED when
        ``match_id`` is given and is not its match."""
        if not credential:
            raise StreamError(grpc.StatusCode.UNAUTHENTICATED, "missing credential: it is empty")
        with self._lock:
            found = self._credentials.get(credential)
        if found is None:
            raise StreamError(
                grpc.StatusCode.UNAUTHENTICATED, "unknown credential: it opens no seat here"
            )
        table, seat_no = found
        if match_id and match_id != table.match_id:
            raise StreamError(
                grpc.StatusCode.PERMISSION_DENIED,
                f"the credential is for match {table.match_id}, not {match_id}",
            )
        return table, seat_no

    def get(self, match_id: str) -> Table:
        with self._lock:
            table = self.tables.get(match_id)
        if table is None:
            raise StreamError(grpc.StatusCode.NOT_FOUND, f"no match {match_id!r} on this server")
        return table

    def list_page(self, size: int, token: str, status: int) -> tuple[list[Table], str]:
        """One page of ListMatches: up to ``size`` tables newest first (``status`` 0: any
        state), after the one ``token`` names; and the token of the next page ("" if
        none). A token is the ``Table.order`` of the last table of a page, so a page never
        repeats or skips a match when matches come or are forgotten meanwhile.
        O(tables log tables) a call: an admin call, over at most a few thousand tables."""
        if token and not (token.isascii() and token.isdigit()):
            raise StreamError(
                grpc.StatusCode.INVALID_ARGUMENT, "page_token is not a token ListMatches returned"
            )
        after = int(token) if token else None
        with self._lock:
            tables = list(self.tables.values())
        chosen = sorted(
            (
                t
                for t in tables
                if (not status or t.status == status) and (after is None or t.order < after)
            ),
            key=lambda t: t.order,
            reverse=True,
        )
        page = chosen[:size]
        return page, str(page[-1].order) if len(chosen) > size else ""

    def running(self) -> list[Table]:
        with self._lock:
            return [t for t in self._live.values() if not t.is_over()]

    def mark_finished(self, table: Table) -> None:
        with self._lock:
            self._joining.pop(table.match_id, None)
            if self._live.pop(table.match_id, None) is not None:
                self._finished_at[table.match_id] = time.monotonic()

    def _purge(self) -> None:
        """Forget matches finished more than keep_finished_s ago (lock held)."""
        horizon = time.monotonic() - self.config.keep_finished_s
        old = list(itertools.takewhile(lambda m: self._finished_at[m] < horizon, self._finished_at))
        for match_id in old:
            table = self.tables.pop(match_id, None)
            del self._finished_at[match_id]
            if table is not None:
                for credential in table.credentials.values():
                    self._credentials.pop(credential, None)
                table.forget()


def drive(table: Table, extra_step: StepHook | None = None) -> dict[str, Any]:
    """Play ``table``'s match (``Table.run``); returns the record (partial if aborted)."""

    def on_step(state: State, player: int, action: Action) -> None:
        if extra_step is not None:
            extra_step(state, player, action)
        table.on_step(state, player, action)

    table.wait_for_seats()
    try:
        # A step hook (e.g. ``arena play --show``) runs in the match thread, never in the
        # server's event loop: no inline continuation then.
        record = table.run(on_step, inline=extra_step is None)
    except MatchAborted:
        return table.abort(table.abort_reason, table.last_state)
    except Exception as exc:
        log.exception("match %s crashed", table.match_id)
        return table.abort(f"the match crashed: {type(exc).__name__}: {exc}", table.last_state)
    table.finish(record)
    return record
