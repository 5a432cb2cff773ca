"""Zooloretto Mini (game id ``zooloretto_mini``), 2-5 players; spec ``rules/zooloretto_mini.md``.

Rules in brief
--------------
Each player has three enclosures E1-E3 (6 spaces each, one animal species each, landscape
tiles fit anywhere) and a barn (unlimited). On a turn the active player either draws a tile
and loads it onto an available truck with a free slot, or takes a non-empty available truck,
places all its tiles (enclosure or barn) and drops out of the round. A male and an unpaired
female of the same species meeting in an enclosure produce an offspring (into the enclosure,
or the barn if it is full). Every enclosure filled while placing the truck's tiles earns one
optional bonus action: take a tile from another player's barn into an own enclosure, or
discard a tile from the own barn. The round in which the first end-stack tile is drawn is the
last. Scoring: 0/1/2/3/4/8/12 points for 0-6 animals per enclosure, +2 per landscape kind in
the enclosures, -2 per species and per landscape kind in the barn; ties are broken by the
number of landscape tiles in the enclosures (``landscape_tiles``, reported, not in ``total``).
With 2 players the trucks have 1/2/3 slots and the untaken truck's tiles leave the game.

Chance and encoding
-------------------
Tiles are the spec's ids (``S1M1``, ``S2N7``, ``S3K1``, ``LP2``...); a tile's first two
characters are its species (``S1``-``S7``) or its landscape kind (``LP``/``LS``/``LR``), its
third is ``M``/``F`` (marked), ``N`` (unmarked) or ``K`` (offspring). Chance outcomes:
``remove_species`` (setup, unless the option is given), ``start_player`` (unless the option
is given), ``draw_tile`` (uniform over ALL undrawn tiles; counters decide bag or end stack,
spec Setup 5). Decisions: ``draw``, ``take_truck``, ``load``, ``place``, ``bonus_take``,
``bonus_discard``, ``bonus_skip``, JSON exactly as in the spec; ``str(action)`` is short:
``draw``, ``take_truck T2``, ``load T3``, ``place S1N1->E2``, ``bonus_take 1:S2F1->E2``,
``bonus_discard LR2``, ``bonus_skip``, ``draw_tile S1N3``, ``remove_species S4``,
``start_player 0``. Forced decisions are still posed (D14).

Options
-------
``start_player`` (int seat 0..N-1, default null: a ``start_player`` chance event) and
``removed_species`` (list of distinct species ids, exactly 3/2/1/0 of them for 2/3/4/5
players, default null: ``remove_species`` chance events). JSON null means the default.

Observation (the same for every seat and the spectator but ``you``: nothing is private)
--------------------------------------------------------------------------------------
The header ``you`` (the viewing seat, null for the spectator), ``current_player``,
``phase`` (setup/turn/draw/load/place/bonus/game_over) and ``scores`` (current totals,
``state.scores()``); then ``round``, ``round_start_player``, ``last_round``,
``bag_count``, ``end_count``, ``removed_species``, ``offspring_supply``, ``out_of_play``
(bonus discards and 2-player leftovers, in order), ``drawn_tile`` ("" if none),
``bonus_pending``, ``trucks`` ([{id, capacity, tiles, taken_by}]) and ``players`` ([{seat,
active, truck, enclosures: [{id, species, tiles, paired}], barn, score: {breakdown}}]). The
undrawn tiles (bag and end stack contents) never appear; only the two counts do.

Decisions on open points (beyond the spec's D1-D15)
---------------------------------------------------
- Z1 Options default to ``None`` (= the chance event happens); an explicit ``null`` means
  the same.
- Z2 ``removed_species`` is kept sorted (whether given as an option or drawn by chance).
- Z3 Before setup is complete ``round`` is 0, the counters are 0 and
  ``round_start_player`` -1.
- Z4 The bonus count is kept incrementally: +1 whenever a truck placement (or the birth it
  causes) brings an enclosure to 6 tiles, which equals the spec's "not full at take, full
  now".
- Z5 A birth whose species has no offspring left in the supply pairs the tiles without a
  birth (unreachable in play, D1; only possible in hand-built positions).
- Z6 ``resample`` returns a clone: the engine holds no order and no bag/end-stack split of
  the undrawn tiles (Setup 5), so there is nothing hidden left to re-draw.
- Z7 ``from_observation`` (``rebuild``) likewise draws nothing: the undrawn tiles are the
  pool minus every tile the observation shows. Only ``last_taker`` (unread until a later
  take overwrites it) is not in the observation; ``rebuild`` picks a plausible seat.
- Z8 ``scores()`` during play is each seat's total as if the game ended now (the spec's
  scoring applied to the zoos as they stand); ``result().scores`` are ints.

Package layout: ``data`` (ids, counts, phases, ``score_zoo``), ``actions`` (action and
outcome classes with their ``TEXT``, interned instances), ``state`` (rules and the
observation), ``render`` (text view of an observation), ``rebuild`` (``from_observation``),
``game`` (options, step bound, variants, viewer components).
"""

from engine.zooloretto_mini.actions import (
    BonusDiscard,
    BonusSkip,
    BonusTake,
    Draw,
    DrawTile,
    Load,
    Place,
    RemoveSpecies,
    StartPlayer,
    TakeTruck,
)
from engine.zooloretto_mini.data import score_zoo
from engine.zooloretto_mini.game import ZoolorettoMiniGame
from engine.zooloretto_mini.state import ZoolorettoMiniState

GAME = ZoolorettoMiniGame()

__all__ = [
    "GAME",
    "BonusDiscard",
    "BonusSkip",
    "BonusTake",
    "Draw",
    "DrawTile",
    "Load",
    "Place",
    "RemoveSpecies",
    "StartPlayer",
    "TakeTruck",
    "ZoolorettoMiniGame",
    "ZoolorettoMiniState",
    "score_zoo",
]
