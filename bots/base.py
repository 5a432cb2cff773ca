"""The in-process bot interface.

A bot is an object with a ``name`` and one method, ``choose(turn) -> Action | int``
(an action or the index of one in ``turn.legal``). The runner calls it once per
decision of its seat.

A :class:`Turn` carries what the seat may know and nothing more, exactly what a remote bot
receives over the wire: its observation, its legal actions, its clock, the step number,
and :meth:`Turn.determinize`, which draws a full state consistent with that observation
(the engine's ``from_observation``, then ``resample``) for search bots. The true state is
never on a Turn, nor anything that holds it (no state, record, runner or closure over
them), so ``turn.state.observation(other_seat)`` and the like have nothing to reach.

In-process (``py:``) bots are still *trusted* code: they run in the arena's own process
and Python cannot stop code from walking ``gc.get_objects()`` or the interpreter's
frames to the runner's state. The interface keeps honest bots honest and makes a leak
a deliberate attack; untrusted submissions run as command bots in the sandbox.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Mapping
from typing import Protocol

from engine import Action, Game, State
from engine.core import JSON

_SCALARS = (str, int, float, bool, type(None))


def _own_copy(options: Mapping[str, JSON]) -> dict[str, JSON]:
    """A copy of ``options`` that the bot may change freely: a flat dict of scalars (every
    game's options today) is copied as it is, a nested one deeply. (A Turn is made on
    every move of a match: ``copy.deepcopy`` of a flat dict costs several microseconds.)"""
    if all(type(v) in _SCALARS for v in options.values()):
        return dict(options)
    return copy.deepcopy(dict(options))


class BotSpecError(ValueError):
    """A bot spec that names no known bot or has bad parameters."""


class BotFailure(Exception):
    """Raised by a bot adapter when its bot misbehaved in a known way.

    ``kind`` is the event kind recorded for the seat: ``timeout``, ``disconnect``,
    ``stall``, ``illegal`` or ``crash``; ``reason`` says what happened.
    """

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(f"{kind}: {reason}")
        self.kind = kind
        self.reason = reason


class Turn:
    """One decision for one seat: its information and nothing else (see the module
    docstring). Build it from a state with :meth:`of`, which keeps no reference to it."""

    __slots__ = (
        "_determinization",
        "game",
        "legal",
        "num_players",
        "observation",
        "options",
        "rng",
        "seat",
        "step",
        "time_left_ms",
    )

    game: Game
    """The game's rules (stateless: metadata, options, ``from_observation``)."""
    seat: int
    """The seat to move."""
    num_players: int
    """Players in this game."""
    options: dict[str, JSON]
    """The game's options (the bot's own copy)."""
    observation: dict[str, JSON]
    """What this seat may know now: ``observation(seat)``, the bot's own copy."""
    legal: list[Action]
    """The seat's legal actions, in the engine's canonical order."""
    rng: random.Random
    """The seat's own seeded RNG (never the one that draws chance outcomes)."""
    time_left_ms: float | None
    """The move clock (None: no limit)."""
    step: int
    """Steps (decisions and chance outcomes) played before this turn, as the wire's Turn
    tells remote bots (0 where it is not known: the SDK's ``choose`` does not get it)."""
    _determinization: State | None
    """The first state drawn from ``observation`` (never the true state); later
    determinizations resample it."""

    def __init__(
        self,
        game: Game,
        seat: int,
        num_players: int,
        options: Mapping[str, JSON],
        observation: dict[str, JSON],
        legal: list[Action],
        rng: random.Random,
        time_left_ms: float | None = None,
        step: int = 0,
        *,
        determinization: State | None = None,
    ) -> None:
        """``determinization``, when given, is a state already drawn from ``observation``
        (as ``game.from_observation`` returns it, e.g. by a wire client that rebuilt one
        to check the legal actions), saving the first :meth:`determinize` a rebuild."""
        self.game = game
        self.seat = seat
        self.num_players = num_players
        self.options = _own_copy(options)
        self.observation = observation
        self.legal = legal
        self.rng = rng
        self.time_left_ms = time_left_ms
        self.step = step
        self._determinization = determinization

    @classmethod
    def of(
        cls, state: State, seat: int, rng: random.Random, time_left_ms: float | None = None
    ) -> Turn:
        """The turn of ``seat`` (to move in ``state``): its observation and legal actions
        are computed now, and the Turn keeps no reference to ``state``."""
        return cls(
            state.game,
            seat,
            state.num_players,
            state.options,
            state.observation(seat),
            state.legal_actions(),
            rng,
            time_left_ms,
            len(state.history),
        )

    def determinize(self, rng: random.Random | None = None) -> State:
        """A fresh full state drawn consistently with this seat's information: what the
        observation shows as shown, everything it hides drawn at random with ``rng``
        (default: :attr:`rng`). Its legal actions are :attr:`legal`; its ``history`` is
        empty. The bot may change or play it freely.

        The first call rebuilds a state from the observation (``game.from_observation``),
        later ones resample that one (``resample``), which is as cheap as resampling the
        true state. So a bot must not change :attr:`observation` before its first call.
        """
        rng = rng or self.rng
        if self._determinization is None:
            self._determinization = self.game.from_observation(
                self.num_players, self.options, self.seat, self.observation, rng
            )
        return self._determinization.resample(self.seat, rng)

    def __getattr__(self, name: str) -> object:
        if name == "state":
            raise AttributeError(
                "a Turn carries no game state (bots see only their own information): use "
                "turn.observation, turn.legal, or turn.determinize(rng) for a state to search"
            )
        raise AttributeError(f"'Turn' object has no attribute {name!r}")

    def __repr__(self) -> str:
        return (
            f"Turn(game={self.game.id!r}, seat={self.seat}, step={self.step}, "
            f"legal={len(self.legal)} actions, time_left_ms={self.time_left_ms})"
        )


class Bot(Protocol):
    """What the match runner needs of an in-process bot."""

    name: str

    def choose(self, turn: Turn) -> Action | int: ...
