"""Zooloretto Mini views: the (public) observation and the text rendering."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core import CHANCE, JSON, TERMINAL
from engine.zooloretto_mini.components import (
    BONUS,
    ENCLOSURE_IDS,
    ENCLOSURE_SIZE,
    LOAD,
    PHASE_NAMES,
    TRUCK_IDS,
)

if TYPE_CHECKING:
    from engine.zooloretto_mini.state import ZoolorettoState


def observation(state: ZoolorettoState) -> dict[str, JSON]:
    """The observation of every seat and of the spectator (everything here is public)."""
    # Everything is public; the undrawn tiles are the only unknown and never appear.
    n = state.num_players
    players: list[JSON] = []
    scores: list[JSON] = []
    for s in range(n):
        encs: list[JSON] = []
        for e in range(3):
            tiles = state.enc[3 * s + e]
            encs.append(
                {
                    "id": ENCLOSURE_IDS[e],
                    "species": state.esp[3 * s + e],
                    "tiles": list(tiles),
                    "paired": [t for t in tiles if t in state.paired],
                }
            )
        score = state.score(s)
        scores.append(score["total"])
        k = state.taken[s]
        players.append(
            {
                "seat": s,
                "active": k < 0,
                "truck": TRUCK_IDS[k] if k >= 0 else "",
                "enclosures": encs,
                "barn": list(state.barns[s]),
                "score": score,
            }
        )
    return {
        "current_player": state.current_player,
        "phase": PHASE_NAMES[state.phase],
        "round": state.round,
        "round_start_player": state.round_start,
        "last_round": state.last_round,
        "bag_count": state.bag_count,
        "end_count": state.end_count,
        "removed_species": list(state.removed),
        "offspring_supply": list(state.supply),
        "out_of_play": list(state.out),
        "drawn_tile": state.drawn,
        "bonus_pending": state.bonus,
        "trucks": [
            {
                "id": TRUCK_IDS[k],
                "capacity": cap,
                "tiles": list(state.trucks[k]),
                "taken_by": state.owner[k],
            }
            for k, cap in enumerate(state.caps)
        ],
        "players": players,
        "scores": scores,
    }


def render(state: ZoolorettoState) -> str:
    """Readable text of the position (the same for every seat: nothing is private)."""
    n = state.num_players
    lines = [
        f"Zooloretto Mini, {n} players, round {state.round}"
        f" (started by seat {state.round_start}){', LAST ROUND' if state.last_round else ''}",
        f"bag {state.bag_count}, end stack {state.end_count};"
        f" removed species: {' '.join(state.removed) or '-'}",
        f"offspring supply: {' '.join(state.supply) or '-'};"
        f" out of play: {' '.join(state.out) or '-'}",
    ]
    for k, cap in enumerate(state.caps):
        tiles = state.trucks[k] + ["."] * (cap - len(state.trucks[k]))
        who = f"taken by seat {state.owner[k]}" if state.owner[k] >= 0 else "available"
        lines.append(f"  {TRUCK_IDS[k]} [{' '.join(tiles)}] {who}")
    for s in range(n):
        score = state.score(s)
        status = "active" if state.taken[s] < 0 else f"took {TRUCK_IDS[state.taken[s]]}"
        lines.append(f"seat {s} ({status}): {score['total']} points")
        for e in range(3):
            tiles = [t + ("*" if t in state.paired else "") for t in state.enc[3 * s + e]]
            tiles += ["."] * (ENCLOSURE_SIZE - len(tiles))
            lines.append(f"  {ENCLOSURE_IDS[e]} [{' '.join(tiles)}]")
        lines.append(f"  barn [{' '.join(state.barns[s])}]")
    player = state.current_player
    if player == TERMINAL:
        result = state.result()
        lines.append(f"game over; scores {result.scores}, ranks {result.ranks}")
    elif player == CHANCE:
        lines.append(f"chance: {PHASE_NAMES[state.phase]}")
    else:
        what = PHASE_NAMES[state.phase]
        if state.phase == LOAD:
            what += f" {state.drawn}"
        elif state.phase == BONUS:
            what += f" ({state.bonus} left)"
        lines.append(f"to move: seat {player} ({what}); * = paired")
    return "\n".join(lines)
