"""Meadows and the score breakdown (spec "Geometry of meadows", "Scoring").

Meadows are found on the tiles' quadrant groups rather than on single fine cells: within a
tile, the quadrants its river arms do not separate form one group (``QUADRANT_GROUPS``),
and groups of neighbouring spaces join across every fine-cell edge between the spaces
(``CROSS_QUADRANTS``, spec D2). A meadow is named by one of its groups' node numbers
``4 * space + group``: two quadrants are in the same meadow exactly when their meadow ids
are equal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.dziobaki.data import (
    CELL_QUADRANT,
    CELL_SPACE,
    CROSS_QUADRANTS,
    FINE_COLS,
    NUM_CELLS,
    ORIENTED_ANIMALS,
    ORIENTED_ARMS,
    PRINTED_CELLS,
    QUADRANT_GROUPS,
    SPACES,
    SPECIES,
)

BREAKDOWN_KEYS = (
    "meadows_platypus",
    "meadows_koala",
    "meadows_kangaroo",
    "meadows_glider",
    "all_together_bonus",
    "total",
    "max_platypus_in_meadow",
)

SpaceMeadows = tuple[int, int, int, int] | None
"""The meadow ids of the four quadrants (NW, NE, SE, SW) of a space; None: in no meadow."""

QUADRANT_NODES = tuple(
    tuple(tuple(4 * s + g for g in QUADRANT_GROUPS[arms]) for arms in range(16))
    for s in range(SPACES)
)
"""``QUADRANT_NODES[space][arms]``: the union-find node of each quadrant of a tile with arm
mask ``arms`` (quadrants a tile's rivers do not separate share a node)."""


def join_meadows(
    local: Sequence[tuple[int, ...] | None], edges: list[tuple[int, int]] | None = None
) -> list[int]:
    """The union-find parents of the meadows of ``local`` (each space's quadrant nodes,
    None for an empty space): neighbouring quadrants across a space edge are joined.
    ``edges``, when given, collects ``(node, empty space)`` for every quadrant that faces
    an empty space, in board order (what a heuristic needs to see open meadows)."""
    parent = list(range(4 * SPACES))
    for sa, qa, sb, qb in CROSS_QUADRANTS:
        la = local[sa]
        lb = local[sb]
        if la is None or lb is None:
            if edges is not None:
                if la is None and lb is not None:
                    edges.append((lb[qb], sa))
                elif lb is None and la is not None:
                    edges.append((la[qa], sb))
            continue
        a = la[qa]
        while parent[a] != a:
            a = parent[a]
        b = lb[qb]
        while parent[b] != b:
            b = parent[b]
        if a != b:
            parent[b] = a
    return parent


@dataclass(frozen=True)
class Meadow:
    """A maximal connected set of fine cells and the animals in it (printed ones included)."""

    cells: tuple[tuple[int, int], ...]
    counts: tuple[int, int, int, int]  # platypus, koala, kangaroo, glider

    @property
    def species(self) -> tuple[int, ...]:
        return tuple(i for i, n in enumerate(self.counts) if n)

    @property
    def points(self) -> int:
        return sum(self.counts) if len(self.species) == 1 else 0


def meadow_ids(board: Sequence[int], open_ground: bool = True) -> list[SpaceMeadows]:
    """The meadow id of every quadrant of every space of ``board``.

    ``board[space]`` is an oriented tile code or -1 for an empty space. With
    ``open_ground`` an empty space is open ground without rivers or animals (the
    provisional score during play); without it an empty space belongs to no meadow
    (None) and joins nothing, so the meadows are those the placed tiles form so far.
    """
    local: list[tuple[int, ...] | None] = []
    for s in range(SPACES):
        code = board[s]
        if code >= 0:
            local.append(QUADRANT_NODES[s][ORIENTED_ARMS[code]])
        elif open_ground:
            local.append(QUADRANT_NODES[s][0])
        else:
            local.append(None)
    parent = join_meadows(local)
    out: list[SpaceMeadows] = []
    for nodes in local:
        if nodes is None:
            out.append(None)
            continue
        ids = []
        for n in nodes:
            while parent[n] != n:
                n = parent[n]
            ids.append(n)
        out.append((ids[0], ids[1], ids[2], ids[3]))
    return out


def animal_counts(
    board: Sequence[int], side: str, ids: Sequence[SpaceMeadows]
) -> dict[int, list[int]]:
    """Meadow id -> animals per species (platypus, koala, kangaroo, glider), for every
    meadow of ``ids`` (from :func:`meadow_ids`) that holds an animal: the tiles' animals
    (space by space) first, then the printed board animals of ``side`` whose quadrant is
    in a meadow."""
    counts: dict[int, list[int]] = {}
    for s in range(SPACES):
        code = board[s]
        if code < 0:
            continue
        space_ids = ids[s]
        assert space_ids is not None
        for sp, q in ORIENTED_ANIMALS[code]:
            m = space_ids[q]
            row = counts.get(m)
            if row is None:
                counts[m] = row = [0, 0, 0, 0]
            row[sp] += 1
    for sp, cell in enumerate(PRINTED_CELLS[side]):
        space_ids = ids[CELL_SPACE[cell]]
        if space_ids is not None:
            m = space_ids[CELL_QUADRANT[cell]]
            row = counts.get(m)
            if row is None:
                counts[m] = row = [0, 0, 0, 0]
            row[sp] += 1
    return counts


def meadows(board: Sequence[int], side: str) -> list[Meadow]:
    """All meadows of ``board`` on board side ``side``, ordered by their first fine cell
    (empty spaces are open ground)."""
    ids = meadow_ids(board)
    counts = animal_counts(board, side, ids)
    cells: dict[int, list[tuple[int, int]]] = {}
    for x in range(NUM_CELLS):
        space_ids = ids[CELL_SPACE[x]]
        assert space_ids is not None
        cells.setdefault(space_ids[CELL_QUADRANT[x]], []).append(divmod(x, FINE_COLS))
    out = []
    for m, cs in cells.items():  # first seen in cell order
        c = counts.get(m, [0, 0, 0, 0])
        out.append(Meadow(tuple(cs), (c[0], c[1], c[2], c[3])))
    return out


def score_board(board: Sequence[int], side: str, all_together: bool) -> dict[str, int]:
    """The spec's score breakdown of ``board`` (every key always present); empty spaces
    are open ground (the provisional score)."""
    counts = animal_counts(board, side, meadow_ids(board))
    points = [0, 0, 0, 0]
    max_platypus = 0
    holders: list[list[bool]] = [[], [], [], []]  # species -> purity of each meadow holding it
    for cnt in counts.values():
        present = [sp for sp in range(4) if cnt[sp]]
        pure = len(present) == 1
        if pure:
            points[present[0]] += cnt[present[0]]
        if cnt[0] > max_platypus:
            max_platypus = cnt[0]
        for sp in present:
            holders[sp].append(pure)
    bonus = 0
    if all_together:
        for sp in range(4):
            if len(holders[sp]) == 1 and holders[sp][0]:
                bonus += 3
    out = {f"meadows_{SPECIES[sp]}": points[sp] for sp in range(4)}
    out["all_together_bonus"] = bonus
    out["total"] = sum(points) + bonus
    out["max_platypus_in_meadow"] = max_platypus
    return out
