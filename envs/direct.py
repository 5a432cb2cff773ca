"""Tensors read from a state's fields, for the games that have such an encoder.

:meth:`envs.tensors.Layout.encode` reads the JSON observation a bot receives, which the
engine builds for the purpose (ids as strings, a dict per entry, score breakdowns the
layout does not use). Building it is most of a step's cost, so the training environment
takes a shorter road where one is written here: the same vector, written straight from
the state's public, documented fields (the ones the game's observation is built from),
at the offsets of the game's own layout. ``tests/envs`` checks, at every step of random
playouts and for every seat, that it equals ``layout.encode(state.observation(seat))``,
so everything proved of the layout (no hidden information, the fields it describes) holds
for it too. A game without one here is encoded from its observation.

Panorama has one: its state is public (every seat sees the same), so the encoder only has
to rotate the seats. The other games are encoded from their observations.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from engine.core import State
from engine.panorama.data import PHASE_NAMES, REVEAL_NODE, TILE_IDS
from engine.panorama.state import PanoramaState
from envs.tensors import Field, Layout, OneHot, Record, Rows, Seats, Sink, Tokens, Vector

Direct = Callable[[State, int], Vector]
"""``(state, seat) -> the seat's tensor`` (equal to the layout's encoding)."""


def _offsets(layout: Layout) -> dict[str, tuple[int, Field]]:
    """Each top-level field of ``layout`` by key: (its offset, the field)."""
    out: dict[str, tuple[int, Field]] = {}
    at = 0
    for f in layout.fields:
        out[f.key or ""] = (at, f)
        at += f.width
    return out


def _inner(record: Field) -> dict[str, tuple[int, Field]]:
    """The fields of a :class:`Record` by key: (offset within the record, the field)."""
    assert isinstance(record, Record)
    out: dict[str, tuple[int, Field]] = {}
    at = 0
    for f in record.fields:
        out[f.key or ""] = (at, f)
        at += f.width
    return out


def _index(field: Field) -> dict[object, int]:
    assert isinstance(field, OneHot)  # Tokens too
    return cast(dict[object, int], field.index)


def panorama(layout: Layout, num_players: int) -> Direct:
    """The Panorama encoder of ``layout`` (envs.layouts) for ``num_players`` seats."""
    top = _offsets(layout)
    at_current = top["current_player"][0]
    at_phase, phase_field = top["phase"]
    phase_at = [_index(phase_field)[name] for name in PHASE_NAMES]
    at_pending, pending_field = top["pending_space"]
    pending_at = _index(pending_field)
    at_goals, goals_field = top["goals"]
    goal_at = _index(goals_field)
    at_num_spaces = top["num_spaces"][0]
    num_spaces_scale = 9.0
    at_token_space, token_field = top["token_space"]
    token_at = _index(token_field)
    at_face, face_field = top["token_face"]
    sun, moon = _index(face_field)["sun"], _index(face_field)["moon"]
    at_active = top["active_player"][0]
    at_held, held_field = top["held_tile"]
    tile_at = [_index(held_field)[t] for t in TILE_IDS]
    at_unrevealed = top["unrevealed_tiles"][0]
    at_spaces, spaces_field = top["spaces"]
    assert isinstance(spaces_field, Rows)
    space_width = spaces_field.item.width
    space = _inner(spaces_field.item)
    at_count, at_top, at_balloon_seat = (space[k][0] for k in ("count", "top", "balloon_seat"))
    at_players, players_field = top["players"]
    assert isinstance(players_field, Seats)
    player_width = players_field.item.width
    player = _inner(players_field.item)
    at_panorama, panorama_field = player["panorama"]
    assert isinstance(panorama_field, Tokens)
    panorama_at = [_index(panorama_field)[t] for t in TILE_IDS]
    at_start = player["start_index"][0]
    at_balloon_space, balloon_space_field = player["balloon_space"]
    balloon_space_at = _index(balloon_space_field)
    at_balloon, balloon_field = player["balloon"]
    balloon_at = _index(balloon_field)
    none_at, standing_at, deflated_at = (balloon_at[k] for k in ("none", "standing", "deflated"))
    at_scores = top["scores"][0]
    n = num_players
    size = layout.size

    def encode(state: State, seat: int) -> Vector:
        s = cast(PanoramaState, state)
        out = Sink()
        ones, spots, values = out.ones, out.spots, out.values
        if s.current >= 0:
            ones.append(at_current + (s.current - seat) % n)
        ones.append(at_phase + phase_at[s.phase])
        if s.phase == REVEAL_NODE and s.pending_space in pending_at:
            ones.append(at_pending + pending_at[s.pending_space])
        ones.extend([at_goals + goal_at[g] for g in s.goals])
        if s.num_spaces:
            spots.append(at_num_spaces)
            values.append(s.num_spaces / num_spaces_scale)
        if s.token_space in token_at:
            ones.append(at_token_space + token_at[s.token_space])
        ones.append(at_face + (moon if s.moon else sun))
        if s.active_player >= 0:
            ones.append(at_active + (s.active_player - seat) % n)
        if s.held_tile >= 0:
            ones.append(at_held + tile_at[s.held_tile])
        if s.unrevealed:
            spots.append(at_unrevealed)
            values.append(len(s.unrevealed) / 40.0)
        counts, tops, occupants = s.stack_counts, s.tops, s.occupants
        for i in range(s.num_spaces):
            base = at_spaces + i * space_width
            if counts[i]:
                spots.append(base + at_count)
                values.append(counts[i] / 4.0)
            if tops[i] >= 0:
                ones.append(base + at_top + tile_at[tops[i]])
            if occupants[i] >= 0:
                ones.append(base + at_balloon_seat + (occupants[i] - seat) % n)
        scores = s.scores()
        for q in range(n):
            rel = (q - seat) % n
            base = at_players + rel * player_width
            ones.extend([base + at_panorama + panorama_at[t] for t in s.panoramas[q]])
            if s.start_index[q]:
                spots.append(base + at_start)
                values.append(s.start_index[q] / 10.0)
            where = s.balloon_space[q]
            if where < 0:
                ones.append(base + at_balloon + none_at)
            else:
                if where in balloon_space_at:
                    ones.append(base + at_balloon_space + balloon_space_at[where])
                ones.append(base + at_balloon + (standing_at if s.standing[q] else deflated_at))
            if scores[q]:
                spots.append(at_scores + rel)
                values.append(scores[q] / 10.0)
        return out.vector(size)

    return encode


ENCODERS: dict[str, Callable[[Layout, int], Direct]] = {"panorama": panorama}
"""The games with an encoder from the state's fields, by id."""
