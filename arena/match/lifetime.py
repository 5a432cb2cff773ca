"""Child processes that do not outlive the process that started them.

A command bot runs in its own session (so that its whole process group can be killed
at the end of a match). If the process that started it dies without that cleanup (a
Ray worker SIGKILLed by Ray's memory monitor or by a user), nothing else would stop the
bot: it was seen alive minutes after its tournament had exited. Linux offers a
parent-death signal (``prctl(PR_SET_PDEATHSIG)``): the kernel sends it to the child when
the thread that forked it ends. :func:`die_with_parent` makes a ``preexec_fn`` that asks for
SIGKILL; elsewhere (macOS, or no libc) it does nothing and the match's own cleanup is
all there is.

The signal is tied to the *thread* that started the child, so bots must be started
from a thread that lives as long as their match (the match's own thread: a Ray task's,
a pool worker's, the CLI's main thread).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
from collections.abc import Callable

PR_SET_PDEATHSIG = 1
"""``prctl`` option: the signal sent to this process when its parent dies (linux/prctl.h)."""

_LIBC = (
    ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True) if sys.platform == "linux" else None
)


def die_with_parent() -> Callable[[], None]:
    """A ``preexec_fn`` (made in the parent, run in the forked child) that has the kernel
    SIGKILL the child when the parent thread ends; a child whose parent is already gone
    (it died between fork and prctl) exits at once."""
    parent = os.getpid()

    def preexec() -> None:
        if _LIBC is None:
            return
        _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)

    return preexec
