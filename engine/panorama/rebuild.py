"""Rebuild a Panorama state from one seat's observation (``Game._from_observation``).

Panorama has no hidden part in its *state*: the tiles below each stack's top and the
tiles in the box are not held anywhere; a tile's identity is drawn by a ``reveal`` chance
node only when it becomes a top (see the package docstring). Everything the state holds
is public and in every observation: the goals, each space's count, top tile and balloon,
each player's panorama, start index and balloon, the token's space and face, the held
tile. So the rebuild draws **nothing** and does not use ``rng``: the one state consistent
with the observation is the determinization. What is hidden in the game (which
unrevealed tile comes up next) stays with the later ``reveal`` nodes, whose outcomes
are exactly the tiles not in view (every tile minus the tops, the panoramas and the held
tile), uniformly, as in the original game.

Derived, not read: the unrevealed tiles (the complement of the tiles in view; checked
against ``unrevealed_tiles``), the standing flags, the occupant of each space. The
state's ``pending_space`` (the space of the last ``reveal``) is a leftover that no rule reads
outside a chance node; it is set to the seat's balloon space, which is exact in the
``place`` phase after a reveal. It enters ``digest()``, so a rebuilt state's digest may
differ from the original's in that field only.

The observation is checked field by field (a clear ``ValueError`` names what is wrong);
``Game.from_observation`` then requires the rebuilt state's own observation to equal it
exactly, which also checks the derived fields (points, scores, colours).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from engine.core import JSON
from engine.fields import build
from engine.observed import read_int, read_list, read_obj, read_str
from engine.panorama.data import (
    FLY_PHASE,
    GOAL_COLOURS,
    GOALS_BY_COLOUR,
    NUM_TILES,
    PLACE_PHASE,
    STACK_SIZE,
    START_TILE,
    TILE_IDS,
    TILE_INDEX,
)
from engine.panorama.state import PanoramaState

_PHASES = {"fly": FLY_PHASE, "place": PLACE_PHASE}
_BALLOONS = ("standing", "deflated")


def from_observation(
    state: PanoramaState, seat: int, obs: Mapping[str, JSON], rng: random.Random
) -> PanoramaState:
    """The state that shows ``obs`` at seat ``seat``'s turn, with the game, players and
    options of ``state`` (a fresh ``new_game``).

    ``rng`` is accepted for the contract but not used: nothing in the state is hidden.
    Raises :class:`ValueError` naming the first problem of a malformed observation.
    """
    del rng  # nothing to draw (module docstring)
    p = state.num_players
    n = state.num_spaces

    phase_name = read_str(obs["phase"], "phase")
    if phase_name not in _PHASES:
        raise ValueError(
            f"phase is {phase_name!r}: a seat's turn is in phase 'fly' or 'place' "
            f"(goal_draw/reveal/balloon_drop are chance nodes, game_over has no turn)"
        )
    phase = _PHASES[phase_name]
    for key in ("current_player", "active_player"):
        if read_int(obs[key], key) != seat:
            raise ValueError(f"{key} is {obs[key]!r}: the observation is not seat {seat}'s turn")
    if read_int(obs["pending_space"], "pending_space") != -1:
        raise ValueError(
            f"pending_space must be -1 outside a reveal node, got {obs['pending_space']}"
        )
    if read_int(obs["num_spaces"], "num_spaces") != n:
        raise ValueError(f"num_spaces must be {n} for {p} players, got {obs['num_spaces']}")

    goals = _goals(state, read_list(obs["goals"], "goals"))

    # -- spaces ----------------------------------------------------------------
    spaces = read_list(obs["spaces"], "spaces", n)
    count: list[int] = []
    top: list[int] = []
    occ: list[int] = []
    for s, raw in enumerate(spaces):
        where = f"spaces[{s}]"
        entry = read_obj(raw, where)
        if read_int(entry["space"], f"{where}.space") != s:
            raise ValueError(f"{where}.space must be {s}, got {entry['space']!r}")
        c = read_int(entry["count"], f"{where}.count", 0, STACK_SIZE)
        t = read_str(entry["top"], f"{where}.top")
        if c == 0:
            if t != "":
                raise ValueError(f"{where} has an empty stack but shows top {t!r}")
            top.append(-1)
        else:
            top.append(_tile(t, f"{where}.top"))
        q = read_int(entry["balloon_seat"], f"{where}.balloon_seat", -1, p - 1)
        count.append(c)
        occ.append(q)

    # -- players ---------------------------------------------------------------
    players = read_list(obs["players"], "players", p)
    pan: list[list[int]] = []
    si: list[int] = []
    bal: list[int] = []
    standing: list[bool] = []
    for q, raw in enumerate(players):
        where = f"players[{q}]"
        entry = read_obj(raw, where)
        if read_int(entry["seat"], f"{where}.seat") != q:
            raise ValueError(f"{where}.seat must be {q}, got {entry['seat']!r}")
        names = read_list(entry["panorama"], f"{where}.panorama")
        start = read_int(entry["start_index"], f"{where}.start_index")
        if not 0 <= start < len(names) or names[start] != TILE_IDS[START_TILE[q]]:
            raise ValueError(
                f"{where}.panorama {names!r} must hold {TILE_IDS[START_TILE[q]]} "
                f"at start_index {start}"
            )
        tiles = [
            START_TILE[q] if k == start else _tile(name, f"{where}.panorama[{k}]")
            for k, name in enumerate(names)
        ]
        b = read_int(entry["balloon_space"], f"{where}.balloon_space")
        if not 0 <= b < n:
            raise ValueError(f"{where}.balloon_space must be 0..{n - 1} during play, got {b}")
        if occ[b] != q:
            raise ValueError(
                f"{where}.balloon_space is {b} but spaces[{b}].balloon_seat is {occ[b]}"
            )
        look = read_str(entry["balloon"], f"{where}.balloon")
        if look not in _BALLOONS:
            raise ValueError(f"{where}.balloon must be 'standing' or 'deflated', got {look!r}")
        pan.append(tiles)
        si.append(start)
        bal.append(b)
        standing.append(look == "standing")
    for s, q in enumerate(occ):
        if q >= 0 and bal[q] != s:
            raise ValueError(
                f"spaces[{s}].balloon_seat is {q} but players[{q}].balloon_space is {bal[q]}"
            )
    if not standing[seat]:
        raise ValueError(f"seat {seat}'s balloon is deflated: it has no more turns")

    # -- token, held tile --------------------------------------------------------
    token = read_int(obs["token_space"], "token_space")
    face = read_str(obs["token_face"], "token_face")
    if face not in ("sun", "moon"):
        raise ValueError(f"token_face must be 'sun' or 'moon', got {face!r}")
    moon = face == "moon"
    if moon == all(standing):
        raise ValueError(
            "token_face is 'moon' but no balloon is deflated"
            if moon
            else "a balloon is deflated but the token still shows the sun"
        )
    held_name = read_str(obs["held_tile"], "held_tile")
    if phase == FLY_PHASE:
        if held_name != "":
            raise ValueError(f"held_tile must be empty before the fly, got {held_name!r}")
        held = -1
        if token != bal[seat]:
            raise ValueError(f"token_space {token} is not seat {seat}'s balloon space {bal[seat]}")
    else:
        held = _tile(held_name, "held_tile")
        if not 0 <= token < n or occ[token] >= 0:
            raise ValueError(
                f"token_space {token} must be the empty departure space of seat {seat}'s flight"
            )

    # -- tiles: every tile in view once, the rest unrevealed ---------------------------
    seen = [t for t in top if t >= 0] + [t for tiles in pan for t in tiles if t < NUM_TILES]
    if held >= 0:
        seen.append(held)
    if len(set(seen)) != len(seen):
        dup = sorted({TILE_IDS[t] for t in seen if seen.count(t) > 1})
        raise ValueError(f"tile(s) {', '.join(dup)} shown more than once")
    taken = sum(STACK_SIZE - c for c in count)
    placed = sum(len(tiles) - 1 for tiles in pan) + (held >= 0)
    if taken != placed:
        raise ValueError(
            f"the stacks are missing {taken} tile(s) but the panoramas and the hand hold {placed}"
        )
    in_view = set(seen)
    unseen = NUM_TILES - len(in_view)
    if read_int(obs["unrevealed_tiles"], "unrevealed_tiles") != unseen:
        raise ValueError(
            f"unrevealed_tiles is {obs['unrevealed_tiles']} but {unseen} tiles are not in view"
        )

    rebuilt: PanoramaState = build(
        PanoramaState,
        state.game,
        p,
        state.options,
        phase=phase,
        pending_space=bal[seat],
        current=seat,
        goals=goals,
        stack_counts=count,
        tops=top,
        unrevealed=[t for t in range(NUM_TILES) if t not in in_view],
        occupants=occ,
        balloon_space=bal,
        standing=standing,
        panoramas=pan,
        start_index=si,
        token_space=token,
        moon=moon,
        active_player=seat,
        held_tile=held,
        num_spaces=n,
        final_result=None,
    )
    return rebuilt


def _goals(state: PanoramaState, goals: Sequence[JSON]) -> list[str]:
    """The observation's goals (sky, river, terrain), checked against the options."""
    if len(goals) != 3:
        raise ValueError(f"goals must list 3 goal ids (sky, river, terrain), got {goals!r}")
    out: list[str] = []
    for i, g in enumerate(goals):
        fixed = state.goals[i]
        if fixed and g != fixed:
            raise ValueError(
                f"goals[{i}] is {g!r} but the options fix the {GOAL_COLOURS[i]} goal {fixed}"
            )
        if g not in GOALS_BY_COLOUR[i]:
            raise ValueError(
                f"goals[{i}] must be a {GOAL_COLOURS[i]} goal "
                f"({', '.join(GOALS_BY_COLOUR[i])}), got {g!r}"
            )
        out.append(str(g))
    return out


def _tile(name: JSON, where: str) -> int:
    """The index of panorama tile ``name`` (T01..T36)."""
    t = TILE_INDEX.get(name, -1) if isinstance(name, str) else -1
    if not 0 <= t < NUM_TILES:
        raise ValueError(f"{where} must be a panorama tile T01..T36, got {name!r}")
    return t


__all__ = ["from_observation"]
