"""Test helpers for carson_city_zoo.

``start_game`` drives a game through the public API only (forced ``deal`` outcomes);
``play`` applies actions written as short text (``"place Y3 12"``, ``"move Y3 E"``).
``build_position`` constructs a position directly (with :func:`engine.fields.build`,
naming every field): it is used only for the conformance scenarios whose start position
would need an unreasonably long prefix of play (emptied spaces, captured characters,
mutants placed on chosen spaces, finished games). Everything after the start position is
still driven through the public API.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.carson_city_zoo import GAME, CarsonCityZooState
from engine.carson_city_zoo.data import (
    CAPTURED,
    CARD_IDS,
    CARD_INDEX,
    CARD_MUTANT,
    CARD_VALUE,
    IN_HAND,
    NUM_SPACES,
    OVER,
    PLAY,
    TEAM_IDS,
    roster,
)
from engine.core import JSON, State
from engine.fields import build
from tests.games.kit import GameKit, act

KIT = GameKit(GAME, CarsonCityZooState)


def deck_order(bottoms: Mapping[int, str], tops: Mapping[int, str]) -> list[str]:
    """The 50 deal outcomes in node order for the given forced bottom/top cards.

    Unforced bottom slots take the remaining mutant-backed cards first (so they stay
    covered), then the lowest remaining ids; unforced top slots take the lowest
    remaining non-mutant ids.
    """
    forced = {s: c for s, c in bottoms.items()} | {25 + s: c for s, c in tops.items()}
    used = set(forced.values())
    assert len(used) == len(forced), "a card is forced twice"
    mutants = [c for c in CARD_IDS if CARD_MUTANT[CARD_INDEX[c]] and c not in used]
    others = [c for c in CARD_IDS if not CARD_MUTANT[CARD_INDEX[c]] and c not in used]
    order = []
    for slot in range(50):
        if slot in forced:
            order.append(forced[slot])
        elif slot < 25:
            order.append(mutants.pop(0) if mutants else others.pop(0))
        else:
            order.append(others.pop(0) if others else mutants.pop(0))
    return order


def start_game(
    num_players: int,
    *,
    teams: Sequence[str] | None = None,
    start: int = 0,
    bottoms: Mapping[int, str] | None = None,
    tops: Mapping[int, str] | None = None,
) -> CarsonCityZooState:
    """A new game with the forced deal applied as chance outcomes, ``start`` to move."""
    options: dict[str, Any] = {"start_player": start}
    if teams is not None:
        options["teams"] = list(teams)
    state = KIT.new(num_players, options)
    for card in deck_order(bottoms or {}, tops or {}):
        act(state, kind="deal", card=card)
    return state


def action_json(text: str) -> dict[str, JSON]:
    """The JSON of ``"place Y3 12"`` or ``"move Y3 E"``."""
    kind, char, arg = text.split()
    if kind == "place":
        return {"kind": "place", "char": char, "space": int(arg)}
    return {"kind": "move", "char": char, "dir": arg}


def play(state: State, *texts: str) -> None:
    """Apply actions given as short text (``"place Y3 12"``, ``"move Y3 E"``) through the
    JSON codec, in order."""
    for text in texts:
        act(state, action_json(text))


def build_position(
    num_players: int,
    *,
    teams: Sequence[str] | None = None,
    stacks: Mapping[int, Sequence[str]] | None = None,
    occupants: Mapping[int, str] | None = None,
    piles: Mapping[int, Sequence[str]] | None = None,
    to_move: int = 0,
    over: bool = False,
) -> CarsonCityZooState:
    """Construct a position directly (see the module docstring).

    ``stacks``: space -> zoo card ids, bottom first. ``occupants``: space -> character
    id, with a trailing ``*`` for a mutated one. ``piles``: seat -> captured ids (zoo
    cards and characters, in capture order). Every other character is in its owner's
    hand. Unlisted spaces get cards from the rest of the deck: 1 under an occupant,
    otherwise 2 (mutant-backed cards at the bottom). Zoo cards that fit nowhere are out
    of play. The deal (``dealt``) lists the board's cards in their slots and the others in
    the free slots; seat 0 started. The position is in play with ``to_move`` to act, or
    over if ``over``.
    """
    n = num_players
    team_ids = tuple(teams) if teams is not None else TEAM_IDS[:n]
    chars = roster(team_ids)
    stacks = dict(stacks or {})
    occupants = dict(occupants or {})
    piles = dict(piles or {})
    used = {c for cards in stacks.values() for c in cards}
    used |= {c for cards in piles.values() for c in cards if c.startswith("Z")}
    pool = [c for c in CARD_IDS if c not in used]
    pool.sort(key=lambda c: CARD_MUTANT[CARD_INDEX[c]])  # mutant-backed cards last
    order = sorted(range(NUM_SPACES), key=lambda s: s not in occupants)
    for s in order:
        if s in stacks:
            continue
        if s in occupants:
            stacks[s] = [pool.pop(0)] if pool else []
        elif len(pool) >= 2:
            bottom = pool.pop()
            stacks[s] = [bottom, pool.pop(0)]
        else:
            stacks[s] = pool[:1]
            pool = pool[1:]
    bottoms = [-1] * NUM_SPACES
    tops = [-1] * NUM_SPACES
    deal: list[int] = [-1] * 50
    for s, cards in stacks.items():
        assert len(cards) <= 2 and not (s in occupants and len(cards) == 2)
        if cards:
            bottoms[s] = deal[s] = CARD_INDEX[cards[0]]
        if len(cards) == 2:
            tops[s] = deal[25 + s] = CARD_INDEX[cards[1]]
    spare = [CARD_INDEX[c] for c in CARD_IDS if CARD_INDEX[c] not in deal]
    occupant = [-1] * NUM_SPACES
    character_space = [IN_HAND] * (4 * n)
    mutated = [False] * (4 * n)
    for s, name in occupants.items():
        c = chars.index[name.rstrip("*")]
        occupant[s] = c
        character_space[c] = s
        mutated[c] = name.endswith("*")
    zoo_piles: list[list[int]] = [[] for _ in range(n)]
    character_piles: list[list[int]] = [[] for _ in range(n)]
    for seat, cards in piles.items():
        for cid in cards:
            if cid.startswith("Z"):
                zoo_piles[seat].append(CARD_INDEX[cid])
            else:
                c = chars.index[cid.rstrip("*")]
                character_space[c] = CAPTURED
                mutated[c] = cid.endswith("*")
                character_piles[seat].append(c)
    options: dict[str, JSON] = {"start_player": 0, "teams": None if teams is None else list(teams)}
    state: CarsonCityZooState = build(
        CarsonCityZooState,
        GAME,
        n,
        options,
        teams=team_ids,
        roster=chars,
        phase=OVER if over else PLAY,
        current=to_move,
        start_player=0,
        dealt=[card if card >= 0 else spare.pop(0) for card in deal],
        undealt=[],
        bottom=bottoms,
        top=tops,
        occupant=occupant,
        character_space=character_space,
        mutated=mutated,
        zoo_piles=zoo_piles,
        character_piles=character_piles,
        zoo_points=[sum(CARD_VALUE[z] for z in pile) for pile in zoo_piles],
        character_points=[sum(c % 4 + 3 for c in pile) for pile in character_piles],
    )
    return state


def space(obs: dict[str, Any], s: int) -> dict[str, Any]:
    """The observation entry of space ``s``."""
    entry: dict[str, Any] = obs["spaces"][s]
    assert entry["space"] == s
    return entry
