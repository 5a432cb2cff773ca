"""Component data of Dziobaki (spec "Components"): species, board geometry, tiles.

Everything is precomputed into flat integer tables so the rules and the scoring never
build objects in the hot path:

* species index ``0..3`` = platypus, koala, kangaroo, glider;
* quadrant index ``0..3`` = NW, NE, SE, SW (clockwise, so one quarter turn is ``q+1``);
* arm index ``0..3`` = N, E, S, W (clockwise too); arm ``a`` separates quadrants ``a``
  and ``a+1`` (N: NW|NE, E: NE|SE, S: SE|SW, W: SW|NW);
* tile index ``0..14`` = D01..D15; an *oriented tile* is ``code = 4 * tile + rotation``;
* fine cell index ``8 * fr + fc`` on the 6 x 8 fine grid.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

SPECIES: Final = ("platypus", "koala", "kangaroo", "glider")
SPECIES_LETTER: Final = ("P", "K", "R", "G")
QUADRANTS: Final = ("NW", "NE", "SE", "SW")
ARMS: Final = ("N", "E", "S", "W")
SEAT_COLOURS: Final = ("red", "yellow", "green", "blue")

ROWS: Final = 3
COLS: Final = 4
SPACES: Final = ROWS * COLS
FINE_ROWS: Final = 2 * ROWS
FINE_COLS: Final = 2 * COLS
ROUNDS: Final = 12
NUM_TILES: Final = 15

TILE_IDS: Final = tuple(f"D{i:02d}" for i in range(1, NUM_TILES + 1))
TILE_INDEX: Final = {tid: i for i, tid in enumerate(TILE_IDS)}

# Tiles as printed (rotation 0): (river arms, ((species, quadrant), ...)).
_TILE_DATA: Final = (
    ("", (("platypus", "SE"),)),
    ("", (("koala", "NW"), ("koala", "SE"))),
    ("", (("kangaroo", "NW"), ("glider", "SE"))),
    ("NS", (("koala", "NW"), ("kangaroo", "SE"))),
    ("NS", (("platypus", "SW"), ("glider", "NE"))),
    ("NS", (("kangaroo", "NW"), ("kangaroo", "SW"))),
    ("NS", (("glider", "SW"), ("koala", "NE"))),
    ("NE", (("platypus", "NE"),)),
    ("NE", (("glider", "NE"), ("kangaroo", "SW"))),
    ("NE", (("koala", "NE"), ("platypus", "SW"))),
    ("NE", (("kangaroo", "NE"), ("glider", "SW"))),
    ("NES", (("platypus", "NE"), ("koala", "SE"))),
    ("NES", (("glider", "NE"),)),
    ("NESW", (("koala", "NW"), ("glider", "NE"), ("platypus", "SE"), ("kangaroo", "SW"))),
    ("NESW", (("platypus", "SE"),)),
)

SIDES: Final = ("A", "B")

# Printed board animals per side: species index -> fine cell (spec table / JSON data).
PRINTED_CELLS: Final = {
    "A": (2 * 8 + 0, 0 * 8 + 3, 3 * 8 + 7, 5 * 8 + 4),
    "B": (0 * 8 + 0, 0 * 8 + 7, 5 * 8 + 7, 5 * 8 + 0),
}
PRINTED_MARGINS: Final = {
    "A": ("left", "top", "right", "bottom"),
    "B": ("top", "top", "bottom", "bottom"),
}


def _rotate_arms(mask: int) -> int:
    """One quarter turn clockwise of a 4-bit arm mask (N->E->S->W->N)."""
    return ((mask << 1) | (mask >> 3)) & 0xF


def _build_oriented() -> tuple[tuple[int, ...], tuple[tuple[tuple[int, int], ...], ...]]:
    arms_of: list[int] = []
    animals_of: list[tuple[tuple[int, int], ...]] = []
    for arms, animals in _TILE_DATA:
        mask = 0
        for a in arms:
            mask |= 1 << ARMS.index(a)
        quads = [(SPECIES.index(sp), QUADRANTS.index(q)) for sp, q in animals]
        for _k in range(4):
            arms_of.append(mask)
            animals_of.append(tuple(quads))
            mask = _rotate_arms(mask)
            quads = [(sp, (q + 1) % 4) for sp, q in quads]
    return tuple(arms_of), tuple(animals_of)


ORIENTED_ARMS, ORIENTED_ANIMALS = _build_oriented()
"""Indexed by ``code = 4 * tile + rotation``: arm mask (bit a = arm a) and animals."""


def quadrant_cell(space: int, quadrant: int) -> int:
    """The fine cell index of ``quadrant`` (0..3 = NW, NE, SE, SW) of ``space``."""
    r, c = divmod(space, COLS)
    dr = 1 if quadrant in (2, 3) else 0
    dc = 1 if quadrant in (1, 2) else 0
    return (2 * r + dr) * FINE_COLS + 2 * c + dc


QUAD_CELLS: Final = tuple(tuple(quadrant_cell(s, q) for q in range(4)) for s in range(SPACES))
"""``QUAD_CELLS[space][quadrant]`` -> fine cell index."""

NUM_CELLS: Final = FINE_ROWS * FINE_COLS
CELL_SPACE: Final = tuple(
    (cell // FINE_COLS // 2) * COLS + cell % FINE_COLS // 2 for cell in range(NUM_CELLS)
)
"""``CELL_SPACE[cell]`` -> the space the fine cell lies in."""
CELL_QUADRANT: Final = tuple(QUAD_CELLS[CELL_SPACE[cell]].index(cell) for cell in range(NUM_CELLS))
"""``CELL_QUADRANT[cell]`` -> the quadrant (0..3 = NW, NE, SE, SW) of its space it is."""

CROSS_EDGES: Final = tuple(
    [(fr * FINE_COLS + fc, fr * FINE_COLS + fc + 1) for fr in range(FINE_ROWS) for fc in (1, 3, 5)]
    + [(fr * FINE_COLS + fc, (fr + 1) * FINE_COLS + fc) for fr in (1, 3) for fc in range(8)]
)
"""Pairs of fine cells of two different spaces: always connected (spec D2)."""
CROSS_QUADRANTS: Final = tuple(
    (CELL_SPACE[a], CELL_QUADRANT[a], CELL_SPACE[b], CELL_QUADRANT[b]) for a, b in CROSS_EDGES
)
"""The CROSS_EDGES as ``(space, quadrant, space, quadrant)``, in the same order."""


def _quadrant_groups(arms: int) -> tuple[int, int, int, int]:
    """For a tile with river arm mask ``arms``: each quadrant's group within the tile, the
    lowest quadrant it connects to (arm ``a`` separates quadrants ``a`` and ``a+1``)."""
    group = [0, 1, 2, 3]
    for _ in range(4):
        for a in range(4):
            if not arms >> a & 1:
                b = (a + 1) & 3
                group[a] = group[b] = min(group[a], group[b])
    return group[0], group[1], group[2], group[3]


QUADRANT_GROUPS: Final = tuple(_quadrant_groups(arms) for arms in range(16))
"""``QUADRANT_GROUPS[arms]``: the group (lowest connected quadrant) of each quadrant of a
tile with river arm mask ``arms``; an empty space is open ground, mask 0 (one group)."""


def tile_text(code: int) -> str:
    """``Dxx@k`` for an oriented tile code."""
    return f"{TILE_IDS[code >> 2]}@{code & 3}"


def parse_board(text: str) -> list[int]:
    """Parse the spec's board notation ``"D04@1 D07@3 ... | ... | ..."`` into 12 codes.

    >>> parse_board("D01@0 D02@1 D03@2 D04@3 | D05@0 D06@0 D07@0 D08@0 | "
    ...             "D09@0 D10@0 D11@0 D12@1")[:4]
    [0, 5, 10, 15]
    """
    cells = text.replace("|", " ").split()
    if len(cells) != SPACES:
        raise ValueError(f"a board needs {SPACES} spaces, got {len(cells)}")
    out = []
    for cell in cells:
        tid, _, rot = cell.partition("@")
        out.append(4 * TILE_INDEX[tid] + int(rot))
    return out


def board_codes(board: Mapping[str, Any]) -> list[int]:
    """The 12 oriented tile codes (-1: empty) of one board of an observation
    (``{"seat", "spaces": [{"space", "tile", "rotation"}, ...], ...}``), unchecked."""
    codes = [-1] * SPACES
    for sp in board["spaces"]:
        if sp["tile"]:
            codes[sp["space"]] = 4 * TILE_INDEX[sp["tile"]] + sp["rotation"]
    return codes
