"""Meadows on the fine grid and the score breakdown (spec "Geometry of meadows", "Scoring")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.dziobaki.components import (
    CROSS_EDGES,
    FINE_COLS,
    FINE_ROWS,
    ORIENTED_ANIMALS,
    ORIENTED_ARMS,
    PRINTED_CELLS,
    QUAD_CELLS,
    SPACES,
    SPECIES,
)

NUM_CELLS = FINE_ROWS * FINE_COLS

BREAKDOWN_KEYS = (
    "meadows_platypus",
    "meadows_koala",
    "meadows_kangaroo",
    "meadows_glider",
    "all_together_bonus",
    "total",
    "max_platypus_in_meadow",
)


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


def meadow_roots(board: Sequence[int]) -> list[int]:
    """For every fine cell, a representative cell of its meadow (union-find roots).

    ``board[space]`` is an oriented tile code or -1 for an empty space (treated as
    open ground without rivers, used for the provisional score during play).
    """
    parent = list(range(NUM_CELLS))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a: int, b: int) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            if ra < rb:
                parent[rb] = ra
            else:
                parent[ra] = rb

    for a, b in CROSS_EDGES:
        union(a, b)
    for s in range(SPACES):
        code = board[s]
        arms = ORIENTED_ARMS[code] if code >= 0 else 0
        qc = QUAD_CELLS[s]
        for a in range(4):
            if not (arms >> a) & 1:
                union(qc[a], qc[(a + 1) & 3])
    return [find(x) for x in range(NUM_CELLS)]


def _animal_counts(board: Sequence[int], side: str, roots: list[int]) -> dict[int, list[int]]:
    counts: dict[int, list[int]] = {r: [0, 0, 0, 0] for r in set(roots)}
    for s in range(SPACES):
        code = board[s]
        if code < 0:
            continue
        qc = QUAD_CELLS[s]
        for sp, q in ORIENTED_ANIMALS[code]:
            counts[roots[qc[q]]][sp] += 1
    for sp, cell in enumerate(PRINTED_CELLS[side]):
        counts[roots[cell]][sp] += 1
    return counts


def meadows(board: Sequence[int], side: str) -> list[Meadow]:
    """All meadows of ``board`` on board side ``side``, ordered by their first fine cell."""
    roots = meadow_roots(board)
    counts = _animal_counts(board, side, roots)
    cells: dict[int, list[tuple[int, int]]] = {}
    for x, r in enumerate(roots):
        cells.setdefault(r, []).append(divmod(x, FINE_COLS))
    return [
        Meadow(tuple(cs), (counts[r][0], counts[r][1], counts[r][2], counts[r][3]))
        for r, cs in sorted(cells.items())
    ]


def score_board(board: Sequence[int], side: str, all_together: bool) -> dict[str, int]:
    """The spec's score breakdown of ``board`` (every key always present)."""
    roots = meadow_roots(board)
    counts = _animal_counts(board, side, roots)
    points = [0, 0, 0, 0]
    max_platypus = 0
    holders: list[list[tuple[int, bool]]] = [[], [], [], []]  # species -> (root, pure)
    for r, cnt in counts.items():
        present = [sp for sp in range(4) if cnt[sp]]
        pure = len(present) == 1
        if pure:
            points[present[0]] += cnt[present[0]]
        if cnt[0] > max_platypus:
            max_platypus = cnt[0]
        for sp in present:
            holders[sp].append((r, pure))
    bonus = 0
    if all_together:
        for sp in range(4):
            if len(holders[sp]) == 1 and holders[sp][0][1]:
                bonus += 3
    out = {f"meadows_{SPECIES[sp]}": points[sp] for sp in range(4)}
    out["all_together_bonus"] = bonus
    out["total"] = sum(points) + bonus
    out["max_platypus_in_meadow"] = max_platypus
    return out
