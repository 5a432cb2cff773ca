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
(under a roster name, if given, shown in records; :func:`bot_builder` checks a spec once
for many bots); :func:`check_spec` says whether a
spec can be played at all; :func:`split_bots` splits a ``--bots`` list. Bots travel to
Ray workers as spec strings and are built there: on a cluster a ``cmd:`` bot's program
and script are looked up on the worker that plays the match (:func:`resolve_command`),
in the working directory Ray shipped there, and a missing one raises
:class:`BotStartError` naming the bot, the file and the machine.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import shlex
import shutil
import socket
import sys
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
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

SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".cjs", ".ts", ".sh")
"""Arguments with these endings (or a ``/``) after an interpreter are the script it runs."""

INTERPRETERS = frozenset({"node", "nodejs", "bash", "sh", "deno", "bun", "ruby", "perl"})
"""Programs (besides ``python*``) whose first file argument is a script to look for."""

NO_SCRIPT_OPTIONS = frozenset({"-m", "-c", "-e", "--eval", "-p", "--print"})
"""Interpreter options after which no script file follows (a module or inline code)."""


class BotStartError(BotSpecError):
    """A ``cmd:`` bot that cannot start where its match is played (a missing program or
    script on a Ray worker). Unlike a bot that misbehaves (forfeits), it would fail every
    match the same way, so a tournament stops at the first one and says why."""


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


def resolve_command(spec: str | BotSpec, cwd: Path | None = None) -> list[str]:
    """The argv of a ``cmd:`` spec with its program made absolute, checked on this machine.

    Called where the match is played (a Ray worker on a cluster): a relative program
    (``./mybot``) or script (``python bots/mine.py``, ``node bot.js``) is looked up in
    ``cwd`` (default: the current directory, which on a cluster is the working directory
    Ray shipped to the worker), a bare program name on PATH. Raises :class:`BotStartError`
    naming the bot, the missing file and the machine, instead of letting the program fail
    to start and forfeit its seat game after game.

    >>> resolve_command("cmd:python -m bots.random_client")[1:]
    ['-m', 'bots.random_client']
    """
    parsed = spec if isinstance(spec, BotSpec) else parse_spec(spec)
    argv = command_argv(parsed)
    where = Path.cwd() if cwd is None else cwd

    def missing(file: str, what: str) -> BotStartError:
        return BotStartError(
            f"{parsed.text!r}: cannot start {file!r} on {socket.gethostname()}: {what} "
            f"(working directory {where}); ship it in the tournament's working directory "
            "or use a path that exists on every worker"
        )

    program = argv[0]
    if os.sep in program:
        path = Path(program) if os.path.isabs(program) else where / program
        if not path.is_file():
            raise missing(program, "the program does not exist")
        if not os.access(path, os.X_OK):
            raise missing(program, "the program is not executable")
        argv[0] = str(path)
    else:
        found = shutil.which(program)
        if found is None:
            raise missing(program, "the program is not on PATH")
        argv[0] = found
    script = _script_argument(argv)
    if script is not None:
        path = Path(argv[script])
        if not path.is_absolute():
            path = where / path
        if not path.is_file():
            raise missing(argv[script], "the script does not exist")
        argv[script] = str(path)
    return argv


def _script_argument(argv: list[str]) -> int | None:
    """The index of the script an interpreter command runs (None: none, or a module).

    Only interpreters have one (``python*`` and :data:`INTERPRETERS`), and only arguments
    that look like files (a known suffix or a ``/``) count, so that an option's value is
    never taken for a missing script.

    >>> _script_argument(["/usr/bin/node", "--max-old-space-size=64", "bot.js", "--x"])
    2
    >>> _script_argument(["python", "-m", "bots.x"]) is None
    True
    >>> _script_argument(["./mybot", "conf/x.py"]) is None
    True
    """
    name = os.path.basename(argv[0])
    if not (name.startswith("python") or name in INTERPRETERS):
        return None
    for i, arg in enumerate(argv[1:], 1):
        if arg in NO_SCRIPT_OPTIONS:
            return None
        if arg.startswith("-"):
            continue
        return i if arg.endswith(SCRIPT_SUFFIXES) or os.sep in arg else None
    return None


