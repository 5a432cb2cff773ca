"""Fixed-shape tensors of a game's observations, and a fixed action index space.

Learners (PettingZoo, OpenSpiel, a numpy policy) need every observation as a vector of one
length and every action as an index into one range, whatever the position. Both are
derived here from what the engine already declares, never from a state's private fields:

- :class:`Layout` encodes ``state.observation(seat)`` (the JSON a bot receives) field by
  field into a float32 vector. Because it reads only the seat's observation, a tensor can
  carry no more than the observation does: two states that differ only in what the seat
  cannot see encode identically (``tests/envs`` checks it with ``State.resample``).
  Seat-indexed lists are rotated so that the observing seat comes first and padded to the
  game's ``max_players``, so one policy serves every seat and player count.
- :class:`ActionSpace` enumerates every decision the game can ever offer, from its action
  classes (``engine/<game>/actions.py``) and the value domain of each field, and maps a
  legal-action list to a mask and an index back to the action.

``Layout.describe()`` lists the layout (offset, width, name, meaning), like OpenSpiel's
``ObservationTensor`` documentation; :mod:`envs.layouts` holds each game's layout.
"""

from __future__ import annotations

import dataclasses
import itertools
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from engine.core import JSON, Action, State

Vector = npt.NDArray[np.float32]

_ID_CACHE = 100_000
"""At most this many actions in an :class:`ActionSpace`'s identity cache."""

EMPTY_TOKENS: tuple[JSON, ...] = ("", None, -1)
"""Values that mean "nothing here" (no tile held, no occupant): a one-hot of all zeros."""


@dataclass(frozen=True, slots=True)
class Context:
    """What every field needs besides its value: whose view it is."""

    seat: int
    """The observing seat (the observation's ``you``); seat lists start with it."""
    num_players: int
    """Seats in this game (seat lists hold this many real entries)."""


class Sink:
    """The vector being built, as lists that become an array once at the end: appending
    to a list is cheaper in Python than setting numpy items one by one."""

    __slots__ = ("ones", "spots", "values")

    def __init__(self) -> None:
        self.ones: list[int] = []
        """Positions that get 1 added (one-hots, token counts)."""
        self.spots: list[int] = []
        """Positions of numbers (each written once), with :attr:`values`."""
        self.values: list[float] = []

    def vector(self, size: int, distinct: bool = False) -> Vector:
        """The float32 vector of ``size`` entries. ``distinct``: no position is in
        :attr:`ones` twice (an encoder that knows it saves the counting)."""
        if distinct:
            out = np.zeros(size, dtype=np.float32)
            if self.ones:
                out[np.array(self.ones, dtype=np.intp)] = 1.0
        elif self.ones:
            out = np.bincount(self.ones, minlength=size).astype(np.float32)
        else:
            out = np.zeros(size, dtype=np.float32)
        if self.spots:
            out[self.spots] = self.values
        return out


class Field:
    """One part of the vector. ``key`` names the observation field it reads (None: the
    value handed down by an enclosing :class:`Seats`, :class:`Rows` or :class:`Record`).
    ``width`` (how many floats it takes) is fixed when the field is built, so the vector's
    length never depends on a state."""

    key: str | None
    doc: str
    width: int

    def write(self, value: JSON, ctx: Context, out: Sink, at: int) -> None:
        """Encode ``value`` into the vector's ``[at : at + width]``, as ``out`` entries."""
        raise NotImplementedError

    def parts(self) -> list[tuple[str, int, str]]:
        """``(name, width, doc)`` of each named part, in vector order (for ``describe``)."""
        return [(self.key or "", self.width, self.doc)]

    def emit(self, gen: Gen, value: str, at: str) -> None:
        """Append to ``gen`` the code of :meth:`write` for the value held by the Python
        expression ``value`` at offset expression ``at`` (see :class:`Gen`). By default a
        call of :meth:`write`; the common fields inline their own."""
        me = gen.constant(self)
        gen.needs_context = True
        gen.line(f"{me}.write({value}, ctx, out, {at})")


