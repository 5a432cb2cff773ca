"""The limits a sandboxed command bot runs under, with safe defaults.

One :class:`SandboxLimits` is given per tournament (``sandbox:`` in its config, see
``arena.tournament.config``) and, by the ladder, per ladder; a match without one uses
:data:`DEFAULT_LIMITS`. Every field is bounded below and above so that a config file
cannot ask for "no limit" by accident (0 or a huge number is an error saying which
field and which range).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

MIB = 1024 * 1024

_BOUNDS: dict[str, tuple[int, int]] = {
    "address_space_mb": (64, 65536),
    "cpu_seconds": (1, 86400),
    "processes": (4, 4096),
    "open_files": (16, 65536),
    "file_size_mb": (1, 65536),
    "disk_mb": (1, 65536),
}
"""The accepted range of each numeric field (inclusive)."""


@dataclass(frozen=True)
class SandboxLimits:
    """What one command bot may use during one game (see ``arena.sandbox``).

    The defaults fit the example bots (Python, Node, Go) with room to spare and keep a
    runaway bot from hurting a host that plays several games at once.
    """

    address_space_mb: int = 4096
    """RLIMIT_AS of each process: allocations beyond it fail (``MemoryError``, NULL).
    Node reserves a large virtual range for its heap, so this is not set too low."""
    cpu_seconds: int = 600
    """RLIMIT_CPU of each process, for the whole game: SIGXCPU then SIGKILL (5 s later).
    The move clock catches a slow bot long before; this stops a spinning leftover."""
    processes: int = 64
    """RLIMIT_NPROC: processes *and threads* of the bot's private uid (a fork bomb stops
    there). Go and Node start a dozen threads; 64 leaves room."""
    open_files: int = 256
    """RLIMIT_NOFILE: file descriptors per process."""
    file_size_mb: int = 64
    """RLIMIT_FSIZE: the largest file a process may write (SIGXFSZ beyond)."""
    disk_mb: int = 64
    """Size of the private tmpfs that holds the working directory and ``/tmp``: all the
    bot may write, in total. It lives in memory and vanishes with the bot."""
    allow_unsandboxed: bool = False
    """Where the machine cannot sandbox (not root, no namespaces, a tool missing): run
    command bots anyway, as the arena's user, with a loud warning. Off: refuse them."""

    def __post_init__(self) -> None:
        for name, (low, high) in _BOUNDS.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(
                    f"sandbox limit {name} must be an integer in {low}..{high}, not {value!r}"
                )
        if not isinstance(self.allow_unsandboxed, bool):
            raise ValueError(
                f"sandbox allow_unsandboxed must be true or false, not {self.allow_unsandboxed!r}"
            )

    def rlimits(self) -> dict[str, int]:
        """``prlimit(1)`` options (``--as=BYTES`` ...) for these limits."""
        return {
            "as": self.address_space_mb * MIB,
            "cpu": self.cpu_seconds,
            "nproc": self.processes,
            "nofile": self.open_files,
            "fsize": self.file_size_mb * MIB,
            "core": 0,
        }

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> SandboxLimits:
        """Limits from a config mapping; unknown keys are an error naming them."""
        data = dict(data or {})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(
                f"unknown sandbox setting(s) {', '.join(unknown)}; "
                f"known: {', '.join(sorted(known))}"
            )
        return cls(**data)


DEFAULT_LIMITS = SandboxLimits()
"""The limits of a match that names none."""
