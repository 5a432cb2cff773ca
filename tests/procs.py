"""Which process a pid is, for tests that check a process is gone; and the services
tests start as real processes (PostgreSQL, a Ray cluster, MLflow: ``deploy.localstack``,
shared with ``make cluster-up``).

The pid space is small (``/proc/sys/kernel/pid_max`` is often 32768) and a busy machine
starts processes all the time, so a pid may name another process seconds after its own
ended: "is it gone" must ask about *that* process (its start time, or its parent), not
just the number.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from deploy.localstack import (
    MissingTool,
    MlflowServer,
    PostgresServer,
    RayCluster,
    free_port,
    postgres_bin,
)

__all__ = [
    "MissingTool",
    "MlflowServer",
    "PostgresServer",
    "ProcStat",
    "RayCluster",
    "free_port",
    "postgres_bin",
    "proc_stat",
    "same_process",
    "unreaped_child",
]


class ProcStat(NamedTuple):
    state: str
    ppid: int
    start: int
    """Start time, in clock ticks after boot: with the pid, it names one process."""


def proc_stat(pid: int) -> ProcStat | None:
    """The process ``pid`` now is (None: no such process)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = text.rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
    return ProcStat(fields[0], int(fields[1]), int(fields[19]))


def same_process(pid: int, start: int) -> ProcStat | None:
    """The process that had ``pid`` and ``start``, if it still exists (a zombie too)."""
    stat = proc_stat(pid)
    return stat if stat is not None and stat.start == start else None


def unreaped_child(pid: int) -> ProcStat | None:
    """``pid``, if it is still a child of this process (running, or a zombie not reaped)."""
    stat = proc_stat(pid)
    return stat if stat is not None and stat.ppid == os.getpid() else None


def processes_of(uid: int) -> list[int]:
    """The pids of every process (a zombie too) whose real uid is ``uid``."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except (FileNotFoundError, ProcessLookupError):
            continue
        for line in status.splitlines():
            if line.startswith("Uid:"):
                if int(line.split()[1]) == uid:
                    pids.append(int(entry))
                break
    return pids
