"""Dziobaki: score the meadows already closed, hope for the open ones, fear merges.

A seat's board is read from the observation (its pending commitment included, since the
seat knows it) and cut into meadows using only the tiles placed so far:

* a **closed** meadow (no fine cell next to an empty space) is final: 1 point per
  animal if it holds one species, 0 if mixed;
* an **open** single-species meadow counts ``OPEN_WEIGHT`` of its animals (it may
  still grow, or be spoiled by a later tile), an open mixed meadow counts nothing;
* an empty space that touches open meadows of different species is a **conflict**: the
  tile that will fill it must separate them with rivers, or they merge into a mixed
  meadow worth 0, so the smaller groups are discounted by ``CONFLICT_WEIGHT``. A printed
  border animal next to an empty space counts as touching it.

The optional "all together" bonus is added as scored now. The rollout policy places the
revealed tile where this evaluation of the own board is best, with a little noise.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from bots.heuristics.base import Heuristic
from engine import Action, State
from engine.dziobaki.components import (
    CROSS_EDGES,
    FINE_COLS,
    ORIENTED_ANIMALS,
    ORIENTED_ARMS,
    PRINTED_CELLS,
    QUAD_CELLS,
    SPACES,
    TILE_INDEX,
)

OPEN_WEIGHT = 0.85
CONFLICT_WEIGHT = 0.5
NUM_CELLS = 6 * FINE_COLS
SPACE_OF_CELL = tuple(
    ((cell // FINE_COLS) // 2) * 4 + (cell % FINE_COLS) // 2 for cell in range(NUM_CELLS)
)


def board_codes(board: Mapping[str, Any]) -> list[int]:
    """Oriented tile codes (``4 * tile + rotation``, -1 if empty) of an observed board."""
    codes = [-1] * SPACES
    for sp in board["spaces"]:
        if sp["tile"]:
            codes[sp["space"]] = 4 * TILE_INDEX[sp["tile"]] + sp["rotation"]
    return codes


def evaluate_board(codes: Sequence[int], side: str) -> float:
    """The estimate of one board (see the module docstring)."""
    parent = list(range(NUM_CELLS))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for s in range(SPACES):
        code = codes[s]
        if code < 0:
            continue
        arms = ORIENTED_ARMS[code]
        qc = QUAD_CELLS[s]
        for a in range(4):
            if not (arms >> a) & 1:
                ra, rb = find(qc[a]), find(qc[(a + 1) & 3])
                if ra != rb:
                    parent[ra] = rb
    touches: dict[int, set[int]] = {}  # meadow root -> empty spaces it touches
    for a, b in CROSS_EDGES:
        ea, eb = codes[SPACE_OF_CELL[a]] < 0, codes[SPACE_OF_CELL[b]] < 0
        if ea and eb:
            continue
        if ea or eb:
            cell, empty = (b, SPACE_OF_CELL[a]) if ea else (a, SPACE_OF_CELL[b])
            touches.setdefault(find(cell), set()).add(empty)
            continue
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
    counts: dict[int, list[int]] = {}
    for s in range(SPACES):
        code = codes[s]
        if code < 0:
            continue
        qc = QUAD_CELLS[s]
        for sp, q in ORIENTED_ANIMALS[code]:
            counts.setdefault(find(qc[q]), [0, 0, 0, 0])[sp] += 1
    # printed animals: in a meadow if their space is filled, else touching that empty space
    loose: dict[int, list[int]] = {}
    for sp, cell in enumerate(PRINTED_CELLS[side]):
        space = SPACE_OF_CELL[cell]
        if codes[space] >= 0:
            counts.setdefault(find(cell), [0, 0, 0, 0])[sp] += 1
        else:
            loose.setdefault(space, [0, 0, 0, 0])[sp] += 1
    total = 0.0
    # per empty space: species -> animals of pure open meadows touching it (+ mixed flag)
    pressure: dict[int, list[float]] = {}
    for root, cnt in counts.items():
        present = [i for i in range(4) if cnt[i]]
        is_open = root in touches
        if len(present) == 1:
            n = cnt[present[0]]
            total += n * (OPEN_WEIGHT if is_open else 1.0)
            if is_open:
                for e in touches[root]:
                    pressure.setdefault(e, [0.0] * 5)[present[0]] += n
        elif len(present) > 1 and is_open:
            for e in touches[root]:
                pressure.setdefault(e, [0.0] * 5)[4] += 1.0
    for space, cnt in loose.items():
        row = pressure.setdefault(space, [0.0] * 5)
        for i in range(4):
            row[i] += 0.5 * cnt[i]
    for row in pressure.values():
        groups = sorted(row[:4], reverse=True)
        if row[4]:
            total -= CONFLICT_WEIGHT * OPEN_WEIGHT * sum(groups) * 0.5
        else:
            total -= CONFLICT_WEIGHT * OPEN_WEIGHT * sum(groups[1:])
    return total


class DziobakiHeuristic(Heuristic):
    game_id = "dziobaki"
    scale = 4.0
    samples = 1
    rival_weight = 0.0  # boards never interact: only the own board matters
    solitaire = True
    exploration = 0.1
    rollout_depth = 0

    def estimate(self, state: State) -> list[float]:
        obs = state.observation(None)
        if obs["phase"] == "over":
            return [float(b["score"]["total"]) for b in obs["boards"]]
        side = obs["board_side"]
        tile = obs["revealed_tile"]
        out = []
        for seat, board in enumerate(obs["boards"]):
            codes = board_codes(board)
            if obs["committed"][seat] and tile:
                mine = state.observation(seat)["my_commitment"]
                if mine["space"] >= 0:
                    codes[mine["space"]] = 4 * TILE_INDEX[tile] + mine["rotation"]
            bonus = float(board["score"]["all_together_bonus"])
            out.append(evaluate_board(codes, side) + bonus)
        return out

    def rollout_action(self, state: State, legal: list[Action], rng: random.Random) -> Action:
        obs = state.observation(None)
        seat = obs["current_player"]
        codes = board_codes(obs["boards"][seat])
        tile = TILE_INDEX[obs["revealed_tile"]]
        side = obs["board_side"]
        best, best_v = legal[0], -1e9
        for a in legal:
            trial = list(codes)
            trial[int(getattr(a, "space", 0))] = 4 * tile + int(getattr(a, "rotation", 0))
            v = evaluate_board(trial, side) + rng.random() * 0.3
            if v > best_v:
                best, best_v = a, v
        return best


HEURISTIC = DziobakiHeuristic()
