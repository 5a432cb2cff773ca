"""Carson City Zoo views: the observation (public, identical for every seat) and render.

A zoo card on the board is shown by its face value only, never by its Z-id (which tells
its back); ids and backs appear once a card is captured.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.carson_city_zoo.components import (
    CARD_IDS,
    CARD_MUTANT,
    CARD_VALUE,
    DEAL,
    IN_HAND,
    NUM_SPACES,
    OVER,
    PHASE_NAMES,
    PLAY,
    SIZE,
)
from engine.core import JSON

if TYPE_CHECKING:
    from engine.carson_city_zoo.state import CarsonCityZooState


def top_value(st: CarsonCityZooState, s: int) -> int:
    if st._phase == DEAL:
        return -1
    card = st._top[s]
    if card < 0:
        card = st._bot[s]
    return CARD_VALUE[card] if card >= 0 else -1


def observation(st: CarsonCityZooState, seat: int | None) -> dict[str, JSON]:
    spaces: list[JSON] = []
    for s in range(NUM_SPACES):
        o = st._occ[s]
        spaces.append(
            {
                "space": s,
                "row": s // SIZE,
                "col": s % SIZE,
                "cards": (st._bot[s] >= 0) + (st._top[s] >= 0),
                "top_value": top_value(st, s),
                "occupant": st._cname[o] if o >= 0 else "",
                "mutated": o >= 0 and st._cmut[o],
            }
        )
    players: list[JSON] = []
    found = [False] * 4
    for p in range(st.num_players):
        cs = range(4 * p, 4 * p + 4)
        for card in st._pile_zoo[p]:
            if CARD_MUTANT[card]:
                found[CARD_VALUE[card]] = True
        entry: dict[str, JSON] = {
            "seat": p,
            "team": st._teams[p],
            "hand": [st._cname[c] for c in cs if st._cpos[c] == IN_HAND],
            "on_board": [st._cname[c] for c in cs if st._cpos[c] >= 0],
            "zoo_pile": [
                {"id": CARD_IDS[z], "value": CARD_VALUE[z], "mutant": CARD_MUTANT[z]}
                for z in st._pile_zoo[p]
            ],
            "character_pile": [
                {"id": st._cname[c], "value": c % 4 + 3, "mutated": st._cmut[c]}
                for c in st._pile_chr[p]
            ],
        }
        entry.update(st.breakdown(p))
        players.append(entry)
    return {
        "phase": PHASE_NAMES[st._phase],
        "current_player": st.current_player,
        "start_player": st._start if st._phase >= PLAY else -1,
        "cards_dealt": len(st._deal),
        "spaces": spaces,
        "players": players,
        "mutant_found": found,
    }


def render(st: CarsonCityZooState, seat: int | None = None) -> str:
    n = st.num_players
    phase = PHASE_NAMES[st._phase]
    if st._phase == PLAY:
        turn = f"seat {st._player} ({st._teams[st._player]}) to move"
    elif st._phase == OVER:
        turn = "game over"
    elif st._phase == DEAL:
        turn = f"dealing: {len(st._deal)}/50 cards"
    else:
        turn = "drawing the start player"
    lines = [f"Carson City Zoo, {n} players, {phase}: {turn}"]
    lines.append(("      " + "".join(f"c{c:<8}" for c in range(SIZE))).rstrip())
    for r in range(SIZE):
        cells = []
        for c in range(SIZE):
            s = r * SIZE + c
            count = (st._bot[s] >= 0) + (st._top[s] >= 0)
            if count == 0 and st._occ[s] < 0:
                cell = "."
            else:
                v = top_value(st, s)
                cell = f"{count}:{v if v >= 0 else '?'}" if count else "0:-"
                o = st._occ[s]
                if o >= 0:
                    cell += " " + st._cname[o] + ("*" if st._cmut[o] else "")
            cells.append(f"{cell:<9}")
        lines.append(f"r{r} {r * SIZE:>2} " + "".join(cells).rstrip())
    lines.append("  (n:v = n zoo cards, uppermost face value v; X* = mutated character)")
    for p in range(n):
        cs = range(4 * p, 4 * p + 4)
        mark = ">" if st._phase == PLAY and p == st._player else " "
        you = " (you)" if seat == p else ""
        hand = " ".join(st._cname[c] for c in cs if st._cpos[c] == IN_HAND) or "-"
        pile = [
            f"{CARD_IDS[z]}({CARD_VALUE[z]}{',M' if CARD_MUTANT[z] else ''})"
            for z in st._pile_zoo[p]
        ] + [st._cname[c] for c in st._pile_chr[p]]
        b = st.breakdown(p)
        lines.append(
            f"{mark} seat {p} {st._teams[p]}{you}: hand {hand} | pile "
            f"{' '.join(pile) or '-'} | {b['zoo_cards']}+{b['captured_characters']}"
            f"+{b['surviving_characters']} = {b['total']}"
        )
    if st._phase == OVER:
        ranks = st._result().ranks
        lines.append("ranks: " + ", ".join(f"seat {p}: {r}" for p, r in enumerate(ranks)))
    return "\n".join(lines)
