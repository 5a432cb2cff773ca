"""Text drawing of Dziobaki boards and tiles in the spec's diagram notation.

Each space is 7 characters wide and 3 lines high: a line of its two northern quadrants,
a line for the west/east river arms, a line of its two southern quadrants. Upper-case
letters are tile animals (P platypus, K koala, R kangaroo, G glider; ``.`` none), ``#``
a river arm, ``:`` and ``...`` tile boundaries; printed animals are lower-case letters
outside the frame. An empty space shows its number.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.dziobaki.components import (
    COLS,
    FINE_COLS,
    ORIENTED_ANIMALS,
    ORIENTED_ARMS,
    PRINTED_CELLS,
    PRINTED_MARGINS,
    ROWS,
    SPECIES_LETTER,
)


def space_lines(code: int, space: int = -1) -> tuple[str, str, str]:
    """The three 7-character lines of one space (``code`` -1: empty, shows ``space``)."""
    if code < 0:
        label = str(space) if space >= 0 else ""
        return " " * 7, f"{label:^7}", " " * 7
    letters = ["."] * 4
    for sp, q in ORIENTED_ANIMALS[code]:
        letters[q] = SPECIES_LETTER[sp]
    arms = ORIENTED_ARMS[code]
    n = "#" if arms & 1 else " "
    e = "###" if arms & 2 else "   "
    s = "#" if arms & 4 else " "
    w = "###" if arms & 8 else "   "
    return (
        f" {letters[0]} {n} {letters[1]} ",
        f"{w} {e}",
        f" {letters[3]} {s} {letters[2]} ",
    )


def board_lines(board: Sequence[int], side: str) -> list[str]:
    """The board drawn as in the spec's worked example, printed animals included."""
    printed = PRINTED_CELLS[side]
    top = [" "] * (4 * FINE_COLS + 3)
    bottom = [" "] * (4 * FINE_COLS + 3)
    left: dict[int, str] = {}
    right: dict[int, str] = {}
    for sp, cell in enumerate(printed):
        fr, fc = divmod(cell, FINE_COLS)
        letter = SPECIES_LETTER[sp].lower()
        margin = PRINTED_MARGINS[side][sp]
        if margin == "top":
            top[3 + 4 * fc] = letter
        elif margin == "bottom":
            bottom[3 + 4 * fc] = letter
        elif margin == "left":
            left[fr] = letter
        else:
            right[fr] = letter
    lines = ["".join(top).rstrip()]
    for r in range(ROWS):
        parts = [space_lines(board[4 * r + c], 4 * r + c) for c in range(COLS)]
        for i in range(3):
            fr = 2 * r + (1 if i == 2 else 0)
            lead = left.get(fr, " ") if i != 1 else " "
            tail = right.get(fr, "") if i != 1 else ""
            lines.append(f"{lead}|" + ":".join(p[i] for p in parts) + f"|{tail}")
        if r < ROWS - 1:
            lines.append(" |" + ":".join(["... ..."] * COLS) + "|")
    lines.append("".join(bottom).rstrip())
    return lines


def rotations_lines(tile: int) -> list[str]:
    """The four rotations of ``tile`` side by side, labelled ``rotation k``."""
    blocks = [space_lines(4 * tile + k) for k in range(4)]
    head = "    ".join(f"rotation {k}".center(9) for k in range(4))
    frame = "    ".join("+" + "-" * 7 + "+" for _ in range(4))
    body = ["    ".join("|" + b[i] + "|" for b in blocks) for i in range(3)]
    return [head, frame, *body, frame]
