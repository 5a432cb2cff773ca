"""Panorama data: the 36 designed tiles, the start tiles, goals, goal sets and phases.

The tile data is the spec's machine-readable table (rows top to bottom, 3 cells each,
left to right). Each tile is pre-analysed once at import: its cells are grouped into
*local components* (orthogonally connected cells of one terrain code inside the tile),
so that scoring a panorama only has to join the components of neighbouring tiles along
their touching edge columns (see :mod:`engine.panorama.scoring`).
"""

from __future__ import annotations

from typing import NamedTuple

ROWS = 7
COLS = 3
CELLS = ROWS * COLS

# terrain codes (ints) in the order of the spec's table
SKY, MOUNTAINS, FOREST, HILLS, PLAINS, RIVER = range(6)
TERRAIN_CODES = "SMFHPW"
TERRAIN_NAMES = ("sky", "mountains", "forest", "hills", "plains", "river")
LAND = (MOUNTAINS, FOREST, HILLS, PLAINS)

# (id, terrain rows, item rows); rows separated by "/"
_TILE_DATA: tuple[tuple[str, str, str], ...] = (
    ("T01", "SSS/SSS/MWM/FWF/HWH/WWW/PPP", ".../.../.../.../1../.../.c."),
    ("T02", "MSS/MSS/MMM/FFF/HHH/PPP/PPP", "a../..o/.a./.../.../.c./..."),
    ("T03", "MMS/MMS/MMM/FFF/HHH/PPP/PPP", "2.o/a.o/.../.1./.../.../..."),
    ("T04", "SSS/SMM/MWM/FWF/HWH/PWW/PPP", ".../..a/.../.../.w./1../11."),
    ("T05", "SSS/SSS/MMM/FFF/HPP/WPW/WWW", ".../.../a.2/..1/.a./.a./..."),
    ("T06", "SSS/SSS/MMM/FFF/HHH/PPP/PPP", ".../.../.../.../.aa/.../11."),
    ("T07", "SSS/SSS/MMF/FFF/FFH/HHP/PPP", "..o/.../21./.a./a../.../..."),
    ("T08", "SSS/SSS/MWM/FWF/PWH/WWP/PPP", "..o/.../.../.../.../.../.a."),
    ("T09", "SMS/SMS/MMM/FFF/HHH/PPP/PPP", ".../o../a1./.../.../.../..."),
    ("T10", "SSS/MSM/FFF/HHH/PPP/PPP/PPP", ".o./.../..1/.2./.../.../.a."),
    ("T11", "SSS/SSS/MMM/FFF/HHH/PPP/PPP", "..o/.../.../.21/.../a../..."),
    ("T12", "SSS/SSS/MMM/FFF/HHH/PPP/PPP", ".../.../.1./.../.a./c../..."),
    ("T13", "SSS/SSS/MWM/FWF/HWH/WWP/PPP", ".o./.../.../.../a.1/.../.c."),
    ("T14", "SSS/MMM/FMM/FFF/HHH/PPP/PPP", "o../.c./.a./.../1../.1./..."),
    ("T15", "SSS/SSS/MFF/FFF/HHH/WPW/WWW", ".../.../2aa/1../.../.../..."),
    ("T16", "SSS/SSS/MMM/FFF/PPH/WWW/PPP", ".../.../..1/a../1.1/.../..."),
    ("T17", "SSS/SMM/MFF/FHH/PPP/WWW/PPP", ".../.../.../2a1/a.c/.../..."),
    ("T18", "SSS/SSS/MMM/FHF/HHH/PHP/PPP", ".../oo./.../.../2a./.../..."),
    ("T19", "SSM/SMM/MMM/FMF/HFH/PHP/PPP", ".../..a/.../1../.../.../..1"),
    ("T20", "SSS/MMS/FWF/FWF/HWH/WWP/PPP", ".../1.o/c.a/.../.w./.../..1"),
    ("T21", "SSS/SSS/MFF/FHH/HHH/WWW/PPP", ".../..o/.../.1./.../.../.11"),
    ("T22", "SSS/SSS/MWM/FWH/HWH/PWW/PPP", "o../o../.../.../cwa/.../..."),
    ("T23", "SSS/SSM/MWF/FWH/HWP/PWW/PPP", ".oo/.../.../.../.w1/.../..a"),
    ("T24", "SSS/SSS/MMM/FFF/HHH/PPP/PPP", ".o./.o./.../.2a/c../.1./..."),
    ("T25", "SSS/SSS/MMM/FFF/HHH/PPP/PPP", ".o./.o./.../.../1.1/.../..a"),
    ("T26", "SSS/MMS/FFM/FFF/HHH/PPP/PPP", "o../.../.../..a/.../.../..."),
    ("T27", "SSS/SSS/FFF/FFF/HHH/PPP/PPP", ".../.../.2./.../1../.../..."),
    ("T28", "MMM/MMM/MWM/FWF/HWH/WWP/PPP", ".../.../.../.../.w./..1/..a"),
    ("T29", "SSS/MMS/FFM/HHF/PPP/WWW/PPP", "o../..o/.../.1./.../.../.a."),
    ("T30", "SSS/SMS/FFF/FFF/HFH/PHP/PPP", ".../.2o/.../a../.../1../.c."),
    ("T31", "SSS/SSS/MFF/FHH/HHH/WWW/PPP", ".../o../.../.c2/..a/.../1.."),
    ("T32", "SSS/SSS/MMM/FFF/HHH/PPP/PPP", ".../.../.../..1/.../.1./..."),
    ("T33", "SSS/SSS/MMM/FHF/HHH/WWW/PPP", "o../.../1c./.a./.a./.../..."),
    ("T34", "SSS/MSS/FWF/FWF/HWH/PWW/PPP", ".../.../..a/2w./.w./.../1.."),
    ("T35", "SSS/MSS/MWM/FWF/HWH/WWW/PPP", "o../..o/a.a/..1/..2/.../..."),
    ("T36", "SSS/MSS/FWM/FWF/HWH/WWW/PPP", ".../.../..2/.../.w./.../..."),
    ("ST_R", "SSS/SSS/MMM/FFF/HHH/PPP/PPP", ".../.../.../.../.../.../..."),
    ("ST_Y", "SSS/SSS/MMM/FFF/HHH/PPP/PPP", ".../.../.../.../.../.../..."),
    ("ST_G", "SSS/SSS/MMM/FFF/HHH/PPP/PPP", ".../.../.../.../.../.../..."),
    ("ST_B", "SSS/SSS/MMM/FFF/HHH/PPP/PPP", ".../.../.../.../.../.../..."),
)

