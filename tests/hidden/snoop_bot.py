"""``Snoop``: a ``py:`` bot that tries every way through its Turn to the true state.

It plays exactly like the ``random`` bot (its move is drawn from ``turn.rng`` before it
looks around), so a match with it must replay move for move like one with ``random``.
Then, on its first few turns, it searches:

- the Turn's attributes, and everything reachable from them (``gc.get_referents``,
  bound methods, closures), without entering modules and classes;
- the globals: every module of the project, its module-level values and containers, and
  the attributes of its classes (one level into containers);
- the determinizations ``turn.determinize()`` hands out (their history, their variety);
- and then it scribbles over everything mutable it was given (observation, options), to
  show that what it holds is its own copy.

Everything it finds that a State, a frame, a generator or a record-like dict is kept in
:data:`FINDINGS` for the test to judge (it compares identities with the true state).
Walking ``gc.get_objects()`` or the interpreter's frames is out of scope: in-process bots
are trusted code (``bots/base.py``), and no interface can stop that.
"""

from __future__ import annotations

import gc
import random
import sys
import types
from dataclasses import dataclass, field

from bots.base import Turn
from engine import State

MAX_OBJECTS = 20_000
"""Objects one reachability search visits at most (the Turn's graph is small)."""
PROJECT = ("engine", "bots", "arena", "wire")
"""Top-level packages whose modules the globals search reads."""


@dataclass
class Findings:
    """What Snoop reached, turn by turn (kept alive, so identities stay comparable)."""

    states: list[State] = field(default_factory=list)
    """Every State reached (through the Turn or the globals)."""
    frames: list[str] = field(default_factory=list)
    """A description of every frame, generator or coroutine reached."""
    records: list[str] = field(default_factory=list)
    """Where a record-like dict (``steps`` and ``seed``) was reached."""
    state_attribute: list[str] = field(default_factory=list)
    """What ``turn.state`` gave (the error's text, when it raises as it should)."""
    determinizations: list[State] = field(default_factory=list)
    """States ``turn.determinize()`` returned."""
    turns: int = 0


FINDINGS = Findings()


class Snoop:
    """The attacker (see the module docstring); ``turns``: how many turns it searches."""

    name = "snoop"
    version = "1"

    def __init__(self, turns: int = 2, draws: int = 4) -> None:
        self.turns = int(turns)
        self.draws = int(draws)

    def choose(self, turn: Turn) -> int:
        index = turn.rng.randrange(len(turn.legal))  # exactly RandomBot's move
        if FINDINGS.turns < self.turns:
            FINDINGS.turns += 1
            self._attributes(turn)
            _reach(turn, "turn")
            _globals()
            for _ in range(self.draws):
                det = turn.determinize(random.Random(FINDINGS.turns))
                FINDINGS.determinizations.append(det)
                _reach(det, "determinization")
        _scribble(turn.observation)
        _scribble(turn.options)
        return index

    @staticmethod
    def _attributes(turn: Turn) -> None:
        try:
            FINDINGS.states.append(turn.state)  # type: ignore[attr-defined]  # the attack
            FINDINGS.state_attribute.append("turn.state returned something")
        except AttributeError as exc:
            FINDINGS.state_attribute.append(str(exc))
        for name in dir(turn):
            try:
                value = getattr(turn, name)
            except AttributeError:
                continue
            _judge(value, f"turn.{name}")
            if isinstance(value, types.MethodType):
                _reach(value.__func__.__closure__ or (), f"turn.{name} closure")


def _judge(obj: object, where: str) -> None:
    if isinstance(obj, State):
        FINDINGS.states.append(obj)
    elif isinstance(obj, types.FrameType | types.GeneratorType | types.CoroutineType):
        FINDINGS.frames.append(f"{where}: {type(obj).__name__}")
    elif isinstance(obj, dict) and "steps" in obj and "seed" in obj:
        FINDINGS.records.append(where)


def _reach(root: object, where: str) -> None:
    """Everything reachable from ``root`` by ``gc.get_referents`` (modules and classes are
    the globals' business, not entered here)."""
    seen: set[int] = set()
    todo = [root]
    while todo and len(seen) < MAX_OBJECTS:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, types.ModuleType | type):
            continue
        seen.add(id(obj))
        _judge(obj, where)
        if isinstance(obj, types.FunctionType):
            todo.extend(obj.__closure__ or ())  # not __globals__: see _globals
            continue
        todo.extend(gc.get_referents(obj))


def _globals() -> None:
    """Module-level values of the project's modules, their classes' attributes, and one
    level into containers."""
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] not in PROJECT or module is None:
            continue
        for key, value in list(vars(module).items()):
            where = f"{name}.{key}"
            _judge_with_contents(value, where)
            if isinstance(value, type) and value.__module__ == name:
                for attr, member in list(vars(value).items()):
                    _judge_with_contents(member, f"{where}.{attr}")


def _judge_with_contents(value: object, where: str) -> None:
    _judge(value, where)
    if isinstance(value, dict):
        for item in list(value.values())[:10_000]:
            _judge(item, where + "[...]")
    elif isinstance(value, list | tuple | set | frozenset):
        for item in list(value)[:10_000]:
            _judge(item, where + "[...]")


def _scribble(value: object) -> None:
    """Clear every list and dict in ``value`` (the bot's own copy, or it would show)."""
    if isinstance(value, dict):
        for item in value.values():
            _scribble(item)
        value.clear()
    elif isinstance(value, list):
        for item in value:
            _scribble(item)
        value.clear()
