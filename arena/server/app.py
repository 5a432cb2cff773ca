"""``GameServer``: the gRPC game server, embeddable (port 0) or run by ``arena serve``.

The server runs a ``grpc.aio`` server on its own event-loop thread and serves
``menagerie.v1.GameService``, standard ``grpc.health.v1`` health and server reflection
(grpcurl-compatible, ``grpc.reflection.v1`` and ``v1alpha``). Matches it hosts
(``create_match``, or the CreateMatch RPC) cost a table and nothing else while their
seats are joining: a thread drives a match (``hub.drive``) only once every remote seat
has joined, or at the join timeout if some have; a hosted match that no seat joined
within the join timeout is aborted and recorded without ever having had a thread (a
timer on the event loop). So a flood of CreateMatch calls costs memory bounded by
``ServerConfig.max_pending`` / ``max_matches`` (RESOURCE_EXHAUSTED beyond), never the
event loop's time. Tables opened with ``open_table`` are driven by the caller
(``arena.match.cmdbots``).

Graceful shutdown (``stop``): health turns NOT_SERVING first and new matches are
refused (UNAVAILABLE); in-flight matches (joining or running) get ``grace_s`` to finish;
the rest are aborted, and every hosted match's record — finished or partial — is handed
to ``on_record`` exactly once, never dropped. ``stop`` returns within ``grace_s`` plus
about ``ABORT_WAIT_S + 15`` s whatever the load, and raises nothing: a step that does not
complete in its bound is logged and skipped.

>>> with GameServer() as server:
...     server.port > 0
True
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import gc
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer

from arena.match.records import dumps_line
from arena.match.runner import Bot, MatchConfig, MatchSpec, StepHook
from arena.server.hub import GC_PACE_S, Hub, ServerConfig, drive
from arena.server.probe import LoadProbe
from arena.server.reflection import enable_reflection
from arena.server.service import SERVICE, GameService, handler
from arena.server.table import Table

log = logging.getLogger("arena.server")

RecordSink = Callable[[dict[str, Any]], None]

ABORT_WAIT_S = 5.0
"""At shutdown, how long the drivers of aborted matches get to hand over their partial
records before the server writes them itself."""


class RecordJournal:
    """Appends finished records to a JSONL file, aborted ones to ``<name>.aborted.jsonl``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.aborted_path = path.with_name(f"{path.stem}.aborted{path.suffix or '.jsonl'}")
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)

    def __call__(self, record: dict[str, Any]) -> None:
        target = self.aborted_path if record.get("aborted") else self.path
        line = dumps_line(record) + "\n"
        with self._lock, target.open("a") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())


class ServerError(RuntimeError):
    """The server cannot start (e.g. the port is taken)."""


