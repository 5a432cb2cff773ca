"""Helpers for the Manatee Sanctuary tests.

Most scenarios are driven purely through the public API (``deal_round``, ``act``).
Scenarios that start from a position play cannot reach quickly (a given bag such as
{50,20,10}, a given score, a prepared sanctuary) use :func:`build_state`, which constructs
the state with :func:`engine.fields.build` (every field named) and lays each sanctuary card
with the engine's own placement rule (``Sanctuary.explain``, ``Sanctuary.place``) before
phase 2 starts as the engine starts it; :func:`end_state` builds a finished game.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from engine.core import CHANCE, JSON, TERMINAL
from engine.fields import build
from engine.manatee_sanctuary import GAME, steps
from engine.manatee_sanctuary.data import (
    BONUS_IDS,
    CARD_INDEX,
    CAT,
)
from engine.manatee_sanctuary.play import card_habitat
from engine.manatee_sanctuary.player import Player
from engine.manatee_sanctuary.state import ManateeSanctuaryState
from tests.games.kit import GameKit, act

KIT = GameKit(GAME, ManateeSanctuaryState)

BASE = ["S03@(0,1)r180", "S07@(1,0)r270", "S16@(1,1)r270"]
BIG = [*BASE, "S51@(0,-1)r0", "S84@(2,0)r270"]
L14 = [*BASE, "S51@(0,-1)r0", "S37@(2,0)r270", "S52@(1,-1)r0", "S43@(-1,-1)r90"]


def parse_placement(text: str) -> tuple[str, int, int, int]:
    """``"S03@(0,1)r180"`` -> ("S03", 0, 1, 180)."""
    card, rest = text.split("@")
    pos, rot = rest.split("r")
    x, y = pos.strip("()").split(",")
    return card, int(x), int(y), int(rot)


def draws(state: ManateeSanctuaryState, colours: Iterable[str]) -> None:
    for c in colours:
        assert state.current_player == CHANCE, state.render()
        act(state, {"kind": "bag_draw", "colour": c})


def deal_round(state: ManateeSanctuaryState, hands: Sequence[Sequence[str]]) -> None:
    """Apply the 5 x N ``deal`` chance outcomes (seat 0's five first)."""
    for seat, cards in enumerate(hands):
        for c in cards:
            act(state, {"kind": "deal", "seat": seat, "card": c})


def _state(
    num_players: int,
    options: Mapping[str, JSON] | None,
    players: list[Player],
    *,
    rnd: int,
    step: int,
    current: int,
    deck: list[int],
    bag: list[int],
    round_bonus: list[int],
) -> ManateeSanctuaryState:
    """A state between drafts and turns: the given round, step, seat, players, deck, bag and
    round bonuses; no draft, solo draft, act or return in progress."""
    n = num_players
    opts = {**GAME.options, **(options or {})}
    state: ManateeSanctuaryState = build(
        ManateeSanctuaryState,
        GAME,
        n,
        opts,
        seats=n,
        solo=n == 1,
        scramble=bool(opts["scramble"]),
        bonus_module=bool(opts["round_bonuses"]),
        challenge=int(opts["solo_challenge"] or 0),
        round=rnd,
        step=step,
        current=current,
        deal_seat=0,
        turn=-1,
        deck=deck,
        bag=bag,
        round_bonus=round_bonus,
        dealt=[[] for _ in range(n)],
        splits=[None] * n,
        stacks=[],
        keep_choices=[-1] * n,
        split_size=[-1] * n,
        kept=[-1] * n,
        solo_token=0,
        solo_offer=[],
        solo_picks=0,
        solo_discards=[],
        power_cap_used=False,
        discard_most_dots=False,
        saver_lost=False,
        resolving=None,
        return_deficit=0,
        feed_seat=0,
        players=players,
        public_cache=None,
    )
    return state


def _edition(num_players: int, options: Mapping[str, JSON] | None) -> tuple[list[int], list[int]]:
    """The full deck and bag of the game ``options`` choose, as the engine's setup has them
    (the Sanctuary Scramble plays both editions' cards with the double bag)."""
    fresh = KIT.new(num_players, options)
    return fresh.deck, fresh.bag


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
    ``housed[i]`` = (grey, pink, yellow), ``food[i]``, and a score of ``score[i]`` (the
    difference to 10 is written to ``round_1``). The bag is ``bag`` (default: the full
    bag minus housed manatees). Phase 2 then starts as the engine starts it
    (``start_play``): the turn pointer at seat (rnd - 1) mod N as in the rules; if every
    hand is empty the state moves on to feeding at once (which may finish the round).
    ``bonuses`` assigns round-bonus cards for rounds 1-3 (module must be on).
    """
    n = num_players
    deck, full_bag = _edition(n, options)
    players = [Player() for _ in range(n)]
    laid = [
        [parse_placement(text) for text in sanctuaries[seat]] for seat in range(len(sanctuaries))
    ]
    used = {CARD_INDEX[cid] for placements in laid for cid, *_ in placements}
    for seat, p in enumerate(players):
        for cid in hands[seat] if seat < len(hands) else ():
            c = CARD_INDEX[cid]
            used.add(c)
            p.hand.append(c)
            p.origin[c] = seat
        p.hand.sort()
        if seat < len(housed):
            p.housed = list(housed[seat])
        if seat < len(food):
            p.food = food[seat]
        if seat < len(score):
            p.points[CAT["round_1"]] = score[seat] - 10
    if bag is None:
        bag = [full_bag[col] - sum(p.housed[col] for p in players) for col in range(3)]
    round_bonus = [-1, -1, -1]
    for r, b in enumerate(bonuses):
        round_bonus[r] = BONUS_IDS.index(b)
    state = _state(
        n,
        options,
        players,
        rnd=rnd,
        step=steps.PLAY,  # start_play() below sets step, current and turn
        current=CHANCE,
        deck=[c for c in deck if c not in used],
        bag=list(bag),
        round_bonus=round_bonus,
    )
    for p, placements in zip(state.players, laid, strict=False):
        for cid, x, y, rot in placements:
            c = CARD_INDEX[cid]
            why = p.sanctuary.explain(c, x, y, rot)
            assert why is None, f"{cid}@({x},{y})r{rot}: {why}"
            for colour in p.sanctuary.place(c, x, y, rot):
                p.flowers[colour - 1] += 1
            p.capacity += card_habitat(state, c)
    state._fields_changed()
    state.start_play()
    return state


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

    Built directly (documented shortcut): a game over in round 1, whose players have only
    these totals (the difference to 10 in ``round_1``), housed manatees and food, with the
    full deck and bag.
    """
    players = []
    for t, h, f in zip(totals, housed_totals, food, strict=True):
        p = Player()
        p.points[CAT["round_1"]] = t - 10
        p.housed = [h, 0, 0]
        p.food = f
        players.append(p)
    deck, bag = _edition(len(totals), None)
    return _state(
        len(totals),
        None,
        players,
        rnd=1,
        step=steps.GAME_OVER,
        current=TERMINAL,
        deck=deck,
        bag=bag,
        round_bonus=[-1, -1, -1],
    )
