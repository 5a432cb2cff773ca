"""Helpers for the Manatee Sanctuary tests.

Most scenarios are driven purely through the public API (``deal_round``, ``apply``).
Scenarios that start from a position play cannot reach quickly (a given bag such as
{50,20,10}, a given score, a prepared sanctuary) use :func:`build_state`, which creates
a fresh game through ``new_game`` and then writes the documented fields of the engine's
state directly; every sanctuary placement is still checked with the engine's own
placement rule (``Sanctuary.explain``) before it is laid.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.core import CHANCE, JSON, TERMINAL
from engine.manatee_sanctuary import GAME, steps
from engine.manatee_sanctuary.data import CARD_INDEX, CAT
from engine.manatee_sanctuary.play import card_habitat, next_turn
from engine.manatee_sanctuary.state import ManateeSanctuaryState

BASE = ["S03@(0,1)r180", "S07@(1,0)r270", "S16@(1,1)r270"]
BIG = [*BASE, "S51@(0,-1)r0", "S84@(2,0)r270"]
L14 = [*BASE, "S51@(0,-1)r0", "S37@(2,0)r270", "S52@(1,-1)r0", "S43@(-1,-1)r90"]


def parse_placement(text: str) -> tuple[str, int, int, int]:
    """``"S03@(0,1)r180"`` -> ("S03", 0, 1, 180)."""
    card, rest = text.split("@")
    pos, rot = rest.split("r")
    x, y = pos.strip("()").split(",")
    return card, int(x), int(y), int(rot)


def act(state: ManateeSanctuaryState, data: Mapping[str, JSON]) -> None:
    state.apply(GAME.action_from_json(dict(data)))


def draws(state: ManateeSanctuaryState, colours: Iterable[str]) -> None:
    for c in colours:
        assert state.current_player == CHANCE, state.render()
        act(state, {"kind": "bag_draw", "colour": c})


def deal_round(state: ManateeSanctuaryState, hands: Sequence[Sequence[str]]) -> None:
    """Apply the 5 x N ``deal`` chance outcomes (seat 0's five first)."""
    for seat, cards in enumerate(hands):
        for c in cards:
            act(state, {"kind": "deal", "seat": seat, "card": c})


def legal_json(state: ManateeSanctuaryState) -> list[dict[str, JSON]]:
    return [a.to_json() for a in state.legal_actions()]


def build_state(
    num_players: int = 2,
    options: Mapping[str, JSON] | None = None,
    *,
    rnd: int = 1,
    hands: Sequence[Sequence[str]] = (),
    sanctuaries: Sequence[Sequence[str]] = (),
    housed: Sequence[Sequence[int]] = (),
    food: Sequence[int] = (),
    bag: Sequence[int] | None = None,
    score: Sequence[int] = (),
    bonuses: Sequence[str] = (),
) -> ManateeSanctuaryState:
    """A state in phase 2 of round ``rnd`` built directly (not reachable quickly by play).

    Seat i gets hand ``hands[i]`` (removed from the deck), sanctuary ``sanctuaries[i]``
    (placements checked by the engine's rule; flowers and capacity follow from them),
    ``housed[i]`` = (grey, pink, yellow), ``food[i]`` (set after the placements), and a
    score of ``score[i]`` (the difference to 10 is written to ``round_1``). The bag
    is ``bag`` (default: the full bag minus housed manatees). The turn pointer starts
    at seat (rnd - 1) mod N as in the rules; if every hand is empty the state moves on
    to feeding at once (which may finish the round). ``bonuses`` assigns round-bonus
    cards for rounds 1-3 (module must be on).
    """
    opts = dict(options or {})
    state: Any = GAME.new_game(num_players, opts)
    s: ManateeSanctuaryState = state
    s.round = rnd
    for r, b in enumerate(bonuses):
        s.round_bonus[r] = ["RB1", "RB2", "RB3", "RB4", "RB5", "RB6", "RB7", "RB8"].index(b)
    for seat in range(num_players):
        p = s.players[seat]
        for text in sanctuaries[seat] if seat < len(sanctuaries) else ():
            cid, x, y, rot = parse_placement(text)
            c = CARD_INDEX[cid]
            why = p.sanctuary.explain(c, x, y, rot)
            assert why is None, f"{text}: {why}"
            s.deck.remove(c)
            for colour in p.sanctuary.place(c, x, y, rot):
                p.flowers[colour - 1] += 1
            p.capacity += card_habitat(s, c)
        for cid in hands[seat] if seat < len(hands) else ():
            c = CARD_INDEX[cid]
            s.deck.remove(c)
            p.hand.append(c)
            p.origin[c] = seat
        p.hand.sort()
        if seat < len(housed):
            p.housed = list(housed[seat])
        if seat < len(food):
            p.food = food[seat]
        if seat < len(score):
            p.points[CAT["round_1"]] = score[seat] - 10
    if bag is not None:
        s.bag = list(bag)
    else:
        for p in s.players:
            for col in range(3):
                s.bag[col] -= p.housed[col]
    s.dealt = [[] for _ in range(num_players)]
    s._fields_changed()
    next_turn(s, (rnd - 2) % num_players)
    return s


def finish_game(state: ManateeSanctuaryState) -> ManateeSanctuaryState:
    """Play on with the first legal action / first chance outcome until the end."""
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply(state.chance_outcomes()[0][0])
        else:
            state.apply(state.legal_actions()[0])
    return state


def end_state(
    totals: Sequence[int], housed_totals: Sequence[int], food: Sequence[int]
) -> ManateeSanctuaryState:
    """A terminal state with the given totals, housed counts (all grey) and food.

    Built directly (documented shortcut): a fresh game whose players' fields are set and
    whose phase is set to the end of the game.
    """
    state: Any = GAME.new_game(len(totals))
    s: ManateeSanctuaryState = state
    for p, t, h, f in zip(s.players, totals, housed_totals, food, strict=True):
        p.points[CAT["round_1"]] = t - 10
        p.housed = [h, 0, 0]
        p.food = f
    s.step = steps.GAME_OVER
    s.current = TERMINAL
    s._fields_changed()
    return s
