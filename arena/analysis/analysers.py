"""Analysers: what puts a value on every legal action of a decision.

An analyser sees a decision exactly as the bot that made it did: a :class:`bots.base.Turn`
(the seat's observation, its legal actions, a seeded RNG and ``Turn.determinize``), never
the true state. It returns one value per legal action, higher being better for the seat,
in its :attr:`Analyser.unit`. Anything with that shape plugs in (``py:module:Class`` on
the command line, or an object passed to :func:`arena.analysis.evaluate.analyse_record`).
An analyser may also have ``evaluate(turn, played)`` (``played``: the index of the move
played, or None) returning an :class:`Evaluation` (standard errors, ties, a debiased
loss), as ``rollout`` does; without it the plain values are compared, with no standard
error (:func:`arena.analysis.evaluate.evaluate_decision`).

Two analysers ship:

- ``rollout`` (the default): the value of an action is the mean **final score margin**
  (the seat's score minus the best rival's, in game points; the seat's own score where
  seats cannot affect each other, e.g. Dziobaki) over playouts from determinizations of
  the seat's information. A playout applies the action to a determinization and plays on
  with a **mixed policy** for every seat: the game heuristic's rollout move, but a uniform
  random move with probability ``epsilon`` (so the analyser does not share the greedy
  bot's blind spots), chance drawn with the engine's probabilities, to the end or for
  ``depth`` decisions and then the heuristic's final-score estimate. Its
  :meth:`RolloutAnalyser.evaluate` is built to be trusted:

  * **common random numbers**: every candidate of a sample is played from the same
    determinization with the same random seed, so differences between actions are
    measured on paired samples (their noise largely cancels);
  * **pruning** (``top_k``, Dziobaki): the heuristic's one-step value ranks the actions and
    only the best ``top_k`` (and the move played) are played out;
  * **racing**: after :data:`MIN_SAMPLES` samples, an action whose paired difference to the
    leader is more than :data:`Z` standard errors below it is dropped, and the budget it
    would have used goes to the close ones (up to :data:`MAX_SAMPLES_FACTOR` times the
    nominal samples each);
  * **ties**: the actions left whose paired difference to the best is within Z standard
    errors are tied with it (reported as ties, not as different best moves);
  * **debiased loss**: the best move and the move played are evaluated again on
    ``iterations`` fresh paired samples (the maximum of noisy means is biased upwards); the
    loss is that mean difference with its standard error, and is reported only when it
    exceeds Z standard errors (otherwise the move played is a tie with the best: loss 0).

- ``ismcts``: the reference ISMCTS (``bots.ismcts``) grown at the decision without
  progressive widening, so every legal action is a root child; the value is the root
  child's mean reward in [0, 1] (``bots.rewards``: half standing, half squashed margin).

The defaults per game (:data:`GAME_DEFAULTS`) were measured with
``python -m arena.analysis.measure`` (README, "Game analysis").
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from bots.base import Turn
from bots.heuristics import Heuristic, heuristic_for
from engine import CHANCE, TERMINAL, State
from engine.core import sample_outcome

Z = 2.0
"""Standard errors that make a difference between two actions "clear" (about 95%
two-sided): a clearly worse action is dropped from the race, and a smaller difference is a
tie."""
MIN_SAMPLES = 4
"""Paired samples every candidate gets before any is dropped (a standard error from fewer
is itself too noisy)."""
MAX_SAMPLES_FACTOR = 4
"""A candidate still racing gets at most this many times ``iterations`` samples (the budget
left by dropped ones is spent on the close ones, but not without bound)."""


@dataclass(frozen=True)
class GameDefaults:
    """The ``rollout`` analyser's default settings for one game."""

    iterations: int = 16
    """Nominal paired samples per candidate (and fresh samples for the loss)."""
    depth: int | None = None
    """Decisions played out before the heuristic's estimate (None: to the end)."""
    epsilon: float = 0.25
    """Probability of a uniform random move instead of the heuristic's rollout move."""
    top_k: int | None = None
    """Candidates kept by the heuristic's one-step value before the playouts (None: all)."""


