"""The server side of one open stream: an outbound queue fed from any thread.

A Play or Watch handler (a coroutine on the server's event loop) drains its stream's
queue; match threads push messages into it with :meth:`Outbox.send`, which is
thread-safe. :meth:`Outbox.close` ends the stream after the queued messages, with OK or
with an error status. Messages keep the order of the calls whichever thread makes them:
a call on the loop goes straight into the queue unless messages sent from other threads
are still on their way (then it queues behind them). A Play handler also gives its
outbox the stream's write (:attr:`Outbox.write_now`): a Turn sent on the loop while the
writer waits for work is written at once, by whoever sent it.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

import grpc

from arena.server.eager import start_now


class StreamError(Exception):
    """A problem that ends a stream with a gRPC status code and a message."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(f"{code.name}: {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Close:
    """Queue marker: end the stream (``code`` None: status OK)."""

    code: grpc.StatusCode | None = None
    message: str = ""


class Outbox:
    """The outbound side of a stream; ``send`` and ``close`` may be called from any thread."""

    def __init__(self, loop: asyncio.AbstractEventLoop, maxsize: int = 0) -> None:
        self.loop = loop
        self.maxsize = maxsize
        """At most this many messages wait for the stream's writer (0: no bound)."""
        self._items: deque[Any] = deque()
        """What waits for the stream's writer (:meth:`get`), in order."""
        self._waiter: asyncio.Future[None] | None = None
        """The writer's wait for the next item, while ``_items`` is empty. (Not an
        ``asyncio.Queue``: its ``get`` looks the running loop up, a ``getpid`` system call
        on every wait, i.e. on every Turn.)"""
        self.closed = False
        self.close_reason = ""
        self._backlog = 0
        """Messages scheduled with ``call_soon(_threadsafe)`` and not yet in the queue."""
        self._backlog_lock = threading.Lock()
        self.write_now: Callable[[Any], Coroutine[Any, Any, None]] | None = None
        """The stream's write (set by its handler). A Turn (``bytes``) queued on the loop
        while the writer waits for work is written at once through it
        (:func:`~arena.server.eager.start_now`): waking the writer would start the write
        only after every callback already ready on the loop, e.g. the rest of a batch of
        Moves."""
        self._writing: asyncio.Future[None] | None = None
        """That write, until it completes (the writer takes nothing from the queue
        meanwhile: messages keep their order)."""
        self._loop_thread = threading.get_ident() if self._loop_running_here() else None
        """The loop's thread, when the outbox is made on it (as the handlers make theirs):
        then a send checks the thread id, not ``asyncio.get_running_loop()`` (which
        makes a ``getpid`` system call on every send)."""

    def _loop_running_here(self) -> bool:
        try:
            return asyncio.get_running_loop() is self.loop
        except RuntimeError:
            return False

    def _in_loop(self) -> bool:
        if self._loop_thread is not None:
            return threading.get_ident() == self._loop_thread
        return self._loop_running_here()

    def send(self, message: Any) -> None:
        if self.closed:
            return
        self._deliver(self._put, message)

    def _deliver(self, put: Any, item: Any) -> None:
        in_loop = self._in_loop()
        if in_loop and not self._backlog:
            put(item)
            return
        with self._backlog_lock:
            self._backlog += 1
        if in_loop:
            self.loop.call_soon(self._scheduled, put, item)
        else:
            self.loop.call_soon_threadsafe(self._scheduled, put, item)

    def _scheduled(self, put: Any, item: Any) -> None:
        with self._backlog_lock:
            self._backlog -= 1
        put(item)

    def close(self, code: grpc.StatusCode | None = None, message: str = "") -> None:
        """End the stream after what is queued (an error status skips the queue)."""
        if self.closed:
            return
        self.closed = True
        self.close_reason = message or "closed by the server"
        self._deliver(self._put_marker, Close(code, message))

    async def get(self) -> Any:
        """The next message or :class:`Close` marker, in order (the stream's writer: one
        caller at a time, on the loop)."""
        items = self._items
        while not items or self._writing is not None:
            waiter = self.loop.create_future()
            self._waiter = waiter
            await waiter
        return items.popleft()

    def cancel_write(self) -> None:
        """Cancel a write started by :attr:`write_now` (the stream's handler is ending)."""
        if self._writing is not None:
            self._writing.cancel()

    def _full(self) -> bool:
        return 0 < self.maxsize <= len(self._items)

    def _append(self, item: Any) -> None:
        if (
            type(item) is bytes
            and self.write_now is not None
            and self._waiter is not None
            and not self._waiter.done()
            and self._writing is None
            and not self._items
        ):  # the writer waits for work: write now, on the loop (see ``write_now``)
            self._writing = start_now(self.write_now(item))
            self._writing.add_done_callback(self._written)
            return
        self._items.append(item)
        if self._writing is None:
            self._wake()

    def _wake(self) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _written(self, write: asyncio.Future[None]) -> None:
        self._writing = None
        if not write.cancelled() and write.exception() is not None:
            self.close(None, f"the stream failed: {write.exception()}")
        if self._items:
            self._wake()

    def _put(self, message: Any) -> None:
        # No `closed` check: a message sent before close() is delivered before the marker.
        if not self._full():
            self._append(message)
            return
        if self.closed:
            return
        self.closed = True
        self.close_reason = "the receiver is too slow (outbound queue full)"
        self._put_marker(
            Close(grpc.StatusCode.RESOURCE_EXHAUSTED, "too slow: the outbound queue is full")
        )

    def _put_marker(self, marker: Close) -> None:
        # A marker must get through even when the queue is full: drop what is queued.
        if marker.code is not None or self._full():
            self._items.clear()
        self._append(marker)


class TokenBucket:
    """Rate limit: ``rate`` tokens per second, at most ``burst`` saved up.

    >>> bucket = TokenBucket(rate=0.0, burst=2)
    >>> [bucket.take() for _ in range(3)]
    [True, True, False]
    """

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False
