"""Declared state fields (engine.fields): one declaration drives clone, full state, digest
layout and rebuild; a field the mechanism cannot copy safely is refused by name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import pytest

from engine.core import JSON, Game, State
from engine.fields import Digest, build

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
