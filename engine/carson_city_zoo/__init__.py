"""Apocalypse au Zoo de Carson City (Jeux Opla 2017), game id ``carson_city_zoo``.

Rules in brief (spec: shared/rules/carson_city_zoo.md)
------------------------------------------------------
- 2-4 players, one team each (Y, B, G, R; by default in that seat order). A team is
  four characters valued 3, 4, 5, 6 (ids ``Y3`` ... ``R6``), all in a public hand at
  the start.
- The zoo is a 5x5 board (space ``s = 5*row + col``) of two-card stacks, dealt from 50
  zoo cards ``Z01``-``Z50`` (values 0-4, ten each). ``Z01``, ``Z11``, ``Z21`` and
  ``Z31`` carry a mutant on their back.
- A turn is one action, and every action captures exactly one card into the actor's
  capture pile:

  * ``place``: put a character from hand on a space without occupant that still has a
    zoo card, and capture its top card;
  * ``move``: step an own active character one space N/E/S/W onto a non-empty space not
    held by an own active character. If an occupant stands there, capture it (an
    opposing active character of value <= the mover's, or a mutated character of any
    team and value); otherwise capture the space's top zoo card.

- Capturing a zoo card with a mutant back mutates the capturing character where it
  stands: it never moves again, nobody can place on its space, and any active character
  (its own team's too) may capture it by stepping onto it, whatever the values.
- After every action the end check runs: if any player (not only the one to move) has no
  legal action, the game ends at once. A game has at most 50 + 16 = 66 actions.
- Score = face values of captured zoo cards (``zoo_cards``, mutant-backed ones
  included) + values of captured characters (``captured_characters``, recovered own
  mutants included) + values of the player's own non-mutated characters in hand or on
  the board (``surviving_characters``). Mutated characters left on the board score for
  nobody. Higher ``total`` ranks better; ties share the rank.

Chance
------
- 50 ``deal`` nodes, ``{"kind": "deal", "card": "Z17"}``: node j < 25 deals the bottom
  card of space j, node j >= 25 the top card of space j - 25; one outcome per undealt
  card (ascending id), probability 1 / (50 - j).
- ``{"kind": "start_player", "seat": s}`` (probability 1/N each) unless the option
  ``start_player`` is given.

Actions
-------
- ``{"kind": "place", "char": "Y5", "space": 12}``
- ``{"kind": "move", "char": "Y5", "dir": "N" | "E" | "S" | "W"}``

Canonical order: placements by character value then space, then moves by character
value then direction N, E, S, W.

Options
-------
- ``start_player``: seat that moves first (default null: a chance event).
- ``teams``: list of N distinct team ids from Y, B, G, R, one per seat (default null:
  ``["Y", "B", "G", "R"][:N]``). Cosmetic: it only changes the character ids.

Observation (identical for every seat and the spectator: there is no private info)
----------------------------------------------------------------------------------
``{"phase": "deal" | "start" | "play" | "over", "current_player", "start_player"
(-1 while undecided), "cards_dealt", "spaces": [25 x {"space", "row", "col", "cards"
(0-2), "top_value" (face of the uppermost zoo card, -1 if none or still dealing),
"occupant" (character id or ""), "mutated"}], "players": [per seat {"seat", "team",
"hand": [ids], "on_board": [ids, active and mutated], "zoo_pile": [{"id", "value",
"mutant"}], "character_pile": [{"id", "value", "mutated"}], "zoo_cards",
"captured_characters", "surviving_characters", "total"}], "mutant_found": [4 bools,
for the face values 0-3]}``. A zoo card on the board is shown only by its face value
(never its Z-id, which would tell its back); ids and backs appear once captured.

Decisions on open points (beyond the spec's D1-D14)
---------------------------------------------------
- E1. While the 50 ``deal`` nodes run, observations show only card counts, no face
  values: the per-card deal models one shuffle-and-lay-out, and showing each bottom
  card as it is dealt would leak the faces that the spec hides for the whole game.
- E2. Option defaults are null (``start_player``: chance event; ``teams``: Y, B, G, R in
  seat order). ``teams`` must be a list of exactly N distinct ids from Y, B, G, R.
- E3. Capture piles keep capture order; a captured character keeps its ``mutated`` flag
  in the pile for display (it scores its value either way, D8/D9).
- E4. ``resample(seat, rng)`` redraws the identities of all zoo cards still on the board
  (and the undealt ones): each uppermost card keeps its public face value, the covered
  bottom cards get any remaining cards; captured cards stay. The ``deal`` steps of the
  history are rewritten to the redrawn cards, so replaying its history reproduces it.
- E5. A character id of a team that is not in the game, or of another seat, is legal
  JSON but an illegal action (the message says whose it is).
- E6. ``from_observation`` (``rebuild``) redraws the same hidden part as ``resample``:
  the ids of the zoo cards on the board, uppermost ones keeping their face value.

Layout: ``components`` (ids, geometry, action classes), ``state`` (rules, end check,
scoring, resample), ``views`` (observation, render), ``rebuild`` (a state drawn from an
observation, for ``from_observation``); this module holds the Game.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from engine.carson_city_zoo import rebuild
from engine.carson_city_zoo.components import (
    NUM_CARDS,
    TEAM_IDS,
    Deal,
    Move,
    Place,
    StartPlayer,
)
from engine.carson_city_zoo.state import CarsonCityZooState
from engine.core import JSON, Game, Option, State


class CarsonCityZoo(Game):
    id = "carson_city_zoo"
    name = "Apocalypse au Zoo de Carson City"
    version = 1
    min_players = 2
    max_players = 4
    option_specs = {
        "start_player": Option(
            None, "seat (0..N-1) that moves first; null (default): drawn by a chance event"
        ),
        "teams": Option(
            None,
            "list of N distinct team ids from Y (yellow), B (blue), G (green), R (red), one "
            'per seat; cosmetic (character ids); null (default): ["Y","B","G","R"][:N]',
        ),
    }
    action_classes = (Deal, StartPlayer, Place, Move)

    def _check_option(self, key: str, value: JSON, num_players: int, options: object) -> str | None:
        if value is None:
            return None
        if key == "start_player":
            if (
                not isinstance(value, int)
                or isinstance(value, bool)
                or not 0 <= value < num_players
            ):
                return f"must be a seat 0..{num_players - 1} or null"
            return None
        if key == "teams":
            if not isinstance(value, list | tuple):
                return f"must be a list of {num_players} team ids from Y, B, G, R"
            if len(value) != num_players:
                return f"must list exactly {num_players} team ids (one per seat)"
            for t in value:
                if t not in TEAM_IDS or not isinstance(t, str):
                    return f"{t!r} is not a team id; team ids are Y, B, G, R"
            if len(set(value)) != len(value):
                return "team ids must be distinct"
        return None

    def _new_state(self, num_players: int, options: dict[str, JSON]) -> State:
        if options.get("teams") is not None:
            options["teams"] = list(options["teams"])
        return CarsonCityZooState(self, num_players, options)

    def _from_observation(
        self, initial: State, seat: int, observation: Mapping[str, JSON], rng: random.Random
    ) -> State:
        assert isinstance(initial, CarsonCityZooState)
        return rebuild.rebuild(initial, seat, observation, rng)

    def step_bound(self, num_players: int, options: object) -> int:
        # 50 deal nodes + 1 start-player node + at most 50 zoo + 16 character captures.
        return NUM_CARDS + 1 + NUM_CARDS + 16

    def variants(self, num_players: int) -> list[dict[str, JSON]]:
        last = num_players - 1
        return [{}, {"start_player": last, "teams": list(reversed(TEAM_IDS))[:num_players]}]


GAME = CarsonCityZoo()

__all__ = ["GAME", "CarsonCityZoo", "CarsonCityZooState", "Deal", "Move", "Place", "StartPlayer"]
