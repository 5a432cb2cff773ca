"""Bot specs: the one place where a spec string becomes a bot.

A spec is one of

- ``name`` or ``name:key=value,...``: a reference bot (``random``, ``greedy``,
  ``ismcts:iterations=400``; the names are :data:`bots.registry.REFERENCE_BOTS`);
- ``py:<module>:<Class>[:key=value,...]``: any in-process Python bot class (an object
  with a ``name`` and ``choose(turn)``);
- ``cmd:<command line>``: a program in any language that plays over gRPC; it is started
  for each match by :func:`arena.match.cmdbots.open_bots`;
- ``human``: a person at this terminal (:class:`bots.human.HumanBot`, reading stdin), for
  ``arena play`` only: a tournament has no one to ask.

:func:`parse_spec` checks a spec's syntax; :func:`make_bot` builds an in-process bot
(under a roster name, if given, shown in records); :func:`check_spec` says whether a
spec can be played at all; :func:`split_bots` splits a ``--bots`` list. Bots travel to
Ray workers as spec strings and are built there.
"""

from __future__ import annotations

import contextlib
import shlex
import sys
from dataclasses import dataclass, field
from typing import Any, Literal

from bots.base import Bot, BotSpecError, Turn
from bots.registry import REFERENCE_BOTS, load_class
from engine import Action

CMD_PREFIX = "cmd:"
PY_PREFIX = "py:"

SpecKind = Literal["reference", "py", "cmd", "human"]

HUMAN_BOTS: dict[str, str] = {"human": "bots.human:HumanBot"}
"""Bots that ask a person (their name -> ``module:Class``); not reference bots, which
benchmarks and the demo play unattended."""


@dataclass(frozen=True)
class BotSpec:
    """A parsed spec: a reference bot, a Python class or a command line.

    >>> spec = parse_spec("ismcts:iterations=400")
    >>> spec.kind, spec.target, spec.params
    ('reference', 'ismcts', {'iterations': 400})
    >>> parse_spec(" cmd:node bots/node/bot.js ").target
    'node bots/node/bot.js'
    """

    text: str
    """The spec as given (stripped): what records show as a bot's ``spec``."""
    kind: SpecKind
    target: str
    """The reference bot's name, ``module:Class``, or the command line."""
    params: dict[str, Any] = field(default_factory=dict)
    """Keyword arguments of the bot class (none for a command)."""

    @property
    def is_cmd(self) -> bool:
        return self.kind == "cmd"


def is_cmd(spec: str) -> bool:
    """A ``cmd:`` spec: a program that plays over gRPC."""
    return spec.strip().startswith(CMD_PREFIX)


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


def parse_spec(spec: str) -> BotSpec:
    """The parts of ``spec``; BotSpecError (a ValueError) says what is wrong."""
    text = spec.strip()
    if not text:
        raise BotSpecError("empty bot spec")
    if text.startswith(CMD_PREFIX):
        return BotSpec(text, "cmd", text[len(CMD_PREFIX) :].strip())
    if text.startswith(PY_PREFIX):
        parts = text[len(PY_PREFIX) :].split(":")
        if len(parts) < 2:
            raise BotSpecError(f"{text!r}: expected py:<module>:<Class>[:key=value,...]")
        return BotSpec(text, "py", f"{parts[0]}:{parts[1]}", parse_params(":".join(parts[2:])))
    name, _, rest = text.partition(":")
    if name in HUMAN_BOTS:
        return BotSpec(text, "human", name, parse_params(rest))
    if name not in REFERENCE_BOTS:
        known = ", ".join(sorted(REFERENCE_BOTS))
        raise BotSpecError(f"unknown bot {name!r}; known bots: {known}, human, cmd:..., py:...")
    return BotSpec(text, "reference", name, parse_params(rest))


def command_argv(spec: str | BotSpec) -> list[str]:
    """The argv of a ``cmd:`` spec (``python`` means this interpreter).

    >>> command_argv("cmd:python -m bots.random_client --seed 3")[1:]
    ['-m', 'bots.random_client', '--seed', '3']
    """
    parsed = spec if isinstance(spec, BotSpec) else parse_spec(spec)
    if not parsed.is_cmd:
        raise BotSpecError(f"{parsed.text!r} is not a cmd: spec")
    try:
        argv = shlex.split(parsed.target)
    except ValueError as exc:
        raise BotSpecError(f"{parsed.text!r}: cannot parse the command line: {exc}") from None
    if not argv:
        raise BotSpecError(f"{parsed.text!r}: cmd: needs a command line, e.g. cmd:python mybot.py")
    if argv[0] in ("python", "python3"):
        argv[0] = sys.executable
    return argv


def make_bot(spec: str | BotSpec, name: str | None = None) -> Bot:
    """Build the in-process bot ``spec``, labelled ``name`` in records if given (a roster
    name; default the bot's own). ``cmd:`` bots are programs: see ``open_bots``."""
    parsed = spec if isinstance(spec, BotSpec) else parse_spec(spec)
    if parsed.is_cmd:
        raise BotSpecError("cmd: bots run as programs over gRPC; the match runner starts them")
    named = {"reference": REFERENCE_BOTS, "human": HUMAN_BOTS}.get(parsed.kind)
    target = named[parsed.target] if named is not None else parsed.target
    cls = load_class(target)
    try:
        bot: Bot = cls(**parsed.params)
    except TypeError as exc:
        raise BotSpecError(f"bad parameters for bot {parsed.text!r}: {exc}") from None
    if not hasattr(bot, "name"):
        raise BotSpecError(f"{parsed.text!r} is not a bot (it has no 'name')")
    with contextlib.suppress(AttributeError):
        bot.spec = parsed.text  # type: ignore[attr-defined]  # optional, not in the Bot protocol
    if name is not None:
        try:
            bot.name = name
        except AttributeError:  # a read-only name: wrap it
            bot = _Named(bot, name)
    return bot


def check_spec(spec: str) -> None:
    """Raise BotSpecError unless ``spec`` can be played: an in-process bot is built, a
    command line is parsed."""
    parsed = parse_spec(spec)
    if parsed.is_cmd:
        command_argv(parsed)
    else:
        make_bot(parsed)


def split_bots(bots: str) -> list[str]:
    """Split ``--bots``; a ``cmd:`` spec may itself hold commas only if it is last.

    >>> split_bots("random, cmd:python bot.py --x 1,2")
    ['random', 'cmd:python bot.py --x 1,2']
    """
    specs: list[str] = []
    for part in bots.split(","):
        if specs and specs[-1].startswith(CMD_PREFIX) and not part.split(":")[0].isidentifier():
            specs[-1] += "," + part
        else:
            specs.append(part.strip())
    return [s for s in specs if s]


class _Named:
    """A bot under another name."""

    def __init__(self, bot: Bot, name: str) -> None:
        self._bot = bot
        self.name = name
        self.spec = getattr(bot, "spec", name)
        self.version = getattr(bot, "version", "1")

    def choose(self, turn: Turn) -> Action | int:
        return self._bot.choose(turn)
