"""Text rendering of a Panorama state for terminals (``arena play panorama --show``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.panorama.tiles import (
    COLOURS,
    GOAL_COLOURS,
    GOAL_TEXT,
    ITEM_ROWS,
    ROWS,
    TERRAIN_ROWS,
    TILE_IDS,
)

if TYPE_CHECKING:
    from engine.panorama.state import PanoramaState

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


def render_state(state: PanoramaState, seat: int | None = None) -> str:
    obs = state._observation(seat)
    p = state.num_players
    out: list[str] = []
    goals = " | ".join(
        f"{colour} {g} ({GOAL_TEXT[g]})" if g else f"{colour} (not drawn yet)"
        for colour, g in zip(GOAL_COLOURS, state._goals, strict=True)
    )
    view = "spectator" if seat is None else f"{COLOURS[seat]} (seat {seat})"
    out.append(f"Panorama, {p} players, view of {view}")
    out.append(f"Goals: {goals}")
    face = "MOON (final turns)" if state._moon else "SUN"
    phase = obs["phase"]
    if state._active >= 0:
        who = f"{COLOURS[state._active]} (seat {state._active})"
        todo = f"place {TILE_IDS[state._held]}" if phase == "place" else phase
        if phase == "reveal":
            todo = f"waiting for the new top of space {state._pending}"
        out.append(f"Token: {face} on space {state._token}; active {who}: {todo}")
    elif phase == "game_over":
        out.append("Game over.")
    else:
        out.append(f"Setup: next chance node {phase}")
    out.append(f"Central tile: {state._n} spaces; {len(state._unrev)} tiles not revealed yet")
    tops: list[int] = []
    labels: list[str] = []
    for s in range(state._n):
        q = state._occ[s]
        if q >= 0:
            bal = f"{COLOURS[q]} balloon {'standing' if state._standing[q] else 'deflated'}"
        else:
            bal = "free" if state._count[s] else "empty"
        top = TILE_IDS[state._top[s]] if state._top[s] >= 0 else "--"
        mark = " <- token" if s == state._token else ""
        out.append(f"  space {s}: {state._count[s]} tile(s), top {top:<4} {bal}{mark}")
        if state._top[s] >= 0:
            tops.append(state._top[s])
            labels.append(f"{s}:{top}")
    if tops:
        out.append("Top tiles:")
        out.extend(tile_grid(tops, labels))
    out.append("Panoramas (* = start tile):")
    for q in range(p):
        info = obs["players"][q]
        pts = info["points"]
        you = " (you)" if seat == q else ""
        out.append(
            f" {COLOURS[q]} (seat {q}){you}: balloon {info['balloon']} on space "
            f"{info['balloon_space']}; {len(state._pan[q])} tiles; points so far "
            f"plains {pts['plains']} hills {pts['hills']} forest {pts['forest']} "
            f"mountains {pts['mountains']} goals {pts['goal_sky']}/{pts['goal_river']}/"
            f"{pts['goal_terrain']} total {pts['total']}"
        )
        pan = state._pan[q]
        labs = [TILE_IDS[t] + ("*" if k == state._si[q] else "") for k, t in enumerate(pan)]
        out.extend(tile_grid(pan, labs, indent="   "))
    if phase == "game_over":
        ranks = state.result().ranks
        out.append(
            "Result: "
            + ", ".join(f"{COLOURS[q]} {obs['scores'][q]} (rank {ranks[q]})" for q in range(p))
        )
    out.append(LEGEND)
    return "\n".join(out)
