"""Zooloretto Mini actions and chance outcomes (JSON as in the spec, short ``str``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from engine.core import Action
from engine.zooloretto_mini.components import (
    ALL_TILES,
    DESTINATIONS,
    ENCLOSURE_IDS,
    SPECIES,
    TRUCK_IDS,
)

TruckId = Literal["T1", "T2", "T3", "T4", "T5"]
EnclosureId = Literal["E1", "E2", "E3"]
Destination = Literal["E1", "E2", "E3", "barn"]
SpeciesId = Literal["S1", "S2", "S3", "S4", "S5", "S6", "S7"]


@dataclass(frozen=True, slots=True)
class Draw(Action):
    KIND: ClassVar[str] = "draw"

    def __str__(self) -> str:
        return "draw"


@dataclass(frozen=True, slots=True)
class TakeTruck(Action):
    KIND: ClassVar[str] = "take_truck"
    truck: TruckId

    def __str__(self) -> str:
        return f"take_truck {self.truck}"


@dataclass(frozen=True, slots=True)
class Load(Action):
    KIND: ClassVar[str] = "load"
    truck: TruckId

    def __str__(self) -> str:
        return f"load {self.truck}"


@dataclass(frozen=True, slots=True)
class Place(Action):
    KIND: ClassVar[str] = "place"
    tile: str
    to: Destination

    def __str__(self) -> str:
        return f"place {self.tile}->{self.to}"


@dataclass(frozen=True, slots=True)
class BonusTake(Action):
    KIND: ClassVar[str] = "bonus_take"
    from_: int
    tile: str
    to: EnclosureId

    def __str__(self) -> str:
        return f"bonus_take {self.from_}:{self.tile}->{self.to}"


@dataclass(frozen=True, slots=True)
class BonusDiscard(Action):
    KIND: ClassVar[str] = "bonus_discard"
    tile: str

    def __str__(self) -> str:
        return f"bonus_discard {self.tile}"


@dataclass(frozen=True, slots=True)
class BonusSkip(Action):
    KIND: ClassVar[str] = "bonus_skip"

    def __str__(self) -> str:
        return "bonus_skip"


@dataclass(frozen=True, slots=True)
class RemoveSpecies(Action):
    KIND: ClassVar[str] = "remove_species"
    species: SpeciesId

    def __str__(self) -> str:
        return f"remove_species {self.species}"


@dataclass(frozen=True, slots=True)
class StartPlayer(Action):
    KIND: ClassVar[str] = "start_player"
    seat: int

    def __str__(self) -> str:
        return f"start_player {self.seat}"


@dataclass(frozen=True, slots=True)
class DrawTile(Action):
    KIND: ClassVar[str] = "draw_tile"
    tile: str

    def __str__(self) -> str:
        return f"draw_tile {self.tile}"


# Interned action objects: building frozen dataclasses is slow, the hot path only looks up.
DRAW_ACTION = Draw()
SKIP_ACTION = BonusSkip()
TAKE_ACTIONS = [TakeTruck(t) for t in TRUCK_IDS]  # type: ignore[arg-type]
LOAD_ACTIONS = [Load(t) for t in TRUCK_IDS]  # type: ignore[arg-type]
PLACE_ACTIONS = {t: [Place(t, d) for d in DESTINATIONS] for t in ALL_TILES}  # type: ignore[arg-type]
DISCARD_ACTIONS = {t: BonusDiscard(t) for t in ALL_TILES}
DRAW_TILE_OUTCOMES = {t: DrawTile(t) for t in ALL_TILES}
REMOVE_OUTCOMES = {s: RemoveSpecies(s) for s in SPECIES}  # type: ignore[arg-type]
_BONUS_TAKE_CACHE: dict[tuple[int, str, int], BonusTake] = {}


def bonus_take_action(seat: int, tile: str, enc: int) -> BonusTake:
    key = (seat, tile, enc)
    action = _BONUS_TAKE_CACHE.get(key)
    if action is None:
        action = _BONUS_TAKE_CACHE[key] = BonusTake(seat, tile, ENCLOSURE_IDS[enc])  # type: ignore[arg-type]
    return action
