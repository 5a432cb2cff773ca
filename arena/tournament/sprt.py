"""Early stopping: a GSPRT for two-bot matches, and "until separated" for more bots.

**SPRT** (``--sprt elo0=0,elo1=10,alpha=0.05,beta=0.05``), as fastchess and cutechess users
know it. The schedule plays every seed in both seat rotations (the duplicate format), so
results come in *pairs* of games on one seed; a pair's score for the first bot is one of
0, ¼, ½, ¾, 1 (the mean of its two game scores, a tie half): the *pentanomial*
distribution, which takes the correlation of the two games of a pair into account (a
trinomial count of single games would overstate the evidence of a lucky deal). H0: the
first bot's logistic Elo advantage is ``elo0``; H1: it is ``elo1``. The log-likelihood
ratio is the generalised one (GSPRT, Michel Van den Bergh's, as in fastchess): the
pentanomial frequencies are fitted by maximum likelihood under the constraint that their
mean is the score of ``elo0`` (resp. ``elo1``), and the LLR is ``N Σ p̂ log(p₁/p₀)`` over
the N complete pairs. The test stops at ``LLR ≥ log((1-β)/α)`` (H1 accepted) or
``LLR ≤ log(β/(1-α))`` (H0 accepted); the schedule's size (``rounds``) is its budget.

**Until separated** (``--until-separated``): for any number of bots, the tournament stops
once, in the order of the headline rating, every bot's 95 % interval lies entirely above
the next one's, checked after every complete round (a seat rotation of every group), or
when the schedule (the game budget) is played.

>>> spec = SprtSpec.parse("elo0=0,elo1=10,alpha=0.05,beta=0.05")
>>> round(spec.lower, 3), round(spec.upper, 3)
(-2.944, 2.944)
>>> state = sprt_state([0, 0, 0, 0, 0], spec)
>>> state.llr, state.decision
(0.0, None)
>>> sprt_state([5, 30, 60, 120, 60], spec).decision
'H1'
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from arena.errors import UserError
from arena.tournament.ratings import GameSummary, RatingFit, pair_score

PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""The five outcomes of a pair of games, as a score of the first bot."""
REGULARISE = 1e-3
"""Added to every pentanomial count so that an outcome not seen yet has a small but
nonzero frequency (fastchess does the same); negligible once a few pairs are in."""


def elo_to_score(elo: float) -> float:
    """The expected score of a logistic Elo advantage."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def score_to_elo(score: float) -> float:
    score = min(max(score, 1e-9), 1 - 1e-9)
    return -400.0 * math.log10(1.0 / score - 1.0)


@dataclass(frozen=True)
class SprtSpec:
    """The hypotheses and error rates of an SPRT."""

    elo0: float
    elo1: float
    alpha: float
    beta: float

    @classmethod
    def parse(cls, text: str) -> SprtSpec:
        """``elo0=0,elo1=10,alpha=0.05,beta=0.05`` (alpha and beta default to 0.05)."""
        values = {"alpha": 0.05, "beta": 0.05}
        for part in text.split(","):
            key, eq, value = part.partition("=")
            key = key.strip()
            if not eq or key not in ("elo0", "elo1", "alpha", "beta"):
                raise UserError(
                    f"--sprt: {part.strip()!r} is not one of elo0=, elo1=, alpha=, beta= "
                    "(e.g. elo0=0,elo1=10,alpha=0.05,beta=0.05)"
                )
            try:
                values[key] = float(value)
            except ValueError:
                raise UserError(f"--sprt: {key}={value!r} is not a number") from None
        if "elo0" not in values or "elo1" not in values:
            raise UserError("--sprt needs elo0= and elo1= (e.g. elo0=0,elo1=10)")
        spec = cls(values["elo0"], values["elo1"], values["alpha"], values["beta"])
        if not spec.elo0 < spec.elo1:
            raise UserError(f"--sprt: elo0 ({spec.elo0:g}) must be below elo1 ({spec.elo1:g})")
        if not (0 < spec.alpha < 0.5 and 0 < spec.beta < 0.5):
            raise UserError("--sprt: alpha and beta must be between 0 and 0.5")
        return spec

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR."""
        return math.log((1 - self.beta) / self.alpha)

    def text(self) -> str:
        return f"elo0={self.elo0:g},elo1={self.elo1:g},alpha={self.alpha:g},beta={self.beta:g}"


