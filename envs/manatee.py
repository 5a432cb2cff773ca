"""Manatee Sanctuary's decision space and the parts of its layout no generic field covers.

Its ``expand`` decision is card x cell x rotation on a board without printed bounds, and its
cards come in two editions (``Snn`` and the Scramble copy ``Mnn``, functionally the same).
A flat list of every action (:class:`envs.tensors.ActionSpace`) would be 180 cards x every
cell x 4 rotations; instead the space is *factored* and relative to the seat:

- **cards by hand slot.** A card is named by its position in the seat's hand (the hand is
  kept in ascending card order, so slot 0 is the lowest id), at most :data:`MAX_HAND` slots:
  a hand is the kept stack (at most 4) plus the returned one (at most 4), spec example W1.
  The other card choices are slots too: ``split`` by the positions of the small stack in
  the five dealt cards (the spec's 15 canonical splits, in their order), ``solo_pick`` by
  position in the two revealed cards (ascending), ``discard`` by hand slot.
- **cells by anchor.** The rules set no bound on the board, but a placement's rotation
  ``k`` names its anchor, the occupied neighbour its action half is tucked under (spec
  5.5), so ``(cell, rotation)`` is ``(anchor, rotation)``: the cell is the anchor's
  neighbour on the side opposite ``k``. The anchor is named by its place in the
  sanctuary: 0 the start tile, ``i`` the i-th card placed (the order of the observation's
  ``sanctuary`` list, and of the layout's rows). A seat places at most 3 x
  :data:`MAX_HAND` = :data:`MAX_PLACED` cards, so at most :data:`MAX_PLACED` anchors (the
  start tile and 23 cards) ever exist for a placement: the space is exact, the mask never
  leaves a legal placement out.
- **returns by (pink, yellow).** A legal ``return`` is inclusion-minimal for the pending
  deficit (spec 5.4, D8), so its pink and yellow counts fix its grey count; pinks and
  yellows are at most those in the Scramble bag.

Indices go one way through the state (the seat's hand, dealt cards, revealed cards and
sanctuary), read from the state's public fields of the seat to move, which that seat sees
anyway; the way back is the legal map (:meth:`ManateeActions.legal`), so only legal
indices are decoded.
"""

from __future__ import annotations

import itertools
from typing import cast

from engine.core import JSON, Action, State
from engine.manatee_sanctuary import actions as ms_actions
from engine.manatee_sanctuary.data import (
    BAG_SCRAMBLE,
    BASE,
    CARD_ID,
    CARD_INDEX,
    COLOUR_NAMES,
    EDGES,
    ENDGAME,
    ENDGAME_KINDS,
    HABITAT,
    NUM_BASE,
    SEACOW_FIRST,
    rotated_edges,
)
from engine.manatee_sanctuary.geometry import DX, DY
from engine.manatee_sanctuary.state import ManateeSanctuaryState
from envs.tensors import Context, Field, Gen, Sink, Tokens

MAX_HAND = 8
"""Cards in a hand at most: 4 kept + 4 returned (spec example W1)."""
MAX_PLACED = 3 * MAX_HAND
"""Cards one seat can place in a game (three rounds of at most :data:`MAX_HAND` cards)."""
ANCHORS = MAX_PLACED
"""Anchors a placement can name: the start tile and the cards placed before the last."""
MAX_PINKS = BAG_SCRAMBLE[1]
"""Pinks in the largest bag, so returned pinks at most."""
MAX_YELLOWS = BAG_SCRAMBLE[2]
"""Yellows in the largest bag, so returned yellows at most."""
SIDES = ("north", "east", "south", "west")
"""Compass directions by quarter turns (a rotation ``k`` points the action half to ``k``)."""

PAIRS: tuple[tuple[int, int], ...] = tuple(itertools.combinations(range(5), 2))
"""The split pairs of dealt positions, in the spec's canonical (lexicographic) order."""

