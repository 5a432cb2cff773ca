"""Panorama (game id ``panorama``), 2-4 players: rules engine after ``rules/panorama.md``.

Rules in brief
--------------
Each player builds a strip of landscape tiles (his panorama) outward from his start tile,
adding every new tile at the left or the right end (upright, never between tiles). The
central tile for p players has n = 2p + 1 spaces, each with a face-up stack of 4 tiles
(20/28/36 tiles; the rest go to the box). The active player is the owner of the standing
balloon on the sun/moon token's space: he flies his balloon to any *free* space (no
balloon at all, standing or deflated, and a non-empty stack), takes its top tile and
places it left or right. The token then moves clockwise from the departure space to the
next standing balloon, possibly the same player again. In the sun phase, taking the last
tile of a stack deflates the player's balloon (it stays and blocks its space) and flips
the token to the moon; every other player then gets exactly one final turn, after which
his balloon is deflated too. When no standing balloon is left the game is scored.

Scoring: each terrain zone (orthogonally connected cells of one of mountains, forest,
hills, plains; sky and river cells interrupt) scores flowers x animals; each of the three
goal tokens in play (one sky S*, one river R*, one terrain T*) gives 10 to every player
with the best metric value (ties all score, also at 0). Breakdown keys: plains, hills,
forest, mountains, goal_sky, goal_river, goal_terrain, total. Ranks by total, ties share
(no tie-break).

Options
-------
``goal_set`` (one of "first_game" = S1 R1 T1, "random", or the 6 scenarios; default
"first_game") and ``goals`` (a list of three explicit goal ids, one per colour, overriding
``goal_set``; default null = absent). JSON null means the default.

Chance nodes (explicit, small; the engine never draws randomness)
-----------------------------------------------------------------
``{"kind": "goal_draw", "goal": "S2"}`` x3 (sky, river, terrain; only with goal_set
"random"), then ``{"kind": "reveal", "space": k, "tile": "T07"}`` for spaces 0..n-1
(one outcome per tile not revealed so far, ascending id, uniform), then
``{"kind": "balloon_drop", "space": i, "seat": q}`` for spaces 0..p-1 (one outcome per
seat not yet placed). During play a ``reveal`` follows every ``fly`` that leaves tiles in
the stack. A tile's identity is drawn only when it becomes a top, so the state holds no
hidden tile at all; ``resample`` therefore returns a plain copy.

Decisions
---------
``{"kind": "fly", "space": s}`` (the free spaces in ascending order; always n - p of
them), then ``{"kind": "place", "end": "left" | "right"}``.

Observation (the same for every seat and the spectator but ``you``: the state is public)
--------------------------------------------------------------------------------------
The header ``you`` (the viewing seat, null for the spectator), ``current_player``,
``phase`` (goal_draw/reveal/balloon_drop/fly/place/game_over) and ``scores``; then
``pending_space`` (space of a pending reveal, else -1), ``goals`` (sky, river, terrain;
"" while undrawn), ``num_spaces``, ``token_space``, ``token_face`` (sun/moon),
``active_player`` (-1 in setup and at the end), ``held_tile`` ("" when none),
``unrevealed_tiles`` (count), ``spaces`` (per space: space, count, top ("" when empty),
balloon_seat (-1 when none)), ``players`` (per seat: seat, colour, panorama (tile ids
left to right), start_index, balloon_space (-1 before the drop), balloon
(none/standing/deflated), points (the breakdown as if the game ended now)); ``scores``
are the provisional totals (``state.scores()``), final when the game is over. Tiles below a
stack's top and boxed tiles are never in any observation (nor in the state).

Decisions on open points (beyond the spec's D1-D14)
---------------------------------------------------
- P1 ``goals`` may list its three ids in any order; they are used as (sky, river,
  terrain). ``goals: null`` means absent. When ``goals`` is given, ``goal_set`` is still
  validated but ignored (no goal_draw nodes).
- P2 After the final placement the token stays on the last departure space (it has no
  balloon to move to); ``active_player`` becomes -1.
- P3 Provisional points in observations score every goal token as if the game ended now
  (an undrawn goal scores 0 for all); only ``result()`` is final.
- P4 While a player holds a taken tile (the ``reveal`` after his fly and his ``place``),
  the token still lies on his departure space; the held tile is public.
- P5 ``result().scores`` and breakdown values are integers.

Package layout: ``data`` (tiles and their pre-analysed components, goals, goal sets,
phases), ``actions`` (action and outcome classes with their ``TEXT``, interned instances),
``scoring`` (zones, rivers, goal metrics, breakdowns), ``state`` (rules and the
observation), ``render`` (text view of an observation), ``rebuild``
(``from_observation``), ``game`` (options, step bound, variants, viewer components).
"""

from engine.panorama.game import PanoramaGame
from engine.panorama.state import PanoramaState

GAME = PanoramaGame()

__all__ = ["GAME", "PanoramaGame", "PanoramaState"]
