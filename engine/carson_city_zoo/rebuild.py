"""Rebuild a Carson City Zoo state from one seat's observation (``Game._from_observation``).

The observation is public and identical for every seat, and at a seat's turn (phase
``play``) it shows almost the whole state: whose turn it is and the start player, every
hand, every occupant (with its mutated flag), every capture pile (ids in capture order,
so the zoo piles fix which zoo cards are gone), and for every space its card count and
the face value of its uppermost zoo card.

What it hides, and how it is drawn (with ``rng`` only):

- **The ids of the zoo cards still on the board** (which fix their backs). The cards on
  the board are exactly the 50 zoo cards minus those in the capture piles. Each
  uppermost card (the top of a 2-card stack, the single card of a 1-card stack) gets a
  card of its shown face value and each covered bottom card any of the cards left, by
  :func:`~engine.carson_city_zoo.state.draw_board_cards`, the helper ``resample`` uses:
  uniform over the consistent assignments. A mutant back whose card was captured is
  thereby never drawn again.
- **Which deal slot each captured card came from.** The state keeps the 50 dealt cards
  (``dealt``); the slots emptied by captures get the captured cards in a random order.
  Nothing in the rules depends on it; it keeps ``_deal`` a permutation of the 50 cards.

The observation is checked on the way in (clear :class:`ValueError` messages for a wrong
phase or seat, a team that does not match the options, an unknown or repeated card or
character, a character that is nowhere or in two places, a stack size out of range, a
finished game, mutated characters that do not match the mutant cards captured). Every
inconsistent derived field (scores, ``on_board``, the values and backs shown in the zoo
piles, ``mutant_found``, ...) is caught afterwards by ``Game.from_observation``, which
requires the rebuilt state's own observation to equal the given one.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from engine.carson_city_zoo.data import (
    CAPTURED,
    CARD_INDEX,
    CARD_MUTANT,
    CARD_VALUE,
    IN_HAND,
    NUM_CARDS,
    NUM_SPACES,
    PLAY,
)
from engine.carson_city_zoo.state import CarsonCityZooState, draw_board_cards
from engine.core import JSON
from engine.observed import read_int, read_list, read_obj

KEYS = (
    "phase",
    "current_player",
    "start_player",
    "cards_dealt",
    "spaces",
    "players",
    "mutant_found",
)


def rebuild(
    st: CarsonCityZooState, seat: int, obs: Mapping[str, JSON], rng: random.Random
) -> CarsonCityZooState:
    """Fill the fresh state ``st`` in place from ``obs`` (``seat``'s turn) and return it."""
    missing = [k for k in KEYS if k not in obs]
    if missing:
        raise ValueError(f"observation lacks field(s) {missing}")
    if obs["phase"] != "play":
        raise ValueError(f"not a turn: the observation's phase is {obs['phase']!r}, not 'play'")
    n = st.num_players
    to_move = read_int(obs["current_player"], "current_player", -2, n - 1)
    if to_move != seat:
        raise ValueError(f"the observation is seat {to_move}'s turn, not seat {seat}'s")
    start = read_int(obs["start_player"], "start_player", 0, n - 1)
    if st.start_player >= 0 and start != st.start_player:
        raise ValueError(
            f"start_player is {start}, but the option start_player is {st.start_player}"
        )
    st.phase = PLAY
    st.current = seat
    st.start_player = start
    players = read_list(obs["players"], "players", n)
    spaces = read_list(obs["spaces"], "spaces", NUM_SPACES)

    # Characters: each of the 4n is in one hand, on one space or in one pile.
    where: dict[int, str] = {}

    def put(name: JSON, place: str, field: str) -> int:
        c = st.roster.index.get(name, -1) if isinstance(name, str) else -1
        if c < 0:
            teams = ", ".join(st.teams)
            raise ValueError(f"{field}: {name!r} is not a character of this game (teams {teams})")
        if c in where:
            raise ValueError(f"{field}: {name} is {place}, but also {where[c]}")
        where[c] = place
        return c

    # Zoo cards: the captured ones are named in the piles.
    captured: set[int] = set()
    for p, raw in enumerate(players):
        entry = read_obj(raw, f"players[{p}]")
        if entry["team"] != st.teams[p]:
            raise ValueError(
                f"players[{p}].team is {entry['team']!r}, but seat {p} plays {st.teams[p]!r}"
            )
        for name in read_list(entry["hand"], f"players[{p}].hand"):
            c = put(name, f"in seat {p}'s hand", f"players[{p}].hand")
            if c // 4 != p:
                raise ValueError(f"players[{p}].hand: {name} belongs to seat {c // 4}")
            st.character_space[c] = IN_HAND
        st.character_piles[p] = []
        pile = read_list(entry["character_pile"], f"players[{p}].character_pile")
        for i, raw_char in enumerate(pile):
            field = f"players[{p}].character_pile[{i}]"
            char = read_obj(raw_char, field)
            c = put(char["id"], f"in seat {p}'s pile", field)
            st.character_space[c] = CAPTURED
            st.mutated[c] = char["mutated"] is True
            st.character_piles[p].append(c)
        st.character_points[p] = sum(c % 4 + 3 for c in st.character_piles[p])
        st.zoo_piles[p] = []
        for i, raw_card in enumerate(read_list(entry["zoo_pile"], f"players[{p}].zoo_pile")):
            field = f"players[{p}].zoo_pile[{i}]"
            card_id = read_obj(raw_card, field)["id"]
            card = CARD_INDEX.get(card_id, -1) if isinstance(card_id, str) else -1
            if card < 0:
                raise ValueError(f"{field}: {card_id!r} is not a zoo card id Z01..Z50")
            if card in captured:
                raise ValueError(f"{field}: {card_id} is in a capture pile twice")
            captured.add(card)
            st.zoo_piles[p].append(card)
        st.zoo_points[p] = sum(CARD_VALUE[card] for card in st.zoo_piles[p])

    # The board: occupants, stack sizes and uppermost faces.
    visible: list[tuple[int, int]] = []  # (deal slot, face value)
    hidden: list[int] = []
    emptied: list[int] = []
    on_board = 0
    for s, raw in enumerate(spaces):
        entry = read_obj(raw, f"spaces[{s}]")
        count = read_int(entry["cards"], f"spaces[{s}].cards", 0, 2)
        on_board += count
        occupant = entry["occupant"]
        if occupant != "":
            c = put(occupant, f"on space {s}", f"spaces[{s}].occupant")
            if count == 2:
                raise ValueError(f"spaces[{s}]: an occupant never stands on 2 zoo cards")
            st.occupant[s] = c
            st.character_space[c] = s
            st.mutated[c] = entry["mutated"] is True
        if count == 0:
            emptied += [s, NUM_SPACES + s]
            continue
        face = read_int(entry["top_value"], f"spaces[{s}].top_value", 0, 4)
        if count == 2:
            visible.append((NUM_SPACES + s, face))
            hidden.append(s)
        else:
            visible.append((s, face))
            emptied.append(NUM_SPACES + s)
    nowhere = [st.roster.names[c] for c in range(4 * n) if c not in where]
    if nowhere:
        raise ValueError(f"character(s) {nowhere} are in no hand, on no space and in no pile")
    if on_board + len(captured) != NUM_CARDS:
        raise ValueError(
            f"the board shows {on_board} zoo cards and the piles {len(captured)}; "
            f"they must add up to {NUM_CARDS}"
        )

    mutated = sum(st.mutated)
    found = sum(CARD_MUTANT[card] for card in captured)
    if mutated != found:
        raise ValueError(
            f"{mutated} mutated character(s) but {found} mutant-backed card(s) captured: "
            "each mutant card captured mutates exactly one character"
        )

    pool = [card for card in range(NUM_CARDS) if card not in captured]
    cards, _rest = draw_board_cards(pool, visible, hidden, rng)
    gone = sorted(captured)
    rng.shuffle(gone)
    cards.update(zip(emptied, gone, strict=True))
    st.dealt = [cards[slot] for slot in range(NUM_CARDS)]
    st.undealt = []
    st.bottom = st.dealt[:NUM_SPACES]
    st.top = st.dealt[NUM_SPACES:]
    for slot in emptied:
        if slot < NUM_SPACES:
            st.bottom[slot] = -1
        else:
            st.top[slot - NUM_SPACES] = -1

    stuck = st.stuck_seats()
    if stuck:
        raise ValueError(f"seat {stuck[0]} has no legal action, so the game would be over")
    type(st).declared_fields().check_complete(st)
    st._fields_changed()
    return st
