"""The arena's clock on in-process bots: a decision that runs past its deadline is
stopped, so a bot stuck in a loop costs its seat a ``timeout`` instead of stalling the
match, the Ray task and the tournament.

A decision runs in the match's own thread (no thread switch per move: a move of a
random bot takes microseconds). One watchdog thread per process looks at the decision
in progress; when its deadline passes it raises :class:`DecisionTimeout` inside the
decision's thread (``PyThreadState_SetAsyncExc``), which stops Python code at its next
bytecode, however deep the loop. ``DecisionTimeout`` derives from ``BaseException`` so
that a bot's ``except Exception`` does not swallow it.

Code that never returns to the interpreter (a C call that blocks or loops) cannot be
stopped that way. If a decision is still running :data:`STUCK_GRACE_S` after its
deadline, the process is beyond repair: the watchdog calls the process's
:func:`set_stuck_handler` (a Ray worker exits, so Ray replaces the worker and retries
its task; see ``arena.tournament.ray_runner``), or logs an error.
"""

from __future__ import annotations

import ctypes
import logging
import threading
import time
from collections.abc import Callable
from typing import TypeVar

log = logging.getLogger(__name__)
T = TypeVar("T")
A = TypeVar("A")

POLL_S = 0.02
"""How often the watchdog looks at the decision in progress (it sleeps when there is none)."""
STUCK_GRACE_S = 5.0
"""How long after its deadline a decision that ignored DecisionTimeout may still run."""


class DecisionTimeout(BaseException):  # raised into a bot, read as "timeout"
    """Raised inside a bot whose decision ran past the arena's deadline."""


_SET_ASYNC_EXC = ctypes.pythonapi.PyThreadState_SetAsyncExc
_SET_ASYNC_EXC.restype = ctypes.c_int


def _raise_in(thread_id: int, exc: type[BaseException] | None) -> None:
    """Make ``exc`` pending in a thread (None: withdraw a pending one; ctypes passes NULL)."""
    _SET_ASYNC_EXC(ctypes.c_ulong(thread_id), None if exc is None else ctypes.py_object(exc))


REFIRE_S = 0.1
"""A bot that swallows DecisionTimeout (a bare ``except``) gets it again this often."""


class _Decision:
    __slots__ = ("deadline", "fired", "last_fired", "stuck_reported", "thread_id")

    def __init__(self, thread_id: int, deadline: float) -> None:
        self.thread_id = thread_id
        self.deadline = deadline
        self.fired = False
        self.last_fired = 0.0
        self.stuck_reported = False


class Watchdog:
    """Deadlines of the decisions in progress (one per thread), enforced by one thread."""

    def __init__(self, stuck_grace_s: float = STUCK_GRACE_S) -> None:
        self.stuck_grace_s = stuck_grace_s
        """How long past its deadline a decision may run before the process is "stuck"."""
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._idle = False
        self._decisions: dict[int, _Decision] = {}
        self._thread: threading.Thread | None = None
        self.on_stuck: Callable[[str], None] | None = None

    def start(self, limit_s: float) -> None:
        """A decision of at most ``limit_s`` begins in this thread (cheap: a lock and a
        dict entry; the watchdog is woken only when it sleeps for lack of decisions)."""
        ident = threading.get_ident()
        decision = _Decision(ident, time.monotonic() + limit_s)
        with self._lock:
            self._decisions[ident] = decision
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="arena-clock", daemon=True)
                self._thread.start()
        if self._idle:
            self._wake.set()

    def pending(self) -> int:
        """How many decisions are in progress (a test's check that none is left over)."""
        with self._lock:
            return len(self._decisions)

    def stop(self) -> None:
        """The decision of this thread is over; a DecisionTimeout not yet raised is withdrawn."""
        ident = threading.get_ident()
        with self._lock:
            decision = self._decisions.pop(ident, None)
            if decision is not None and decision.fired:
                _raise_in(ident, None)

    def _run(self) -> None:
        while True:
            self._idle = True  # before looking: a start() from now on wakes us
            with self._lock:
                empty = not self._decisions
            if empty:
                self._wake.wait()
                self._wake.clear()
                self._idle = False
                continue
            self._idle = False
            with self._lock:
                now = time.monotonic()
                for d in list(self._decisions.values()):
                    if now < d.deadline:
                        continue
                    if now >= d.last_fired + REFIRE_S:
                        d.fired = True
                        d.last_fired = now
                        _raise_in(d.thread_id, DecisionTimeout)
                    if not d.stuck_reported and now >= d.deadline + self.stuck_grace_s:
                        d.stuck_reported = True
                        self._stuck(d)
            time.sleep(POLL_S)

    def _stuck(self, decision: _Decision) -> None:
        why = (
            f"an in-process bot's decision (thread {decision.thread_id}) is still running "
            f"{self.stuck_grace_s:g} s past its deadline: it does not return to the interpreter"
        )
        log.error("%s", why)
        handler = self.on_stuck
        if handler is not None:
            handler(why)


WATCHDOG = Watchdog()
"""The process's watchdog."""


def clocked(limit_s: float, decide: Callable[[A], T], arg: A, watchdog: Watchdog = WATCHDOG) -> T:
    """``decide(arg)`` in this thread, stopped by DecisionTimeout after ``limit_s``.

    The deadline is withdrawn whatever happens, even when the DecisionTimeout arrives
    while it is being withdrawn (an asynchronous exception can land between any two
    bytecodes), so no stale deadline outlives the decision.
    """
    watchdog.start(limit_s)
    try:
        return decide(arg)
    finally:
        while True:
            try:
                watchdog.stop()
                break
            except DecisionTimeout:
                continue


def set_stuck_handler(handler: Callable[[str], None] | None) -> None:
    """What the process does when a decision cannot be stopped (called in the watchdog)."""
    WATCHDOG.on_stuck = handler


__all__ = [
    "POLL_S",
    "REFIRE_S",
    "STUCK_GRACE_S",
    "WATCHDOG",
    "DecisionTimeout",
    "Watchdog",
    "clocked",
    "set_stuck_handler",
]
