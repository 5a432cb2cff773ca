"""Bot specs -> bots.

A spec is ``name`` or ``name:key=value,key=value`` (``ismcts:iterations=400``), or
``py:<module>:<Class>[:key=value,...]`` for any in-process Python bot class.
``cmd:<command line>`` specs are remote bots run by the arena (see ``arena.cmdbots``).
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable
from typing import Any

from bots.base import Bot, BotSpecError
from bots.random_bot import RandomBot

BotFactory = Callable[..., Bot]

BUILTIN: dict[str, str] = {
    "random": "bots.random_bot:RandomBot",
    "greedy": "bots.greedy:GreedyBot",
    "ismcts": "bots.ismcts:IsmctsBot",
}


def parse_params(text: str) -> dict[str, Any]:
    """``"a=1,b=x"`` -> ``{"a": 1, "b": "x"}`` (ints and floats converted).

    >>> parse_params("iterations=400,c=1.4,mode=fast")
    {'iterations': 400, 'c': 1.4, 'mode': 'fast'}
    """
    params: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, raw = part.partition("=")
        if not sep or not key:
            raise BotSpecError(f"bot parameter {part!r} is not of the form key=value")
        value: Any = raw
        for conv in (int, float):
            try:
                value = conv(raw)
                break
            except ValueError:
                continue
        params[key.strip()] = value
    return params


def _load(target: str) -> Any:
    module_name, _, attr = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise BotSpecError(f"cannot import bot module {module_name!r}: {exc}") from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise BotSpecError(f"module {module_name!r} has no bot class {attr!r}") from None


def make_bot(spec: str) -> Bot:
    """Build an in-process bot from its spec; BotSpecError says what is wrong."""
    spec = spec.strip()
    if spec.startswith("cmd:"):
        raise BotSpecError("cmd: bots run as programs over gRPC; the match runner starts them")
    if spec.startswith("py:"):
        parts = spec[3:].split(":")
        if len(parts) < 2:
            raise BotSpecError(f"{spec!r}: expected py:<module>:<Class>[:key=value,...]")
        cls = _load(f"{parts[0]}:{parts[1]}")
        params = parse_params(":".join(parts[2:]))
    else:
        name, _, rest = spec.partition(":")
        if name not in BUILTIN:
            known = ", ".join(sorted(BUILTIN))
            raise BotSpecError(f"unknown bot {name!r}; known bots: {known}, cmd:..., py:...")
        cls = _load(BUILTIN[name])
        params = parse_params(rest)
    try:
        bot: Bot = cls(**params)
    except TypeError as exc:
        raise BotSpecError(f"bad parameters for bot {spec!r}: {exc}") from None
    if not hasattr(bot, "name"):
        raise BotSpecError(f"{spec!r} is not a bot (it has no 'name')")
    with contextlib.suppress(AttributeError):
        bot.spec = spec  # type: ignore[attr-defined]
    return bot


__all__ = ["BUILTIN", "RandomBot", "make_bot", "parse_params"]