GAME_DEFAULTS: dict[str, GameDefaults] = {
    "panorama": GameDefaults(epsilon=0.5),
    "zooloretto_mini": GameDefaults(epsilon=0.5),
    "carson_city_zoo": GameDefaults(depth=4),
    "manatee_sanctuary": GameDefaults(depth=6),
    "dziobaki": GameDefaults(depth=2, epsilon=0.5, top_k=6),
}
"""Per game, where it differs from :class:`GameDefaults`, chosen by measurement (README,
"Game analysis"; ``python -m arena.analysis.measure``). Panorama and Zooloretto Mini play
to the end with half the moves random: with a quarter, the playouts followed the greedy
bot's own choices so closely that it was found to lose less than ISMCTS (it does not: it
scores less than ISMCTS in both). Carson City Zoo's and Manatee Sanctuary's playouts to
the end are long and noisy (captures; harvests and returns), so they stop after a few
decisions and take the heuristic's estimate (in Manatee Sanctuary, playouts to the end
ranked greedy below random). Dziobaki has dozens of placements per decision, most clearly
bad: the heuristic keeps the best 6, and each playout makes the seat's next 2 placements
(the other seats' are random: they cannot change its score) before the estimate; with
the estimate right after the move (the greedy bot's own view) greedy never lost a point."""
MAX_ITERATIONS = 100_000
"""The largest budget accepted (a typo must not start a search of days)."""


def defaults_for(game_id: str) -> GameDefaults:
    """The ``rollout`` analyser's defaults for ``game_id``."""
    return GAME_DEFAULTS.get(game_id, GameDefaults())


@dataclass(frozen=True)
class Evaluation:
    """An analyser's full evaluation of one decision (see :meth:`RolloutAnalyser.evaluate`)."""

    values: list[float]
    """Mean value of every legal action (a pruned action: its one-step heuristic value
    shifted below the worst evaluated action, so it ranks last)."""
    stderrs: list[float | None]
    """Standard error of each value (None: not estimated, e.g. pruned or a plain analyser)."""
    samples: list[int]
    """Playouts behind each value (0: pruned before any playout)."""
    best: int
    """Index of the best action."""
    best_value: float
    """Its value (on fresh samples when the move played differs: not inflated by the
    selection)."""
    value: float
    """The value of the move played (on the same fresh samples as ``best_value``)."""
    loss: float
    """The loss of the move played: 0 when it is the best or tied with it, otherwise the
    mean paired difference to the best."""
    loss_se: float | None
    """The standard error of the measured difference (None: not estimated, or the move
    played is the best)."""
    value_se: float | None
    """The standard error of ``value`` (None: not estimated)."""
    tied: list[int] = field(default_factory=list)
    """Other actions within :data:`Z` standard errors of the best (the move played
    included when its difference is within the noise)."""


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


def playout(
    state: State,
    seat: int,
    h: Heuristic,
    rng: random.Random,
    depth: int | None,
    epsilon: float = 0.0,
) -> float:
    """Play ``state`` on with the mixed policy (the heuristic's rollout move, a uniform
    random one with probability ``epsilon``); the seat's final score margin (own score in a
    solitaire game), or its estimate after ``depth`` decisions.

    In a solitaire game (``Heuristic.solitaire``: no seat's move changes another's score)
    the other seats play uniformly at random, which costs nothing and cannot change the
    seat's value, and ``depth`` counts the seat's own decisions only."""
    solo = h.solitaire
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
        if solo and player != seat:
            state.apply(legal[rng.randrange(len(legal))])
            continue
        if len(legal) == 1:
            state.apply(legal[0])
        elif epsilon > 0 and rng.random() < epsilon:
            state.apply(legal[rng.randrange(len(legal))])
        else:
            state.apply(h.rollout_action(state, legal, rng))
        decisions += 1
    return margin(scores, seat, h)


def margin(scores: list[float] | list[int], seat: int, h: Heuristic) -> float:
    """The seat's score minus the best rival's (its own score in a solitaire game)."""
    own = float(scores[seat])
    if h.solitaire or len(scores) == 1:
        return own
    return own - max(float(s) for i, s in enumerate(scores) if i != seat)


def mean_se(xs: list[float]) -> tuple[float, float]:
    """The mean of ``xs`` and its standard error (0 for fewer than two samples)."""
    n = len(xs)
    mean = sum(xs) / n
    if n < 2:
        return mean, 0.0
    var = sum((x - mean) ** 2 for x in xs) / (n - 1)
    return mean, math.sqrt(var / n)


