"""Dziobaki (Reiner Knizia): simultaneous tile laying on a 3 x 4 board, 1-4 players.

Rules in short (spec: ``docs/rules/dziobaki.md``). Every seat owns the same 15 animal
tiles D01-D15 and a personal board of 12 spaces (``space = 4*row + col``), all on the
same side (option ``board_side``: "A" printed animals mid-edge, "B" in the corners).
Each of the 12 rounds the caller (seat 0) reveals the top tile of his shuffled stack;
every seat then places its copy of that tile on an empty space of its own board in one
of four rotations (quarter turns clockwise). Tiles carry 1-4 animals (platypus, koala,
kangaroo, sugar glider) in their quadrants and 0-4 river arms from the centre to edge
midpoints. The board is a 6 x 8 grid of fine cells (quadrants); neighbouring cells are
connected unless a river arm of their own tile separates them (cells of different tiles
are always connected), and a meadow is a connected set of cells. The 4 printed board
animals belong to the meadow of the cell they border. At the end a meadow with animals
of exactly one species scores 1 per animal; mixed or empty meadows score 0. Option
``all_together`` adds +3 per species whose animals on the board (placed + printed) all
lie in one single-species meadow. Ranking: total, then the largest number of platypuses
in any one meadow (mixed included); equal in both share the rank. Solo: same flow.

Steps (JSON exactly as in the spec):

* chance ``{"kind": "reveal", "tile": "D09"}``: one node per round, uniform over the
  tile types not revealed yet (ascending id). The stack order is never stored: the
  state only knows which types were revealed, so nothing hidden can leak.
* decision ``{"kind": "place", "space": 0..11, "rotation": 0..3}``: the simultaneous
  placement is serialised in seat order 0..p-1; commitments stay hidden until the last
  seat has committed, then all are applied at once. Legal: every empty space of the
  mover's own board x 4 rotations, ascending space then rotation.

Observation (``observation(seat)``; spectator ``None``), fixed keys: ``you`` (the viewing
seat, null for the spectator), ``current_player``, ``viewer`` (-1 spectator; deprecated in
favour of ``you``), ``phase`` ("reveal"/"place"/"over"), ``scores`` (each board's
``total`` as in ``boards``: ``state.scores()``), ``round`` (0 before the first reveal),
``board_side``, ``all_together``, ``revealed_tile`` (tile being placed this round, ""
otherwise), ``revealed`` (ids in reveal order), ``stack_size``,
``unrevealed`` (public multiset of the stack, ascending), ``supply`` (tile types not yet
on the boards; identical for all seats), ``committed`` (per seat; implied by the seat
order), ``my_commitment`` ({space, rotation}, -1/-1 unless the viewer committed this
round: never another seat's), ``boards`` (per seat: ``seat``, ``spaces`` as
{space, tile, rotation} with ""/-1 for empty, ``score`` = the breakdown on the board as
of the last completed round) and ``ranks`` (empty until the end).

Score breakdown keys: meadows_platypus, meadows_koala, meadows_kangaroo, meadows_glider,
all_together_bonus, total, max_platypus_in_meadow (tie-break only, not in total).

Decisions on open points left by the spec (in the spirit of its D1-D12), with the ids
DZ1-DZ6 of the rules doc's "Decisions in this implementation":

* DZ1. Provisional score: during play ``score`` in observations and ``render`` (and
  ``state.scores()``) treats empty spaces as open ground without rivers or animals; at the
  end it is the final score. Boards, and so these scores, are as of the last completed
  round.
* DZ2. "Already committed" (C04): ``apply`` always acts for ``current_player``, and a seat
  that has committed is no longer to move, so its second ``place`` is out of turn;
  ``DziobakiState.illegal_reason_for(seat, action)`` (``state.py``) states this to that
  seat only ("seat s has already committed this round ..."), changing nothing.
* DZ3. ``resample(seat)`` re-draws each other seat's pending commitment of this round
  uniformly among that seat's legal placements (the only thing ``seat`` cannot see)
  and rewrites those history entries to match; boards, reveals and the viewer's own
  commitment are kept. ``GAME.from_observation`` (module ``rebuild``) draws the same
  hidden commitments from an observation alone, with the same helper
  (``state.draw_commitment``); a rebuilt state's history starts empty, so ``resample``
  rewrites only the commitments its history records.
* DZ4. The spectator and every seat see which seats have committed (public through the
  fixed seat order) but never what they committed.
* DZ5. ``Result.scores`` are the totals (ints); ranks use (total, max_platypus_in_meadow).
* DZ6. Options are strict: ``board_side`` must be the string "A" or "B", ``all_together``
  a JSON boolean; null means the default (the engine contract).

Layout: ``data`` (tiles, board geometry, the spec's board notation), ``actions`` (action
classes and their interned tables), ``state`` (the rules, observation, resample),
``scoring`` (meadows and the score breakdown), ``game`` (the Game: options, variants, step
bound), ``rebuild`` (a state drawn from an observation), ``render`` (the text view, drawn
from an observation).
"""

from engine.dziobaki.actions import Place, Reveal
from engine.dziobaki.data import parse_board, tile_text
from engine.dziobaki.game import DziobakiGame
from engine.dziobaki.scoring import Meadow, meadows, score_board
from engine.dziobaki.state import DziobakiState

GAME = DziobakiGame()

__all__ = [
    "GAME",
    "DziobakiGame",
    "DziobakiState",
    "Meadow",
    "Place",
    "Reveal",
    "meadows",
    "parse_board",
    "score_board",
    "tile_text",
]
