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


def test_cancelling_the_task_cancels_the_coroutine_and_its_wait() -> None:
    async def main() -> tuple[list[str], bool]:
        loop = asyncio.get_running_loop()
        log: list[str] = []
        never = loop.create_future()

        async def job() -> None:
            try:
                await never
            except asyncio.CancelledError:
                log.append("cancelled")
                raise

        task = start_now(job())
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return log, never.cancelled()

    assert asyncio.run(main()) == (["cancelled"], True)


def test_cancelled_before_its_task_ran_cancels_the_coroutine_too() -> None:
    """Cancelled in the same loop iteration that started it (before the task's first
    step): the coroutine still gets its CancelledError and its wait is cancelled."""

    async def main() -> tuple[list[str], bool, bool]:
        loop = asyncio.get_running_loop()
        log: list[str] = []
        never = loop.create_future()

        async def job() -> None:
            try:
                await never
            except asyncio.CancelledError:
                log.append("cancelled")
                raise

        task = start_now(job())
        task.cancel()
        for _ in range(3):  # the task's step, then its done callbacks
            await asyncio.sleep(0)
        return log, task.cancelled(), never.cancelled()

    assert asyncio.run(main()) == (["cancelled"], True, True)
