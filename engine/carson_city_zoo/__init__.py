"""Apocalypse au Zoo de Carson City (Jeux Opla 2017), game id ``carson_city_zoo``.

Rules in brief (spec: ``docs/rules/carson_city_zoo.md``)
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

Observation (the same for every seat and the spectator: there is no private info)
--------------------------------------------------------------------------------
``{"you" (the viewing seat, null for the spectator), "phase": "deal" | "start" | "play" |
"over", "current_player", "scores" (each seat's ``total`` so far: ``state.scores()``, final
at the end), "start_player" (-1 while undecided), "cards_dealt", "spaces": [25 x {"space",
"row", "col", "cards" (0-2), "top_value" (face of the uppermost zoo card, -1 if none or
still dealing), "occupant" (character id or ""), "mutated"}], "players": [per seat
{"seat", "team", "hand": [ids], "on_board": [ids, active and mutated], "zoo_pile":
[{"id", "value", "mutant"}], "character_pile": [{"id", "value", "mutated"}], "zoo_cards",
"captured_characters", "surviving_characters", "total"}], "mutant_found": [4 bools, for
the face values 0-3]}``. A zoo card on the board is shown only by its face value
(never its Z-id, which would tell its back); ids and backs appear once captured. Apart
from ``you``, every seat and the spectator see the same observation.

Scores are ints: ``state.scores()`` during play is each seat's total as if the game ended
now (captures so far + its non-mutated characters), ``result().scores`` the final totals.

Decisions on open points (beyond the spec's D1-D14)
---------------------------------------------------
- E1. While the 50 ``deal`` nodes run, observations show only card counts, no face
  values: the per-card deal models one shuffle-and-lay-out, and showing each bottom
  card as it is dealt would leak the faces that the spec hides for the whole game.
- E2. Option defaults are null (``start_player``: chance event; ``teams``: Y, B, G, R in
  seat order); null given explicitly means the default too. ``start_player`` must be an
  integer 0..N-1, ``teams`` a list of exactly N distinct ids from Y, B, G, R.
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

Layout: ``data`` (ids, values, board geometry), ``actions`` (action classes and their
interned tables), ``state`` (rules, end check, scoring, observation, resample), ``game``
(the Game: options, variants, step bound), ``rebuild`` (a state drawn from an
observation, for ``from_observation``), ``render`` (the text view, drawn from an
observation).
"""

from engine.carson_city_zoo.actions import Deal, Move, Place, StartPlayer
from engine.carson_city_zoo.game import CarsonCityZooGame
from engine.carson_city_zoo.state import CarsonCityZooState

GAME = CarsonCityZooGame()

__all__ = [
    "GAME",
    "CarsonCityZooGame",
    "CarsonCityZooState",
    "Deal",
    "Move",
    "Place",
    "StartPlayer",
]
