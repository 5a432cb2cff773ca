"""Dziobaki actions and chance outcomes, and their interned tables."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import ClassVar, Literal, cast

from engine.core import Action
from engine.dziobaki.data import NUM_TILES, SPACES, TILE_IDS

TileId = Literal[
    "D01", "D02", "D03", "D04", "D05", "D06", "D07", "D08",
    "D09", "D10", "D11", "D12", "D13", "D14", "D15",
]  # fmt: skip


@dataclass(frozen=True, slots=True)
class Reveal(Action):
    """Chance outcome: the top tile of the caller's stack turns out to be ``tile``."""

    KIND: ClassVar[str] = "reveal"
    TEXT: ClassVar[str] = "reveal tile={tile}"
    tile: TileId


@dataclass(frozen=True, slots=True)
class Place(Action):
    """Commit this round's tile to ``space`` (0..11) at ``rotation`` (0..3 quarter turns cw)."""

    KIND: ClassVar[str] = "place"
    TEXT: ClassVar[str] = "place space={space} rotation={rotation}"
    PUBLIC_TEXT: ClassVar[str] = "seat {actor} placed its tile"
    """A commitment is private to its seat until the round resolves (Hidden information);
    the boards show it afterwards."""
    space: int
    rotation: int


ACTION_CLASSES = (Reveal, Place)

REVEALS: tuple[Reveal, ...] = tuple(Reveal(cast(TileId, tid)) for tid in TILE_IDS)
"""``REVEALS[tile]``: the reveal outcome of tile index ``tile``."""
PLACES: tuple[Place, ...] = tuple(Place(s, k) for s in range(SPACES) for k in range(4))
"""``PLACES[4 * space + rotation]``."""


@functools.cache
def places_on(empty_mask: int) -> list[Action]:
    """Canonical legal ``place`` actions for a board whose empty spaces are ``empty_mask``
    (shared: do not modify)."""
    return [PLACES[4 * s + k] for s in range(SPACES) if empty_mask >> s & 1 for k in range(4)]


@functools.cache
def reveals_of(remaining: int) -> list[tuple[Action, float]]:
    """``reveal`` outcomes (ascending id, uniform) over the tile types in ``remaining``
    (shared: do not modify)."""
    tiles = [t for t in range(NUM_TILES) if remaining >> t & 1]
    p = 1.0 / len(tiles)
    return [(REVEALS[t], p) for t in tiles]
