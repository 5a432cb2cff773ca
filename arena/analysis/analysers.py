"""Analysers: what puts a value on every legal action of a decision.

An analyser sees a decision exactly as the bot that made it did: a :class:`bots.base.Turn`
(the seat's observation, its legal actions, a seeded RNG and ``Turn.determinize``), never
the true state. It returns one value per legal action, higher being better for the seat,
in its :attr:`Analyser.unit`. Anything with that shape plugs in (``py:module:Class`` on
the command line, or an object passed to :func:`arena.analysis.evaluate.analyse_record`).

Two analysers ship:

- ``rollout`` (the default): for each of ``iterations`` determinizations, every legal
  action is applied to its own copy of the same determinization and the game is played
  out with the game heuristic's rollout policy for every seat (chance drawn with the
  engine's probabilities) to the end, or for ``depth`` decisions and then the heuristic's
  final-score estimate (by default to the end, but 4 decisions in Carson City Zoo and
  Dziobaki: :data:`DEFAULT_DEPTH`). The value is the mean **final score margin**: the seat's score
  minus the best rival's, in game points (the seat's own score in a game where seats
  cannot affect each other, e.g. Dziobaki). All actions share each determinization and
  each rollout's random seed (common random numbers), so the differences between actions
  are far less noisy than the values themselves.
- ``ismcts``: the reference ISMCTS (``bots.ismcts``) grown at the decision without
  progressive widening, so every legal action is a root child; the value is the root
  child's mean reward in [0, 1] (``bots.rewards``: half standing, half squashed margin).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from bots.base import Turn
from bots.heuristics import Heuristic, heuristic_for
from engine import CHANCE, TERMINAL, State
from engine.core import sample_outcome

DEFAULT_ITERATIONS = 8
"""Determinizations per action for ``rollout`` (each one a playout of every action)."""
DEFAULT_DEPTH: dict[str, int] = {"carson_city_zoo": 4, "dziobaki": 4}
"""Games whose playouts to the end are slow and noisy (long, capture-driven or
solitaire): there ``rollout`` stops after this many decisions and takes the heuristic's
final-score estimate. Measured: Dziobaki at 8 iterations to the end took 4.9 s per decision
and the best move agreed across two seeds 1 time in 10; with depth 4, 2.1 s and 5 in 6."""
MAX_ITERATIONS = 100_000
"""The largest budget accepted (a typo must not start a search of days)."""


@dataclass(frozen=True)
class Thresholds:
    """Losses (in the analyser's unit) from which a move is marked: an inaccuracy, a
    mistake, a blunder (each at least its threshold)."""

    inaccuracy: float
    mistake: float
    blunder: float

    def mark(self, loss: float) -> str | None:
        """The mark of a move that lost ``loss`` (None: a good move)."""
        if loss >= self.blunder:
            return "blunder"
        if loss >= self.mistake:
            return "mistake"
        if loss >= self.inaccuracy:
            return "inaccuracy"
        return None


@runtime_checkable
class Analyser(Protocol):
    """The interface of an analyser (see the module docstring)."""

    name: str
    """Short name, written into every annotation (with :attr:`budget`)."""
    unit: str
    """What a value means, e.g. ``score margin (points)``."""
    budget: str
    """The budget as given, e.g. ``iterations=8``: annotations are reproducible for the
    same game, analyser, budget and seed."""

    def values(self, turn: Turn) -> list[float]:
        """One value per ``turn.legal`` action, higher is better for ``turn.seat``;
        only ``turn`` (its observation, determinizations, RNG) may be used."""
        ...

    def thresholds(self, game_id: str) -> Thresholds:
        """The marks' thresholds for ``game_id``, in :attr:`unit`."""
        ...


def playout(state: State, seat: int, h: Heuristic, rng: random.Random, depth: int | None) -> float:
    """Play ``state`` on with the heuristic's rollout policy; the seat's final score margin
    (own score in a solitaire game), or its estimate after ``depth`` decisions."""
    decisions = 0
    while True:
        player = state.current_player
        if player == TERMINAL:
            scores = state.result().scores
            break
        if player == CHANCE:
            state.apply(sample_outcome(state.chance_outcomes(), rng))
            continue
        if depth is not None and decisions >= depth:
            scores = h.estimate(state)
            break
        legal = state.legal_actions()
        state.apply(legal[0] if len(legal) == 1 else h.rollout_action(state, legal, rng))
        decisions += 1
    own = float(scores[seat])
    if h.solitaire or len(scores) == 1:
        return own
    return own - max(float(s) for i, s in enumerate(scores) if i != seat)


class RolloutAnalyser:
    """Mean final score margin of each action over shared determinizations and playouts."""

    name = "rollout"
    unit = "score margin (points)"

    def __init__(
        self, iterations: int = DEFAULT_ITERATIONS, depth: int | str | None = None
    ) -> None:
        """``depth``: decisions played out before the estimate; ``end`` plays every game
        to its end; None: the game's default (:data:`DEFAULT_DEPTH`, else the end)."""
        if not 1 <= iterations <= MAX_ITERATIONS:
            raise ValueError(f"iterations must be 1..{MAX_ITERATIONS}")
        if depth is not None and depth != "end" and (not isinstance(depth, int) or depth < 0):
            raise ValueError(f"depth must be an integer >= 0 or 'end', got {depth!r}")
        self.iterations = int(iterations)
        self.depth = depth
        self.budget = f"iterations={self.iterations}" + (
            f",depth={depth}" if depth is not None else ""
        )

    def depth_for(self, game_id: str) -> int | None:
        """Decisions played out in ``game_id`` before the estimate (None: to the end)."""
        if self.depth == "end":
            return None
        if isinstance(self.depth, int):
            return self.depth
        return DEFAULT_DEPTH.get(game_id)

    def values(self, turn: Turn) -> list[float]:
        h = heuristic_for(turn.game.id)
        depth = self.depth_for(turn.game.id)
        totals = [0.0] * len(turn.legal)
        for _ in range(self.iterations):
            det = turn.determinize(turn.rng)
            seed = turn.rng.getrandbits(64)
            for i, action in enumerate(turn.legal):
                state = det.clone()
                state.apply(action)
                totals[i] += playout(state, turn.seat, h, random.Random(seed), depth)
        return [t / self.iterations for t in totals]

    def thresholds(self, game_id: str) -> Thresholds:
        """An eighth, a quarter and a half of the game's score scale (the margin at which
        the reference bots' rewards saturate, ``Heuristic.scale``)."""
        scale = heuristic_for(game_id).scale
        return Thresholds(scale / 8, scale / 4, scale / 2)


class IsmctsAnalyser:
    """Root values of the reference ISMCTS searched without widening (every action)."""

    name = "ismcts"
    unit = "ISMCTS reward (0-1)"

    def __init__(self, iterations: int = 400, **options: float | str) -> None:
        from bots.ismcts import IsmctsBot

        if not 1 <= iterations <= MAX_ITERATIONS:
            raise ValueError(f"iterations must be 1..{MAX_ITERATIONS}")
        self.bot = IsmctsBot(iterations=int(iterations), widen=0, **options)  # type: ignore[arg-type]  # options are checked by IsmctsBot
        self.budget = f"iterations={iterations}" + "".join(
            f",{k}={v}" for k, v in sorted(options.items())
        )

    def values(self, turn: Turn) -> list[float]:
        root = self.bot.search(turn, None)
        out = []
        for action in turn.legal:
            child = root.children.get(action)
            out.append(child.reward / child.visits if child is not None and child.visits else 0.0)
        return out

    def thresholds(self, game_id: str) -> Thresholds:
        return Thresholds(0.03, 0.07, 0.15)


ANALYSERS: dict[str, type[RolloutAnalyser] | type[IsmctsAnalyser]] = {
    "rollout": RolloutAnalyser,
    "ismcts": IsmctsAnalyser,
}


def make_analyser(spec: str, budget: str | None = None) -> Analyser:
    """The analyser of ``spec`` (``rollout``, ``ismcts``, with ``:key=value,...``, or
    ``py:module:Class[:key=value,...]``); ``budget`` (``iterations=N``) overrides the
    spec's budget. ValueError says what is wrong."""
    from arena.match.specs import parse_params
    from bots.registry import load_class

    text = spec.strip()
    if text.startswith("py:"):
        parts = text[3:].split(":")
        if len(parts) < 2:
            raise ValueError(f"{text!r}: expected py:<module>:<Class>[:key=value,...]")
        cls: type = load_class(f"{parts[0]}:{parts[1]}")
        params = parse_params(":".join(parts[2:]))
    else:
        name, _, rest = text.partition(":")
        if name not in ANALYSERS:
            raise ValueError(
                f"unknown analyser {name!r}; known: {', '.join(ANALYSERS)}, py:module:Class"
            )
        cls = ANALYSERS[name]
        params = parse_params(rest)
    if budget:
        for key, value in parse_params(budget).items():
            if key != "iterations":
                raise ValueError(
                    f"budget {budget!r}: only iterations=N is supported (a time budget "
                    "would make the annotations depend on the machine)"
                )
            params[key] = value
    try:
        analyser = cls(**params)
    except TypeError as exc:
        raise ValueError(f"analyser {text!r}: bad parameters: {exc}") from None
    if not isinstance(analyser, Analyser):
        raise ValueError(f"{text!r} is not an analyser (see arena.analysis.analysers.Analyser)")
    return analyser
