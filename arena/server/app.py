"""``GameServer``: the gRPC game server, embeddable (port 0) or run by ``arena serve``.

The server runs a ``grpc.aio`` server on its own event-loop thread and serves
``menagerie.v1.GameService``, standard ``grpc.health.v1`` health and server reflection
(grpcurl-compatible). Matches it hosts (``create_match``, or the CreateMatch RPC) are
played by ``arena.match.play_match`` in one thread each; tables opened with
``open_table`` are driven by the caller (``arena.match.cmdbots``).

Graceful shutdown (``stop``): health turns NOT_SERVING first and new matches are
refused (UNAVAILABLE); in-flight matches get ``grace_s`` to finish; the rest are aborted
and their partial records handed to ``on_record`` like finished ones, never dropped.

>>> with GameServer() as server:
...     server.port > 0
True
"""

from __future__ import annotations

import asyncio
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
from grpc_reflection.v1alpha import reflection

from arena.match.records import dumps_line
from arena.match.runner import Bot, MatchConfig, MatchSpec, StepHook
from arena.server.hub import Hub, ServerConfig, drive
from arena.server.service import SERVICE, GameService, handler
from arena.server.table import Table

log = logging.getLogger("arena.server")

RecordSink = Callable[[dict[str, Any]], None]


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
    ) -> None:
        self.config = config or ServerConfig()
        self._extra_handlers = tuple(extra_handlers)
        self.hub = Hub(self.config)
        self.on_record = on_record
        self.host = "127.0.0.1"
        self.port = 0
        self.unix_path: str | None = None
        """A Unix socket the server also listens on (``start(unix_path=...)``): how
        sandboxed command bots, which have no network, reach it."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: threading.Thread | None = None
        self._server: grpc.aio.Server | None = None
        self._health: HealthServicer | None = None
        self._threads: dict[str, threading.Thread] = {}
        self._threads_lock = threading.Lock()
        self.stopped = threading.Event()

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
        return self.port

    async def _start(self, host: str, port: int, unix_path: str | None = None) -> int:
        limit = self.config.max_message_kb * 1024
        server = grpc.aio.server(
            options=[
                ("grpc.max_receive_message_length", limit),
                ("grpc.so_reuseport", 0),
                # Detect dead connections (a vanished bot frees its seat for a rejoin) and
                # let clients ping every 10 s without being told "too many pings".
                ("grpc.keepalive_time_ms", 30_000),
                ("grpc.keepalive_timeout_ms", 10_000),
                ("grpc.keepalive_permit_without_calls", 1),
                ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
            ]
        )
        server.add_generic_rpc_handlers((handler(GameService(self.hub, self._host_table)),))
        if self._extra_handlers:
            server.add_generic_rpc_handlers(self._extra_handlers)
        health = HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(health, server)
        names = (SERVICE, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name)
        reflection.enable_server_reflection((*names, reflection.SERVICE_NAME), server)
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
        return bound

    def _call(self, coro: Any, timeout: float | None = None) -> Any:
        assert self._loop is not None
        future: Future[Any] = asyncio.run_coroutine_threadsafe(coro, self._loop)
        return future.result(timeout)

    def stop(self, grace_s: float = 10.0) -> list[Table]:
        """Graceful shutdown; returns the tables that had to be aborted."""
        if self._loop is None or self.stopped.is_set():
            return []
        self.hub.accepting = False
        if self._health is not None:
            self._call(self._health.enter_graceful_shutdown(), timeout=5)
        deadline = time.monotonic() + grace_s
        for table in self.hub.running():
            table.done.wait(max(0.0, deadline - time.monotonic()))
        aborted = [t for t in self.hub.running()]
        for table in aborted:
            table.request_abort(f"the server shut down (grace period of {grace_s:g} s expired)")
        for table in aborted:
            table.done.wait(10)
        with self._threads_lock:
            threads = list(self._threads.values())
        for thread in threads:
            thread.join(5)
        if self._server is not None:
            self._call(self._server.stop(1.0), timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        if self._loop_thread is not None:
            self._loop_thread.join(10)
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
        """A match hosted by the server: every seat without an in-process bot is remote."""
        names = list(names or [f"seat{s}" for s in range(spec.num_players)])
        bots = dict(in_process or {})
        remote = [s not in bots for s in range(spec.num_players)]
        table = self.hub.open_table(spec, config, names, remote, bots)
        self._host_table(table, extra_step)
        return table

    def _host_table(self, table: Table, extra_step: StepHook | None = None) -> None:
        thread = threading.Thread(
            target=self._play, args=(table, extra_step), name=f"match-{table.match_id}", daemon=True
        )
        with self._threads_lock:
            self._threads[table.match_id] = thread
        thread.start()

    def _play(self, table: Table, extra_step: StepHook | None) -> None:
        try:
            record = drive(table, extra_step)
            if self.on_record is not None:
                try:
                    self.on_record(record)
                except Exception:
                    log.exception("writing the record of match %s failed", table.match_id)
        finally:
            self.hub.mark_finished(table)
            with self._threads_lock:
                self._threads.pop(table.match_id, None)
