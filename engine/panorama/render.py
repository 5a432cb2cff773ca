"""Text view of a Panorama observation for terminals (``arena play panorama --show``)."""

from __future__ import annotations

from collections.abc import Mapping

from engine.core import JSON
from engine.panorama.data import (
    COLOURS,
    GOAL_COLOURS,
    GOAL_TEXT,
    ITEM_ROWS,
    ROWS,
    TERRAIN_ROWS,
    TILE_INDEX,
)

LEGEND = (
    "terrain S sky M mountains F forest H hills P plains W river | "
    "items 1/2 flowers a animal c crow o cloud w waterfall"
)


def tile_grid(tiles: list[int], labels: list[str], indent: str = "  ") -> list[str]:
    """Tiles side by side, one line per cell row: 'terrain items' per tile, as in the spec."""
    lines = [indent + "row " + " ".join(f"{lab:<7}" for lab in labels).rstrip()]
    for r in range(ROWS):
        cells = " ".join(f"{TERRAIN_ROWS[t][r]} {ITEM_ROWS[t][r]}" for t in tiles)
        lines.append(f"{indent} {r}  {cells}")
    return lines


def render(obs: Mapping[str, JSON], ranks: list[int] | None = None) -> str:
    """Readable text of the position ``obs`` shows to its viewer (``you``); ``ranks``:
    the result's, once the game is over."""
    seat = obs["you"]
    players = obs["players"]
    out: list[str] = []
    goals = " | ".join(
        f"{colour} {g} ({GOAL_TEXT[g]})" if g else f"{colour} (not drawn yet)"
        for colour, g in zip(GOAL_COLOURS, obs["goals"], strict=True)
    )
    view = "spectator" if seat is None else f"{COLOURS[seat]} (seat {seat})"
    out.append(f"Panorama, {len(players)} players, view of {view}")
    out.append(f"Goals: {goals}")
    face = "MOON (final turns)" if obs["token_face"] == "moon" else "SUN"
    phase = obs["phase"]
    active = obs["active_player"]
    if active >= 0:
        who = f"{COLOURS[active]} (seat {active})"
        todo = f"place {obs['held_tile']}" if phase == "place" else phase
        if phase == "reveal":
            todo = f"waiting for the new top of space {obs['pending_space']}"
        out.append(f"Token: {face} on space {obs['token_space']}; active {who}: {todo}")
    elif phase == "game_over":
        out.append("Game over.")
    else:
        out.append(f"Setup: next chance node {phase}")
    out.append(
        f"Central tile: {obs['num_spaces']} spaces; "
        f"{obs['unrevealed_tiles']} tiles not revealed yet"
    )
    tops: list[int] = []
    labels: list[str] = []
    for space in obs["spaces"]:
        s = space["space"]
        q = space["balloon_seat"]
        if q >= 0:
            bal = f"{COLOURS[q]} balloon {players[q]['balloon']}"
        else:
            bal = "free" if space["count"] else "empty"
        top = space["top"] or "--"
        mark = " <- token" if s == obs["token_space"] else ""
        out.append(f"  space {s}: {space['count']} tile(s), top {top:<4} {bal}{mark}")
        if space["top"]:
            tops.append(TILE_INDEX[space["top"]])
            labels.append(f"{s}:{top}")
    if tops:
        out.append("Top tiles:")
        out.extend(tile_grid(tops, labels))
    out.append("Panoramas (* = start tile):")
    for q, info in enumerate(players):
        pts = info["points"]
        you = " (you)" if seat == q else ""
        out.append(
            f" {COLOURS[q]} (seat {q}){you}: balloon {info['balloon']} on space "
            f"{info['balloon_space']}; {len(info['panorama'])} tiles; points so far "
            f"plains {pts['plains']} hills {pts['hills']} forest {pts['forest']} "
            f"mountains {pts['mountains']} goals {pts['goal_sky']}/{pts['goal_river']}/"
            f"{pts['goal_terrain']} total {pts['total']}"
        )
        pan = [TILE_INDEX[t] for t in info["panorama"]]
        labs = [
            t + ("*" if k == info["start_index"] else "") for k, t in enumerate(info["panorama"])
        ]
        out.extend(tile_grid(pan, labs, indent="   "))
    if phase == "game_over":
        assert ranks is not None, "a finished game's text shows the ranks"
        out.append(
            "Result: "
            + ", ".join(
                f"{COLOURS[q]} {obs['scores'][q]} (rank {ranks[q]})" for q in range(len(players))
            )
        )
    out.append(LEGEND)
    return "\n".join(out)