class GameServer:
    """The game server; ``start`` returns the bound port (0 asks for a free one)."""

    def __init__(
        self,
        config: ServerConfig | None = None,
        on_record: RecordSink | None = None,
        extra_handlers: Sequence[grpc.GenericRpcHandler] = (),
        reflect: Sequence[str] = (),
    ) -> None:
        self.config = config or ServerConfig()
        self._extra_handlers = tuple(extra_handlers)
        self.reflected = tuple(reflect)
        """Full names of the extra handlers' services that reflection lists (their
        descriptors must be in the default pool, as generated ``_pb2`` modules put them)."""
        self.hub = Hub(self.config)
        self.on_record = on_record
        self.host = "127.0.0.1"
        self.port = 0
        self.unix_path: str | None = None
        """A Unix socket the server also listens on (``start(unix_path=...)``): how
        sandboxed command bots, which have no network, reach it."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: threading.Thread | None = None
        self._gc_freeze_at = 0.0
        self._gc_full_at = 0.0
        """(event loop) When the paced collector next freezes, and next collects everything."""
        self._server: grpc.aio.Server | None = None
        self._health: HealthServicer | None = None
        self._threads: dict[str, threading.Thread] = {}
        self._threads_lock = threading.Lock()
        self._hosted: dict[str, Table] = {}
        """Hosted matches whose record has not been handed to ``on_record`` yet."""
        self._background = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="game-server-records"
        )
        """Writes the records of matches aborted on the event loop (join timeouts)."""
        self._starter = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="game-server-starter"
        )
        """Starts match threads. ``Thread.start`` waits until the new thread runs, which on
        a busy machine takes from a fraction of a millisecond to several; the last Join of
        a match arrives on the event loop, which must not wait for that."""
        self.stopped = threading.Event()
        self.probe: LoadProbe | None = None
        """The load probe, when ``config.probe_path`` is set (started with the server)."""

    # -- life cycle ---------------------------------------------------------------------

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def start(self, host: str = "127.0.0.1", port: int = 0, unix_path: str | None = None) -> int:
        if self._loop is not None:
            raise ServerError("the server is already started")
        if self.config.switch_interval_s:
            sys.setswitchinterval(self.config.switch_interval_s)
        loop = asyncio.new_event_loop()
        self._loop = loop
        self._loop_thread = threading.Thread(
            target=loop.run_forever, name="game-server-loop", daemon=True
        )
        self._loop_thread.start()
        try:
            self.port = self._call(self._start(host, port, unix_path), timeout=30)
        except BaseException:
            loop.call_soon_threadsafe(loop.stop)
            self._loop_thread.join(5)
            self._loop = None
            raise
        self.host = host
        self.unix_path = unix_path
        if unix_path is not None:  # sandboxed bots run as other uids; a credential is still needed
            os.chmod(unix_path, 0o666)
        if self.config.gc_threshold is not None:
            gc.freeze()
            gc.set_threshold(*self.config.gc_threshold)
            self._gc_freeze_at = time.monotonic() + self.config.gc_freeze_s
            self._gc_full_at = time.monotonic() + self.config.gc_full_s
            loop.call_soon_threadsafe(self._pace_collector)
        return self.port

    def _gauges(self) -> dict[str, float]:
        """The probe's levels: matches hosted and not yet recorded (joining, running, or
        finishing: e.g. played out after their bots left), and match threads alive."""
        with self._threads_lock:
            return {"hosted_matches": len(self._hosted), "match_threads": len(self._threads)}

    def _pace_collector(self) -> None:
        """A young collection now, and again in :data:`GC_PACE_S` (on the loop, until it
        stops); the middle generation instead when its count has reached its threshold, as
        the automatic trigger would choose. Every ``gc_freeze_s`` the survivors are frozen,
        and every ``gc_full_s`` everything is collected once (see ``ServerConfig``)."""
        now = time.monotonic()
        if now >= self._gc_full_at:
            gc.unfreeze()
            gc.collect()
            gc.freeze()
            self._gc_full_at = now + self.config.gc_full_s
            self._gc_freeze_at = now + self.config.gc_freeze_s
        else:
            gc.collect(1 if gc.get_count()[1] >= gc.get_threshold()[1] else 0)
            if now >= self._gc_freeze_at:
                gc.freeze()
                self._gc_freeze_at = now + self.config.gc_freeze_s
        assert self._loop is not None
        self._loop.call_later(GC_PACE_S, self._pace_collector)

    async def _start(self, host: str, port: int, unix_path: str | None = None) -> int:
        server = grpc.aio.server(options=server_options(self.config))
        server.add_generic_rpc_handlers((handler(GameService(self.hub, self._host_table)),))
        if self._extra_handlers:
            server.add_generic_rpc_handlers(self._extra_handlers)
        health = HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(health, server)
        names = (SERVICE, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name)
        enable_reflection((*names, *self.reflected), server)
        try:
            bound = server.add_insecure_port(f"{host}:{port}")
        except RuntimeError as exc:
            raise ServerError(f"cannot listen on {host}:{port}: {exc}") from None
        if bound == 0:
            raise ServerError(f"cannot listen on {host}:{port} (in use or not a local address)")
        if unix_path is not None and not server.add_insecure_port(f"unix:{unix_path}"):
            raise ServerError(f"cannot listen on the Unix socket {unix_path}")
        await server.start()
        await health.set("", health_pb2.HealthCheckResponse.SERVING)
        await health.set(SERVICE, health_pb2.HealthCheckResponse.SERVING)
        self._server = server
        self._health = health
        if self.config.probe_path is not None:
            self.probe = LoadProbe()
            self.probe.gauges = self._gauges
            self.probe.start()
            self.probe.write_every(Path(self.config.probe_path))
        return bound

    def _call(self, coro: Any, timeout: float | None = None) -> Any:
        assert self._loop is not None
        future: Future[Any] = asyncio.run_coroutine_threadsafe(coro, self._loop)
        return future.result(timeout)

    def _call_quietly(self, coro: Any, timeout: float, what: str) -> None:
        """``_call`` for a shutdown step: a step that fails or overruns is logged, not raised."""
        try:
            self._call(coro, timeout)
        except (concurrent.futures.TimeoutError, TimeoutError):
            log.warning("shutdown: %s did not complete within %g s", what, timeout)
        except Exception as exc:
            log.warning("shutdown: %s failed: %s: %s", what, type(exc).__name__, exc)

    def stop(self, grace_s: float = 10.0) -> list[Table]:
        """Graceful shutdown; returns the tables that had to be aborted (bounded: see the
        module docstring)."""
        if self._loop is None or self.stopped.is_set():
            return []
        self.hub.accepting = False
        if self._health is not None:
            self._call_quietly(self._health.enter_graceful_shutdown(), 5, "health NOT_SERVING")
        deadline = time.monotonic() + grace_s
        for table in self.hub.running():
            table.done.wait(max(0.0, deadline - time.monotonic()))
        aborted = self.hub.running()
        reason = f"the server shut down (grace period of {grace_s:g} s expired)"
        for table in aborted:
            table.request_abort(reason)
            if self._is_hosted(table) and table.claim_start():  # never driven: no thread
                self._abort_unplayed(table, reason)
        wait_until = time.monotonic() + ABORT_WAIT_S
        for table in aborted:
            table.done.wait(max(0.0, wait_until - time.monotonic()))
        self._starter.shutdown(wait=True)  # every thread it was handed has started
        with self._threads_lock:
            threads = list(self._threads.values())
        for thread in threads:
            if thread.ident is not None:  # (one being started right now is waited for below)
                thread.join(max(0.0, wait_until - time.monotonic()))
        with self._threads_lock:
            stuck = list(self._hosted.values())
        for table in stuck:  # its driver did not hand over a record in time
            log.warning("shutdown: match %s did not stop in time; recording it", table.match_id)
            self._deliver(table, table.abort(reason, table.last_state))
        self._background.shutdown(wait=True)
        if self._server is not None:
            self._call_quietly(self._server.stop(1.0), 10, "the gRPC server's stop")
        if self.probe is not None:
            self._loop.call_soon_threadsafe(self.probe.stop)
        self._loop.call_soon_threadsafe(self._loop.stop)
        if self._loop_thread is not None:
            self._loop_thread.join(5)
        if self._loop_thread is None or not self._loop_thread.is_alive():
            self._loop.close()
        if self.unix_path is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.unix_path)
        self.stopped.set()
        return aborted

    def wait(self) -> None:
        """Block until ``stop`` has completed (used by ``arena serve``)."""
        self.stopped.wait()

    def __enter__(self) -> GameServer:
        if self._loop is None:
            self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop(grace_s=0.0)

    # -- matches ----------------------------------------------------------------------

    def open_table(
        self,
        spec: MatchSpec,
        config: MatchConfig,
        names: Sequence[str],
        remote: Sequence[bool],
        in_process: Mapping[int, Bot] | None = None,
    ) -> Table:
        """A table the caller drives (``arena.server.hub.drive``); then ``release`` it."""
        return self.hub.open_table(spec, config, names, remote, in_process)

    def release(self, table: Table) -> None:
        """A caller-driven table is over (finished or aborted): it may be forgotten later."""
        self.hub.mark_finished(table)

    def create_match(
        self,
        spec: MatchSpec,
        config: MatchConfig,
        names: Sequence[str] | None = None,
        in_process: Mapping[int, Bot] | None = None,
        extra_step: StepHook | None = None,
    ) -> Table:
        """A match hosted by the server: every seat without an in-process bot is remote.
        It is driven once every remote seat has joined (see the module docstring); the
        server must be started. Raises ``StreamError`` (RESOURCE_EXHAUSTED) at the
        ``max_matches``/``max_pending`` limits, (UNAVAILABLE) while shutting down."""
        names = list(names or [f"seat{s}" for s in range(spec.num_players)])
        bots = dict(in_process or {})
        remote = [s not in bots for s in range(spec.num_players)]
        table = self.hub.open_table(spec, config, names, remote, bots)
        self._host_table(table, extra_step)
        return table

    def _host_table(self, table: Table, extra_step: StepHook | None = None) -> None:
        """Host ``table`` (any thread): driven once every seat has joined (``on_seated``),
        or settled at the join timeout (a timer on the event loop)."""
        with self._threads_lock:
            self._hosted[table.match_id] = table

        def seated() -> None:
            if table.claim_start():
                self._start_driver(table, extra_step)

        table.on_seated = seated
        table.seat_joined()  # every seat already joined (or none is remote): start now
        loop = self._loop
        assert loop is not None, "the server is not started"
        delay = max(0.0, table.created + self.config.join_timeout_s - time.monotonic())
        loop.call_soon_threadsafe(loop.call_later, delay, self._join_deadline, table, extra_step)

    def _is_hosted(self, table: Table) -> bool:
        with self._threads_lock:
            return table.match_id in self._hosted

    def _join_deadline(self, table: Table, extra_step: StepHook | None) -> None:
        """(event loop) The join timeout of a hosted match: drive it if a seat joined (the
        others fail with ``disconnect``), else abort it without a thread."""
        if table.is_over() or not table.claim_start():
            return
        if any(seat is not None and seat.ever_joined for seat in table.seats):
            self._start_driver(table, extra_step)
            return
        reason = f"no seat joined within the join timeout ({self.config.join_timeout_s:g} s)"
        with contextlib.suppress(RuntimeError):  # (shutting down: ``stop`` records it)
            self._background.submit(self._abort_unplayed, table, reason)

    def _abort_unplayed(self, table: Table, reason: str) -> None:
        table.request_abort(reason)
        self._deliver(table, table.abort(reason))

    def _start_driver(self, table: Table, extra_step: StepHook | None) -> None:
        """Drive ``table`` in a thread of its own, started by ``_starter`` (any thread)."""
        thread = threading.Thread(
            target=self._play, args=(table, extra_step), name=f"match-{table.match_id}", daemon=True
        )
        with self._threads_lock:
            self._threads[table.match_id] = thread
        try:
            self._starter.submit(thread.start)
        except RuntimeError:  # (``stop`` has closed the starter: start it here)
            thread.start()

    def _play(self, table: Table, extra_step: StepHook | None) -> None:
        try:
            self._deliver(table, drive(table, extra_step))
        finally:
            with self._threads_lock:
                self._threads.pop(table.match_id, None)

    def _deliver(self, table: Table, record: dict[str, Any]) -> None:
        """Hand the record of a hosted match to ``on_record``, once (the first call wins)."""
        with self._threads_lock:
            if self._hosted.pop(table.match_id, None) is None:
                return
        try:
            if self.on_record is not None:
                self.on_record(record)
        except Exception:
            log.exception("writing the record of match %s failed", table.match_id)
        finally:
            self.hub.mark_finished(table)


def server_options(config: ServerConfig) -> list[tuple[str, int]]:
    """The grpc core options of the game server: message size, keepalive and the
    per-connection limits of ``ServerConfig`` (see its fields)."""
    return [
        ("grpc.max_receive_message_length", config.max_message_kb * 1024),
        ("grpc.so_reuseport", 0),
        # Detect dead connections (a vanished bot frees its seat for a rejoin) and
        # let clients ping every 10 s without being told "too many pings".
        ("grpc.keepalive_time_ms", 30_000),
        ("grpc.keepalive_timeout_ms", 10_000),
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
        ("grpc.max_concurrent_streams", config.max_streams_per_connection),
        ("grpc.server.max_pending_requests", config.max_queued_calls),
        ("grpc.server.max_pending_requests_hard_limit", config.max_queued_calls),
        ("grpc.max_connection_idle_ms", int(config.idle_connection_s * 1000)),
        ("grpc.server_handshake_timeout_ms", int(config.handshake_timeout_s * 1000)),
    ]
