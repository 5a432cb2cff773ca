"""User errors: reported as one clear line and a non-zero exit, never a traceback."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from arena.match.records import RecordError
from bots.base import BotSpecError
from engine import GameConfigError, IllegalActionError

P = ParamSpec("P")
R = TypeVar("R")


class UserError(ValueError):
    """Anything the user got wrong (a flag, a file, a config)."""


USER_ERRORS: tuple[type[Exception], ...] = (
    UserError,
    GameConfigError,
    IllegalActionError,
    BotSpecError,
    RecordError,
)


def register_user_error(exc_type: type[Exception]) -> None:
    """Let another module's exception type count as a user error."""
    global USER_ERRORS
    if exc_type not in USER_ERRORS:
        USER_ERRORS = (*USER_ERRORS, exc_type)


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
