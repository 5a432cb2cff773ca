"""The private temp dir of a local Ray: gone when its driver is gone, however it ends.

A driver that starts a local Ray gives it a directory of its own (``/tmp/mnr-ray-*``,
or under ``MENAGERIE_RAY_TMP``): Ray's sessions, sockets and logs, hundreds of MB after
a long run. :func:`private_temp_dir` makes it and removes it on every exit path the
process sees (the end of the ``with``, an exception, ``atexit``, SIGTERM and SIGHUP,
turned into ``SystemExit``). A SIGKILLed driver sees nothing, so each directory also
names its owner (pid and start time, ``owner``), and :func:`sweep_dead` removes the
directories whose owner is gone and that no live process still uses; it runs before
every local Ray start.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType

PREFIX = "mnr-ray-"
OWNER_FILE = "owner"
UNOWNED_GRACE_S = 600.0
"""A directory without an owner file (made by an older version, or by a driver killed
between ``mkdtemp`` and writing the file) is swept only once it is this old."""


def temp_base() -> Path:
    """Where the private dirs are made: ``MENAGERIE_RAY_TMP`` or ``/tmp`` (short: Ray's
    socket paths under it must stay within the 107 bytes of a Unix socket name)."""
    return Path(os.environ.get("MENAGERIE_RAY_TMP") or "/tmp")


def _start_time(pid: int) -> str | None:
    """The kernel's start time of ``pid`` (field 22 of ``/proc/PID/stat``; None: no such
    process): with the pid it names a process even after the pid is reused."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _owner_alive(path: Path) -> bool:
    try:
        pid_text, start = (path / OWNER_FILE).read_text().split()
    except (OSError, ValueError):
        try:
            return time.time() - path.stat().st_mtime < UNOWNED_GRACE_S
        except OSError:
            return False
    return _start_time(int(pid_text)) == start


def _in_use(paths: list[Path]) -> set[Path]:
    """Those of ``paths`` that a live process names on its command line (a Ray raylet
    or worker that outlived its driver)."""
    used: set[Path] = set()
    needles = {str(p).encode(): p for p in paths}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        used.update(p for needle, p in needles.items() if needle in cmdline)
    return used


def sweep_dead(base: Path | None = None) -> list[Path]:
    """Remove the private dirs under ``base`` whose driver is dead and that no live
    process uses; returns them."""
    if not Path("/proc/self/stat").exists():  # no way to tell the living (not Linux)
        return []
    base = base or temp_base()
    try:
        candidates = [p for p in base.glob(PREFIX + "*") if p.is_dir() and not _owner_alive(p)]
    except OSError:
        return []
    if not candidates:
        return []
    dead = [p for p in candidates if p not in _in_use(candidates)]
    for path in dead:
        shutil.rmtree(path, ignore_errors=True)
    return dead


def _exit_on_signal(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


@contextlib.contextmanager
def private_temp_dir() -> Iterator[Path]:
    """A new private dir for a local Ray (dead drivers' dirs swept first), removed on
    every exit path; SIGTERM/SIGHUP end the process through ``SystemExit`` meanwhile
    (when this is the main thread and they had no handler)."""
    sweep_dead()
    base = temp_base()
    base.mkdir(parents=True, exist_ok=True)
    path = Path(tempfile.mkdtemp(prefix=PREFIX, dir=base))
    pid = os.getpid()
    (path / OWNER_FILE).write_text(f"{pid} {_start_time(pid)}\n")

    def remove() -> None:
        shutil.rmtree(path, ignore_errors=True)

    atexit.register(remove)
    previous: dict[signal.Signals, signal.Handlers | int | Callable[..., object] | None] = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(sig) is signal.SIG_DFL:
                previous[sig] = signal.signal(sig, _exit_on_signal)
    try:
        yield path
    finally:
        remove()
        atexit.unregister(remove)
        for restored, handler in previous.items():
            signal.signal(restored, handler)


__all__ = ["private_temp_dir", "sweep_dead", "temp_base"]