SPLIT = 0
"""Index of the first ``split`` (15: the five singletons, then the ten pairs)."""
KEEP = SPLIT + 5 + len(PAIRS)
"""``keep`` small, large."""
SOLO_PICK = KEEP + 2
"""``solo_pick`` of the lower, the higher revealed card."""
POWER_CAP = SOLO_PICK + 2
"""``power_cap`` now, later."""
DISCARD = POWER_CAP + 2
"""``discard`` by hand slot."""
ACT = DISCARD + MAX_HAND
"""``act`` by hand slot."""
EXPAND = ACT + MAX_HAND
"""``expand``: ``EXPAND + (slot * ANCHORS + anchor) * 4 + rot / 90``."""
RETURN = EXPAND + MAX_HAND * ANCHORS * 4
"""``return``: ``RETURN + pink * (MAX_YELLOWS + 1) + yellow``."""
SIZE = RETURN + (MAX_PINKS + 1) * (MAX_YELLOWS + 1)


class ManateeActions:
    """Manatee Sanctuary's :class:`envs.tensors.DecisionSpace` (see the module docstring)."""

    size = SIZE

    def legal(self, state: State) -> dict[int, Action]:
        s = cast(ManateeSanctuaryState, state)
        legal = s.legal_actions()
        if not legal:
            return {}
        seat = s.current
        hand = s.players[seat].hand
        out: dict[int, Action] = {}
        if isinstance(legal[0], ms_actions.Act):  # a play: act/expand of each hand card
            slots = {CARD_ID[c]: i for i, c in enumerate(hand)}
            anchors = {(0, 0): 0}
            for n, (_, x, y, _) in enumerate(s.players[seat].sanctuary.placements, 1):
                anchors[(x, y)] = n
            for a in legal:
                if isinstance(a, ms_actions.Expand):
                    k = a.rot // 90
                    anchor = anchors[(a.x + DX[k], a.y + DY[k])]
                    if anchor >= ANCHORS:
                        raise ValueError(f"{a}: anchor {anchor} is beyond the {ANCHORS} indexed")
                    i = EXPAND + (slots[a.card] * ANCHORS + anchor) * 4 + k
                else:
                    i = ACT + slots[cast(ms_actions.Act, a).card]
                out[i] = a
            return out
        for a in legal:
            out[self._index(s, hand, a)] = a
        return out

    def _index(self, s: ManateeSanctuaryState, hand: list[int], a: Action) -> int:
        match a:
            case ms_actions.Return(pink=p, yellow=y):
                if p > MAX_PINKS or y > MAX_YELLOWS:
                    raise ValueError(f"{a} returns more than the largest bag holds")
                return RETURN + p * (MAX_YELLOWS + 1) + y
            case ms_actions.Split(small=small):
                dealt = [CARD_ID[c] for c in s.dealt[s.current]]
                at = tuple(dealt.index(c) for c in small)
                return SPLIT + (at[0] if len(at) == 1 else 5 + PAIRS.index((at[0], at[1])))
            case ms_actions.Keep(stack=stack):
                return KEEP + (stack == "large")
            case ms_actions.SoloPick(card=card):
                return SOLO_PICK + sorted(s.solo_offer).index(CARD_INDEX[card])
            case ms_actions.PowerCap(now=now):
                return POWER_CAP + (not now)
            case ms_actions.Discard(card=card):
                return DISCARD + hand.index(CARD_INDEX[card])
        raise ValueError(f"{a} has no index in Manatee Sanctuary's decision space")

    def parts(self) -> list[tuple[int, int, str]]:
        """``(first index, count, meaning)`` of each kind of decision (for ``describe``)."""
        return [
            (SPLIT, KEEP - SPLIT, "split: the 5 dealt singletons, then the 10 pairs"),
            (KEEP, 2, "keep small, large"),
            (SOLO_PICK, 2, "solo_pick the lower, the higher revealed card"),
            (POWER_CAP, 2, "power_cap now, later"),
            (DISCARD, MAX_HAND, "discard hand[slot]"),
            (ACT, MAX_HAND, "act hand[slot]"),
            (EXPAND, RETURN - EXPAND, f"expand hand[slot] at anchor 0..{ANCHORS - 1} x rot"),
            (RETURN, SIZE - RETURN, "return (pink, yellow); the deficit fixes grey"),
        ]

    def label(self, index: int) -> str:
        if not 0 <= index < SIZE:
            raise ValueError(f"action index {index} is outside 0..{SIZE - 1}")
        if index >= RETURN:
            p, y = divmod(index - RETURN, MAX_YELLOWS + 1)
            return f"return pink={p} yellow={y} (grey: what the deficit leaves)"
        if index >= EXPAND:
            rest, k = divmod(index - EXPAND, 4)
            slot, anchor = divmod(rest, ANCHORS)
            what = "the start tile" if anchor == 0 else f"placed card {anchor}"
            return f"expand hand[{slot}] {SIDES[(k + 2) % 4]} of {what}, r{k * 90}"
        if index >= ACT:
            return f"act hand[{index - ACT}]"
        if index >= DISCARD:
            return f"discard hand[{index - DISCARD}]"
        if index >= POWER_CAP:
            return f"power_cap now={'true' if index == POWER_CAP else 'false'}"
        if index >= SOLO_PICK:
            return f"solo_pick {'lower' if index == SOLO_PICK else 'higher'} revealed card"
        if index >= KEEP:
            return f"keep {'small' if index == KEEP else 'large'}"
        at = (index,) if index < 5 else PAIRS[index - 5]
        return "split small=dealt" + str(list(at))


