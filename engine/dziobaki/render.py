"""Text view of Dziobaki (drawn from an observation, so it shows nothing hidden): the boards
and tiles in the spec's diagram notation.

Each space is 7 characters wide and 3 lines high: a line of its two northern quadrants,
a line for the west/east river arms, a line of its two southern quadrants. Upper-case
letters are tile animals (P platypus, K koala, R kangaroo, G glider; ``.`` none), ``#``
a river arm, ``:`` and ``...`` tile boundaries; printed animals are lower-case letters
outside the frame. An empty space shows its number.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.core import JSON
from engine.dziobaki.data import (
    COLS,
    FINE_COLS,
    ORIENTED_ANIMALS,
    ORIENTED_ARMS,
    PRINTED_CELLS,
    PRINTED_MARGINS,
    ROUNDS,
    ROWS,
    SEAT_COLOURS,
    SPECIES_LETTER,
    TILE_INDEX,
    board_codes,
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


def render_observation(obs: Mapping[str, JSON]) -> str:
    """The round, the revealed tile, the viewer's commitment and every board of
    observation ``obs`` as text."""
    cp = obs["current_player"]
    side = obs["board_side"]
    seat = obs["you"]
    lines = [
        f"Dziobaki - round {obs['round']}/{ROUNDS}, board side {side}, "
        f"all together {'on' if obs['all_together'] else 'off'}, {obs['stack_size']} "
        f"tiles in the stack"
    ]
    lines.append(f"Not revealed yet: {' '.join(obs['unrevealed']) or '-'}")
    phase = obs["phase"]
    if phase == "reveal":
        lines.append("Next: the caller (seat 0) reveals the top tile of his stack.")
    elif phase == "place":
        tile = obs["revealed_tile"]
        lines.append(f"Revealed tile: {tile} (every player places his copy)")
        lines.extend("  " + x for x in rotations_lines(TILE_INDEX[tile]))
        done = ", ".join(str(j) for j, c in enumerate(obs["committed"]) if c) or "nobody"
        lines.append(f"Committed: {done}; seat {cp} ({SEAT_COLOURS[cp]}) to place.")
        mine = obs["my_commitment"]
        if mine["space"] >= 0:
            lines.append(
                f"Your commitment (hidden from the others): space {mine['space']}, "
                f"rotation {mine['rotation']}"
            )
    else:
        lines.append("Game over.")
    over = phase == "over"
    for j, board in enumerate(obs["boards"]):
        sc = board["score"]
        you = " (you)" if seat == j else ""
        head = (
            f"Seat {j} ({SEAT_COLOURS[j]}){you}: {'final' if over else 'so far'} {sc['total']} = "
            f"P {sc['meadows_platypus']} + K {sc['meadows_koala']} + "
            f"R {sc['meadows_kangaroo']} + G {sc['meadows_glider']} + "
            f"bonus {sc['all_together_bonus']}; max platypus/meadow "
            f"{sc['max_platypus_in_meadow']}"
        )
        if over:
            head += f"; rank {obs['ranks'][j]}"
        lines.append("")
        lines.append(head)
        lines.extend("  " + x for x in board_lines(board_codes(board), side))
    return "\n".join(lines)
