"""What a per-game heuristic provides, and the generic fallback.

A :class:`Heuristic` estimates every seat's **final** score from a full state (a real
state or a determinization: search bots only ever hand it states drawn with
``resample``, so it may look at the whole state without cheating). The greedy bot turns
the estimate into the value of a move for one seat; ISMCTS turns it into rewards at the
rollout cutoff. The estimate is the current score plus what a thoughtful player would
count on (open enclosures, pending captures, food shortages, ...), documented per game.

**Cost.** The greedy bot evaluates every candidate move (and its follow-ups), ISMCTS
every rollout step, so the five game modules read the state's fields and the engine's
``State.scores()`` directly instead of building an observation per evaluation, and
evaluate incrementally where a full re-score per candidate would dominate (Dziobaki
remembers each board's evaluation: a placement changes one board). Every such fast path
is tested equal, bit for bit, to the observation-based original on every position of
random games (``tests/bots/test_state_heuristics.py``).

:class:`ObservedScores` is the generic fallback for a game without its own module: the
current score of every seat as the spectator observation's header shows it (``scores``,
which every game's observation carries: ``state.scores()``, provisional during play), so
every registered game gets a greedy and an ISMCTS bot.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from engine import Action, State
from engine.core import JSON


class Heuristic:
    """Per-game knowledge for the reference bots (override :meth:`estimate`)."""

    game_id: str = ""
    scale: float = 10.0
    """A typical final-score difference between a good and a poor player (reward scaling)."""
    samples: int = 1
    """Determinizations the greedy bot averages over (1 when nothing relevant is hidden)."""
    rival_weight: float = 0.5
    """How much the greedy bot values lowering the best rival's estimate (0 = own score only)."""
    rollout_depth: int = 20
    """Decisions an ISMCTS rollout plays before the position is scored with ``estimate``."""
    own_weight: float = 0.0
    """Share of ISMCTS's reward given to the own score against the others' average (the
    rest: standing and margin over the best rival); see :func:`bots.rewards.rewards`."""
    root_bias: float = 1.0
    """Weight of ISMCTS's progressive bias towards the greedy bot's choice at the root."""
    exploration: float = 0.7
    """ISMCTS's UCB exploration constant for this game (rewards lie in [0, 1])."""
    solitaire: bool = False
    """True when no seat's decisions affect another seat's score (Dziobaki): ISMCTS then
    rewards each seat by its own score and does not branch on the other seats' moves."""

    def estimate(self, state: State) -> list[float]:
        """Estimated final score of every seat of ``state`` (a full state)."""
        return observed_scores(state.observation(None), state.num_players)

    def value(self, estimates: Sequence[float], seat: int) -> float:
        """One number for ``seat``: own estimate minus a share of the best rival's."""
        own = estimates[seat]
        if len(estimates) < 2 or self.rival_weight == 0:
            return own
        best_other = max(e for i, e in enumerate(estimates) if i != seat)
        return own - self.rival_weight * best_other

    def prior(self, state: State, legal: list[Action], rng: random.Random) -> list[float] | None:
        """Cheap scores ranking ``legal`` (higher first) for ISMCTS's progressive widening
        below the root, or None to consider every action (the default)."""
        return None

    def rollout_action(self, state: State, legal: list[Action], rng: random.Random) -> Action:
        """The move a cheap rollout policy plays (default: uniform random)."""
        return legal[rng.randrange(len(legal))]

    def forget(self) -> None:
        """Drop whatever the heuristic remembers between calls (e.g. Dziobaki's board
        evaluations), so a benchmark's repeats each start cold. Values never depend on
        it: a remembered evaluation is the one computed afresh."""


class ObservedScores(Heuristic):
    """Fallback: the current score of every seat, read from the spectator observation."""

    def __init__(self, game_id: str = "") -> None:
        self.game_id = game_id


def observed_scores(obs: Mapping[str, JSON], num_players: int) -> list[float]:
    """The per-seat current scores of an observation: its header's ``scores`` (the engine
    contract: every game's observation carries ``scores``, one number per seat).

    >>> observed_scores({"you": None, "current_player": 0, "phase": "play", "scores": [3, 5]}, 2)
    [3.0, 5.0]

    A ValueError names what is wrong when ``scores`` is missing or not one number per seat.
    """
    scores = obs.get("scores")
    if not isinstance(scores, list) or len(scores) != num_players:
        raise ValueError(
            f"the observation header's scores must list {num_players} numbers, got {scores!r}"
        )
    if not all(isinstance(s, int | float) and not isinstance(s, bool) for s in scores):
        raise ValueError(f"the observation header's scores must be numbers, got {scores!r}")
    return [float(s) for s in scores]
