"""Declared state fields (engine.fields): one declaration drives clone, full state, digest
layout and rebuild; a field the mechanism cannot copy safely is refused by name."""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

import pytest

from engine.core import JSON, Action, Game, State, _json_keys
from engine.fields import Digest, _encode_default, build

PHASES = ("setup", "play")


class Piece:
    """A mutable helper object with its own copy()."""

    def __init__(self, cells: list[int]) -> None:
        self.cells = cells

    def copy(self) -> Piece:
        return Piece(self.cells[:])

    def to_json(self) -> JSON:
        return {"cells": self.cells}


@dataclass(frozen=True)
class Frozen:
    a: int


class ToyGame(Game):
    id = "toy"
    name = "Toy"
    version = 1
    min_players = 2
    max_players = 2


class ToyState(State):
    current: Annotated[int, Digest(key="cp")]
    """The seat to move (digest key 'cp', its version-1 name)."""
    phase: Annotated[int, Digest(encode=PHASES.__getitem__)]
    """The phase, an index into PHASES."""
    boards: list[list[int]]
    """Each seat's cells."""
    seen: set[str]
    """Tiles seen so far."""
    round: Annotated[int, Digest(key="flow", at=0)]
    """The round (digest: first item of 'flow')."""
    turn: Annotated[int, Digest(key="flow", at=1)]
    """The turn in the round (digest: second item of 'flow')."""
    pieces: list[Piece]
    """Mutable objects copied with their copy()."""
    tag: Frozen
    """A frozen value, shared by clones."""
    cache: Annotated[dict[str, int], Digest(skip=True)]
    """A cache: copied, never digested."""


def toy(**overrides: Any) -> ToyState:
    values: dict[str, Any] = {
        "current": 0,
        "phase": 1,
        "boards": [[1, 2], [3]],
        "seen": {"b", "a"},
        "round": 2,
        "turn": 1,
        "pieces": [Piece([5])],
        "tag": Frozen(1),
        "cache": {"x": 1},
    }
    values.update(overrides)
    state: ToyState = build(ToyState, ToyGame(), 2, {}, **values)
    return state


def test_clone_copies_each_field_as_deep_as_its_type() -> None:
    a = toy()
    b = a.clone()
    assert isinstance(b, ToyState)
    b.boards[0].append(9)
    b.seen.add("z")
    b.pieces[0].cells.append(7)
    b.cache["y"] = 2
    assert a.boards == [[1, 2], [3]] and a.seen == {"a", "b"}
    assert a.pieces[0].cells == [5] and a.cache == {"x": 1}
    assert b.tag is a.tag  # immutable values are shared


def test_full_state_has_named_keys_and_the_digest_keeps_its_declared_layout() -> None:
    a = toy()
    assert a._full_state() == {
        "current": 0,
        "phase": "play",
        "boards": [[1, 2], [3]],
        "seen": ["a", "b"],
        "round": 2,
        "turn": 1,
        "pieces": [{"cells": [5]}],
        "tag": {"a": 1},
    }
    layout = a._digest_layout()
    assert layout["cp"] == 0 and layout["flow"] == [2, 1] and "cache" not in layout
    assert toy(cache={"other": 3}).digest() == a.digest()  # caches do not count
    assert toy(turn=2).digest() != a.digest()


def test_build_refuses_missing_and_unknown_fields() -> None:
    with pytest.raises(TypeError, match=r"no value for field\(s\) \['cache'\]"):
        build(
            ToyState,
            ToyGame(),
            2,
            {},
            **{k: 0 for k in ToyState.declared_fields().names - {"cache"}},
        )
    with pytest.raises(TypeError, match="has no field"):
        toy(colour="red")


def test_a_field_that_cannot_be_copied_safely_is_refused_by_name() -> None:
    class Bad(State):
        thing: list[object]
        """Objects of unknown mutability."""

    with pytest.raises(TypeError, match=r"Bad\.thing"):
        Bad.declared_fields()


def test_a_value_without_a_json_form_is_named_with_its_field() -> None:
    class Opaque(State):
        thing: Annotated[Frozen, Digest()]
        """A frozen value."""

    state = build(Opaque, ToyGame(), 2, {}, thing=object())
    with pytest.raises(TypeError, match=r"Opaque\.thing: a object has no JSON form"):
        state.digest()


class Level(enum.IntEnum):
    LOW = 1


class Name(str):
    """A str subclass: not a scalar type itself, so it takes the general path."""


def _reference(value: Any) -> Any:
    """The documented rule, spelled plainly: lists for lists and tuples, sorted lists for
    sets, string keys for dicts, ``to_json()`` for objects, scalars (and their
    subclasses) as they are."""
    if isinstance(value, list | tuple):
        return [_reference(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted(_reference(v) for v in value)
    if isinstance(value, dict):
        return {str(k): _reference(v) for k, v in value.items()}
    if isinstance(value, int | float | str | bool | bytes | type(None)):
        return value
    return value.to_json()


@pytest.mark.parametrize(
    "value",
    [
        [], (), ["a", 1, 2.5, True, None], ("x", "y"), [[1, 2], (3,), []], [Level.LOW, 2],
        [Name("n"), "m"], {3: [1, (2,)], "k": {5, 4}}, [Piece([1]), 1], ((1, "a"), [None]),
        Level.LOW, Name("z"), 7, None,
    ],
)  # fmt: skip
def test_the_digest_encoding_fast_paths_give_what_the_rule_gives(value: Any) -> None:
    """Scalars and lists of scalars skip the general path (digests call it for every
    field); the JSON is the same, subclasses of scalars included, with the same types."""
    encoded = _encode_default(value)
    assert encoded == _reference(value)
    assert json.dumps(encoded) == json.dumps(_reference(value))
    if isinstance(value, list | tuple):
        assert type(encoded) is list and encoded is not value  # a copy, never the field


def test_action_json_keys_are_read_once_per_class() -> None:
    """``to_json`` writes a field ending in ``_`` without it and leaves out None, from
    the (name, key) pairs cached per class."""

    @dataclass(frozen=True, slots=True)
    class Move(Action):
        KIND: ClassVar[str] = "move"
        from_: int
        to: tuple[int, ...]
        note: str | None = None

    assert Move(1, (2, 3)).to_json() == {"kind": "move", "from": 1, "to": [2, 3]}
    assert Move(1, (), "x").to_json() == {"kind": "move", "from": 1, "to": [], "note": "x"}
    assert _json_keys(Move) == (("from_", "from"), ("to", "to"), ("note", "note"))
