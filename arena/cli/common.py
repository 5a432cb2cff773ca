"""What the command modules share: user errors, ``--options``, output helpers.

:data:`USER_ERRORS` are the exceptions a command reports as one line (``error: ...``)
and exit status 2, never a traceback; :func:`user_errors` decorates a command with that.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import Annotated, ParamSpec, TypeVar

import typer
from rich.console import Console

from arena.errors import UserError
from arena.ladder.errors import LadderError
from arena.match.records import RecordError
from bots.base import BotSpecError
from engine import GameConfigError, IllegalActionError

P = ParamSpec("P")
R = TypeVar("R")

USER_ERRORS: tuple[type[Exception], ...] = (
    UserError,  # with ConfigError and JournalLocked
    GameConfigError,
    IllegalActionError,
    BotSpecError,
    RecordError,
    LadderError,  # the ladder's (unknown ladder or bot, lease held, database down, ...)
)
"""Anything the user got wrong (a flag, a file, a config, a bot spec, a record)."""

CPU_WAKEUP = Annotated[
    int | None,
    typer.Option(
        "--cpu-wakeup-us",
        help="While running, keep every core's wake-up latency under this many us (Linux "
        "/dev/cpu_dma_latency; needs root). Where idle cores halt (virtual machines), a move's "
        "round trip then takes about a third less; idle cores poll instead (arena/cpu_idle.py).",
    ),
]
"""``--cpu-wakeup-us`` of ``arena serve`` and the latency benchmarks (:mod:`arena.cpu_idle`)."""

TRACKING_HELP = "MLflow tracking URI (default: MLFLOW_TRACKING_URI or sqlite:///mlflow.db)."


def user_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """Decorate a CLI command: user errors print ``error: ...`` and exit with status 2."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except USER_ERRORS as exc:
            print(f"error: {exc}", file=sys.stderr)
            raise SystemExit(2) from None

    return wrapper


def parse_options(text: str | None) -> dict[str, object]:
    """``--options``: game options as a JSON object, or as ``key=value,...`` (each value
    read as JSON if it is JSON, else as a string), the form ``arena games`` lists.

    >>> parse_options('{"board_side": "B"}') == parse_options("board_side=B")
    True
    >>> parse_options("start_player=1,all_together=true")
    {'start_player': 1, 'all_together': True}
    """
    if not text or not text.strip():
        return {}
    if not text.lstrip().startswith("{"):
        return _key_values(text)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"--options is not valid JSON: {exc.msg} (got {text!r})") from None
    if not isinstance(value, dict):
        raise UserError(f"--options must be a JSON object, got {text!r}")
    return value


def _key_values(text: str) -> dict[str, object]:
    """``--options key=value,...``; a list value is written as JSON (``goals=["S1","R1"]``
    is not split at its commas)."""
    out: dict[str, object] = {}
    parts: list[str] = []
    for part in text.split(","):  # re-join the commas inside [...] or {...}
        depth = sum(p.count("[") + p.count("{") - p.count("]") - p.count("}") for p in parts)
        if parts and depth > 0:
            parts[-1] += "," + part
        else:
            parts.append(part)
    for part in parts:
        key, sep, raw = part.partition("=")
        if not sep or not key.strip():
            raise UserError(
                f"--options: {part.strip()!r} is not key=value "
                "(give key=value,... or a JSON object)"
            )
        try:
            value: object = json.loads(raw)
        except json.JSONDecodeError:
            value = raw.strip()
        out[key.strip()] = value
    return out


def warn(message: str) -> None:
    print(message, file=sys.stderr)


def rich_console() -> Console:
    """Rich output; when piped, wide enough that tables and titles are not wrapped."""
    return Console(highlight=False, width=None if sys.stdout.isatty() else 220)