def make_bot(spec: str | BotSpec, name: str | None = None) -> Bot:
    """Build the in-process bot ``spec``, labelled ``name`` in records if given (a roster
    name; default the bot's own). ``cmd:`` bots are programs: see ``open_bots``."""
    return bot_builder(spec)(name)


def bot_builder(spec: str | BotSpec) -> Callable[[str | None], Bot]:
    """:func:`make_bot` in two steps: ``spec`` is parsed, its class loaded and its
    parameters checked now (BotSpecError if any is wrong); each call of the result builds
    a fresh bot, labelled with the name it is given.

    Why: the parameter check inspects the class's signature and annotations, which costs
    more than building a bot (about 0.2 ms, a few percent of a random bots' game); a Ray
    task plays a batch of games between a few specs and checks each spec once.

    >>> build = bot_builder("random")
    >>> a, b = build("a"), build("b")
    >>> (a.name, b.name, a.spec, a is b)
    ('a', 'b', 'random', False)
    """
    parsed = spec if isinstance(spec, BotSpec) else parse_spec(spec)
    if parsed.is_cmd:
        raise BotSpecError("cmd: bots run as programs over gRPC; the match runner starts them")
    named = {"reference": REFERENCE_BOTS, "human": HUMAN_BOTS}.get(parsed.kind)
    target = named[parsed.target] if named is not None else parsed.target
    if parsed.kind == "py":
        _import_path_has_cwd()
    cls = load_class(target)
    check_params(parsed.text, cls, parsed.params)

    def build(name: str | None = None) -> Bot:
        try:
            bot: Bot = cls(**parsed.params)
        except (TypeError, ValueError) as exc:
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

    return build


def _import_path_has_cwd() -> None:
    """Let ``py:mybot:MyBot`` find ``./mybot.py`` as ``python -m`` would, without
    ``PYTHONPATH=.``: the console script's ``sys.path`` starts at its own bin directory,
    not at the directory the user is in. Appended, so that it shadows no installed module."""
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.append(cwd)


_SIMPLE_TYPES: dict[type, tuple[type, ...]] = {
    int: (int,),
    float: (int, float),
    str: (str, int, float),
}
"""What a parsed ``key=value`` may be for a parameter annotated with the key (an int is
a fine float); other annotations are not checked."""


def check_params(text: str, cls: Any, params: dict[str, Any]) -> None:
    """BotSpecError naming the valid parameters when ``params`` has one that ``cls``
    does not take, or a value of the wrong type for its annotation (``iterations=abc``
    would otherwise fail deep inside the bot with a Python ``TypeError``)."""
    try:
        sig = inspect.signature(cls)
    except (TypeError, ValueError):  # a builtin or C class: let the call judge
        return
    accepted = [
        p
        for p in sig.parameters.values()
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name != "self"
    ]
    if any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values()):
        return
    valid = ", ".join(p.name for p in accepted) or "none"
    try:
        hints = typing.get_type_hints(cls.__init__)
    except Exception:  # unresolvable annotations: check names only
        hints = {}
    by_name = {p.name: p for p in accepted}
    for key, value in params.items():
        if key not in by_name:
            raise BotSpecError(f"{text!r}: unknown parameter {key!r}; valid parameters: {valid}")
        wanted = _wanted_types(hints.get(key))
        if wanted and not isinstance(value, wanted):
            names = " or ".join(sorted({t.__name__ for t in wanted} - {"NoneType"}))
            raise BotSpecError(f"{text!r}: parameter {key!r} must be {names}, got {value!r}")


def _wanted_types(annotation: Any) -> tuple[type, ...]:
    """The value types a parsed parameter may have for ``annotation`` (empty: any)."""
    if annotation is None:
        return ()
    members = (
        typing.get_args(annotation)
        if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union
        else (annotation,)
    )
    wanted: list[type] = []
    for member in members:
        if member is type(None):
            continue
        if member not in _SIMPLE_TYPES:
            return ()
        wanted.extend(_SIMPLE_TYPES[member])
    return tuple(wanted)


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
