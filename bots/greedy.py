"""``greedy``: one-step lookahead with a per-game evaluation.

For each legal action the bot applies it to a determinization of its information set
(``Turn.determinize``; averaged over ``samples`` of them when something relevant is
hidden), lets the rest of its own turn follow greedily (a turn that is several decisions
long, such as taking a truck and then placing its tiles, is valued by its best
continuation), takes the expectation over ``chance`` sampled outcomes of the first chance
node that follows, and scores the resulting position with the game's heuristic
(:mod:`bots.heuristics`): own estimated final score minus half the best rival's. Ties are
broken with the turn's seeded RNG, so the bot is deterministic given the seed. Options:
``greedy:samples=4,chance=3,rival=0.5``.

What the evaluation counts, game by game (details in each ``bots/heuristics/<game>``):

* **Zooloretto Mini** values a truck by the enclosure points its tiles add (filling an
  enclosure towards the 5- and 6-animal steps, new landscape kinds, offspring) minus the
  barn penalties of tiles with no room, places each tile where it adds most, and, when
  drawing, loads the tile on the truck that is best for itself (worst for the next
  player); open enclosures are worth part of the points still reachable with the
  undrawn tiles of their species.
* **Carson City Zoo** counts captured zoo cards and characters plus its surviving
  characters, expects the hidden mutant backs over several determinizations (so it
  avoids the value-0..3 cards while their mutant is still unfound), and discounts a
  character standing next to a stronger or equal rival (it will probably be taken) and
  a mutated character that a rival can reach.
* **Dziobaki** scores its board with meadows closed by rivers counted exactly, open
  single-species meadows counted at most of their value, and a penalty for an empty
  space that touches open meadows of different species (a future tile must separate
  them or they merge into a mixed meadow that scores nothing).
* **Panorama** counts terrain points (flowers × animals per zone), the three goal tokens
  as they would be awarded now, and a share of the flowers × animals still reachable in
  zones open at either end of the panorama; taking a far stack is charged for the turns
  it costs (the time track).
* **Manatee Sanctuary** counts score plus the points of the housed manatees in the
  coming scoring phases, minus the returns a food shortage or a lack of space will
  force (2 points each plus the lost points), with food, habitat and completed flowers
  (future harvests and expansions) valued, and end-game scoring cards counted.
"""

from __future__ import annotations

import random

from bots.base import Turn
from bots.heuristics import Heuristic, heuristic_for
from engine import CHANCE, TERMINAL, Action, State
from engine.core import sample_outcome

MAX_CHAIN = 40
"""Longest own-turn continuation the greedy bot follows (guards against endless turns)."""


class GreedyBot:
    """One-step greedy with per-game evaluation (see the module docstring)."""

    name = "greedy"
    version = "1"

    def __init__(
        self, samples: int | None = None, chance: int = 3, rival: float | None = None
    ) -> None:
        if samples is not None and samples < 1:
            raise ValueError("samples must be >= 1")
        if chance < 1:
            raise ValueError("chance must be >= 1")
        self.samples = samples
        self.chance = chance
        self.rival = rival
        self.heuristic: Heuristic | None = None
        """Overrides the game's heuristic (for experiments and tests)."""

    def choose(self, turn: Turn) -> int:
        legal = turn.legal
        if len(legal) == 1:
            return 0
        h = self.heuristic or heuristic_for(turn.game.id)
        values = action_values(
            turn, h, self.samples or h.samples, self.chance, self.rival, turn.rng
        )
        best = max(values)
        ties = [i for i, v in enumerate(values) if v >= best - 1e-9]
        return ties[0] if len(ties) == 1 else ties[turn.rng.randrange(len(ties))]


def action_values(
    turn: Turn,
    h: Heuristic,
    samples: int,
    chance: int,
    rival: float | None,
    rng: random.Random,
) -> list[float]:
    """The greedy value of every legal action of ``turn`` (averaged over determinizations)."""
    seat = turn.seat
    values = [0.0] * len(turn.legal)
    for _ in range(samples):
        det = turn.determinize(rng)
        for i, action in enumerate(turn.legal):
            after = det.clone()
            after.apply(action)
            values[i] += follow(after, seat, h, rng, chance, rival)
    return values


def evaluate(state: State, seat: int, h: Heuristic, rival: float | None) -> float:
    """The heuristic value of ``state`` for ``seat``."""
    estimates = h.estimate(state)
    if rival is None:
        return h.value(estimates, seat)
    own = estimates[seat]
    others = [e for i, e in enumerate(estimates) if i != seat]
    return own - rival * max(others) if others else own


def follow(
    state: State,
    seat: int,
    h: Heuristic,
    rng: random.Random,
    chance: int,
    rival: float | None,
    depth: int = 0,
) -> float:
    """Value of ``state`` after ``seat``'s move: chance expected, own turn completed greedily."""
    while depth < MAX_CHAIN:
        player = state.current_player
        if player == TERMINAL:
            break
        if player == CHANCE:
            outcomes = state.chance_outcomes()
            if chance > 1 and len(outcomes) > 1:
                return _expect(state, seat, h, rng, chance, rival, depth, outcomes)
            state.apply(sample_outcome(outcomes, rng))
            continue
        if player != seat:
            break
        legal = state.legal_actions()
        depth += 1
        if len(legal) == 1:
            state.apply(legal[0])
            continue
        best_state: State | None = None
        best_value = -float("inf")
        for action in legal:
            nxt = state.clone()
            nxt.apply(action)
            while nxt.current_player == CHANCE:
                nxt.apply(sample_outcome(nxt.chance_outcomes(), rng))
            v = evaluate(nxt, seat, h, rival)
            if v > best_value:
                best_value, best_state = v, nxt
        assert best_state is not None
        state = best_state
    return evaluate(state, seat, h, rival)


def _expect(
    state: State,
    seat: int,
    h: Heuristic,
    rng: random.Random,
    chance: int,
    rival: float | None,
    depth: int,
    outcomes: list[tuple[Action, float]],
) -> float:
    """Expectation over the chance node of ``state``: exact if small, else sampled."""
    if len(outcomes) <= chance:
        total = 0.0
        for outcome, p in outcomes:
            child = state.clone()
            child.apply(outcome)
            total += p * follow(child, seat, h, rng, 1, rival, depth)
        return total
    total = 0.0
    for _ in range(chance):
        child = state.clone()
        child.apply(sample_outcome(outcomes, rng))
        total += follow(child, seat, h, rng, 1, rival, depth)
    return total / chance
