"""The engine contract every game implements (``docs/design.md``, "Engine contract").

A game is a :class:`Game` (metadata, options, ``new_game``) and a :class:`State`
(whose turn, the legal actions, ``apply``, observations, result, digest, resample).
Actions and chance outcomes are both :class:`Action` values: frozen, hashable
dataclasses whose JSON form is exactly the one written in the game's spec.

Chance is explicit, as in OpenSpiel: at a chance node ``current_player`` is
:data:`CHANCE` and ``chance_outcomes()`` lists ``(outcome, probability)``; the runner
samples one and applies it like any action. Engines never draw random numbers
themselves, so a game is fully determined by its id, version, player count, options
and the list of steps in ``history``.

Everything here is pure: no I/O, no clocks, no unseeded randomness.

Every game is one package of the same shape (a sixth game is one more package, its tests,
docs and one line in :mod:`engine.registry`)::

    engine/<id>/__init__.py   spec summary docstring (rules in brief, options, the rule
                              decisions with their ids); GAME = <Id>Game(); __all__
    engine/<id>/data.py       components (tiles, cards, boards) as constants
    engine/<id>/actions.py    action classes (KIND, TEXT) and interned action tables
    engine/<id>/state.py      <Id>State only: its fields declared once (engine.fields)
    engine/<id>/game.py       <Id>Game only: options, variants, step bound, components()
    engine/<id>/rebuild.py    from_observation (the determinization of an observation)
    engine/<id>/render.py     the text view

A game may add rule modules named for what they hold (``scoring.py``, ``geometry.py``,
``draft.py``); no module of a game package imports back a module that imports it. The rules
each package implements are in ``docs/rules/<id>.md``; CONTRIBUTING.md lists every other
touchpoint of a new game.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import random
import sys
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from engine.fields import StateFields
from engine.observed import JSON, first_difference

CHANCE = -1
"""``current_player`` at a chance node."""

TERMINAL = -2
"""``current_player`` once the game is over."""


class IllegalActionError(ValueError):
    """An action that is malformed or not legal in the current state.

    The message says what is wrong; the state is left unchanged.
    """


class GameConfigError(ValueError):
    """A bad game id, player count or option; the message names the problem."""


# ---------------------------------------------------------------------------
# Actions
# ---------------------------------------------------------------------------

A = TypeVar("A", bound="Action")


@dataclass(frozen=True, slots=True)
class Action:
    """Base of every action and chance outcome.

    A subclass is a ``@dataclass(frozen=True, slots=True)`` with a class variable
    ``KIND`` (the JSON ``"kind"``) and typed fields in JSON order. A field whose name
    ends in ``_`` is written without it (``from_`` becomes ``"from"``); ``tuple``
    fields are JSON lists; a field that is ``None`` is left out of the JSON.

    >>> @dataclass(frozen=True, slots=True)
    ... class Load(Action):
    ...     KIND: ClassVar[str] = "load"
    ...     truck: str
    >>> Load("T2").to_json()
    {'kind': 'load', 'truck': 'T2'}
    >>> Load.from_json({"kind": "load", "truck": "T2"}) == Load("T2")
    True

    ``str(action)`` is the short text people read (replays, legal-action lists on the
    wire). A class declares it once as ``TEXT``, a :meth:`str.format` template over the
    JSON field names (tuple fields are joined with commas); without ``TEXT`` it is the
    kind followed by ``name=value`` pairs.

    >>> @dataclass(frozen=True, slots=True)
    ... class Take(Action):
    ...     KIND: ClassVar[str] = "bonus_take"
    ...     TEXT: ClassVar[str] = "bonus_take {from}:{tile}"
    ...     from_: int
    ...     tile: str
    >>> str(Take(1, "S2F1")), str(Load("T2"))
    ('bonus_take 1:S2F1', 'load truck=T2')
    """

    KIND: ClassVar[str] = ""
    TEXT: ClassVar[str | None] = None
    """The ``str.format`` template of ``str(action)`` (None: ``kind name=value ...``)."""
    PUBLIC_TEXT: ClassVar[str | None] = None
    """What a seat that may not see this action reads instead of ``str(action)``: a
    ``str.format`` template over the JSON field names and ``{actor}`` (the seat that chose
    it). None: the action is public, everyone reads ``str(action)``. A game sets it on
    the classes its rules make private (another seat's dealt card, a hidden commitment);
    :meth:`text_for` applies it."""

    def to_json(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {"kind": self.KIND}
        cls: type = type(self)  # (type[Action] -> type: the cache's key)
        for name, key in _json_keys(cls):
            value = getattr(self, name)
            if value is None:
                continue
            out[key] = _to_jsonable(value)
        return out

    @classmethod
    def from_json(cls: type[A], data: Mapping[str, JSON]) -> A:
        """Decode ``data`` (whose ``kind`` must be ``cls.KIND``), checking every field."""
        if not isinstance(data, Mapping):
            raise IllegalActionError(f"an action must be a JSON object, got {data!r}")
        if data.get("kind") != cls.KIND:
            raise IllegalActionError(f"expected kind {cls.KIND!r}, got {data.get('kind')!r}")
        hints = _field_types(typing.cast(type, cls))  # type[A] -> type: the cache's key
        kwargs: dict[str, Any] = {}
        known = {"kind"}
        for f in dataclasses.fields(cls):
            key = f.name.rstrip("_")
            known.add(key)
            hint = hints[f.name]
            if key not in data:
                if _allows_none(hint):
                    kwargs[f.name] = None
                    continue
                raise IllegalActionError(f"{cls.KIND!r} action is missing field {key!r}")
            kwargs[f.name] = _decode(hint, data[key], f"{cls.KIND}.{key}")
        extra = sorted(set(data) - known)
        if extra:
            raise IllegalActionError(f"{cls.KIND!r} action has unknown field(s) {extra}")
        return cls(**kwargs)

    def owner(self, actor: int) -> int | None:
        """The one seat that reads this action in full when it has a :attr:`PUBLIC_TEXT`
        (None: nobody). ``actor`` chose it (:data:`CHANCE` for a chance outcome). By
        default the seat that chose it, and nobody for a chance outcome; a chance outcome
        dealt to one seat (a card into a hand) returns that seat."""
        return actor if actor >= 0 else None

    def text_for(self, actor: int, seat: int | None) -> str:
        """``str(action)`` as ``seat`` (None: the spectator) may read it: the full text if
        the action is public or ``seat`` is its :meth:`owner`, else the public part
        (:attr:`PUBLIC_TEXT`). Records keep the full action; every seat view (the replay
        viewer, ``arena replay --seat``, ``arena play --show``) prints this, so the text of
        a step never tells a seat more than its observations do.

        >>> @dataclass(frozen=True, slots=True)
        ... class Deal(Action):
        ...     KIND: ClassVar[str] = "deal"
        ...     TEXT: ClassVar[str] = "deal {card} to seat {seat}"
        ...     PUBLIC_TEXT: ClassVar[str] = "deal a card to seat {seat}"
        ...     seat: int
        ...     card: str
        ...
        ...     def owner(self, actor: int) -> int | None:
        ...         return self.seat
        >>> [Deal(1, "S62").text_for(CHANCE, s) for s in (1, 0, None)]
        ['deal S62 to seat 1', 'deal a card to seat 1', 'deal a card to seat 1']
        """
        if self.PUBLIC_TEXT is None or (seat is not None and seat == self.owner(actor)):
            return str(self)
        return self.PUBLIC_TEXT.format_map({**self._text_values(), "actor": actor})

    def _text_values(self) -> dict[str, Any]:
        """The JSON field names and values as the text templates read them."""
        values: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, tuple):
                value = ",".join(str(v) for v in value)
            values[f.name.rstrip("_")] = value
        return values

    def __str__(self) -> str:
        values = self._text_values()
        if self.TEXT is not None:  # booleans as JSON spells them
            return self.TEXT.format_map(
                {k: json.dumps(v) if isinstance(v, bool) else v for k, v in values.items()}
            )
        parts = [self.KIND]
        parts.extend(f"{k}={v}" for k, v in values.items() if v is not None)
        return " ".join(parts)


def _to_jsonable(value: Any) -> JSON:
    if isinstance(value, tuple):
        return [_to_jsonable(v) for v in value]
    return value


@functools.cache
def _json_keys(cls: type) -> tuple[tuple[str, str], ...]:
    """(field name, JSON key) of each field of action class ``cls`` (once per class: the
    match runner records every step's action as JSON)."""
    return tuple((f.name, f.name.rstrip("_")) for f in dataclasses.fields(cls))


@functools.cache
def _field_types(cls: type) -> dict[str, Any]:
    """The resolved field types of action class ``cls`` (once per class)."""
    module = sys.modules.get(cls.__module__)
    return typing.get_type_hints(cls, vars(module) if module else None)


def _allows_none(hint: Any) -> bool:
    return isinstance(hint, types.UnionType | typing._UnionGenericAlias) and type(None) in (  # type: ignore[attr-defined]  # private: typing.Optional's class
        typing.get_args(hint)
    )


def _decode(hint: Any, value: JSON, where: str) -> Any:
    """Check ``value`` against the field type ``hint`` and convert lists to tuples."""
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        if value not in typing.get_args(hint) or isinstance(value, bool) != any(
            isinstance(a, bool) for a in typing.get_args(hint)
        ):
            choices = ", ".join(repr(a) for a in typing.get_args(hint))
            raise IllegalActionError(f"{where} must be one of {choices}, got {value!r}")
        return value
    if origin in (types.UnionType, typing.Union):
        errors = []
        for arm in typing.get_args(hint):
            if arm is type(None):
                if value is None:
                    return None
                continue
            try:
                return _decode(arm, value, where)
            except IllegalActionError as exc:
                errors.append(str(exc))
        raise IllegalActionError("; ".join(errors) or f"{where} has a bad value {value!r}")
    if origin is tuple:
        args = typing.get_args(hint)
        if not isinstance(value, list):
            raise IllegalActionError(f"{where} must be a list, got {value!r}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], v, f"{where}[{i}]") for i, v in enumerate(value))
        if len(value) != len(args):
            raise IllegalActionError(f"{where} must have {len(args)} items, got {len(value)}")
        return tuple(
            _decode(a, v, f"{where}[{i}]") for i, (a, v) in enumerate(zip(args, value, strict=True))
        )
    if hint is bool:
        if not isinstance(value, bool):
            raise IllegalActionError(f"{where} must be true or false, got {value!r}")
        return value
    if hint is int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise IllegalActionError(f"{where} must be an integer, got {value!r}")
        return value
    if hint is str:
        if not isinstance(value, str):
            raise IllegalActionError(f"{where} must be a string, got {value!r}")
        return value
    if hint is float:
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise IllegalActionError(f"{where} must be a number, got {value!r}")
        return float(value)
    raise TypeError(f"unsupported action field type {hint!r} at {where}")


class ActionCodec:
    """Decodes JSON into one of a game's action classes, by ``kind``.

    >>> try:
    ...     ActionCodec([]).decode({"kind": "fly"})
    ... except IllegalActionError as exc:
    ...     print(exc)
    unknown action kind 'fly'; known kinds: none
    """

    def __init__(self, classes: Iterable[type[Action]]) -> None:
        self.by_kind: dict[str, type[Action]] = {c.KIND: c for c in classes}

    def decode(self, data: JSON) -> Action:
        if not isinstance(data, Mapping):
            raise IllegalActionError(f"an action must be a JSON object, got {data!r}")
        kind = data.get("kind")
        cls = self.by_kind.get(kind) if isinstance(kind, str) else None
        if cls is None:
            known = ", ".join(sorted(self.by_kind)) or "none"
            raise IllegalActionError(f"unknown action kind {kind!r}; known kinds: {known}")
        return cls.from_json(data)


# ---------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Result:
    """The outcome of a finished game.

    ``scores[i]`` is seat i's total, ``breakdown[i]`` its score by category (the
    spec's names; ``total`` included), ``ranks[i]`` its rank (1 = best, ties share).
    """

    scores: list[float]
    breakdown: list[dict[str, float]]
    ranks: list[int]

    def to_json(self) -> dict[str, JSON]:
        return {"scores": self.scores, "breakdown": self.breakdown, "ranks": self.ranks}

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> Result:
        return cls(list(data["scores"]), [dict(b) for b in data["breakdown"]], list(data["ranks"]))


def competition_ranks(keys: Sequence[Any]) -> list[int]:
    """Rank seats by ``keys`` (higher is better); equal keys share a rank.

    >>> competition_ranks([(30, 2), (30, 4), (18, 0)])
    [2, 1, 3]
    >>> competition_ranks([5, 5, 1])
    [1, 1, 3]
    """
    return [1 + sum(1 for other in keys if other > k) for k in keys]


# ---------------------------------------------------------------------------
# Game and State
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Option:
    """One documented game option: its default, what it means, and what it accepts.

    ``type`` (``bool``, ``int``, ``str``, ``list``) and ``choices`` let
    :meth:`Game.new_game` refuse the common mistakes itself, with one wording for every
    game, and let tools show what an option accepts; ``Game._check_option`` checks the
    rest (a list's items, combinations). JSON ``null`` always means the default.

    >>> Option(False, "both boards", type=bool).problem("yes")
    'must be true or false'
    >>> Option("A", "board side", choices=("A", "B")).problem("C")
    'must be one of "A", "B"'
    >>> Option(None, "start seat", type=int).problem(2) is None
    True
    """

    default: JSON
    doc: str
    type: type | None = None
    choices: tuple[JSON, ...] | None = None

    def problem(self, value: JSON) -> str | None:
        """What is wrong with ``value`` by type and choices (None: nothing found)."""
        if value is None:
            return None
        if self.choices is not None:
            return check_choice(value, self.choices)
        kind = self.type
        if kind is None:
            return None
        if kind is bool and not isinstance(value, bool):
            return "must be true or false"
        if kind is int and (not isinstance(value, int) or isinstance(value, bool)):
            return "must be an integer"
        if kind is str and not isinstance(value, str):
            return "must be a string"
        if kind is list and not isinstance(value, list):
            return "must be a list"
        return None

    def accepts(self) -> str:
        """A short text of what the option accepts (for ``arena games``)."""
        if self.choices is not None:
            return " | ".join(json.dumps(c) for c in self.choices)
        names = {bool: "true | false", int: "integer", str: "string", list: "list"}
        return names.get(self.type, "JSON") if self.type is not None else "JSON"


class Game:
    """A game's metadata and its factory of initial states.

    Subclasses set the class attributes and implement :meth:`_new_state` and
    :meth:`_check_option` (called per given option with its value).
    """

    id: ClassVar[str]
    name: ClassVar[str]
    version: ClassVar[int]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    option_specs: ClassVar[dict[str, Option]] = {}
    action_classes: ClassVar[tuple[type[Action], ...]] = ()

    def __init__(self) -> None:
        self._codec = ActionCodec(self.action_classes)

    @property
    def options(self) -> dict[str, JSON]:
        """Option name -> default (documented in :attr:`option_specs`)."""
        return {k: v.default for k, v in self.option_specs.items()}

    def player_counts(self) -> range:
        return range(self.min_players, self.max_players + 1)

    def step_bound(self, num_players: int, options: Mapping[str, JSON]) -> int:
        """An upper bound on the steps (decisions + chance outcomes) of any game.

        The conformance suite fails a playout that runs longer. Games override this
        with the bound their spec implies.
        """
        return 100_000

    def variants(self, num_players: int) -> list[dict[str, JSON]]:
        """Option sets the conformance suite plays for ``num_players`` (default: defaults).

        Games with variants (board sides, modules, scenarios) list one option dict per
        variant so every variant gets random playouts.
        """
        return [{}]

    def new_game(self, num_players: int, options: Mapping[str, JSON] | None = None) -> State:
        """The initial state; raises :class:`GameConfigError` for bad arguments."""
        if (
            not isinstance(num_players, int)
            or isinstance(num_players, bool)
            or num_players not in self.player_counts()
        ):
            raise GameConfigError(
                f"{self.id} is for {self.min_players}-{self.max_players} players, "
                f"got {num_players!r}"
            )
        opts = dict(self.options)
        for key, value in (options or {}).items():
            if key not in self.option_specs:
                known = ", ".join(sorted(self.option_specs)) or "none"
                raise GameConfigError(f"{self.id} has no option {key!r}; options: {known}")
            spec = self.option_specs[key]
            problem = spec.problem(value)
            if problem is None and value is not None:
                problem = self._check_option(key, value, num_players, options or {})
            if problem:
                raise GameConfigError(f"{self.id} option {key!r}: {problem} (got {value!r})")
            opts[key] = spec.default if value is None else value
        return self._new_state(num_players, opts)

    def components(self) -> dict[str, JSON]:
        """Static data about the game's components that tools draw with (the HTML replay
        viewer): what is printed on a tile or card that observations name only by id.
        JSON-able, the same for every game of this version; ``{}`` when there is none."""
        return {}

    def action_from_json(self, data: JSON) -> Action:
        """Decode an action or chance outcome from its JSON form."""
        return self._codec.decode(data)

    def render_view(
        self,
        num_players: int,
        options: Mapping[str, JSON] | None,
        seat: int,
        observation: Mapping[str, JSON],
    ) -> str:
        """``seat``'s ``observation`` drawn as the game draws that seat's view: a state
        rebuilt from it (:meth:`from_observation`: what is hidden from the seat is drawn
        at random, and ``render(seat)`` shows none of it), so the text holds exactly what
        the observation holds. An observation that does not rebuild (not one of the seat's
        turns, malformed) is shown as indented JSON. For people watching or playing a
        seat over the wire (``arena watch --credential``, the ``human`` bot)."""
        try:
            state = self.from_observation(num_players, options, seat, observation, random.Random(0))
        except (ValueError, NotImplementedError, KeyError, IndexError, TypeError):
            return json.dumps(observation, indent=1)
        return state.render(seat)

    def from_observation(
        self,
        num_players: int,
        options: Mapping[str, JSON] | None,
        seat: int,
        observation: Mapping[str, JSON],
        rng: random.Random,
    ) -> State:
        """A full state drawn from the information set that ``observation`` describes.

        ``observation`` is what ``seat`` observed at one of its own turns (as
        ``state.observation(seat)`` gives it, or as a bot receives it over the wire).
        The returned state is a *determinization*: everything the observation shows is
        as shown, and everything it hides (cards in other hands, the order of a bag or
        a deck, other seats' secret commitments) is drawn at random with ``rng`` from
        what is still possible, as :meth:`State.resample` does. So:

        - ``state.observation(seat) == observation``, ``state.current_player == seat``
          and ``state.legal_actions()`` are the seat's legal actions of that turn;
        - ``state.history`` is empty (the steps that led here are unknown), but the
          state is otherwise a normal one: it can be cloned, played to the end,
          resampled and scored.

        This is how a search bot that only receives observations (over gRPC) gets states
        to search on. Raises :class:`ValueError` when the observation is malformed or
        is not one of ``seat``'s turns, or when the rebuilt state's own observation
        differs from it (the message names the first differing field, see
        :func:`engine.observed.first_difference`): that catches every derived field
        (a score, a count) that does not match the rest.
        """
        initial = self.new_game(num_players, options)
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < num_players:
            raise ValueError(f"seat must be 0..{num_players - 1}, got {seat!r}")
        if not isinstance(observation, Mapping):
            raise ValueError(f"an observation must be a JSON object, got {observation!r}")
        try:
            state = self._from_observation(initial, seat, observation, rng)
            if state.current_player != seat:
                raise ValueError(f"the observation is not one of seat {seat}'s turns")
            difference = first_difference(observation, state.observation(seat))
            if difference is None and not state.legal_actions():
                difference = f"it leaves seat {seat} no legal action"
        except KeyError as exc:
            raise ValueError(f"{self.id} observation has no field {exc.args[0]!r}") from None
        except (IndexError, TypeError) as exc:
            raise ValueError(f"{self.id} observation is malformed: {exc!r}") from None
        if difference is not None:
            raise ValueError(f"inconsistent observation: {difference}")
        state.history = []
        state._fields_changed()
        return state

    def _check_option(
        self, key: str, value: JSON, num_players: int, options: Mapping[str, JSON]
    ) -> str | None:
        """Return a description of what is wrong with ``value``, or None if it is fine."""
        return None

    def _new_state(self, num_players: int, options: dict[str, JSON]) -> State:
        raise NotImplementedError

    def _from_observation(
        self, initial: State, seat: int, observation: Mapping[str, JSON], rng: random.Random
    ) -> State:
        """Build the determinization of :meth:`from_observation`.

        ``initial`` is ``new_game`` with the checked player count and options; a game
        may fill it in place or build a new state of its own. It reads the fields with
        :mod:`engine.observed` and raises :class:`ValueError` for what it cannot build
        (``KeyError``, ``IndexError`` and ``TypeError`` become one too). It need not
        check the derived fields: :meth:`from_observation` compares the returned
        state's observation with ``observation`` afterwards.
        """
        raise NotImplementedError(f"{self.id} does not rebuild states from observations")


_DIGEST_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":"))
"""What :meth:`State.digest` hashes the payload with: ``json.dumps(payload,
sort_keys=True, separators=(",", ":"))``, without building an encoder per call."""


class State:
    """A game position. Subclasses declare their fields and implement the underscored hooks.

    A subclass declares each field once, as an annotation with a one-line docstring
    (see :mod:`engine.fields`); that declaration drives :meth:`clone`, :meth:`_full_state`,
    :meth:`digest` and rebuilds (:func:`engine.fields.build`). The base class keeps
    ``history``, caches the legal actions between steps and checks every action before
    applying it.
    """

    game: Game
    num_players: int
    options: dict[str, JSON]
    history: list[Action]

    _declared: ClassVar[StateFields | None] = None
    """Per-class cache of :meth:`declared_fields` (read from the class's own ``__dict__``)."""
    _copy_fields: ClassVar[Callable[[State, State], None] | None] = None
    """Per-class cache of the generated field copier :meth:`clone` calls."""

    _BASE_FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"game", "num_players", "options", "history", "_legal", "_BASE_FIELDS"}
    )

    def __init__(self, game: Game, num_players: int, options: dict[str, JSON]) -> None:
        self._init_base(game, num_players, options)

    def _init_base(self, game: Game, num_players: int, options: dict[str, JSON]) -> None:
        self.game = game
        self.num_players = num_players
        self.options = options
        self.history = []
        self._legal: list[Action] | None = None

    @classmethod
    def declared_fields(cls) -> StateFields:
        """The fields this class declares (read once from its annotations)."""
        fields = cls.__dict__.get("_declared")
        if fields is None:
            fields = StateFields(cls, cls._BASE_FIELDS)
            cls._declared = fields
        return fields

    def _fields_changed(self) -> None:
        """Forget what the base class caches; call after changing fields outside ``apply``
        (rebuilds, resamples, test builders)."""
        self._legal = None

    # -- the contract ------------------------------------------------------

    @property
    def current_player(self) -> int:
        """Seat to move, :data:`CHANCE` or :data:`TERMINAL`."""
        raise NotImplementedError

    def is_terminal(self) -> bool:
        return self.current_player == TERMINAL

    def is_chance_node(self) -> bool:
        return self.current_player == CHANCE

    def legal_actions(self) -> list[Action]:
        """The actions of the seat to move in canonical order ([] at chance/terminal)."""
        if self._legal is None:
            player = self.current_player
            self._legal = [] if player < 0 else self._legal_actions()
        return list(self._legal)

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        """``(outcome, probability)`` at a chance node in canonical order, else []."""
        if self.current_player != CHANCE:
            return []
        return self._chance_outcomes()

    def is_legal(self, action: Action) -> bool:
        player = self.current_player
        if player == CHANCE:
            return any(o == action for o, _ in self._chance_outcomes())
        if player == TERMINAL:
            return False
        if self._legal is None:
            self._legal = self._legal_actions()
        return action in self._legal

    def apply(self, action: Action) -> None:
        """Apply an action or chance outcome; raise IllegalActionError if it is not legal."""
        if not isinstance(action, Action):
            raise IllegalActionError(f"not an action: {action!r}")
        if not self.is_legal(action):
            raise IllegalActionError(self._illegal_reason(action))
        self._legal = None
        self._apply(action)
        self.history.append(action)

    def apply_json(self, data: JSON) -> Action:
        """Decode ``data`` with the game's codec, apply it and return the action."""
        action = self.game.action_from_json(data)
        self.apply(action)
        return action

    def clone(self) -> State:
        """An independent copy: every declared field copied as deep as its type says."""
        cls = type(self)
        other = object.__new__(cls)
        other.game = self.game
        other.num_players = self.num_players
        other.options = self.options
        other.history = list(self.history)
        other._legal = self._legal
        copy = cls.__dict__.get("_copy_fields")
        if copy is None:  # first clone of this class: derive the copier once
            copy = cls.declared_fields().copy_into
            cls._copy_fields = copy
        copy(self, other)
        return other

    def scores(self) -> list[float]:
        """Each seat's total so far: provisional during play (as if the game ended now,
        by the rules' own scoring), final once the game is over (``result().scores``),
        like OpenSpiel's ``Returns()``. Every observation carries it as ``scores``."""
        return self._scores()

    def observation(self, seat: int | None) -> dict[str, JSON]:
        """What ``seat`` may know (``None``: the spectator's public view), JSON-able."""
        if seat is not None and not (0 <= seat < self.num_players):
            raise ValueError(f"seat must be 0..{self.num_players - 1} or None, got {seat!r}")
        return self._observation(seat)

    def result(self) -> Result:
        if not self.is_terminal():
            raise ValueError("the game is not over yet")
        return self._result()

    def digest(self) -> str:
        """A stable SHA-256 of the full state (hidden parts included), in the digest layout
        the fields declare (:class:`engine.fields.Digest`), which only a ``Game.version``
        bump may change."""
        payload = {
            "game": self.game.id,
            "version": self.game.version,
            "players": self.num_players,
            "state": self._digest_layout(),
        }
        return hashlib.sha256(_DIGEST_JSON.encode(payload).encode()).hexdigest()

    def resample(self, seat: int, rng: random.Random) -> State:
        """A full state consistent with ``observation(seat)``; unseen parts re-drawn."""
        return self._resample(seat, rng)

    def render(self, seat: int | None = None) -> str:
        """Readable text of the state from ``seat``'s view (None: spectator)."""
        return json.dumps(self.observation(seat), indent=1)

    def __str__(self) -> str:
        return self.render(None)

    # -- hooks for subclasses -------------------------------------------------

    def _legal_actions(self) -> list[Action]:
        raise NotImplementedError

    def _chance_outcomes(self) -> list[tuple[Action, float]]:
        raise NotImplementedError

    def _apply(self, action: Action) -> None:
        raise NotImplementedError

    def _observation(self, seat: int | None) -> dict[str, JSON]:
        raise NotImplementedError

    def _result(self) -> Result:
        raise NotImplementedError

    def _full_state(self) -> JSON:
        """Everything that defines the state, hidden parts included: ``{field: JSON}``."""
        return type(self).declared_fields().full_state(self)

    def _digest_layout(self) -> JSON:
        """The full state as :meth:`digest` hashes it (declared keys and positions)."""
        return type(self).declared_fields().digest_layout(self)

    def _scores(self) -> list[float]:
        if self.is_terminal():
            return self._result().scores
        raise NotImplementedError(f"{self.game.id} does not keep provisional scores")

    def _resample(self, seat: int, rng: random.Random) -> State:
        """Default for games with no hidden state beyond unmodelled draw order."""
        return self.clone()

    def _illegal_reason(self, action: Action) -> str:
        """Why ``action`` is not legal now; games may refine this."""
        player = self.current_player
        if player == TERMINAL:
            return f"the game is over; {action} cannot be applied"
        if player == CHANCE:
            kinds = sorted({o.KIND for o, _ in self._chance_outcomes()})
            if action.KIND not in kinds:
                return f"a chance outcome of kind {'/'.join(kinds)} is due, not {action.KIND!r}"
            return f"{action} is not a possible chance outcome now"
        legal = self.legal_actions()
        kinds = sorted({a.KIND for a in legal})
        if action.KIND not in kinds:
            return (
                f"seat {player} must choose an action of kind {'/'.join(kinds)}, "
                f"not {action.KIND!r}"
            )
        same = [str(a) for a in legal if a.KIND == action.KIND]
        shown = ", ".join(same[:12]) + (" ..." if len(same) > 12 else "")
        return f"{action} is not legal now; legal {action.KIND} actions: {shown}"


