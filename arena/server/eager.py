"""``start_now``: run a coroutine up to its first wait in the caller's step.

What ``asyncio.eager_task_factory`` does from Python 3.12, for one coroutine on 3.11: a
task made with ``create_task`` takes its first step at the loop's next iteration, after
every callback already ready in this one. On a server that handles a batch of Moves per
iteration, a Turn handed to its stream's writer that way waits for every other Move of
the batch (``MoveTimes`` in a server under 1,000 matches: that hop took a median of
100-350 us and a p99 of 0.7-7 ms); started now, the write leaves at once and only its
completion waits.

The coroutine runs as a task would run it: it is resumed with ``send(None)`` once the
future it waits for is done (``Future.__await__`` then returns the result or raises
inside it), a bare ``yield`` (``asyncio.sleep(0)``) is one loop iteration, and
cancelling the returned task throws ``CancelledError`` into it.

>>> async def two_steps(log: list[str]) -> str:
...     log.append("first")
...     await asyncio.sleep(0)
...     log.append("second")
...     return "done"
>>> async def main() -> list[str]:
...     log: list[str] = []
...     task = start_now(two_steps(log))
...     log.append("caller")
...     log.append(await task)
...     return log
>>> asyncio.run(main())
['first', 'caller', 'second', 'done']
"""

from __future__ import annotations

import asyncio
import functools
import types
from collections.abc import Coroutine, Generator
from typing import Any, TypeVar

T = TypeVar("T")


def start_now(coro: Coroutine[Any, Any, T]) -> asyncio.Future[T]:
    """Run ``coro`` now up to its first wait (on the running loop), the rest in a task:
    the future of its result."""
    loop = asyncio.get_running_loop()
    try:
        first = coro.send(None)
    except StopIteration as done:
        finished: asyncio.Future[T] = loop.create_future()
        finished.set_result(done.value)
        return finished
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # (the future carries it, as a task's would)
        failed: asyncio.Future[T] = loop.create_future()
        failed.set_exception(exc)
        return failed
    resumed: list[bool] = []
    task = loop.create_task(_resume(coro, first, resumed))
    task.add_done_callback(functools.partial(_cancelled_early, coro, first, resumed))
    return task


def _cancelled_early(
    coro: Coroutine[Any, Any, Any], waiting: Any, resumed: list[bool], task: asyncio.Future[Any]
) -> None:
    """A task cancelled before its first step never ran ``_resume``: cancel the wait and
    the coroutine as that step would have."""
    if resumed or not task.cancelled():
        return
    if waiting is not None:
        waiting.cancel()
    try:
        coro.throw(asyncio.CancelledError())
    except BaseException:  # (the task is cancelled whatever it raised)
        return
    coro.close()  # it caught the cancellation and waited again: it runs no further


async def _resume(coro: Coroutine[Any, Any, T], waiting: Any, resumed: list[bool]) -> T:
    """Drive ``coro`` on from the wait it yielded (``waiting``) to its end; marks
    ``resumed`` when it starts."""
    resumed.append(True)
    while True:
        cancelled = False
        try:
            if waiting is None:  # a bare yield: one loop iteration
                await asyncio.sleep(0)
            else:
                await _done(waiting)
        except asyncio.CancelledError:  # this task was cancelled: so is the coroutine
            cancelled = True
        try:
            waiting = coro.throw(asyncio.CancelledError()) if cancelled else coro.send(None)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]


@types.coroutine
def _done(future: asyncio.Future[Any]) -> Generator[Any, None, None]:
    """Wait until ``future`` is done without taking its result: the coroutine that waited
    for it takes it (or its exception) when it is resumed."""
    if not future.done():
        future._asyncio_future_blocking = True
        yield future