NUM_TILES = 36
"""Panorama tiles T01..T36 are indices 0..35; start tiles are 36..39 (by seat)."""

TILE_IDS: tuple[str, ...] = tuple(t[0] for t in _TILE_DATA)
TILE_INDEX: dict[str, int] = {name: i for i, name in enumerate(TILE_IDS)}
START_TILE = (36, 37, 38, 39)
COLOURS = ("red", "yellow", "green", "blue")
TERRAIN_ROWS: tuple[tuple[str, ...], ...] = tuple(tuple(t[1].split("/")) for t in _TILE_DATA)
ITEM_ROWS: tuple[tuple[str, ...], ...] = tuple(tuple(t[2].split("/")) for t in _TILE_DATA)


class Comp(NamedTuple):
    """A local component: connected cells of one terrain code inside one tile."""

    terrain: int
    size: int
    flowers: int
    animals: int
    clouds: int
    waterfalls: int
    river_animals: tuple[int, ...]  # local cells with an animal adjacent to this river comp


class TileInfo(NamedTuple):
    comps: tuple[Comp, ...]
    left: tuple[tuple[int, int, bool], ...]  # per row: (comp, terrain, animal) of column 0
    right: tuple[tuple[int, int, bool], ...]  # per row: (comp, terrain, animal) of column 2
    clouds: int
    crows: int


def _neighbours(cell: int) -> list[int]:
    r, c = divmod(cell, COLS)
    out = []
    if r > 0:
        out.append(cell - COLS)
    if r < ROWS - 1:
        out.append(cell + COLS)
    if c > 0:
        out.append(cell - 1)
    if c < COLS - 1:
        out.append(cell + 1)
    return out