# ---------------------------------------------------------------------------
# Helpers shared by games
# ---------------------------------------------------------------------------


_BITS: tuple[int, ...] = tuple(n.bit_length() for n in range(257))
"""``_BITS[n]``: the bits ``random.Random`` draws per try for a number below ``n``."""


def shuffle(items: list[Any], rng: random.Random) -> None:
    """``rng.shuffle(items)``: the same permutation and the same draws from ``rng``.

    Resamples shuffle the hidden cards once per search iteration, and the library's
    shuffle costs a Python call (``_randbelow``) per position. For a plain
    ``random.Random`` this is its Fisher-Yates loop inlined (``_randbelow`` draws
    ``getrandbits(n.bit_length())`` until the number is below ``n``), so seeded searches
    draw exactly what they drew with ``rng.shuffle``; any other generator (a subclass may
    draw differently) is left to its own ``shuffle``.
    """
    if type(rng) is not random.Random:
        rng.shuffle(items)
        return
    getrandbits = rng.getrandbits
    bits = _BITS
    top = len(bits)
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        k = bits[n] if n < top else n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        items[i], items[j] = items[j], items[i]


def sample_outcome(outcomes: Sequence[tuple[Action, float]], rng: random.Random) -> Action:
    """Sample one chance outcome with the given probabilities using ``rng``."""
    r = rng.random()
    acc = 0.0
    for outcome, p in outcomes:
        acc += p
        if r < acc:
            return outcome
    return outcomes[-1][0]


def replay(
    game: Game, num_players: int, options: Mapping[str, JSON] | None, steps: Iterable[Action]
) -> State:
    """A fresh game with ``steps`` applied in order."""
    state = game.new_game(num_players, options)
    for step in steps:
        state.apply(step)
    return state


def check_choice(value: JSON, choices: Iterable[JSON]) -> str | None:
    """Option helper: None if ``value`` is one of ``choices``, else what is wrong."""
    options = list(choices)
    if value in options and type(value) in {type(c) for c in options}:
        return None
    return "must be one of " + ", ".join(json.dumps(c) for c in options)


__all__ = [
    "CHANCE",
    "JSON",
    "TERMINAL",
    "Action",
    "ActionCodec",
    "Game",
    "GameConfigError",
    "IllegalActionError",
    "Option",
    "Result",
    "State",
    "check_choice",
    "competition_ranks",
    "replay",
    "sample_outcome",
    "shuffle",
]