class RolloutAnalyser:
    """Mean final score margin of each action over paired playouts, raced and debiased
    (see the module docstring)."""

    name = "rollout"
    unit = "score margin (points)"

    def __init__(
        self,
        iterations: int | None = None,
        depth: int | str | None = None,
        epsilon: float | None = None,
        top_k: int | None = None,
    ) -> None:
        """Each setting None takes the game's default (:data:`GAME_DEFAULTS`).
        ``depth``: decisions played out before the estimate, ``end`` plays every game to
        its end; ``epsilon``: share of uniform random moves in playouts; ``top_k``:
        candidates kept by the heuristic before the playouts (0: all)."""
        if iterations is not None and not 1 <= iterations <= MAX_ITERATIONS:
            raise ValueError(f"iterations must be 1..{MAX_ITERATIONS}")
        if depth is not None and depth != "end" and (not isinstance(depth, int) or depth < 0):
            raise ValueError(f"depth must be an integer >= 0 or 'end', got {depth!r}")
        if epsilon is not None and not (
            isinstance(epsilon, int | float) and 0.0 <= float(epsilon) <= 1.0
        ):
            raise ValueError(f"epsilon must be a number in 0..1, got {epsilon!r}")
        if top_k is not None and (not isinstance(top_k, int) or top_k < 0):
            raise ValueError(f"top_k must be an integer >= 1 (0: all), got {top_k!r}")
        self.iterations = iterations
        self.depth = depth
        self.epsilon = None if epsilon is None else float(epsilon)
        self.top_k = top_k
        given = {"iterations": iterations, "depth": depth, "epsilon": epsilon, "top_k": top_k}
        self.budget = ",".join(f"{k}={v}" for k, v in given.items() if v is not None) or ("default")

    def settings(self, game_id: str) -> GameDefaults:
        """The settings used in ``game_id``: those given, else the game's defaults."""
        d = defaults_for(game_id)
        depth: int | None = d.depth
        if self.depth == "end":
            depth = None
        elif isinstance(self.depth, int):
            depth = self.depth
        return GameDefaults(
            iterations=self.iterations or d.iterations,
            depth=depth,
            epsilon=d.epsilon if self.epsilon is None else self.epsilon,
            top_k=d.top_k if self.top_k is None else (self.top_k or None),
        )

    def describe(self, game_id: str) -> str:
        """The settings in effect for ``game_id``, e.g. ``iterations=16,depth=4,...``."""
        s = self.settings(game_id)
        return (
            f"iterations={s.iterations},depth={'end' if s.depth is None else s.depth},"
            f"epsilon={s.epsilon:g},top_k={s.top_k or 'all'}"
        )

    def _sample(self, turn: Turn, actions: list[int], h: Heuristic, s: GameDefaults) -> list[float]:
        """One paired sample: ``actions`` played from the same determinization, each
        playout with the same random seed (common random numbers)."""
        det = turn.determinize(turn.rng)
        seed = turn.rng.getrandbits(64)
        out = []
        for i in actions:
            state = det.clone()
            state.apply(turn.legal[i])
            out.append(playout(state, turn.seat, h, random.Random(seed), s.depth, s.epsilon))
        return out

    def values(self, turn: Turn) -> list[float]:
        """Every action's mean over the same ``iterations`` paired samples (no pruning,
        no racing: the plain estimate)."""
        h = heuristic_for(turn.game.id)
        s = self.settings(turn.game.id)
        every = list(range(len(turn.legal)))
        totals = [0.0] * len(turn.legal)
        for _ in range(s.iterations):
            for i, v in enumerate(self._sample(turn, every, h, s)):
                totals[i] += v
        return [t / s.iterations for t in totals]

    def one_step(self, turn: Turn, h: Heuristic) -> list[float]:
        """The heuristic's value of the position right after each action (on one
        determinization, from a generator of its own: the cheap ranking used to prune)."""
        rng = random.Random(turn.rng.getrandbits(64))
        det = turn.determinize(rng)
        out = []
        for action in turn.legal:
            state = det.clone()
            state.apply(action)
            out.append(margin(h.estimate(state), turn.seat, h))
        return out

    def candidates(
        self, turn: Turn, played: int | None, h: Heuristic, top_k: int | None
    ) -> tuple[list[int], list[float] | None]:
        """The actions to play out (the ``top_k`` best by :meth:`one_step`, and the move
        played) and the one-step values (None when nothing is pruned)."""
        n = len(turn.legal)
        if top_k is None or n <= top_k:
            return list(range(n)), None
        prior = self.one_step(turn, h)
        order = sorted(range(n), key=lambda i: (-prior[i], i))
        keep = set(order[:top_k])
        if played is not None:
            keep.add(played)
        return sorted(keep), prior

    def evaluate(self, turn: Turn, played: int | None = None) -> Evaluation:
        """The decision evaluated with pruning, racing, ties and a debiased loss (module
        docstring); ``played`` is the index of the move played (kept in the race)."""
        h = heuristic_for(turn.game.id)
        s = self.settings(turn.game.id)
        n_legal = len(turn.legal)
        cands, prior = self.candidates(turn, played, h, s.top_k)
        samples: dict[int, list[float]] = {i: [] for i in cands}
        alive = list(cands)
        budget = s.iterations * len(cands)
        cap = MAX_SAMPLES_FACTOR * s.iterations
        spent = 0
        rounds = 0
        leader = alive[0]
        while rounds < cap and spent + len(alive) <= budget:
            for i, v in zip(alive, self._sample(turn, alive, h, s), strict=True):
                samples[i].append(v)
            spent += len(alive)
            rounds += 1
            leader = max(alive, key=lambda i: (sum(samples[i]), -i))
            if rounds < MIN_SAMPLES or len(alive) == 1:
                continue
            kept = []
            for i in alive:
                if i in (leader, played):
                    kept.append(i)
                    continue
                if not _clearly_worse(samples[leader], samples[i]):
                    kept.append(i)
            alive = kept
            if set(alive) <= {leader, played}:
                break
        best = leader
        tied = [
            i
            for i in alive
            if i not in (best, played) and not _clearly_worse(samples[best], samples[i])
        ]
        means = {i: mean_se(samples[i]) for i in cands}
        values = [0.0] * n_legal
        stderrs: list[float | None] = [None] * n_legal
        counts = [0] * n_legal
        for i, (m, se) in means.items():
            values[i], stderrs[i], counts[i] = m, se, len(samples[i])
        if prior is not None:  # pruned: ranked below every evaluated action
            floor = min(m for m, _ in means.values())
            top = max(prior[i] for i in range(n_legal) if i not in means)
            for i in range(n_legal):
                if i not in means:
                    values[i] = floor - 1.0 - (top - prior[i])
        if played is None or played == best:
            m, se_best = means[best]
            return Evaluation(values, stderrs, counts, best, m, m, 0.0, None, se_best, tied)
        fresh = [self._sample(turn, [best, played], h, s) for _ in range(s.iterations)]
        xb = [x[0] for x in fresh]
        xp = [x[1] for x in fresh]
        d, se = mean_se(_paired_diffs(xb, xp))
        loss = d if _clear(d, se) else 0.0
        if loss == 0.0:
            tied.append(played)
        value, value_se = mean_se(xp)
        return Evaluation(
            values, stderrs, counts, best, sum(xb) / len(xb), value, loss, se, value_se, tied
        )

    def thresholds(self, game_id: str) -> Thresholds:
        """An eighth, a quarter and a half of the game's score scale (the margin at which
        the reference bots' rewards saturate, ``Heuristic.scale``)."""
        scale = heuristic_for(game_id).scale
        return Thresholds(scale / 8, scale / 4, scale / 2)


def _clear(d: float, se: float) -> bool:
    """Whether a mean paired difference ``d`` (standard error ``se``) is clearly above 0:
    more than :data:`Z` standard errors (the one rule of racing, ties and the loss)."""
    return d > Z * se


def _paired_diffs(a: list[float], b: list[float]) -> list[float]:
    """Paired differences of two candidates' samples (the same samples: every candidate
    still racing was sampled in every round)."""
    return [x - y for x, y in zip(a, b, strict=True)]


def _clearly_worse(leader: list[float], other: list[float]) -> bool:
    """Whether ``other`` is clearly worse than ``leader`` on their paired samples."""
    return _clear(*mean_se(_paired_diffs(leader, other)))


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
