"""The bot check's vocabulary: its config, the checks, a run of the program, reports."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from arena.sandbox.limits import SandboxLimits

Status = Literal["pass", "fail", "skip"]
Progress = Callable[[str], None]

CHECKS: dict[str, str] = {
    "join": "joins",
    "deadline": "answers in time",
    "legal": "legal moves only",
    "game_end": "survives game end",
    "server_close": "survives server close",
}
"""Check id -> short title, in report order."""

LOBBY_CHECKS: dict[str, str] = {
    "lobby_connect": "lobby: online with its token",
    "lobby_games": "lobby: plays its matches",
    "lobby_reconnect": "lobby: reconnects",
    "lobby_revoke": "lobby: stops when revoked",
}
"""The checks of ``arena bot check --lobby`` (:mod:`arena.botcheck.lobby`), in order."""

MAX_FAILURES = 3
"""Failures (late or illegal moves) in one game after which the kit stops the program."""

MARGIN_MS = 50.0
"""The server's transport margin on the move clock (as in ``arena serve``)."""

INCIDENTS = frozenset({"illegal", "timeout", "stall", "disconnect", "crash", "forfeit"})
"""Record event kinds after which the step was not the bot's own choice."""

GRACEFUL = "graceful shutdown"
LOST = "lost server"
CLOSE_HOW = {
    GRACEFUL: "GameOver 'aborted', then the stream ends",
    LOST: "the stream ends with UNAVAILABLE, no GameOver",
}


@dataclass
class CheckConfig:
    """How strict the kit is."""

    move_ms: float = 1000.0
    """The move clock of every turn (the server adds :data:`MARGIN_MS`)."""
    join_timeout_s: float = 10.0
    """Seconds from the program's start until it must have joined."""
    close_timeout_s: float = 5.0
    """Seconds after a server close until the program must have exited."""
    seed: int = 1
    """Seed of game 1; game 2 and the server closes use the next seeds."""
    sandbox: SandboxLimits | None = None
    """Limits of the program's sandbox (None: the defaults); a ladder checks a submission
    under its own (``arena ladder create --sandbox``)."""


@dataclass
class Failure:
    """A late or illegal move, or the bot leaving (``kind`` as in the record's events)."""

    kind: str
    step: int
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "step": self.step, "reason": self.reason}


@dataclass
class Run:
    """One start of the program: a game, or a game interrupted by a server close."""

    name: str
    seat: int
    seed: int
    close: str = ""
    """For a server close: GRACEFUL or LOST (empty for a full game)."""
    joined: bool = False
    join_s: float | None = None
    join_problem: str = ""
    failures: list[Failure] = field(default_factory=list)
    left: Failure | None = None
    """The bot's stream closed or its process ended before GameOver (or the close)."""
    stopped: str = ""
    """Why the kit (or the arena's policy) stopped the program before the end."""
    turns: int = 0
    slowest_ms: float = 0.0
    finished: bool = False
    aborted: str = ""
    reached: bool = False
    """For a server close: the game reached the bot's first move before the close."""
    exit_code: int | None = None
    exit_s: float | None = None
    """Seconds from GameOver (or the server close) until the program exited."""
    stderr: str = ""
    pid: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "run": self.name,
            "seat": self.seat,
            "seed": self.seed,
            "joined": self.joined,
            "join_s": _round(self.join_s),
            "turns": self.turns,
            "slowest_ms": round(self.slowest_ms, 1),
            "failures": [f.to_json() for f in self.failures],
            "left": self.left.to_json() if self.left else None,
            "stopped": self.stopped or None,
            "exit_code": self.exit_code,
            "exit_s": _round(self.exit_s),
            "stderr": self.stderr[-2000:],
        }


@dataclass
class CheckResult:
    check: str
    status: Status
    detail: str

    @property
    def title(self) -> str:
        return CHECKS.get(self.check) or LOBBY_CHECKS[self.check]

    def to_json(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "title": self.title,
            "status": self.status,
            "detail": self.detail,
        }


@dataclass
class GameReport:
    game: str
    players: int
    checks: list[CheckResult]
    runs: list[Run]

    @property
    def ok(self) -> bool:
        return all(c.status != "fail" for c in self.checks)

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "players": self.players,
            "ok": self.ok,
            "checks": [c.to_json() for c in self.checks],
            "runs": [r.to_json() for r in self.runs],
        }


@dataclass
class Report:
    command: str
    config: CheckConfig
    games: list[GameReport]

    @property
    def ok(self) -> bool:
        return all(g.ok for g in self.games)

    def failed(self) -> list[tuple[str, CheckResult]]:
        return [(g.game, c) for g in self.games for c in g.checks if c.status == "fail"]

    def to_json(self) -> dict[str, Any]:
        return {
            "command": self.command,
            "ok": self.ok,
            "move_ms": self.config.move_ms,
            "join_timeout_s": self.config.join_timeout_s,
            "close_timeout_s": self.config.close_timeout_s,
            "seed": self.config.seed,
            "games": [g.to_json() for g in self.games],
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def last_line(text: str) -> str:
    """The last non-empty line of ``text`` (at most 300 characters)."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip()[:300] if lines else ""
