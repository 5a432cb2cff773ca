"""Panorama scoring: zones, sky zones and rivers of a panorama, goal metrics, the breakdown.

A panorama of N tiles is a 7 x 3N cell grid. Instead of flood-filling cells, the tiles'
pre-computed local components (:data:`engine.panorama.data.TILE_INFO`) are joined with a
small union-find wherever two touching edge cells of neighbouring tiles share a terrain
code (the joins of every ordered pair of tiles are pre-computed in :data:`LINKS`).
Results are cached per (tiles, start index), which makes repeated observations cheap.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from engine.panorama.data import (
    CELLS,
    FOREST,
    GOAL_BEST_MIN,
    GOAL_IDS,
    HILLS,
    LAND,
    MOUNTAINS,
    PLAINS,
    RIVER,
    ROWS,
    SKY,
    TILE_INFO,
    Comp,
)

BREAKDOWN_KEYS = (
    "plains",
    "hills",
    "forest",
    "mountains",
    "goal_sky",
    "goal_river",
    "goal_terrain",
    "total",
)
_TERRAIN_KEYS = ((PLAINS, "plains"), (HILLS, "hills"), (FOREST, "forest"), (MOUNTAINS, "mountains"))


def _links(a: int, b: int) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int, int], ...]]:
    """Joins between tile ``a`` (left) and tile ``b`` (right) placed next to each other.

    Returns (unions, animals): ``unions`` are (comp of a, comp of b) pairs of one terrain;
    ``animals`` are (side, river comp, animal cell) where a river cell of one tile touches
    an animal cell of the other (side 0: the river is in a, the animal cell in b; side 1:
    the other way round). Cells are tile-local (row * 3 + column).
    """
    unions: list[tuple[int, int]] = []
    animals: list[tuple[int, int, int]] = []
    for r in range(ROWS):
        ca, ta, aa = TILE_INFO[a].right[r]
        cb, tb, ab = TILE_INFO[b].left[r]
        if ta == tb:
            if (ca, cb) not in unions:
                unions.append((ca, cb))
        elif ta == RIVER and ab:
            animals.append((0, ca, r * 3))
        elif tb == RIVER and aa:
            animals.append((1, cb, r * 3 + 2))
    return tuple(unions), tuple(animals)


LINKS = tuple(tuple(_links(a, b) for b in range(len(TILE_INFO))) for a in range(len(TILE_INFO)))
_TERRAIN = tuple(tuple(c.terrain for c in info.comps) for info in TILE_INFO)


class Area(NamedTuple):
    """A joined component of a panorama: a terrain zone, a sky zone or a river."""

    terrain: int
    size: int
    flowers: int
    animals: int
    clouds: int
    waterfalls: int
    tiles: frozenset[int]  # panorama positions holding a cell of the area
    river_animals: frozenset[int]  # animal cells (position * 21 + cell) next to a river


class Analysis(NamedTuple):
    """What scoring needs from one panorama."""

    points: tuple[int, ...]  # terrain points indexed by terrain code (sky/river: 0)
    metrics: dict[str, int]  # goal id -> this panorama's value of that goal's metric


def areas(tiles: tuple[int, ...]) -> list[Area]:
    """All areas (terrain zones, sky zones, rivers) of a panorama, for tests and tools."""
    comps, root, pos, extra = _join(tiles)
    groups: dict[int, list[int]] = {}
    for g, r in enumerate(root):
        groups.setdefault(r, []).append(g)
    out = []
    for r, members in groups.items():
        cs = [comps[g] for g in members]
        near: set[int] = set()
        if cs[0].terrain == RIVER:
            for g in members:
                near.update(pos[g] * CELLS + c for c in comps[g].river_animals)
            near.update(cell for g, cell in extra if g == r)
        out.append(
            Area(
                terrain=cs[0].terrain,
                size=sum(c.size for c in cs),
                flowers=sum(c.flowers for c in cs),
                animals=sum(c.animals for c in cs),
                clouds=sum(c.clouds for c in cs),
                waterfalls=sum(c.waterfalls for c in cs),
                tiles=frozenset(pos[g] for g in members),
                river_animals=frozenset(near),
            )
        )
    return out


def _join(
    tiles: tuple[int, ...],
) -> tuple[list[Comp], list[int], list[int], list[tuple[int, int]]]:
    """Flattened comps, the root of every comp, its position, and (river root, animal cell)."""
    comps: list[Comp] = []
    base: list[int] = []
    pos: list[int] = []
    for k, t in enumerate(tiles):
        base.append(len(comps))
        cs = TILE_INFO[t].comps
        comps.extend(cs)
        pos.extend([k] * len(cs))
    parent = list(range(len(comps)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    pending: list[tuple[int, int]] = []
    for k in range(len(tiles) - 1):
        unions, animals = LINKS[tiles[k]][tiles[k + 1]]
        bl, br = base[k], base[k + 1]
        for ca, cb in unions:
            ra, rb = find(bl + ca), find(br + cb)
            if ra != rb:
                parent[ra] = rb
        for side, comp, cell in animals:
            if side == 0:
                pending.append((bl + comp, (k + 1) * CELLS + cell))
            else:
                pending.append((br + comp, k * CELLS + cell))
    root = [find(g) for g in range(len(comps))]
    return comps, root, pos, [(root[g], cell) for g, cell in pending]


@lru_cache(maxsize=4096)
def analyse(tiles: tuple[int, ...], start_index: int) -> Analysis:
    """Terrain points and every goal metric of one panorama."""
    comps, root, pos, extra = _join(tiles)
    m = len(comps)
    flowers = [0] * m
    animals = [0] * m
    size = [0] * m
    falls = [0] * m
    river_tiles: dict[int, set[int]] = {}
    river_animals: dict[int, set[int]] = {}
    for g in range(m):
        c = comps[g]
        r = root[g]
        t = c.terrain
        if t == RIVER:
            falls[r] += c.waterfalls
            river_tiles.setdefault(r, set()).add(pos[g])
            if c.river_animals:
                off = pos[g] * CELLS
                river_animals.setdefault(r, set()).update(off + x for x in c.river_animals)
        elif t == SKY:
            size[r] += c.size
        else:
            flowers[r] += c.flowers
            animals[r] += c.animals
    for r, cell in extra:
        river_animals.setdefault(r, set()).add(cell)
    points = [0] * 6
    zones = 0
    zones_with_animals = 0
    sky_max = 0
    for g in range(m):
        if root[g] != g:
            continue
        t = comps[g].terrain
        if t in LAND:
            zones += 1
            if animals[g]:
                zones_with_animals += 1
                points[t] += flowers[g] * animals[g]
        elif t == SKY and size[g] > sky_max:
            sky_max = size[g]
    infos = [TILE_INFO[t] for t in tiles]
    clouds_left = sum(info.clouds for info in infos[:start_index])
    clouds_right = sum(info.clouds for info in infos[start_index + 1 :])
    metrics = {
        "S1": sum(info.clouds for info in infos),
        "S2": max(clouds_left, clouds_right),
        "S3": sky_max,
        "S4": max(start_index, len(tiles) - 1 - start_index),
        "R1": max((len(v) for v in river_tiles.values()), default=0),
        "R2": max((len(v) for v in river_animals.values()), default=0),
        "R3": sum(1 for v in river_tiles.values() if len(v) >= 2),
        "R4": max((falls[r] for r in river_tiles), default=0),
        "T1": sum(info.crows for info in infos),
        "T2": len(tiles),
        "T3": zones_with_animals,
        "T4": zones,
    }
    return Analysis(tuple(points), metrics)


def goal_winners(goal: str, values: list[int]) -> list[bool]:
    """Which players meet ``goal`` best (ties all win, also when the best value is 0)."""
    best = min(values) if goal in GOAL_BEST_MIN else max(values)
    return [v == best for v in values]


def breakdowns(
    panoramas: list[tuple[int, ...]], start_indices: list[int], goals: list[str]
) -> list[dict[str, int]]:
    """The score breakdown of every player (keys :data:`BREAKDOWN_KEYS`).

    ``goals`` lists the goal tokens in play as (sky, river, terrain); a goal that is not
    known yet (an empty string, during the ``goal_draw`` nodes) scores 0 for everybody.
    """
    analyses = [analyse(p, s) for p, s in zip(panoramas, start_indices, strict=True)]
    out = [{key: a.points[t] for t, key in _TERRAIN_KEYS} for a in analyses]
    for goal, key in zip(goals, ("goal_sky", "goal_river", "goal_terrain"), strict=True):
        if goal not in GOAL_IDS:
            for b in out:
                b[key] = 0
            continue
        wins = goal_winners(goal, [a.metrics[goal] for a in analyses])
        for b, w in zip(out, wins, strict=True):
            b[key] = 10 if w else 0
    for b in out:
        b["total"] = sum(b[k] for k in BREAKDOWN_KEYS[:-1])
    return [{k: b[k] for k in BREAKDOWN_KEYS} for b in out]
