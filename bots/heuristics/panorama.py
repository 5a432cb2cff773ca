"""Panorama: flowers × animals per zone, the goals as they stand, and the time track.

The estimate of a seat's final score, read from the state's public fields (no
observation is built):

* its current points: terrain points (each zone's flowers × animals) and the three goal
  tokens awarded as if the game ended now;
* a share of what the zones open at either end of its panorama may still gain: a zone
  that reaches the first or last tile gains about (its flowers + its animals) per item
  added to it, counted with ``OPEN_WEIGHT`` while turns remain (a zone with flowers but
  no animal is the classic "one animal away from scoring");
* the time track: the token visits the balloons clockwise, so a seat near the token
  (clockwise) moves soon and often, and a seat that flew far ahead waits; each place in
  that queue costs ``TEMPO`` points, which is what charges a far flight for the turns it
  gives away. In the moon phase every standing balloon has exactly one turn left.

The rollout policy flies to a random free space, preferring near spaces (tempo) and top
tiles with many flowers and animals, and places the tile at the end that scores more.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache

from bots.heuristics.base import Heuristic
from engine import Action, State
from engine.panorama.actions import Fly, Place
from engine.panorama.data import FLY_PHASE, LAND, OVER, TILE_INFO
from engine.panorama.scoring import analyse, areas
from engine.panorama.state import PanoramaState

OPEN_WEIGHT = 0.35
TEMPO = 1.5
TILE_VALUE = tuple(
    0.5 * sum(c.flowers + c.animals for c in info.comps) + 0.3 * info.crows - 0.2 * info.clouds
    for info in TILE_INFO
)
"""A rough worth of a tile by its items (rollouts choose stacks by it)."""


@lru_cache(maxsize=16384)
def open_potential(tiles: tuple[int, ...]) -> float:
    """Flowers + animals of the land zones that reach either end of the panorama."""
    last = len(tiles) - 1
    total = 0.0
    for area in areas(tiles):
        if area.terrain in LAND and (0 in area.tiles or last in area.tiles):
            total += area.flowers + area.animals
    return total


def queue_ranks(state: PanoramaState) -> list[int]:
    """For each seat, how many standing balloons move before it (-1 if deflated)."""
    n = state.num_spaces
    token = state.token_space
    active = state.active_player
    flying = state.phase == FLY_PHASE
    ranks = [-1] * state.num_players
    order: list[tuple[int, int]] = []
    for seat, space in enumerate(state.balloon_space):
        if space < 0 or not state.standing[seat]:
            continue
        dist = 0 if seat == active and flying else (space - token) % n
        order.append((dist if dist else (0 if seat == active else n), seat))
    for rank, (_, seat) in enumerate(sorted(order)):
        ranks[seat] = rank
    return ranks


def place_gain(tiles: Sequence[int], start: int, tile: int) -> tuple[float, float]:
    """Terrain points after adding ``tile`` on the (left, right) end."""
    left = analyse((tile, *tiles), start + 1).points
    right = analyse((*tiles, tile), start).points
    return float(sum(left)), float(sum(right))


class PanoramaHeuristic(Heuristic):
    game_id = "panorama"
    scale = 10.0
    samples = 1
    rollout_depth = 8
    exploration = 0.3
    open_weight = OPEN_WEIGHT
    tempo = TEMPO

    def estimate(self, state: State) -> list[float]:
        st = _panorama(state)
        out = [float(x) for x in st.scores()]
        if st.phase == OVER or st.is_terminal():
            return out
        moon = st.moon
        ranks = queue_ranks(st)
        progress = min(1.0, sum(st.stack_counts) / (4.0 * st.num_spaces))
        held = st.held_tile
        for seat, space in enumerate(st.balloon_space):
            if space < 0 or not st.standing[seat]:
                continue
            tiles = tuple(st.panoramas[seat])
            start = st.start_index[seat]
            if held >= 0 and seat == st.active_player:
                lft, rgt = place_gain(tiles, start, held)
                base = float(sum(analyse(tiles, start).points))
                out[seat] += max(lft, rgt) - base
            weight = self.open_weight * (0.3 if moon else 0.3 + 0.7 * progress)
            out[seat] += weight * open_potential(tiles)
            if not moon and ranks[seat] >= 0:
                out[seat] -= self.tempo * ranks[seat]
        return out

    def rollout_action(self, state: State, legal: list[Action], rng: random.Random) -> Action:
        st = _panorama(state)
        match legal[0]:
            case Place(end=first_end):
                seat = st.active_player
                tiles = tuple(st.panoramas[seat])
                lft, rgt = place_gain(tiles, st.start_index[seat], st.held_tile)
                if lft == rgt:
                    return legal[rng.randrange(len(legal))]
                return legal[0] if (lft > rgt) == (first_end == "left") else legal[1]
        n = st.num_spaces
        token = st.token_space
        tops = st.tops
        best, best_v = legal[0], -1e9
        for a in legal:
            match a:
                case Fly(space=space):
                    top = tops[space] if 0 <= space < n else -1
                    v = rng.random() * 3.0 - 0.4 * ((space - token) % n)
                    if top >= 0:
                        v += TILE_VALUE[top]
                    if v > best_v:
                        best, best_v = a, v
        return best


def _panorama(state: State) -> PanoramaState:
    """``state`` as a Panorama state: the heuristic reads its public fields (building an
    observation per evaluation cost more than the evaluation)."""
    if not isinstance(state, PanoramaState):
        raise TypeError(f"the Panorama heuristic needs a Panorama state, got {type(state)!r}")
    return state


HEURISTIC = PanoramaHeuristic()