@dataclass(frozen=True)
class SprtState:
    """Where an SPRT stands after some pairs."""

    spec: SprtSpec
    pentanomial: tuple[int, ...]
    """Pairs with first-bot score 0, ¼, ½, ¾, 1."""
    llr: float
    decision: str | None
    """``H0``, ``H1`` or None (go on)."""

    @property
    def pairs(self) -> int:
        return sum(self.pentanomial)

    @property
    def elo(self) -> float:
        """The first bot's Elo advantage estimated from the pairs' mean score (±inf when
        one bot won every pair)."""
        n = self.pairs
        if not n:
            return 0.0
        score = sum(c * x for c, x in zip(self.pentanomial, PAIR_SCORES, strict=True)) / n
        if score in (0.0, 1.0):
            return math.inf if score else -math.inf
        return score_to_elo(score)

    def summary(self) -> str:
        verdict = {
            "H1": f"H1 accepted (elo >= {self.spec.elo1:g})",
            "H0": f"H0 accepted (elo <= {self.spec.elo0:g})",
            None: "no decision",
        }[self.decision]
        return (
            f"SPRT {self.spec.text()}: {verdict}; LLR {self.llr:.3f} "
            f"[{self.spec.lower:.3f}, {self.spec.upper:.3f}] after {self.pairs} pairs "
            f"(pentanomial {list(self.pentanomial)}), "
            + (f"elo {self.elo:+.1f}" if math.isfinite(self.elo) else "one bot won every pair")
        )

    def metrics(self) -> dict[str, float]:
        """What MLflow gets (``sprt/...``)."""
        return {
            "sprt/llr": self.llr,
            "sprt/lower": self.spec.lower,
            "sprt/upper": self.spec.upper,
            "sprt/pairs": float(self.pairs),
            "sprt/decision": {"H1": 1.0, "H0": 0.0, None: -1.0}[self.decision],
        } | ({"sprt/elo": self.elo} if math.isfinite(self.elo) else {})


def _constrained_mle(freq: Sequence[float], score: float) -> list[float]:
    """The distribution on :data:`PAIR_SCORES` closest (max. likelihood) to ``freq``
    whose mean is ``score``: ``p_i = f_i / (1 + λ (x_i - s))``, λ found by bisection."""
    d = [x - score for x in PAIR_SCORES]
    lo = -1.0 / max(d) + 1e-12
    hi = -1.0 / min(d) - 1e-12
    lam = 0.0
    for _ in range(64):
        lam = (lo + hi) / 2
        g = sum(f * di / (1 + lam * di) for f, di in zip(freq, d, strict=True))
        if g > 0:
            lo = lam
        else:
            hi = lam
    p = [f / (1 + lam * di) for f, di in zip(freq, d, strict=True)]
    total = sum(p)
    return [x / total for x in p]


def llr(pentanomial: Sequence[int], elo0: float, elo1: float) -> float:
    """The generalised log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``)."""
    n = sum(pentanomial)
    if n == 0:
        return 0.0
    counts = [c + REGULARISE for c in pentanomial]
    total = sum(counts)
    freq = [c / total for c in counts]
    p0 = _constrained_mle(freq, elo_to_score(elo0))
    p1 = _constrained_mle(freq, elo_to_score(elo1))
    return n * sum(f * math.log(a / b) for f, a, b in zip(freq, p1, p0, strict=True))


def sprt_state(pentanomial: Sequence[int], spec: SprtSpec) -> SprtState:
    value = llr(pentanomial, spec.elo0, spec.elo1)
    decision = "H1" if value >= spec.upper else "H0" if value <= spec.lower else None
    return SprtState(spec, tuple(pentanomial), value, decision)


def pentanomial(games: Sequence[GameSummary], first: str) -> list[int]:
    """Counts of pair outcomes for ``first``: games are paired by round (in a two-bot
    schedule a round is one seed in both seat rotations); a round with one game so far
    is not counted, nor are all-forfeit games' rounds."""
    by_round: dict[int, list[GameSummary]] = {}
    for game in games:
        by_round.setdefault(game.round, []).append(game)
    counts = [0] * 5
    for pair in by_round.values():
        if len(pair) != 2 or any(g.all_forfeit or first not in g.names for g in pair):
            continue
        points = 0.0
        for g in pair:
            me = g.names.index(first)
            other = 1 - me
            points += pair_score(g.ranks[me], g.ranks[other])
        counts[round(points * 2)] += 1
    return counts


def separated(fit: RatingFit) -> bool:
    """Every rated bot's interval lies entirely above the next one's (by rating)."""
    order = sorted(fit.rating, key=lambda n: -fit.rating[n])
    if len(order) < 2 or fit.groups > 1:
        return False
    return all(fit.low[a] > fit.high[b] for a, b in itertools.pairwise(order))
