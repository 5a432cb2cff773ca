"""Dziobaki: score the meadows already closed, hope for the open ones, fear merges.

A seat's board is read from the state's public fields (``boards``, ``commitments``: its
pending commitment included, since the seat knows it; no observation is built) and cut
into meadows using only the tiles placed so far:

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

import functools
import random
from collections.abc import Sequence

from bots.heuristics.base import Heuristic
from engine import TERMINAL, Action, State
from engine.dziobaki.actions import Place
from engine.dziobaki.data import (
    CELL_QUADRANT,
    CELL_SPACE,
    ORIENTED_ANIMALS,
    ORIENTED_ARMS,
    PRINTED_CELLS,
)
from engine.dziobaki.scoring import QUADRANT_NODES, join_meadows, score_board
from engine.dziobaki.state import DziobakiState

OPEN_WEIGHT = 0.85
CONFLICT_WEIGHT = 0.5


BOARD_CACHE_SIZE = 1 << 14
"""Board evaluations remembered (by the board's tile codes and side; about 3 MB)."""


def evaluate_board(codes: Sequence[int], side: str) -> float:
    """The estimate of one board (see the module docstring), remembered per board.

    The incremental part of the evaluation: a position differs from the one it was
    reached from in one board at most (a placement), and the greedy bot's candidates
    and ISMCTS's iterations revisit the same boards over and over (the other seats'
    boards are the same for all 48 candidates), so only a board not seen lately is
    scored. The evaluation is a pure function of the codes and the side.
    """
    return _evaluate_cached(tuple(codes), side)


@functools.lru_cache(maxsize=BOARD_CACHE_SIZE)
def _evaluate_cached(codes: tuple[int, ...], side: str) -> float:
    return score_meadows(codes, side)


def score_meadows(codes: Sequence[int], side: str) -> float:
    """The estimate of one board, computed afresh (:func:`evaluate_board` remembers it).

    The meadows of the placed tiles are found with one union-find pass fused with the
    search for the meadows that touch an empty space, and roots are looked up only for
    the quadrants that matter (``meadow_ids`` finds them all); every dictionary is filled
    in the same order as ``meadow_ids`` + ``animal_counts`` would, so the float sums, and
    therefore the bots' choices, are bit for bit the same.
    """
    local = [QUADRANT_NODES[s][ORIENTED_ARMS[c]] if c >= 0 else None for s, c in enumerate(codes)]
    edges: list[tuple[int, int]] = []  # (group node, empty space it touches), in order
    parent = join_meadows(local, edges)

    def find(n: int) -> int:
        while parent[n] != n:
            parent[n] = n = parent[parent[n]]
        return n

    touches: dict[int, set[int]] = {}  # meadow -> empty spaces it touches
    for node, empty in edges:
        touches.setdefault(find(node), set()).add(empty)
    counts: dict[int, list[int]] = {}
    for s, code in enumerate(codes):
        if code < 0:
            continue
        nodes = local[s]
        assert nodes is not None
        for sp, q in ORIENTED_ANIMALS[code]:
            m = find(nodes[q])
            tally = counts.get(m)
            if tally is None:
                counts[m] = tally = [0, 0, 0, 0]
            tally[sp] += 1
    for sp, cell in enumerate(PRINTED_CELLS[side]):
        nodes = local[CELL_SPACE[cell]]
        if nodes is not None:
            m = find(nodes[CELL_QUADRANT[cell]])
            tally = counts.get(m)
            if tally is None:
                counts[m] = tally = [0, 0, 0, 0]
            tally[sp] += 1
    # printed animals next to an empty space touch that space
    loose: dict[int, list[int]] = {}
    for sp, cell in enumerate(PRINTED_CELLS[side]):
        space = CELL_SPACE[cell]
        if codes[space] < 0:
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
        st = _dziobaki(state)
        cp = st.current
        if cp == TERMINAL:
            return [float(x) for x in st.scores()]
        side = st.side
        all_together = bool(st.options["all_together"])
        tile = st.revealed[-1] if cp >= 0 else -1
        # With one board, every position evaluated (the greedy prior's 12,720 follow-ups)
        # is a board never seen before: remembering them would only cost.
        evaluate = evaluate_board if st.num_players > 1 else score_meadows
        out = []
        for seat in range(st.num_players):
            board = st.boards[seat]
            codes = list(board)
            if tile >= 0 and seat < cp:  # committed this round: the seat knows its choice
                mine = st.commitments[seat]
                if mine >= 0:
                    codes[mine >> 2] = 4 * tile + (mine & 3)
            # the bonus as scored now (on the board of the last completed round)
            bonus = float(all_together_bonus(board, side)) if all_together else 0.0
            out.append(evaluate(codes, side) + bonus)
        return out

    def forget(self) -> None:
        _evaluate_cached.cache_clear()

    def rollout_action(self, state: State, legal: list[Action], rng: random.Random) -> Action:
        st = _dziobaki(state)
        codes = st.boards[st.current]
        tile = st.revealed[-1]
        side = st.side
        best, best_v = legal[0], -1e9
        for a in legal:
            assert isinstance(a, Place)
            trial = list(codes)
            trial[a.space] = 4 * tile + a.rotation
            v = evaluate_board(trial, side) + rng.random() * 0.3
            if v > best_v:
                best, best_v = a, v
        return best


def _dziobaki(state: State) -> DziobakiState:
    """``state`` as a Dziobaki state (the heuristic reads its public fields directly:
    building an observation per evaluation cost more than the evaluation itself)."""
    if not isinstance(state, DziobakiState):
        raise TypeError(f"the Dziobaki heuristic needs a Dziobaki state, got {type(state)!r}")
    return state


def all_together_bonus(board: Sequence[int], side: str) -> int:
    """The optional "all together" bonus of ``board`` as scored now (empty spaces are
    open ground, as in the provisional score): 3 per species held by exactly one meadow,
    a pure one. Only computed when the option is on, since it re-scores the board."""
    return score_board(board, side, True)["all_together_bonus"]


HEURISTIC = DziobakiHeuristic()
