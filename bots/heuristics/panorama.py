"""Panorama: flowers × animals per zone, the goals as they stand, and the time track.

The estimate of a seat's final score, read from the public observation:

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
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from bots.heuristics.base import Heuristic
from engine import Action, State
from engine.panorama.actions import Fly, Place
from engine.panorama.data import LAND, TILE_INDEX, TILE_INFO
from engine.panorama.scoring import analyse, areas

OPEN_WEIGHT = 0.35
TEMPO = 1.5
TILE_VALUE = tuple(
    0.5 * sum(c.flowers + c.animals for c in info.comps) + 0.3 * info.crows - 0.2 * info.clouds
    for info in TILE_INFO
)
"""A rough worth of a tile by its items (rollouts choose stacks by it)."""


def panorama_tiles(player: Mapping[str, Any]) -> tuple[int, ...]:
    """Tile indices of a player's panorama, left to right."""
    return tuple(TILE_INDEX[t] for t in player["panorama"])


@lru_cache(maxsize=16384)
def open_potential(tiles: tuple[int, ...]) -> float:
    """Flowers + animals of the land zones that reach either end of the panorama."""
    last = len(tiles) - 1
    total = 0.0
    for area in areas(tiles):
        if area.terrain in LAND and (0 in area.tiles or last in area.tiles):
            total += area.flowers + area.animals
    return total


def queue_ranks(obs: Mapping[str, Any]) -> list[int]:
    """For each seat, how many standing balloons move before it (-1 if deflated)."""
    n = obs["num_spaces"]
    token = obs["token_space"]
    active = obs["active_player"]
    ranks = [-1] * len(obs["players"])
    order: list[tuple[int, int]] = []
    for p in obs["players"]:
        if p["balloon"] != "standing":
            continue
        seat = p["seat"]
        dist = 0 if seat == active and obs["phase"] == "fly" else (p["balloon_space"] - token) % n
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
        obs = state.observation(None)
        players = obs["players"]
        out = [float(p["points"]["total"]) for p in players]
        if obs["phase"] == "game_over" or state.is_terminal():
            return out
        moon = obs["token_face"] == "moon"
        ranks = queue_ranks(obs)
        left = sum(sp["count"] for sp in obs["spaces"])
        progress = min(1.0, left / (4.0 * obs["num_spaces"]))
        for seat, p in enumerate(players):
            if p["balloon"] != "standing":
                continue
            tiles = panorama_tiles(p)
            held = obs["held_tile"]
            if held and seat == obs["active_player"]:
                lft, rgt = place_gain(tiles, p["start_index"], TILE_INDEX[held])
                base = float(sum(analyse(tiles, p["start_index"]).points))
                out[seat] += max(lft, rgt) - base
            weight = self.open_weight * (0.3 if moon else 0.3 + 0.7 * progress)
            out[seat] += weight * open_potential(tiles)
            if not moon and ranks[seat] >= 0:
                out[seat] -= self.tempo * ranks[seat]
        return out

    def rollout_action(self, state: State, legal: list[Action], rng: random.Random) -> Action:
        obs = state.observation(None)
        match legal[0]:
            case Place(end=first_end):
                seat = obs["active_player"]
                p = obs["players"][seat]
                tiles = panorama_tiles(p)
                lft, rgt = place_gain(tiles, p["start_index"], TILE_INDEX[obs["held_tile"]])
                if lft == rgt:
                    return legal[rng.randrange(len(legal))]
                return legal[0] if (lft > rgt) == (first_end == "left") else legal[1]
        n = obs["num_spaces"]
        token = obs["token_space"]
        tops = {sp["space"]: sp["top"] for sp in obs["spaces"]}
        best, best_v = legal[0], -1e9
        for a in legal:
            match a:
                case Fly(space=space):
                    top = tops.get(space)
                    v = rng.random() * 3.0 - 0.4 * ((space - token) % n)
                    if top:
                        v += TILE_VALUE[TILE_INDEX[top]]
                    if v > best_v:
                        best, best_v = a, v
        return best


HEURISTIC = PanoramaHeuristic()