def _analyse_tile(index: int) -> TileInfo:
    terrain = [TERRAIN_CODES.index(ch) for row in TERRAIN_ROWS[index] for ch in row]
    items = [ch for row in ITEM_ROWS[index] for ch in row]
    comp_of = [-1] * CELLS
    members: list[list[int]] = []
    for start in range(CELLS):
        if comp_of[start] >= 0:
            continue
        cid = len(members)
        comp_of[start] = cid
        stack = [start]
        cells = []
        while stack:
            cell = stack.pop()
            cells.append(cell)
            for nb in _neighbours(cell):
                if comp_of[nb] < 0 and terrain[nb] == terrain[start]:
                    comp_of[nb] = cid
                    stack.append(nb)
        members.append(sorted(cells))
    comps = []
    for cells in members:
        t = terrain[cells[0]]
        adj: set[int] = set()
        if t == RIVER:
            for cell in cells:
                adj.update(nb for nb in _neighbours(cell) if items[nb] == "a")
        comps.append(
            Comp(
                terrain=t,
                size=len(cells),
                flowers=sum(int(items[c]) for c in cells if items[c] in "12"),
                animals=sum(1 for c in cells if items[c] == "a"),
                clouds=sum(1 for c in cells if items[c] == "o"),
                waterfalls=sum(1 for c in cells if items[c] == "w"),
                river_animals=tuple(sorted(adj)),
            )
        )

    def edge(col: int) -> tuple[tuple[int, int, bool], ...]:
        return tuple(
            (comp_of[r * COLS + col], terrain[r * COLS + col], items[r * COLS + col] == "a")
            for r in range(ROWS)
        )

    return TileInfo(
        comps=tuple(comps),
        left=edge(0),
        right=edge(COLS - 1),
        clouds=items.count("o"),
        crows=items.count("c"),
    )


TILE_INFO: tuple[TileInfo, ...] = tuple(_analyse_tile(i) for i in range(len(_TILE_DATA)))

# ---------------------------------------------------------------------------
# Goals
# ---------------------------------------------------------------------------

GOAL_IDS = ("S1", "S2", "S3", "S4", "R1", "R2", "R3", "R4", "T1", "T2", "T3", "T4")
GOAL_COLOURS = ("sky", "river", "terrain")
GOALS_BY_COLOUR: tuple[tuple[str, ...], ...] = (
    ("S1", "S2", "S3", "S4"),
    ("R1", "R2", "R3", "R4"),
    ("T1", "T2", "T3", "T4"),
)
GOAL_BEST_MIN = frozenset({"S1", "T2", "T4"})
"""Goals whose best value is the smallest; all others: the largest."""

GOAL_TEXT = {
    "S1": "fewest clouds",
    "S2": "most clouds on one side of the start tile",
    "S3": "largest sky zone",
    "S4": "most tiles on one side of the start tile",
    "R1": "longest river (tiles)",
    "R2": "most animals next to one river",
    "R3": "most rivers across >= 2 tiles",
    "R4": "most waterfalls on one river",
    "T1": "most crows",
    "T2": "fewest tiles",
    "T3": "most terrain zones with an animal",
    "T4": "fewest terrain zones",
}

GOAL_SETS: dict[str, tuple[str, str, str]] = {
    "first_game": ("S1", "R1", "T1"),
    "animal_festival": ("S2", "R2", "T3"),
    "river_lover": ("S3", "R4", "T1"),
    "long_way_home": ("S4", "R1", "T4"),
    "wonderful_view": ("S3", "R3", "T3"),
    "riverside_walk": ("S2", "R2", "T4"),
    "less_is_more": ("S1", "R4", "T2"),
}
SCENARIOS = tuple(k for k in GOAL_SETS if k != "first_game")
GOAL_SET_VALUES = ("first_game", "random", *SCENARIOS)

# ---------------------------------------------------------------------------
# Phases of a state (PHASE_NAMES is what observations show)
# ---------------------------------------------------------------------------

GOAL, REVEAL_NODE, DROP_NODE, FLY_PHASE, PLACE_PHASE, OVER = range(6)
PHASE_NAMES = ("goal_draw", "reveal", "balloon_drop", "fly", "place", "game_over")
STACK_SIZE = 4
"""Tiles per stack of the central tile at setup."""
