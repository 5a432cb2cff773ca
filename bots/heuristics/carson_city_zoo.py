"""Apocalypse au Zoo de Carson City: captured values plus survivors, minus what is exposed.

The estimate of a seat's final score, read from the state's public fields (no
observation is built):

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
from collections.abc import Sequence

from bots.heuristics.base import Heuristic
from engine import Action, State
from engine.carson_city_zoo.actions import Move, Place
from engine.carson_city_zoo.data import (
    CARD_MUTANT,
    CARD_VALUE,
    DEAL,
    DIR_INDEX,
    NEIGHBOURS,
    NUM_SPACES,
    TARGET,
    character_value,
)
from engine.carson_city_zoo.state import CarsonCityZooState

P_NEXT = 0.75
"""Chance that a character threatened by the seat moving next is taken."""
P_LATER = 0.4
"""Chance for a threat by a seat that moves later (the owner may react first)."""
P_OWN_TURN = 0.25
"""Chance when the owner of the threatened character is the one to move now."""
P_MUTANT_GIFT = 0.5


def threat_adjustments(state: CarsonCityZooState) -> list[float]:
    """Expected gains and losses from exposed characters (see the module docstring).

    Characters are indices ``c = 4 * seat + value - 3`` (the engine's roster), so the
    owner and the value of a character are read off its index."""
    adj = [0.0] * state.num_players
    to_move = state.current
    occupant = state.occupant
    mutated = state.mutated
    for space, occ in enumerate(occupant):
        if occ < 0:
            continue
        owner = occ // 4
        v = occ % 4 + 3
        occ_mutated = mutated[occ]
        best_p = 0.0
        best_seat = -1
        for _d, nb in NEIGHBOURS[space]:
            other = occupant[nb]
            if other < 0 or mutated[other]:
                continue
            q = other // 4
            if occ_mutated:
                p = P_MUTANT_GIFT
            elif q == owner or other % 4 + 3 < v:
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
        if not occ_mutated:
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
        st = _carson(state)
        totals = [float(t) for t in st.scores()]
        if st.is_terminal():
            return totals
        adj = threat_adjustments(st)
        return [t + a for t, a in zip(totals, adj, strict=True)]

    def prior(self, state: State, legal: list[Action], rng: random.Random) -> list[float]:
        return capture_values(_carson(state), legal)

    def rollout_action(self, state: State, legal: list[Action], rng: random.Random) -> Action:
        if rng.random() < 0.25:
            return legal[rng.randrange(len(legal))]
        values = capture_values(_carson(state), legal)
        best = max(range(len(legal)), key=lambda i: values[i] + rng.random() * 0.5)
        return legal[best]


def capture_values(state: CarsonCityZooState, legal: Sequence[Action]) -> list[float]:
    """What each action captures (a character slightly above a zoo card of equal value),
    minus the expected loss of the character when the card may hide an unfound mutant."""
    found = [False] * 4  # the mutants already captured, by face value
    for pile in state.zoo_piles:
        for card in pile:
            if CARD_MUTANT[card]:
                found[CARD_VALUE[card]] = True
    index = state.roster.index
    cpos = state.character_space
    occupant = state.occupant
    dealing = state.phase == DEAL
    top, bottom = state.top, state.bottom
    # What landing on each space captures, worked out once per space rather than once per
    # action (a wide node lists 100 placements onto 25 spaces): the engine's
    # ``top_value`` inlined, and whether that face may hide a still-unfound mutant.
    gain: list[float] = []
    risky: list[bool] = []
    for s in range(NUM_SPACES):
        occ = occupant[s]
        if occ >= 0:
            gain.append(occ % 4 + 3 + 0.5)
            risky.append(False)
            continue
        card = -1 if dealing else (top[s] if top[s] >= 0 else bottom[s])
        face = CARD_VALUE[card] if card >= 0 else -1
        gain.append(float(face))
        risky.append(0 <= face < 4 and not found[face])
    out: list[float] = []
    for a in legal:
        if type(a) is Place:
            target = a.space
        elif type(a) is Move:
            target = TARGET[cpos[index[a.char]]][DIR_INDEX[a.dir]]
        else:
            raise TypeError(f"not a Carson City Zoo decision: {a}")
        if risky[target]:
            out.append(gain[target] - 0.15 * character_value(a.char))
        else:
            out.append(gain[target])
    return out


def _carson(state: State) -> CarsonCityZooState:
    """``state`` as a Carson City Zoo state: the heuristic reads its public fields
    (building an observation per evaluation cost more than the evaluation)."""
    if not isinstance(state, CarsonCityZooState):
        raise TypeError(f"the Carson City Zoo heuristic needs its state, got {type(state)!r}")
    return state


HEURISTIC = CarsonHeuristic()
