"""``Outbox``: a stream's outbound queue (its own, not an ``asyncio.Queue``).

On a real event loop: messages come out in the order of the calls, whichever thread
makes them; a close comes after what was sent before it; a bounded outbox that fills
ends with RESOURCE_EXHAUSTED and drops what is queued; a writer whose wait is cancelled
loses nothing; a Turn for a waiting writer is written at once (``write_now``), and what
follows it waits for that write.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import grpc

from arena.server.streams import Close, Outbox

WAIT_S = 10.0


async def drain(outbox: Outbox) -> list[Any]:
    """Everything up to and including the Close marker."""
    out: list[Any] = []
    while True:
        item = await asyncio.wait_for(outbox.get(), WAIT_S)
        out.append(item)
        if isinstance(item, Close):
            return out


def test_order_across_threads_and_close_last() -> None:
    async def main() -> list[Any]:
        outbox = Outbox(asyncio.get_running_loop())
        outbox.send(b"a")
        sender = threading.Thread(target=lambda: [outbox.send(i) for i in range(50)])
        sender.start()
        await asyncio.to_thread(sender.join, WAIT_S)
        outbox.send(b"z")  # on the loop, behind the thread's messages
        outbox.close()
        outbox.send(b"late")  # after close: dropped
        return await drain(outbox)

    got = asyncio.run(main())
    assert got[0] == b"a" and got[1:51] == list(range(50)) and got[51] == b"z"
    assert got[52:] == [Close()]


def test_a_full_bounded_outbox_ends_the_stream() -> None:
    async def main() -> tuple[Outbox, list[Any]]:
        outbox = Outbox(asyncio.get_running_loop(), maxsize=3)
        for i in range(5):
            outbox.send(i)
        return outbox, await drain(outbox)

    outbox, got = asyncio.run(main())
    assert outbox.closed and "too slow" in outbox.close_reason
    assert got == [
        Close(grpc.StatusCode.RESOURCE_EXHAUSTED, "too slow: the outbound queue is full")
    ]


def test_a_cancelled_wait_loses_nothing() -> None:
    async def main() -> list[Any]:
        outbox = Outbox(asyncio.get_running_loop())
        waiting = asyncio.create_task(outbox.get())
        await asyncio.sleep(0)
        waiting.cancel()
        await asyncio.gather(waiting, return_exceptions=True)
        threading.Thread(target=outbox.send, args=(b"turn",)).start()
        first = await asyncio.wait_for(outbox.get(), WAIT_S)  # woken from the other thread
        outbox.close(grpc.StatusCode.ABORTED, "bye")
        return [first, *await drain(outbox)]

    assert asyncio.run(main()) == [b"turn", Close(grpc.StatusCode.ABORTED, "bye")]


async def settle() -> None:
    """A few loop iterations: the writer's wait (inside ``wait_for``) has begun."""
    for _ in range(5):
        await asyncio.sleep(0)


class Stream:
    """A stream's write as the Play handler hands it to ``Outbox.write_now``: each call
    is logged when it starts and completes when the test says (``finish``)."""

    def __init__(self) -> None:
        self.started: list[Any] = []
        self.pending: list[asyncio.Future[None]] = []

    async def write(self, item: Any) -> None:
        self.started.append(item)
        done = asyncio.get_running_loop().create_future()
        self.pending.append(done)
        await done

    def finish(self, error: Exception | None = None) -> None:
        done = self.pending.pop(0)
        if error is None:
            done.set_result(None)
        else:
            done.set_exception(error)


def test_a_turn_for_a_waiting_writer_is_written_at_once_and_order_is_kept() -> None:
    """A Turn sent on the loop while the writer waits starts its write inside ``send``
    (before the loop runs anything else); what is sent meanwhile waits for that write to
    complete and comes out after it, in order, the Close last."""

    async def main() -> tuple[list[Any], list[Any], list[Any]]:
        stream = Stream()
        outbox = Outbox(asyncio.get_running_loop())
        outbox.write_now = stream.write
        writer = asyncio.create_task(drain(outbox))
        await settle()  # the writer waits for work
        outbox.send(b"turn 1")
        at_send = list(stream.started)  # no loop iteration in between
        outbox.send(b"turn 2")
        outbox.send("an error message")
        outbox.close()
        await settle()
        assert not writer.done()  # held back while turn 1 is being written
        stream.finish()
        return at_send, stream.started, await writer

    at_send, started, drained = asyncio.run(main())
    assert at_send == [b"turn 1"] and started == [b"turn 1"]
    assert drained == [b"turn 2", "an error message", Close()]


def test_a_failed_write_ends_the_stream_and_a_cancelled_one_is_cancelled() -> None:
    async def main() -> tuple[Outbox, list[Any], bool]:
        stream = Stream()
        failing = Outbox(asyncio.get_running_loop())
        failing.write_now = stream.write
        writer = asyncio.create_task(drain(failing))
        await settle()
        failing.send(b"turn")
        stream.finish(ConnectionError("reset by peer"))
        drained = await writer
        cancelled = Outbox(asyncio.get_running_loop())
        cancelled.write_now = stream.write
        waiting = asyncio.create_task(cancelled.get())
        await settle()
        cancelled.send(b"turn")
        cancelled.cancel_write()
        await settle()
        waiting.cancel()
        return failing, drained, stream.pending[0].cancelled()

    failing, drained, write_cancelled = asyncio.run(main())
    assert failing.closed and failing.close_reason == "the stream failed: reset by peer"
    assert drained == [Close(None, "the stream failed: reset by peer")] and write_cancelled
