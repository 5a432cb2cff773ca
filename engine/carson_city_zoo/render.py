"""Carson City Zoo text view, drawn from an observation (so it shows nothing hidden).

A zoo card on the board is shown by its count and the face value of the uppermost card,
never by its Z-id (which tells its back); ids and backs appear once a card is captured.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.carson_city_zoo.data import NUM_CARDS, SIZE
from engine.core import JSON, competition_ranks


def render_observation(obs: Mapping[str, JSON]) -> str:
    """The board, hands, piles and scores of observation ``obs`` as text."""
    players = obs["players"]
    spaces = obs["spaces"]
    phase = obs["phase"]
    to_move = obs["current_player"]
    seat = obs["you"]
    if phase == "play":
        turn = f"seat {to_move} ({players[to_move]['team']}) to move"
    elif phase == "over":
        turn = "game over"
    elif phase == "deal":
        turn = f"dealing: {obs['cards_dealt']}/{NUM_CARDS} cards"
    else:
        turn = "drawing the start player"
    lines = [f"Carson City Zoo, {len(players)} players, {phase}: {turn}"]
    lines.append(("      " + "".join(f"c{c:<8}" for c in range(SIZE))).rstrip())
    for r in range(SIZE):
        cells = []
        for c in range(SIZE):
            entry = spaces[r * SIZE + c]
            count = entry["cards"]
            if count == 0 and not entry["occupant"]:
                cell = "."
            else:
                v = entry["top_value"]
                cell = f"{count}:{v if v >= 0 else '?'}" if count else "0:-"
                if entry["occupant"]:
                    cell += " " + entry["occupant"] + ("*" if entry["mutated"] else "")
            cells.append(f"{cell:<9}")
        lines.append(f"r{r} {r * SIZE:>2} " + "".join(cells).rstrip())
    lines.append("  (n:v = n zoo cards, uppermost face value v; X* = mutated character)")
    for p, entry in enumerate(players):
        mark = ">" if phase == "play" and p == to_move else " "
        you = " (you)" if seat == p else ""
        hand = " ".join(entry["hand"]) or "-"
        pile = [
            f"{z['id']}({z['value']}{',M' if z['mutant'] else ''})" for z in entry["zoo_pile"]
        ] + [ch["id"] for ch in entry["character_pile"]]
        lines.append(
            f"{mark} seat {p} {entry['team']}{you}: hand {hand} | pile "
            f"{' '.join(pile) or '-'} | {entry['zoo_cards']}+{entry['captured_characters']}"
            f"+{entry['surviving_characters']} = {entry['total']}"
        )
    if phase == "over":
        ranks = competition_ranks([entry["total"] for entry in players])
        lines.append("ranks: " + ", ".join(f"seat {p}: {r}" for p, r in enumerate(ranks)))
    return "\n".join(lines)
