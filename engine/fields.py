"""Declared state fields: one declaration per field drives clone, full state, digest and rebuild.

A game's state declares each of its fields once, as a class annotation followed by a
one-line docstring (python-chess's ``Board.turn`` style)::

    class PanoramaState(State):
        current: int
        \"\"\"The seat to move, CHANCE or TERMINAL.\"\"\"
        panoramas: list[list[int]]
        \"\"\"Each seat's row of tile indices, left to right.\"\"\"
        phase: Annotated[int, Digest(encode=PHASE_NAMES.__getitem__)]
        \"\"\"The step due next (an index into PHASE_NAMES).\"\"\"

From the annotations alone (read once per class, in declaration order) this module
derives:

- **clone**: the copy of each field, as deep as its type says (``list[list[int]]`` copies
  two levels; ``int``, ``str``, frozen values and actions are shared; a class with a
  ``copy()`` method is copied with it). The copier is generated code, as fast as a
  hand-written ``_copy_into``. A type it cannot copy safely is refused when the class is
  first cloned, naming the field.
- **full state** (:meth:`engine.core.State._full_state`): ``{field name: JSON value}``, named
  keys, every declared field except those marked ``Digest(skip=True)`` (caches).
- **digest layout**: what :meth:`engine.core.State.digest` hashes. By default the full state
  itself; a field may declare, with :class:`Digest`, another key or a position in a list
  under a key, so that digests (and so every record ever written) stay exactly as they were
  when a field is renamed. The digest layout is a compatibility contract: change it only
  with a ``Game.version`` bump (see CONTRIBUTING.md).
- **rebuild**: :func:`build` makes a state from a value for every declared field, refusing a
  missing or unknown one, so ``from_observation`` cannot forget a field.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.observed import JSON


@dataclass(frozen=True, slots=True)
class Digest:
    """How a declared field appears in the digest layout (``Annotated`` metadata).

    ``key``: the name in the digest when it differs from the field's (kept so that
    digests do not change when a field is renamed). ``at``: the field's position in a
    list stored under ``key`` (several fields sharing one key form that list, as
    positional layouts of version-1 digests did). ``encode``: the value's JSON form in the
    full state and the digest, when the default (lists for lists and tuples, sorted lists
    for sets) is not it. ``skip``: a cache, left out of full state and digest (it is still
    copied by clone).
    """

    key: str | None = None
    at: int | None = None
    encode: Callable[[Any], JSON] | None = None
    skip: bool = False


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One declared field of a state class, as read from its annotation."""

    name: str
    hint: Any
    digest: Digest
    copy_expr: str
    """Python expression copying ``v`` (the field's value) for clone."""


_SCALARS = (int, float, str, bool, bytes, type(None))


def _is_immutable(hint: Any) -> bool:
    """True for values clone may share: scalars, literals, enums, frozen dataclasses,
    tuples and frozensets of those, and actions."""
    origin = typing.get_origin(hint)
    if origin is typing.Annotated:
        return _is_immutable(typing.get_args(hint)[0])
    if origin is typing.Literal:
        return True
    if origin in (types.UnionType, typing.Union):
        return all(_is_immutable(a) for a in typing.get_args(hint))
    if origin in (tuple, frozenset):
        return all(a is Ellipsis or _is_immutable(a) for a in typing.get_args(hint))
    if origin is not None:
        return False
    if hint in _SCALARS:
        return True
    if isinstance(hint, type):
        if issubclass(hint, enum.Enum):
            return True
        params = getattr(hint, "__dataclass_params__", None)
        if params is not None and params.frozen:
            return True
    return False


def _copy_expr(hint: Any, v: str, where: str, depth: int = 0) -> str:
    """A Python expression that copies value ``v`` of type ``hint`` as deep as needed."""
    if _is_immutable(hint):
        return v
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is typing.Annotated:
        return _copy_expr(args[0], v, where, depth)
    if origin in (types.UnionType, typing.Union):
        arms = [a for a in args if a is not type(None)]
        if len(arms) == 1:
            return f"(None if {v} is None else {_copy_expr(arms[0], v, where, depth)})"
    if origin is list:
        (item,) = args
        if _is_immutable(item):
            return f"{v}[:]"
        x = f"x{depth}"
        return f"[{_copy_expr(item, x, where, depth + 1)} for {x} in {v}]"
    if origin is set:
        (item,) = args
        if _is_immutable(item):
            return f"set({v})"
    if origin is dict:
        key, value = args
        if _is_immutable(key):
            if _is_immutable(value):
                return f"dict({v})"
            k, x = f"k{depth}", f"x{depth}"
            inner = _copy_expr(value, x, where, depth + 1)
            return f"{{{k}: {inner} for {k}, {x} in {v}.items()}}"
    if isinstance(hint, type) and callable(getattr(hint, "copy", None)):
        return f"{v}.copy()"
    raise TypeError(
        f"{where}: cannot derive a copy for type {hint!r}; use an immutable value, a list, "
        "set or dict of copyable values, or a class with a copy() method"
    )


_SCALAR_TYPES = frozenset(_SCALARS)
"""The scalar types themselves (not their subclasses: an ``IntEnum`` takes the general
path): what :func:`_encode_default` returns as it is, found by one set lookup."""


