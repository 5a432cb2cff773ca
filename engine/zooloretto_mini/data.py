"""Zooloretto Mini data: species and tile ids, trucks, counts, phases, and zoo scoring."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

SPECIES: tuple[str, ...] = ("S1", "S2", "S3", "S4", "S5", "S6", "S7")
SPECIES_NAMES: dict[str, str] = {"S1": "impala", "S2": "rhino", "S3": "llama"}
LANDSCAPE_KINDS: dict[str, str] = {"LP": "pond", "LS": "shrub", "LR": "rock"}
LANDSCAPE_TILES: tuple[str, ...] = tuple(f"{k}{i}" for k in ("LP", "LS", "LR") for i in (1, 2, 3))
TRUCK_IDS: tuple[str, ...] = ("T1", "T2", "T3", "T4", "T5")
ENCLOSURE_IDS: tuple[str, ...] = ("E1", "E2", "E3")
DESTINATIONS: tuple[str, ...] = ("E1", "E2", "E3", "barn")
ENCLOSURE_SIZE = 6
ENCLOSURE_POINTS: tuple[int, ...] = (0, 1, 2, 3, 4, 8, 12)
END_STACK = 15
MAX_BONUSES = 3

# Phases of a state (PHASE_NAMES is what observations show).
SETUP_REMOVE, SETUP_START, TURN, DRAW, LOAD, PLACE, BONUS, OVER = range(8)
PHASE_NAMES = ("setup", "setup", "turn", "draw", "load", "place", "bonus", "game_over")


def animal_tiles(species: str) -> tuple[str, ...]:
    """The 11 adult tiles of a species: 2 male, 2 female, 7 unmarked (D1)."""
    marked = [f"{species}{s}{i}" for s in "MF" for i in (1, 2)]
    return (*marked, *(f"{species}N{i}" for i in range(1, 8)))


def offspring_tiles(species: str) -> tuple[str, ...]:
    return (f"{species}K1", f"{species}K2")


ALL_TILES: tuple[str, ...] = tuple(
    sorted(
        [t for s in SPECIES for t in animal_tiles(s) + offspring_tiles(s)] + list(LANDSCAPE_TILES)
    )
)


def tile_pool(removed: Iterable[str]) -> list[str]:
    """The sorted tile pool (bag and end stack together): every animal tile of the species
    in play and the 9 landscape tiles (Setup 4)."""
    out = set(removed)
    return sorted(
        [t for s in SPECIES if s not in out for t in animal_tiles(s)] + [*LANDSCAPE_TILES]
    )


def offspring_pool(removed: Iterable[str]) -> list[str]:
    """The sorted offspring tiles of the species in play (the full offspring supply)."""
    out = set(removed)
    return sorted(t for s in SPECIES if s not in out for t in offspring_tiles(s))


def removed_count(num_players: int) -> int:
    """Species removed at setup: 3/2/1/0 for 2/3/4/5 players."""
    return 5 - num_players


def truck_capacities(num_players: int) -> tuple[int, ...]:
    """Slots per truck: blue sides 1/2/3 for 2 players, else 3 per player (D3)."""
    return (1, 2, 3) if num_players == 2 else (3,) * num_players


_ENCLOSURE_KEYS = ("enclosure_1", "enclosure_2", "enclosure_3")
"""The breakdown's key of each enclosure (spelt once: bots score zoos in their loops)."""


def score_zoo(enclosures: Sequence[Sequence[str]], barn: Iterable[str]) -> dict[str, int]:
    """The score breakdown of one zoo (three enclosures and a barn); usable on any position.

    >>> score_zoo([["S1N1", "LS1"], [], ["LP1"]], ["S4N1", "S4K1", "LR1"])
    ... # doctest: +NORMALIZE_WHITESPACE
    {'enclosure_1': 1, 'enclosure_2': 0, 'enclosure_3': 0, 'landscapes': 4, 'barn': -4,
     'total': 1, 'landscape_tiles': 2}
    """
    out: dict[str, int] = {}
    kinds: set[str] = set()
    landscape_tiles = 0
    for k, enc in enumerate(enclosures):
        animals = 0
        for t in enc:
            if t[0] == "L":
                kinds.add(t[:2])
                landscape_tiles += 1
            else:
                animals += 1
        out[_ENCLOSURE_KEYS[k]] = ENCLOSURE_POINTS[min(animals, ENCLOSURE_SIZE)]
    out["landscapes"] = 2 * len(kinds)
    out["barn"] = -2 * len({t[:2] for t in barn})
    out["total"] = sum(out.values())
    out["landscape_tiles"] = landscape_tiles
    return out
