"""Manatee Sanctuary (game id ``manatee_sanctuary``), spec ``rules/manatee_sanctuary.md``.

Rules in brief
--------------
1-6 players (solo for 1; Sanctuary Scramble with two decks/bags for 7-12), 3 rounds of
four phases. **Draft**: each player is dealt 5 cards (one ``deal`` chance node per card,
seat 0's five first), splits them into a small (1-2 cards) and a large stack, passes
both to the receiver (left in rounds 1 and 3 = seat + 1, right in round 2), who keeps
one stack and returns the other: hands of 2-8 cards. Solo: 5 times draw 2 (``solo_draw``)
and keep 1; the dot difference moves the solo token (2 points per dot). **Expand or act**:
round-robin from seat (round - 1) mod N, one card per turn until every hand is empty;
each card is used for its top half (``act``: P and Y take that colour from the bag, each
``?`` and each yellow-bonus draw is a ``bag_draw`` chance node, then housing with a
``return`` decision on overflow, then harvest = completed flowers per H icon) or its
bottom half (``expand``: tuck the action half under a neighbouring occupied cell, edges
must match exactly (wall-wall or same colour), at least one flower completed, +1 food
per flower). **Feeding** in seat order (grey 1, pink 2, yellow 1 food; a shortage asks a
``return``); **scoring** 3/3/6, 2/2/4, 1/1/2 per grey/yellow/pink, round bonus, solo
token, end-game cards in round 3. Each returned manatee costs 2 points. Ties: more
manatees, then less food, then shared rank.

Options: ``round_bonuses`` (bool), ``solo_challenge`` (0-8, solo only), ``scramble``
(bool, required for and only allowed with 7-12 players). See ``GAME.option_specs``.

Modules
-------
:mod:`.data` (cards, bonuses, shapes, score tables), :mod:`.actions` (action classes and
interned action tables), :mod:`.state` (``ManateeSanctuaryState``: the declared fields and
the flow), :mod:`.steps` (the state machine's steps), :mod:`.player` (a seat's holdings),
:mod:`.geometry` (sanctuary placement), :mod:`.draft` (phase 1, solo, challenges),
:mod:`.play` (phases 2 and 3), :mod:`.scoring`, :mod:`.observation`, :mod:`.render` (text
view), :mod:`.hidden` (what a seat cannot see; ``resample``), :mod:`.rebuild`
(``from_observation``) and :mod:`.game` (``ManateeSanctuaryGame``).

Action encoding (exactly the spec's JSON)
-----------------------------------------
Decisions: ``{"kind":"split","small":[ids]}`` (1-2 ascending ids of the dealt five; 15
legal), ``{"kind":"keep","stack":"small"|"large"}``, ``{"kind":"solo_pick","card":id}``,
``{"kind":"power_cap","now":bool}``, ``{"kind":"discard","card":id}``,
``{"kind":"act","card":id}``, ``{"kind":"expand","card":id,"x":X,"y":Y,"rot":0|90|180|270}``
and ``{"kind":"return","grey":g,"pink":p,"yellow":y}`` (inclusion-minimal sets only).
Chance outcomes: ``round_bonus`` {round, card}, ``deal`` {seat, card}, ``solo_draw``
{card}, ``bag_draw`` {colour}. Canonical orders are the spec's (ids ascending, ``act``
before ``expand`` per card, expands by x, y, rot; returns ascending by (g, p, y)).

Observation
-----------
The header every game shares: ``you`` (the viewing seat; null for the spectator),
``current_player``, ``phase`` and ``scores`` (each seat's total so far, final at the end).
Public: round, phase (setup/draft/expand_or_act/feeding/game_over) and fine ``step``,
direction, current_player, turn pointer, mode, deck_size, bag counts, assigned round
bonuses, dealing seat, solo token/offer/discards/challenge state, the act being resolved
(seat, card, draws left, new manatees, harvest icons), pending return kind and deficit,
scores, and per player: score and breakdown, food, flowers (total and per colour), housed
manatees, capacity, usage, hand size, cards dealt so far, whether the seat has committed
in the current split/keep, split size and kept stack (public once all have committed),
action pile, sanctuary placements, and ``known_cards`` (cards of that hand the observer
knows: the whole own hand; in others' hands the remaining cards of the observer's own
deal and of the stacks it received). Private to the observer: ``hand``, ``dealt``,
``my_split`` (own small stack once committed), ``received_small``/``received_large``
and ``my_keep`` during the keep step. The spectator (None) gets the public part with
empty private fields. The deck order does not exist (the deck is a set) and neither the
deck contents nor other players' unknown cards appear anywhere.

Decisions on open points (beyond the spec's D1-D28)
---------------------------------------------------
* O1: The solo-pick discard, Weak Cut and Power Cap discards all appear in one public
  ``solo_discards`` list (the spec says they leave the game face up).
* O2: In a 2-player game both stacks go to the same neighbour; ``known_cards`` then shows
  the opponent's whole hand (spec: "each player therefore knows the other's whole hand").
* O3: Split and keep commitments are public as "committed: true" (the serialisation order
  reveals it anyway); their content/size only once all seats have committed.
* O4: ``resample`` re-draws other seats' uncommunicated commitments (a committed split
  uniformly among the 15 splits of the re-drawn five, a committed keep 1/2 each way), so
  a search never sees them, nor which deal a hidden card in a hand came from. It
  does not rewrite ``history`` (a resampled state is for search, not for replay).
* O5: Power Cap in round 1/2 with ``now: false`` is asked again after the next draft; the
  challenge is evaluated only at game end (``challenge_won`` is 0 before the end).
* O6: Result scores are the totals; the solo breakdown adds ``solo_band`` and, with a
  challenge, ``challenge_won``; challenge conditions are checked after end-game scoring.
* O7: Returns to the bag (capacity or food) happen immediately, so a later draw in the same
  phase may draw the returned manatee again.
* O8: ``variants(n)`` for 7-12 players is one option set per count (scramble, with round
  bonuses on even counts) so the long 12-seat playouts stay affordable; 1 player covers
  no module, round bonuses and each of the 8 challenges; 2-6 with and without bonuses.
* O9: ``GAME.from_observation`` (:mod:`.rebuild`) draws everything the observation hides
  (with :mod:`.hidden`, as ``resample`` does):
  other seats' cards and committed splits and keeps, and hidden cards' origins. At a
  ``keep`` turn the seat's observation shows its own five dealt cards (``dealt``) as well
  as its small stack (``my_split``): the spec makes both private knowledge of the seat.
"""

from engine.manatee_sanctuary.game import ManateeSanctuaryGame
from engine.manatee_sanctuary.state import ManateeSanctuaryState

GAME = ManateeSanctuaryGame()

__all__ = ["GAME", "ManateeSanctuaryGame", "ManateeSanctuaryState"]
