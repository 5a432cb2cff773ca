"""Apocalypse au Zoo de Carson City: captured values plus survivors, minus what is exposed.

The estimate of a seat's final score, read from the public observation:

* its current total (captured zoo cards + captured characters + surviving characters);
* an active character standing next to an active rival character of equal or higher
  value is probably lost: its value moves (in expectation) from its owner's survivors to
  the rival's captures, with a probability that is high when that rival moves next and
  low when the owner can still step away first;
* a mutated character next to someone's active character is a gift to that seat
  (anyone may take it whatever its value).

Hidden mutant backs are handled by the search bots' determinizations: the greedy bot
averages its evaluation over several resampled deals, so placing on a value-0..3 card
whose mutant is still unfound costs the expected loss of the character.

The rollout policy captures greedily (the highest value in reach, a character before a
zoo card of equal value), avoiding cards that may hide a still-unfound mutant, with some
randomness.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from bots.heuristics.base import Heuristic
from engine import Action, State
from engine.carson_city_zoo.actions import Move, Place
from engine.carson_city_zoo.data import DIR_INDEX, NEIGHBOURS, TARGET, character_value

P_NEXT = 0.75
"""Chance that a character threatened by the seat moving next is taken."""
P_LATER = 0.4
"""Chance for a threat by a seat that moves later (the owner may react first)."""
P_OWN_TURN = 0.25
"""Chance when the owner of the threatened character is the one to move now."""
P_MUTANT_GIFT = 0.5


def owners(obs: Mapping[str, Any]) -> dict[str, int]:
    """Team letter -> seat."""
    return {p["team"]: p["seat"] for p in obs["players"]}


def threat_adjustments(obs: Mapping[str, Any], num_players: int) -> list[float]:
    """Expected gains and losses from exposed characters (see the module docstring)."""
    adj = [0.0] * num_players
    team_seat = owners(obs)
    to_move = obs["current_player"]
    spaces: Sequence[Mapping[str, Any]] = obs["spaces"]
    for sp in spaces:
        occ = sp["occupant"]
        if not occ:
            continue
        owner = team_seat.get(occ[0], -1)
        v = character_value(occ)
        best_p = 0.0
        best_seat = -1
        for _d, nb in NEIGHBOURS[sp["space"]]:
            other = spaces[nb]["occupant"]
            if not other or spaces[nb]["mutated"]:
                continue
            q = team_seat.get(other[0], -1)
            if sp["mutated"]:
                p = P_MUTANT_GIFT
            elif q == owner or character_value(other) < v:
                continue
            elif owner == to_move:
                p = P_OWN_TURN
            elif q == to_move:
                p = P_NEXT
            else:
                p = P_LATER
            if p > best_p:
                best_p, best_seat = p, q
        if best_seat < 0:
            continue
        adj[best_seat] += best_p * v
        if not sp["mutated"] and 0 <= owner < num_players:
            adj[owner] -= best_p * v
    return adj


class CarsonHeuristic(Heuristic):
    game_id = "carson_city_zoo"
    scale = 8.0
    samples = 4
    rollout_depth = 0  # the tree plus this evaluation beat noisy capture rollouts
    own_weight = 0.5  # half of the reward is the own score against the others' average
    root_bias = 3.0  # lean on the greedy one-step values (threats, mutant risk) at the root
    exploration = 0.4

    def estimate(self, state: State) -> list[float]:
        obs = state.observation(None)
        totals = [float(p["total"]) for p in obs["players"]]
        if state.is_terminal():
            return totals
        adj = threat_adjustments(obs, state.num_players)
        return [t + a for t, a in zip(totals, adj, strict=True)]

    def prior(self, state: State, legal: list[Action], rng: random.Random) -> list[float]:
        return capture_values(state.observation(None), legal)

    def rollout_action(self, state: State, legal: list[Action], rng: random.Random) -> Action:
        if rng.random() < 0.25:
            return legal[rng.randrange(len(legal))]
        values = capture_values(state.observation(None), legal)
        best = max(range(len(legal)), key=lambda i: values[i] + rng.random() * 0.5)
        return legal[best]


def capture_values(obs: Mapping[str, Any], legal: Sequence[Action]) -> list[float]:
    """What each action captures (a character slightly above a zoo card of equal value),
    minus the expected loss of the character when the card may hide an unfound mutant."""
    spaces = obs["spaces"]
    found = obs["mutant_found"]
    where = {sp["occupant"]: sp["space"] for sp in spaces if sp["occupant"]}
    out = []
    for a in legal:
        match a:
            case Place(char=char, space=target):
                pass
            case Move(char=char, dir=direction):
                target = TARGET[where[char]][DIR_INDEX[direction]]
            case _:
                raise TypeError(f"not a Carson City Zoo decision: {a}")
        v_char = character_value(char)
        sp = spaces[target]
        if sp["occupant"]:
            v = character_value(sp["occupant"]) + 0.5
        else:
            top = sp["top_value"]
            v = float(top)
            if 0 <= top < 4 and not found[top]:
                v -= 0.15 * v_char
        out.append(v)
    return out


HEURISTIC = CarsonHeuristic()
