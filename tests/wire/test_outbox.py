"""``Outbox``: a stream's outbound queue (its own, not an ``asyncio.Queue``).

On a real event loop: messages come out in the order of the calls, whichever thread
makes them; a close comes after what was sent before it; a bounded outbox that fills
ends with RESOURCE_EXHAUSTED and drops what is queued; a writer whose wait is cancelled
loses nothing.
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
