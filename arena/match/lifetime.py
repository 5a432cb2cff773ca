"""Child processes that do not outlive the process that started them.

A command bot runs in its own session (so that its whole process group can be killed
at the end of a match). If the process that started it dies without that cleanup (a
Ray worker SIGKILLed by Ray's memory monitor or by a user), nothing else would stop the
bot: it was seen alive minutes after its tournament had exited. Linux offers a
parent-death signal (``prctl(PR_SET_PDEATHSIG)``): the kernel sends it to the child when
the thread that forked it ends, and it survives ``execve``. :func:`die_with_parent`
gives the command prefix that asks for SIGKILL: util-linux's ``setpriv --pdeathsig
KILL --``; where ``setpriv`` is missing (macOS) it is empty and the match's own cleanup
is all there is.

Why a command and not a ``preexec_fn``: a ``preexec_fn`` makes Python fork (never
``vfork``) and run gRPC's fork handlers in the child of a process that serves gRPC; with
gRPC's event engine that child can abort before ``exec`` (grpc/grpc#43055: its poller
meets the epoll fd that ``close_fds`` closed), and the bot never starts.

The signal is tied to the *thread* that started the child, so bots must be started
from a thread that lives as long as their match (the match's own thread: a Ray task's,
a pool worker's, the CLI's main thread).
"""

from __future__ import annotations

import functools
import shutil
import sys


@functools.cache
def die_with_parent() -> tuple[str, ...]:
    """The prefix of a child's command line that has the kernel SIGKILL the child when
    the thread that started it ends (empty where the system cannot)."""
    if sys.platform != "linux":
        return ()
    setpriv = shutil.which("setpriv")
    return (setpriv, "--pdeathsig", "KILL", "--") if setpriv else ()
