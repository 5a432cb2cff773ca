"""Zooloretto Mini actions and chance outcomes (JSON as in the spec, short ``str``), and
the interned instances the rules hand out (building frozen dataclasses is slow; the hot
path only looks them up)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import ClassVar, Literal, cast

from engine.core import Action
from engine.zooloretto_mini.data import ALL_TILES, DESTINATIONS, ENCLOSURE_IDS, SPECIES, TRUCK_IDS

TruckId = Literal["T1", "T2", "T3", "T4", "T5"]
EnclosureId = Literal["E1", "E2", "E3"]
Destination = Literal["E1", "E2", "E3", "barn"]
SpeciesId = Literal["S1", "S2", "S3", "S4", "S5", "S6", "S7"]


@dataclass(frozen=True, slots=True)
class Draw(Action):
    """Decision: draw a tile (a ``draw_tile`` chance node and a ``load`` follow)."""

    KIND: ClassVar[str] = "draw"
    TEXT: ClassVar[str] = "draw"


@dataclass(frozen=True, slots=True)
class TakeTruck(Action):
    """Decision: take an available non-empty truck and leave the round."""

    KIND: ClassVar[str] = "take_truck"
    TEXT: ClassVar[str] = "take_truck {truck}"
    truck: TruckId


@dataclass(frozen=True, slots=True)
class Load(Action):
    """Decision: load the drawn tile onto an available truck with a free slot."""

    KIND: ClassVar[str] = "load"
    TEXT: ClassVar[str] = "load {truck}"
    truck: TruckId


@dataclass(frozen=True, slots=True)
class Place(Action):
    """Decision: place one tile of the taken truck into an enclosure or the barn."""

    KIND: ClassVar[str] = "place"
    TEXT: ClassVar[str] = "place {tile}->{to}"
    tile: str
    to: Destination


@dataclass(frozen=True, slots=True)
class BonusTake(Action):
    """Bonus decision: take a tile from another seat's barn into an own enclosure."""

    KIND: ClassVar[str] = "bonus_take"
    TEXT: ClassVar[str] = "bonus_take {from}:{tile}->{to}"
    from_: int
    tile: str
    to: EnclosureId


@dataclass(frozen=True, slots=True)
class BonusDiscard(Action):
    """Bonus decision: discard a tile from the own barn (it leaves the game)."""

    KIND: ClassVar[str] = "bonus_discard"
    TEXT: ClassVar[str] = "bonus_discard {tile}"
    tile: str


@dataclass(frozen=True, slots=True)
class BonusSkip(Action):
    """Bonus decision: pass."""

    KIND: ClassVar[str] = "bonus_skip"
    TEXT: ClassVar[str] = "bonus_skip"


@dataclass(frozen=True, slots=True)
class RemoveSpecies(Action):
    """Chance (setup, unless the option is given): a species taken out of the game."""

    KIND: ClassVar[str] = "remove_species"
    TEXT: ClassVar[str] = "remove_species {species}"
    species: SpeciesId


@dataclass(frozen=True, slots=True)
class StartPlayer(Action):
    """Chance (setup, unless the option is given): the seat that starts round 1."""

    KIND: ClassVar[str] = "start_player"
    TEXT: ClassVar[str] = "start_player {seat}"
    seat: int


@dataclass(frozen=True, slots=True)
class DrawTile(Action):
    """Chance: the tile drawn (uniform over every undrawn tile)."""

    KIND: ClassVar[str] = "draw_tile"
    TEXT: ClassVar[str] = "draw_tile {tile}"
    tile: str


ACTION_CLASSES: tuple[type[Action], ...] = (
    Draw,
    TakeTruck,
    Load,
    Place,
    BonusTake,
    BonusDiscard,
    BonusSkip,
    RemoveSpecies,
    StartPlayer,
    DrawTile,
)

DRAW_ACTION = Draw()
SKIP_ACTION = BonusSkip()
TAKE_ACTIONS = [TakeTruck(cast(TruckId, t)) for t in TRUCK_IDS]
LOAD_ACTIONS = [Load(cast(TruckId, t)) for t in TRUCK_IDS]
PLACE_ACTIONS = {t: [Place(t, cast(Destination, d)) for d in DESTINATIONS] for t in ALL_TILES}
"""Per tile, its ``place`` actions to E1, E2, E3 and the barn (in that order)."""
DISCARD_ACTIONS = {t: BonusDiscard(t) for t in ALL_TILES}
DRAW_TILE_OUTCOMES = {t: DrawTile(t) for t in ALL_TILES}
REMOVE_OUTCOMES = {s: RemoveSpecies(cast(SpeciesId, s)) for s in SPECIES}


@cache
def bonus_take_action(seat: int, tile: str, enclosure: int) -> BonusTake:
    """The interned ``bonus_take`` of ``tile`` from ``seat``'s barn into enclosure index
    ``enclosure`` (0-2)."""
    return BonusTake(seat, tile, cast(EnclosureId, ENCLOSURE_IDS[enclosure]))


@cache
def start_player_outcome(seat: int) -> StartPlayer:
    """The interned ``start_player`` outcome of ``seat``."""
    return StartPlayer(seat)
