"""Sanctuary geometry (spec 5.5): cells, tucking, rotation, flower completion, shapes.

A sanctuary is a dict of occupied cells ``(x, y) -> compass edges (N, E, S, W)`` plus a
*frontier*: every empty cell orthogonally adjacent to the sanctuary, mapped to a pattern
id that encodes, for each compass side, the facing edge of the occupied neighbour (or
"empty"). A placement of a card at rotation ``k`` on a frontier cell is legal iff the
anchor side ``k`` is occupied, every occupied side shows exactly the same edge value as
the card's edge on that side (wall-wall or same colour; everything else is illegal by the
wall rule and D4) and at least one of those sides is a half-flower. So legality depends
only on (pattern, card data) and is cached in a global table.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from engine.manatee_sanctuary.actions import ROTATIONS, Expand, expand_action
from engine.manatee_sanctuary.data import (
    BASE,
    COLOUR_NAMES,
    ROT_EDGES,
    SHAPES,
    START_EDGES,
    WALL,
)

Cell = tuple[int, int]
# Neighbour offsets by compass index N, E, S, W.
DX = (0, 1, 0, -1)
DY = (1, 0, -1, 0)
SIDE_NAMES = ("north", "east", "south", "west")
_POW5 = (1, 5, 25, 125)


def _pattern_sides(pid: int) -> tuple[int, int, int, int]:
    """Decode a pattern id into facing edges per side (-1 = empty neighbour)."""
    return (pid % 5 - 1, pid // 5 % 5 - 1, pid // 25 % 5 - 1, pid // 125 % 5 - 1)


def _rotations(sides: tuple[int, int, int, int], base: int) -> tuple[int, ...]:
    out = []
    for k in range(4):
        if sides[k] < 0:
            continue  # no anchor
        edges = ROT_EDGES[base][k]
        ok = True
        flower = False
        for d in range(4):
            side = sides[d]
            if side < 0:
                continue
            if edges[d] != side:
                ok = False
                break
            if side != WALL:
                flower = True
        if ok and flower:
            out.append(k)
    return tuple(out)


@functools.cache
def table_row(pid: int) -> tuple[tuple[int, ...], ...]:
    """Legal rotations k (0..3) of every base card on a cell with pattern ``pid``."""
    sides = _pattern_sides(pid)
    return tuple(_rotations(sides, b) for b in range(90))


def legal_rotations(pid: int, base: int) -> tuple[int, ...]:
    """Rotations k at which card ``base`` may be placed on a cell with pattern ``pid``."""
    return table_row(pid)[base]


class Sanctuary:
    """One player's sanctuary: placements in order, occupied cells and frontier."""

    __slots__ = ("_expands", "cells", "frontier", "placements")

    def __init__(self) -> None:
        self.placements: list[tuple[int, int, int, int]] = []  # (card, x, y, rot degrees)
        self.cells: dict[Cell, tuple[int, int, int, int]] = {(0, 0): START_EDGES}
        self.frontier: dict[Cell, int] = {}
        for d in range(4):
            self.frontier[(DX[d], DY[d])] = (START_EDGES[d] + 1) * _POW5[(d + 2) % 4]
        self._expands: dict[int, tuple[Expand, ...]] = {}
        """:meth:`expands` by card, for the current frontier. Copies share it until one
        of them places a card (``place`` gives that one a new dict), so every entry holds
        for every sanctuary that shares it: a search plays many rollouts from copies of
        one sanctuary, and they list the same expands again and again."""

    def copy(self) -> Sanctuary:
        other = Sanctuary.__new__(Sanctuary)
        other.placements = list(self.placements)
        other.cells = dict(self.cells)
        other.frontier = dict(self.frontier)
        other._expands = self._expands
        return other

    def placements_for(self, card: int) -> list[tuple[int, int, int]]:
        """Legal placements (x, y, rot degrees) of ``card``, sorted by x, y, rot."""
        base = BASE[card]
        out: list[tuple[int, int, int]] = []
        for (x, y), pid in self.frontier.items():
            ks = table_row(pid)[base]
            if ks:
                for k in ks:
                    out.append((x, y, 90 * k))
        if len(out) > 1:
            out.sort()
        return out

    def expands(self, card: int) -> tuple[Expand, ...]:
        """The legal expand actions of ``card``: :meth:`placements_for` as actions."""
        known = self._expands.get(card)
        if known is None:
            known = self._expands[card] = tuple(
                [expand_action(card, x, y, r) for x, y, r in self.placements_for(card)]
            )
        return known

    def can_expand(self, card: int, x: int, y: int, rot: int) -> bool:
        """Whether ``card`` may be placed at (x, y) turned ``rot`` degrees (the same as
        ``(x, y, rot) in placements_for(card)``, without listing them)."""
        pid = self.frontier.get((x, y))
        if pid is None or rot not in ROTATIONS:
            return False
        return rot // 90 in table_row(pid)[BASE[card]]

    def has_placement(self, card: int) -> bool:
        base = BASE[card]
        return any(legal_rotations(pid, base) for pid in self.frontier.values())

    def explain(self, card: int, x: int, y: int, rot: int) -> str | None:
        """Why placing ``card`` at (x, y) rot is illegal (None if it is legal)."""
        if (x, y) in self.cells:
            return f"cell ({x},{y}) is already occupied"
        k = rot // 90
        if (x + DX[k], y + DY[k]) not in self.cells:
            return (
                f"no anchor: at rot {rot} the action half points {SIDE_NAMES[k]} to the empty "
                f"cell ({x + DX[k]},{y + DY[k]}); it must be tucked under an occupied cell"
            )
        edges = ROT_EDGES[BASE[card]][k]
        flowers = 0
        for d in range(4):
            other = self.cells.get((x + DX[d], y + DY[d]))
            if other is None:
                continue
            mine, theirs = edges[d], other[(d + 2) % 4]
            if mine != theirs:
                kind = (
                    "two different colours meet"
                    if mine != WALL and theirs != WALL
                    else "a wall meets a half-flower"
                )
                return (
                    f"{kind} on the {SIDE_NAMES[d]} side: the card shows {COLOUR_NAMES[mine]}, "
                    f"the neighbour at ({x + DX[d]},{y + DY[d]}) shows {COLOUR_NAMES[theirs]}"
                )
            if mine != WALL:
                flowers += 1
        if flowers == 0:
            return "the placement completes no flower (at least one is required)"
        return None

    def place(self, card: int, x: int, y: int, rot: int) -> list[int]:
        """Place ``card`` (legality already checked); return the colours completed."""
        k = rot // 90
        edges = ROT_EDGES[BASE[card]][k]
        completed: list[int] = []
        cells = self.cells
        frontier = self.frontier
        del frontier[(x, y)]
        self._expands = {}  # a new frontier (copies sharing the old dict keep it)
        cells[(x, y)] = edges
        self.placements.append((card, x, y, rot))
        for d in range(4):
            n = (x + DX[d], y + DY[d])
            if n in cells:
                if edges[d] != WALL:
                    completed.append(edges[d])
            else:
                frontier[n] = frontier.get(n, 0) + (edges[d] + 1) * _POW5[(d + 2) % 4]
        return completed

    def contains(self, shape: str) -> bool:
        """Whether some rotation and translation of ``shape`` fits in the occupied cells."""
        return contains_shape(self.cells.keys(), SHAPES[shape])


def contains_shape(occupied: Iterable[Cell], shape: tuple[Cell, ...]) -> bool:
    """Whether some rotation and translation of ``shape`` lies within ``occupied``."""
    cells = set(occupied)
    variants = []
    cur = list(shape)
    for _ in range(4):
        variants.append(cur)
        cur = [(y, -x) for x, y in cur]
    for var in variants:
        ax, ay = var[0]
        rel = [(x - ax, y - ay) for x, y in var]
        for cx, cy in cells:
            if all((cx + dx, cy + dy) in cells for dx, dy in rel):
                return True
    return False
