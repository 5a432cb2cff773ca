"""``start_now``: a coroutine's first step runs in the caller's, the rest as a task runs
it (results, exceptions and cancellation reach it as they would in a task)."""

from __future__ import annotations

import asyncio

import pytest

from arena.server.eager import start_now


def test_results_exceptions_and_waits_reach_the_coroutine() -> None:
    async def main() -> list[object]:
        loop = asyncio.get_running_loop()
        log: list[object] = []
        ready = loop.create_future()

        async def job() -> str:
            log.append("started")
            try:
                log.append(await ready)
                await asyncio.sleep(0)
                await loop.run_in_executor(None, lambda: None)
                raise ValueError("bad move")
            finally:
                log.append("cleaned up")

        task = start_now(job())
        log.append("caller")
        ready.set_result("value")
        with pytest.raises(ValueError, match="bad move"):
            await task
        return log

    assert asyncio.run(main()) == ["started", "caller", "value", "cleaned up"]


def test_a_coroutine_that_never_waits_and_one_that_fails_at_once() -> None:
    async def main() -> tuple[asyncio.Future[int], asyncio.Future[int]]:
        async def quick() -> int:
            return 7

        async def broken() -> int:
            raise KeyError("seat")

        return start_now(quick()), start_now(broken())

    quick, broken = asyncio.run(main())
    assert quick.result() == 7
    assert isinstance(broken.exception(), KeyError)


async def wait_cancellable(never: asyncio.Future[None], log: list[str]) -> None:
    """Waits for ``never``; logs the cancellation it gets instead."""
    try:
        await never
    except asyncio.CancelledError:
        log.append("cancelled")
        raise


@pytest.mark.parametrize("early", [False, True])
def test_cancelling_the_task_cancels_the_coroutine_and_its_wait(early: bool) -> None:
    """Cancelled once its task runs, or in the same loop iteration that started it
    (``early``: before the task's first step): the coroutine gets its CancelledError and
    the future it waits for is cancelled."""

    async def main() -> tuple[list[str], bool, bool]:
        log: list[str] = []
        never: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        task = start_now(wait_cancellable(never, log))
        if not early:
            await asyncio.sleep(0)
        task.cancel()
        for _ in range(3):  # the task's step, then its done callbacks
            await asyncio.sleep(0)
        return log, task.cancelled(), never.cancelled()

    assert asyncio.run(main()) == (["cancelled"], True, True)