def _encode_default(value: Any) -> JSON:
    """The JSON form of a field value: lists for lists/tuples, sorted lists for sets.

    Digests call this on every field of a state (every few steps of every match), so the
    common shapes come first: a scalar, and a list or tuple of scalars (checked and
    copied in C: ``map(type, ...)`` into one set test, then ``list``). Anything else,
    subclasses included, takes the general path below, so the result is the same."""
    kind = type(value)
    if kind in _SCALAR_TYPES:
        return value
    if (kind is list or kind is tuple) and _SCALAR_TYPES.issuperset(map(type, value)):
        return list(value)
    if isinstance(value, list | tuple):
        return [_encode_default(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted(_encode_default(v) for v in value)
    if isinstance(value, dict):
        return {str(k): _encode_default(v) for k, v in value.items()}
    if isinstance(value, _SCALARS):
        return value
    to_json = getattr(value, "to_json", None)
    if callable(to_json):
        return to_json()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _encode_default(getattr(value, f.name)) for f in dataclasses.fields(value)}
    raise TypeError(
        f"a {type(value).__name__} has no JSON form: give it to_json() or declare "
        "Digest(encode=...) on the field"
    )


class StateFields:
    """The declared fields of one state class, and the code derived from them."""

    def __init__(self, cls: type, base_names: frozenset[str]) -> None:
        hints = typing.get_type_hints(cls, include_extras=True)
        names: list[str] = []
        for klass in reversed(cls.__mro__):
            for name in vars(klass).get("__annotations__", {}):
                if name in base_names or name.startswith("__") or name in names:
                    continue
                hint = hints[name]
                if typing.get_origin(hint) is typing.ClassVar:
                    continue
                names.append(name)
        specs = []
        for name in names:
            hint = hints[name]
            digest = Digest()
            if typing.get_origin(hint) is typing.Annotated:
                for meta in typing.get_args(hint)[1:]:
                    if isinstance(meta, Digest):
                        digest = meta
            where = f"{cls.__qualname__}.{name}"
            specs.append(FieldSpec(name, hint, digest, _copy_expr(hint, "v", where)))
        self.cls = cls
        self.specs: tuple[FieldSpec, ...] = tuple(specs)
        self.names: frozenset[str] = frozenset(names)
        lines = ["def copy_into(self, other):"]
        for spec in specs:
            if spec.copy_expr == "v":  # immutable: shared
                lines.append(f"    other.{spec.name} = self.{spec.name}")
            else:
                lines.append(f"    v = self.{spec.name}")
                lines.append(f"    other.{spec.name} = {spec.copy_expr}")
        if not specs:
            lines.append("    pass")
        namespace: dict[str, Any] = {}
        exec(compile("\n".join(lines), f"<clone of {cls.__qualname__}>", "exec"), namespace)
        self.copy_into: Callable[[Any, Any], None] = namespace["copy_into"]

    def _encoded(self, state: Any, spec: FieldSpec) -> JSON:
        value = getattr(state, spec.name)
        try:
            encode = spec.digest.encode
            return encode(value) if encode is not None else _encode_default(value)
        except TypeError as exc:
            raise TypeError(f"{self.cls.__qualname__}.{spec.name}: {exc}") from None

    def full_state(self, state: Any) -> dict[str, JSON]:
        """``{field: JSON value}`` for every field but the caches."""
        return {s.name: self._encoded(state, s) for s in self.specs if not s.digest.skip}

    def digest_layout(self, state: Any) -> dict[str, JSON]:
        """The full state arranged as the digest hashes it (keys and positions declared
        with :class:`Digest`)."""
        out: dict[str, JSON] = {}
        for spec in self.specs:
            d = spec.digest
            if d.skip:
                continue
            encoded = self._encoded(state, spec)
            key = d.key or spec.name
            if d.at is None:
                out[key] = encoded
            else:
                slots = out.setdefault(key, [])
                while len(slots) <= d.at:
                    slots.append(None)
                slots[d.at] = encoded
        return out

    def check_complete(self, state: Any) -> None:
        """Raise TypeError naming every declared field that ``state`` lacks."""
        missing = [s.name for s in self.specs if not hasattr(state, s.name)]
        if missing:
            raise TypeError(f"{self.cls.__qualname__} is missing field(s) {missing}")

    def doc(self) -> list[tuple[str, str]]:
        """(field, type) pairs in declaration order, for documentation tools."""
        return [(s.name, _type_text(s.hint)) for s in self.specs]


def _type_text(hint: Any) -> str:
    if typing.get_origin(hint) is typing.Annotated:
        hint = typing.get_args(hint)[0]
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")


def build(
    cls: type[Any], game: Any, num_players: int, options: dict[str, JSON], **values: Any
) -> Any:
    """A state of class ``cls`` with every declared field given in ``values``.

    For rebuilds (``from_observation``) and test builders: an unknown field or a missing one
    is a TypeError naming it, so a new field cannot be forgotten.
    """
    fields = cls.declared_fields()
    unknown = sorted(set(values) - fields.names)
    if unknown:
        raise TypeError(f"{cls.__qualname__} has no field(s) {unknown}")
    missing = [s.name for s in fields.specs if s.name not in values]
    if missing:
        raise TypeError(f"{cls.__qualname__}: no value for field(s) {missing}")
    state = object.__new__(cls)
    state._init_base(game, num_players, options)
    for name, value in values.items():
        setattr(state, name, value)
    return state


__all__ = ["Digest", "FieldSpec", "StateFields", "build"]
