"""A Unix-socket relay to a game server elsewhere: how a sandboxed bot, which has no
network, plays a match hosted by another process (a ladder's remote match on an
``arena serve`` somewhere).

The relay listens on a fresh Unix socket (:func:`arena.sandbox.socket_path`, in the
sandbox folder, reachable by the sandboxed uids) and copies bytes both ways between each
connection and one TCP connection to the game server. It does not look into them: the
bot still speaks gRPC to the server and still needs its seat's credential. Bounded: at
most :data:`MAX_CONNECTIONS` at once (a bot needs one), each pair closed when either side
closes; :meth:`UnixRelay.close` ends everything and removes the socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from typing import Any

MAX_CONNECTIONS = 4
"""Connections a relay carries at once (one bot: one channel; a few for reconnects)."""
CONNECT_TIMEOUT_S = 5.0
CHUNK = 65536


class UnixRelay:
    """Relays ``unix:<path>`` to ``target`` (``HOST:PORT``) until :meth:`close`."""

    def __init__(self, path: str, target: str) -> None:
        self.path = path
        host, _, port = target.rpartition(":")
        self._target = (host.strip("[]") or "127.0.0.1", int(port))
        self._loop = asyncio.new_event_loop()
        self._server: asyncio.AbstractServer | None = None
        self._open = 0
        self._tasks: set[asyncio.Task[Any]] = set()
        started = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            asyncio.set_event_loop(self._loop)
            try:
                self._server = self._loop.run_until_complete(
                    asyncio.start_unix_server(self._serve, path=path)
                )
                os.chmod(path, 0o666)  # sandboxed bots run as other uids
            except BaseException as exc:  # reported to the constructor's caller
                failure.append(exc)
                started.set()
                return
            started.set()
            self._loop.run_forever()

        self._thread = threading.Thread(target=run, name="sandbox-relay", daemon=True)
        self._thread.start()
        started.wait(CONNECT_TIMEOUT_S)
        if failure:
            raise failure[0]

    @property
    def address(self) -> str:
        """The gRPC address a bot is given."""
        return f"unix:{self.path}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        if self._open >= MAX_CONNECTIONS:
            writer.close()
            return
        self._open += 1
        try:
            up_r, up_w = await asyncio.wait_for(
                asyncio.open_connection(*self._target), CONNECT_TIMEOUT_S
            )
        except (OSError, TimeoutError):
            self._open -= 1
            writer.close()
            return
        try:
            await asyncio.gather(_pipe(reader, up_w), _pipe(up_r, writer))
        finally:
            self._open -= 1
            for w in (writer, up_w):
                w.close()
            if task is not None:
                self._tasks.discard(task)

    def close(self) -> None:
        """Stop relaying (open connections are cut) and remove the socket."""

        async def shut() -> None:
            if self._server is not None:
                self._server.close()
            for task in list(self._tasks):
                task.cancel()

        if self._thread.is_alive():
            with contextlib.suppress(RuntimeError, TimeoutError):
                asyncio.run_coroutine_threadsafe(shut(), self._loop).result(CONNECT_TIMEOUT_S)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(CONNECT_TIMEOUT_S)
        with contextlib.suppress(OSError):
            os.unlink(self.path)


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy ``reader`` to ``writer`` until end of stream (then half-close the writer)."""
    with contextlib.suppress(OSError, asyncio.CancelledError):
        while data := await reader.read(CHUNK):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()


__all__ = ["MAX_CONNECTIONS", "UnixRelay"]
