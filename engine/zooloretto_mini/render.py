"""Zooloretto Mini text view, drawn from an observation (nothing is private, so every
seat's view and the spectator's are the same)."""

from __future__ import annotations

from collections.abc import Mapping

from engine.core import CHANCE, JSON, TERMINAL
from engine.zooloretto_mini.data import ENCLOSURE_SIZE


def render(obs: Mapping[str, JSON], ranks: list[int] | None = None) -> str:
    """Readable text of the position ``obs`` shows (``ranks``: the result's, once over)."""
    players = obs["players"]
    lines = [
        f"Zooloretto Mini, {len(players)} players, round {obs['round']}"
        f" (started by seat {obs['round_start_player']})"
        f"{', LAST ROUND' if obs['last_round'] else ''}",
        f"bag {obs['bag_count']}, end stack {obs['end_count']};"
        f" removed species: {' '.join(obs['removed_species']) or '-'}",
        f"offspring supply: {' '.join(obs['offspring_supply']) or '-'};"
        f" out of play: {' '.join(obs['out_of_play']) or '-'}",
    ]
    for truck in obs["trucks"]:
        tiles = truck["tiles"] + ["."] * (truck["capacity"] - len(truck["tiles"]))
        owner = truck["taken_by"]
        who = f"taken by seat {owner}" if owner >= 0 else "available"
        lines.append(f"  {truck['id']} [{' '.join(tiles)}] {who}")
    for p in players:
        status = "active" if p["active"] else f"took {p['truck']}"
        lines.append(f"seat {p['seat']} ({status}): {p['score']['total']} points")
        for enclosure in p["enclosures"]:
            paired = set(enclosure["paired"])
            tiles = [t + ("*" if t in paired else "") for t in enclosure["tiles"]]
            tiles += ["."] * (ENCLOSURE_SIZE - len(tiles))
            lines.append(f"  {enclosure['id']} [{' '.join(tiles)}]")
        lines.append(f"  barn [{' '.join(p['barn'])}]")
    player = obs["current_player"]
    phase = obs["phase"]
    if player == TERMINAL:
        lines.append(f"game over; scores {obs['scores']}, ranks {ranks}")
    elif player == CHANCE:
        lines.append(f"chance: {phase}")
    else:
        what = phase
        if phase == "load":
            what += f" {obs['drawn_tile']}"
        elif phase == "bonus":
            what += f" ({obs['bonus_pending']} left)"
        lines.append(f"to move: seat {player} ({what}); * = paired")
    return "\n".join(lines)