BASE_IDS: tuple[str, ...] = tuple(CARD_ID[SEACOW_FIRST + b] for b in range(NUM_BASE))
"""The 90 sea-cow ids: a card of either edition counts as its sea-cow twin."""


class Cards(Tokens):
    """A list of card ids as counts of the 90 base cards (``Mnn`` counts as ``Snn``: the
    editions play the same, so one policy serves standard games and Scramble)."""

    def __init__(self, key: str | None, doc: str) -> None:
        super().__init__(key, doc, BASE_IDS)
        self.index = {cid: BASE[i] for i, cid in enumerate(CARD_ID)}


class Card(Cards):
    """One card id (``""``: none) as a one-hot of the 90 base cards."""

    def write(self, value: JSON, ctx: Context, out: Sink, at: int) -> None:
        if value:
            out.ones.append(at + self.index[value])

    def emit(self, gen: Gen, value: str, at: str) -> None:
        Field.emit(self, gen, value, at)


class Placed(Field):
    """A placed card (an entry of ``sanctuary``: card, x, y, rot) by what it shows: its
    cell, its rotation and, per compass side N/E/S/W, its edge (wall or a half-flower
    colour), then its habitat and its end-game scoring kind. The card's id is left out:
    once placed its top half is tucked away, and these are all that still matters."""

    def __init__(self, key: str | None, doc: str) -> None:
        self.key, self.doc = key, doc
        self.width = 2 + 4 + 4 * len(COLOUR_NAMES) + 1 + len(ENDGAME_KINDS)

    def write(self, value: JSON, ctx: Context, out: Sink, at: int) -> None:
        c = CARD_INDEX[value["card"]]
        k = value["rot"] // 90
        out.spots += [at, at + 1]
        out.values += [value["x"] / MAX_PLACED, value["y"] / MAX_PLACED]
        ones = [at + 2 + k]
        sides = rotated_edges(EDGES[c], k)
        ones += [at + 6 + 4 * d + sides[d] for d in range(4)]
        if ENDGAME[c]:
            ones.append(at + 23 + ENDGAME_KINDS.index(ENDGAME[c]))
        out.ones += ones
        if HABITAT[c]:
            out.spots.append(at + 22)
            out.values.append(HABITAT[c] / 5)

    def parts(self) -> list[tuple[str, int, str]]:
        edges = "/".join(COLOUR_NAMES)
        return [
            ("x", 1, f"the cell's x / {MAX_PLACED}"),
            ("y", 1, f"the cell's y / {MAX_PLACED}"),
            ("rot", 4, "rotation 0/90/180/270"),
            ("edges", 16, f"per side N, E, S, W: its edge ({edges})"),
            ("habitat", 1, "habitat spaces / 5"),
            ("endgame", 3, "end-game scoring: " + ", ".join(ENDGAME_KINDS)),
        ]