class Gen:
    """The source of one function that encodes a whole observation, generated from a
    layout's fields (:meth:`Layout.compile`): the same steps as the fields' ``write``
    methods with the offsets folded into constants and no call per field, several times
    faster. The interpreted ``write`` path stays the reference: it runs when the compiled
    one meets a value it cannot encode, to raise the error that names the field."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depth = 1
        self.constants: dict[str, Any] = {}
        self.count = 0
        self.needs_context = False
        """Whether a field calls its ``write`` (which takes a :class:`Context`)."""

    def line(self, text: str) -> None:
        self.lines.append("    " * self.depth + text)

    def name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def constant(self, value: Any) -> str:
        name = self.name("k")
        self.constants[name] = value
        return name

    def local(self, value: str) -> str:
        """A fresh local holding ``value`` (evaluated once)."""
        name = self.name("v")
        self.line(f"{name} = {value}")
        return name


def _plus(at: str, offset: int) -> str:
    return at if offset == 0 else f"{at} + {offset}"


def _read(field: Field, container: JSON) -> JSON:
    return container if field.key is None else container[field.key]


class Number(Field):
    """A number (or a bool as 0/1) divided by ``scale``: one float."""

    def __init__(self, key: str | None, doc: str, scale: float = 1.0) -> None:
        self.key, self.doc, self.width, self.scale = key, doc, 1, scale

    def write(self, value: JSON, ctx: Context, out: Sink, at: int) -> None:
        if value:
            out.spots.append(at)
            out.values.append(float(value) / self.scale)

    def emit(self, gen: Gen, value: str, at: str) -> None:
        v = gen.local(value)
        gen.line(f"if {v}:")
        gen.line(f"    spots.append({at})")
        gen.line(f"    values.append({v} / {float(self.scale)!r})")


class OneHot(Field):
    """A token among ``vocab``: one float per token, 1 at the token's (all 0 for an
    :data:`EMPTY_TOKENS` value). A token outside ``vocab`` is a layout bug: ValueError."""

    def __init__(self, key: str | None, doc: str, vocab: Iterable[JSON]) -> None:
        self.key, self.doc, self.vocab = key, doc, tuple(vocab)
        self.width = len(self.vocab)
        self.index = {token: i for i, token in enumerate(self.vocab)}

    def write(self, value: JSON, ctx: Context, out: Sink, at: int) -> None:
        i = self.index.get(value)
        if i is None:
            if value in EMPTY_TOKENS:
                return
            raise ValueError(f"{self.key}: {value!r} is not in the layout's vocabulary")
        out.ones.append(at + i)

    def emit(self, gen: Gen, value: str, at: str) -> None:
        index, empty = gen.constant(self.index), gen.constant(EMPTY_TOKENS)
        v = gen.local(value)
        i = gen.local(f"{index}.get({v})")
        gen.line(f"if {i} is not None:")
        gen.line(f"    ones.append({_plus(at, 0)} + {i})")
        gen.line(f"elif {v} not in {empty}:")
        gen.line("    raise KeyError")


class Tokens(OneHot):
    """A list of tokens among ``vocab`` as counts (a multi-hot for sets): one float per
    token; the order within the list is not kept, and an :data:`EMPTY_TOKENS` entry (a
    slot not filled yet, such as Panorama's goals before they are drawn) counts nothing.
    With ``item_key``, the list holds objects and the token is each object's
    ``item_key`` field."""

    def __init__(
        self, key: str | None, doc: str, vocab: Iterable[JSON], item_key: str | None = None
    ) -> None:
        super().__init__(key, doc, vocab)
        self.item_key = item_key

    def write(self, value: JSON, ctx: Context, out: Sink, at: int) -> None:
        if self.item_key is not None:
            value = [entry[self.item_key] for entry in value]
        index, ones = self.index, out.ones
        for token in value:
            i = index.get(token)
            if i is not None:
                ones.append(at + i)
            elif token not in EMPTY_TOKENS:
                raise ValueError(f"{self.key}: {token!r} is not in the layout's vocabulary")

    def emit(self, gen: Gen, value: str, at: str) -> None:
        index, token, i = gen.constant(self.index), gen.name("t"), gen.name("i")
        empty = gen.constant(EMPTY_TOKENS)
        base = gen.local(at)
        gen.line(f"for {token} in {value}:")  # a loop: lists are short, often empty
        if self.item_key is not None:
            gen.line(f"    {token} = {token}[{self.item_key!r}]")
        gen.line(f"    {i} = {index}.get({token})")
        gen.line(f"    if {i} is not None:")
        gen.line(f"        ones.append({base} + {i})")
        gen.line(f"    elif {token} not in {empty}:")
        gen.line("        raise KeyError")


class Seat(Field):
    """A seat number as a one-hot of its position relative to the observer (``seats``
    floats, the game's largest player count; all 0 for a negative value: chance, nobody,
    game over)."""

    def __init__(self, key: str | None, doc: str, seats: int) -> None:
        self.key, self.doc, self.width = key, doc, seats

    def write(self, value: JSON, ctx: Context, out: Sink, at: int) -> None:
        if value >= 0:
            out.ones.append(at + (value - ctx.seat) % ctx.num_players)

    def emit(self, gen: Gen, value: str, at: str) -> None:
        v = gen.local(value)
        gen.line(f"if {v} >= 0:")
        gen.line(f"    ones.append({at} + ({v} - seat) % players)")


class Record(Field):
    """A JSON object: its ``fields`` one after another."""

    def __init__(self, key: str | None, doc: str, fields: Iterable[Field]) -> None:
        self.key, self.doc, self.fields = key, doc, tuple(fields)
        self.width = sum(f.width for f in self.fields)

    def write(self, value: JSON, ctx: Context, out: Sink, at: int) -> None:
        for f in self.fields:
            f.write(value if f.key is None else value[f.key], ctx, out, at)
            at += f.width

    def emit(self, gen: Gen, value: str, at: str) -> None:
        v = gen.local(value)
        offset = 0
        for f in self.fields:
            f.emit(gen, v if f.key is None else f"{v}[{f.key!r}]", _plus(at, offset))
            offset += f.width

    def parts(self) -> list[tuple[str, int, str]]:
        prefix = f"{self.key}." if self.key else ""
        return [(prefix + n, w, d) for f in self.fields for n, w, d in f.parts()]


class Rows(Field):
    """A list of at most ``count`` entries, each encoded by ``item``, padded with zeros."""

    def __init__(self, key: str | None, doc: str, count: int, item: Field) -> None:
        self.key, self.doc, self.count, self.item = key, doc, count, item
        self.width = count * item.width

    def write(self, value: JSON, ctx: Context, out: Sink, at: int) -> None:
        if len(value) > self.count:
            raise ValueError(f"{self.key} has {len(value)} entries, the layout holds {self.count}")
        width = self.item.width
        for i, entry in enumerate(value):
            self.item.write(entry, ctx, out, at + i * width)

    def emit(self, gen: Gen, value: str, at: str) -> None:
        v, i, entry = gen.local(value), gen.name("i"), gen.name("e")
        gen.line(f"if len({v}) > {self.count}:")
        gen.line("    raise KeyError")
        gen.line(f"for {i}, {entry} in enumerate({v}):")
        gen.depth += 1
        base = gen.local(f"{at} + {i} * {self.item.width}")
        self.item.emit(gen, entry, base)
        gen.depth -= 1

    def parts(self) -> list[tuple[str, int, str]]:
        return [
            (f"{self.key}[{i}].{n}".rstrip("."), w, d or self.doc)
            for i in range(self.count)
            for n, w, d in self.item.parts()
        ]


class Seats(Rows):
    """A list indexed by seat, rotated so that the observer comes first (entry 0 is the
    observer, 1 the next seat clockwise...), padded to ``seats`` entries with zeros."""

    def write(self, value: JSON, ctx: Context, out: Sink, at: int) -> None:
        width = self.item.width
        for seat, entry in enumerate(value):
            rel = (seat - ctx.seat) % ctx.num_players
            self.item.write(entry, ctx, out, at + rel * width)

    def emit(self, gen: Gen, value: str, at: str) -> None:
        v, j, entry = gen.local(value), gen.name("j"), gen.name("e")
        gen.line(f"for {j}, {entry} in enumerate({v}):")
        gen.depth += 1
        base = gen.local(f"{at} + (({j} - seat) % players) * {self.item.width}")
        self.item.emit(gen, entry, base)
        gen.depth -= 1

    def parts(self) -> list[tuple[str, int, str]]:
        return [(n.replace("[", "[+", 1), w, d) for n, w, d in super().parts()]


class Layout:
    """A game's observation encoding: ``fields`` of the observation, in vector order."""

    def __init__(self, fields: Sequence[Field]) -> None:
        self.fields = tuple(fields)
        self.size = sum(f.width for f in self.fields)
        """The vector's length (the same for every state, seat and player count)."""
        self._compiled: Callable[[Mapping[str, JSON], int, Sink], None] | None = None

    def encode(self, observation: Mapping[str, JSON], num_players: int) -> Vector:
        """``observation`` (a seat's, with ``you``) as a float32 vector of :attr:`size`:
        by the compiled encoder (:meth:`compile`); a value it cannot encode goes through
        the fields' own ``write`` instead, which raises the error naming the field."""
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = self.compile()
        out = Sink()
        try:
            compiled(observation, num_players, out)
        except (KeyError, IndexError, TypeError):
            return self.encode_slowly(observation, num_players)
        return out.vector(self.size)

    def compile(self) -> Callable[[Mapping[str, JSON], int, Sink], None]:
        """The fields' code as one generated function ``(observation, num_players, sink)``
        (see :class:`Gen`)."""
        gen = Gen()
        gen.line("seat = int(observation['you'])")
        gen.line("ones, spots, values = out.ones, out.spots, out.values")
        at = 0
        for f in self.fields:
            f.emit(gen, "observation" if f.key is None else f"observation[{f.key!r}]", str(at))
            at += f.width
        if gen.needs_context:
            gen.lines.insert(1, "    ctx = Context(seat, players)")
        source = "def encode(observation, players, out):\n" + "\n".join(gen.lines) + "\n"
        namespace: dict[str, Any] = {"Context": Context, **gen.constants}
        exec(compile(source, "<envs.tensors.Layout>", "exec"), namespace)
        return typing.cast(Callable[[Mapping[str, JSON], int, Sink], None], namespace["encode"])

    def encode_slowly(self, observation: Mapping[str, JSON], num_players: int) -> Vector:
        """:meth:`encode` by the fields' ``write`` methods (the reference the compiled
        encoder must equal; it names the field of a value it cannot encode)."""
        out = Sink()
        ctx = Context(int(observation["you"]), num_players)
        at = 0
        for f in self.fields:
            f.write(_read(f, observation), ctx, out, at)
            at += f.width
        return out.vector(self.size)

    def describe(self) -> list[tuple[int, int, str, str]]:
        """``(offset, width, name, meaning)`` of every part of the vector."""
        rows = []
        at = 0
        for f in self.fields:
            for name, width, doc in f.parts():
                rows.append((at, width, name, doc))
                at += width
        return rows


# ---------------------------------------------------------------------------
# Actions
# ---------------------------------------------------------------------------


class DecisionSpace(Protocol):
    """What the environments need of a game's decision space: its size, the indices of a
    state's legal actions (the mask, and the way back from an index to an action) and a
    text for any index. :class:`ActionSpace` lists every action once; a space whose
    indices are relative to the state (Manatee Sanctuary's hand slots and board window,
    :mod:`envs.manatee`) maps them through the state it is given."""

    size: int
    """Indices are ``0..size-1`` whatever the state."""

    def legal(self, state: State) -> dict[int, Action]:
        """Index -> action for every legal action of ``state`` (in its canonical order);
        ValueError if one has no index (a space that misses an action is a bug)."""
        ...

    def label(self, index: int) -> str:
        """What index ``index`` means, as text (for any index, legal or not)."""
        ...


class ActionSpace:
    """Every decision a game can offer, each with a fixed index (``0..size-1``).

    Built by :meth:`from_classes`: the cartesian product of each decision class's field
    domains, in class order then field order, so indices only move when the action
    classes or the components do (a ``Game.version`` change).
    """

    def __init__(self, actions: Iterable[Action]) -> None:
        self.actions: tuple[Action, ...] = tuple(actions)
        self.index: dict[Action, int] = {a: i for i, a in enumerate(self.actions)}
        if len(self.index) != len(self.actions):
            raise ValueError("an action space lists an action twice")
        self.size = len(self.actions)
        self._by_id: dict[int, int] = {}
        """The index of each action seen, by its ``id`` (unique only among live objects:
        :attr:`_seen` keeps each of them alive while it is here)."""
        self._seen: list[Action] = []

    @classmethod
    def from_classes(
        cls,
        classes: Sequence[type[Action]],
        domains: Mapping[tuple[str, str], Sequence[Any]],
    ) -> ActionSpace:
        """Enumerate ``classes``; a field typed ``Literal[...]`` or ``bool`` takes its
        values from the type, any other from ``domains[(KIND, field name)]`` (the JSON
        name: ``from`` for ``from_``)."""
        actions: list[Action] = []
        for action_cls in classes:
            hints = typing.get_type_hints(action_cls)
            values: list[Sequence[Any]] = []
            for f in dataclasses.fields(action_cls):
                hint = hints[f.name]
                name = f.name.rstrip("_")
                if (action_cls.KIND, name) in domains:
                    values.append(domains[(action_cls.KIND, name)])
                elif typing.get_origin(hint) is typing.Literal:
                    values.append(typing.get_args(hint))
                elif hint is bool:
                    values.append((False, True))
                else:
                    raise ValueError(f"no domain for {action_cls.KIND}.{name} ({hint})")
            actions.extend(action_cls(*combo) for combo in itertools.product(*values))
        return cls(actions)

    def index_of(self, action: Action) -> int:
        """The index of ``action``; ValueError (naming it) if the space lacks it."""
        try:
            return self.index[action]
        except KeyError:
            raise ValueError(f"{action} is not in the action space") from None

    def legal(self, state: State) -> dict[int, Action]:
        """:meth:`DecisionSpace.legal`: the index of each of ``state``'s legal actions.

        The engines hand out the same interned action objects again and again, so each
        action's index is kept by its identity (:meth:`fast_index`) and a whole list is
        looked up in one C call. The maps of whole lists are not kept: a game whose lists
        seldom recur (Carson City Zoo's) would fill such a cache with objects that the
        collector then scans again and again, which cost more than building the map."""
        legal = state.legal_actions()
        by_id = self._by_id
        try:  # every action seen before (the usual case)
            if len(legal) > 1:
                indices: Sequence[int] = itemgetter(*map(id, legal))(by_id)
            else:  # itemgetter of one key returns the value itself
                indices = [by_id[id(a)] for a in legal]
        except KeyError:  # an action not seen before
            indices = [self.fast_index(a) for a in legal]
        return dict(zip(indices, legal, strict=True))

    def label(self, index: int) -> str:
        if not 0 <= index < self.size:
            raise ValueError(f"action index {index} is outside 0..{self.size - 1}")
        return str(self.actions[index])

    def mask(self, legal: Iterable[Action]) -> npt.NDArray[np.int8]:
        """1 at the index of every action in ``legal``, 0 elsewhere."""
        out = np.zeros(self.size, dtype=np.int8)
        out[[self.fast_index(a) for a in legal]] = 1
        return out

    def fast_index(self, action: Action) -> int:
        """:meth:`index_of` for the engines' interned actions, by identity: hashing a
        dataclass costs a tuple of its fields at every call, and the legal-action lists hand
        out the same objects again and again. The cache holds each object it has seen, so
        an ``id`` is never reused while it is cached; it starts over when full."""
        hit = self._by_id.get(id(action))
        if hit is not None:
            return hit
        i = self.index_of(action)
        if len(self._by_id) >= _ID_CACHE:
            self._by_id.clear()
            self._seen.clear()
        self._by_id[id(action)] = i
        self._seen.append(action)
        return i
