"""Continuous matchmaking: which k bot versions play next. Pure, seeded, no database.

The runner takes a snapshot of the ladder (every active version's μ, σ and games, counting
the games already queued or running, and the groups of the most recent sets) and asks
:func:`pick_group` for the next group; the group then plays a **duplicate set**
(:func:`duplicate_set`: every cyclic seat rotation on one seed, as tournaments do), so
every member plays k games per pick and seat order luck cancels out.

**The algorithm.** Each version has an *effective* game count ``e``: the games it played,
plus those queued or running for it, plus a **placement base** the store gave it when it
became active (:func:`placement_base`: ``max(0, E − C)`` with ``E`` the highest ``e`` of the
active versions then and ``C`` the placement allowance ``placement_games``; like a new
task's virtual runtime in a fair scheduler, it starts a newcomer just C games behind the
field instead of at zero, so it neither starves the field while catching up on a
thousand games nor waits for its turn).

1. **Anchor**: the version with the least ``e``; ties go to the higher σ (the one the
   ladder knows least about), then to the seeded coin. A new version starts C games
   behind the most-played, below everyone, so it anchors the very next pick and every
   pick after until it has caught up: it is placed quickly (Kaggle's simulation
   competitions likewise give a new submission a burst of early episodes).
2. **Window**: the other seats come from the versions with ``e ≤ e_min + s`` (``s`` =
   ``slack_games``); if fewer than k − 1 are in the window, from the k − 1 least-played.
3. **Quality**: within the window the k − 1 opponents are chosen greedily, each
   maximising ``quality + w_σ·σ/σ₀ − w_g·(e − e_min)/(s + k) − w_r·recent + noise``:
   ``quality`` is TrueSkill's match quality for two players (Herbrich, Minka & Graepel
   2006: the draw probability relative to the best possible, ``sqrt(2β²/c²)·exp(−Δμ²/2c²)``
   with ``c² = 2β² + σᵢ² + σⱼ²``) averaged over the members already chosen — a documented
   proxy for the k-player quality, which is a determinant over all k; ``recent`` counts
   the chosen members the candidate met in the recent sets, newer ones weighing more
   (lichess's pairing likewise avoids the last opponents); the seeded noise
   (< ``noise``) breaks ties and keeps equal pairings from repeating in a cycle.

**Fairness bound (proved, and tested over many picks).** A pick adds k games to each member.
Every member had ``e ≤ e_min + s`` before, so it ends within ``e_min + s + k``. The one
exception is a short window (fewer than k − 1 others within ``s``): then every version in
the window is picked and every other version has ``e > e_min + s ≥ e_min + k``, so
``e_min`` itself rises by k and the bound holds again. By induction, in a ladder whose
versions all joined at the start, ``max e − min e ≤ s + k`` after every pick: no version
is more than ``s + k`` games (``s/k + 1`` sets) behind any other, so after N picks (N·k
games) each version has played a fraction ``k/n ± (s + k)/(N·k)`` of them. A version
joining later starts C ≥ s + k behind the most-played, so ``max e − min e ≤ C`` while it
catches up, and it anchors each of its first
``⌊(C − s − k)/k⌋`` picks (the others stay within ``s + k`` of each other, and the
newcomer is below them all until it has gained ``C − s − k`` games).

**Cost.** One pass over the snapshot into numpy arrays, vectorised window and scores:
O(n + k·|window| + k·|recent|); ``arena.bench.ladder.bench_matchmaking`` measures it.

>>> field = [Candidate(i, mu=20.0 + i, sigma=2.0, games=10) for i in range(6)]
>>> field.append(Candidate(99, mu=25.0, sigma=25 / 3, games=0))   # a new version
>>> pick_group(field, 2, seed=1)[0]
99
>>> duplicate_set((1, 2, 3))
[(1, 2, 3), (2, 3, 1), (3, 1, 2)]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from arena.ladder.rating import DEFAULT_BETA, DEFAULT_SIGMA


@dataclass(frozen=True, slots=True)
class Candidate:
    """An active bot version as matchmaking sees it."""

    version_id: int
    mu: float
    sigma: float
    games: int
    """Its effective count ``e``: counted games, plus those queued or running, plus its
    placement base."""


DEFAULT_PLACEMENT_GAMES = 24
"""C: with the default slack a newcomer anchors its first 9 picks at 2 players (18 games),
5 at 3 (15 games), 3 at 4 (12 games): most of the ~20 games it needs to leave provisional
status (``bench.bench_placement``)."""


@dataclass(frozen=True, slots=True)
class MatchmakingSettings:
    """The knobs of :func:`pick_group`; the fairness bound depends only on the first two."""

    slack_games: int | None = None
    """``s``: how far above the least-played an opponent may be (default: 2·k)."""
    placement_games: int = DEFAULT_PLACEMENT_GAMES
    """``C``: the most games a new version is treated as owed (its placement burst)."""
    beta: float = DEFAULT_BETA
    sigma0: float = DEFAULT_SIGMA
    w_sigma: float = 0.1
    w_games: float = 0.25
    w_recent: float = 0.5
    noise: float = 0.05

    def slack(self, k: int) -> int:
        """``s`` for a k-player ladder (at least k, which the bound's proof needs)."""
        return max(k, 2 * k if self.slack_games is None else self.slack_games)

    def spread_bound(self, k: int) -> int:
        """The most games any version trails another by, in a ladder without newcomers."""
        return self.slack(k) + k

    def placement(self, k: int) -> int:
        """``C`` for a k-player ladder: never below the spread bound (so ``e = g`` in a
        settled field)."""
        return max(self.placement_games, self.spread_bound(k))

    def placement_picks(self, k: int) -> int:
        """Consecutive picks a newcomer is guaranteed from the moment it is active."""
        return (self.placement(k) - self.spread_bound(k)) // k


def placement_base(
    field: Sequence[int], k: int, settings: MatchmakingSettings | None = None
) -> int:
    """The base of a version that becomes active now, given the effective counts ``field``
    of the active versions: ``C`` games behind the most-played (0 in a young ladder).

    >>> placement_base([40, 38, 41], 2), placement_base([3, 5], 2), placement_base([], 2)
    (17, 0, 0)
    """
    settings = settings or MatchmakingSettings()
    return max(0, max(field, default=0) - settings.placement(k))


def duplicate_set(group: Sequence[int]) -> list[tuple[int, ...]]:
    """Every cyclic seat rotation of ``group``: the k games of one duplicate set."""
    g = tuple(group)
    return [g[r:] + g[:r] for r in range(len(g))]


def _recent_weights(members: Sequence[int], recent: Sequence[Sequence[int]]) -> dict[int, float]:
    """For each version, how much it recently met ``members`` (the newest set weighs 1)."""
    weights: dict[int, float] = {}
    n = len(recent)
    wanted = set(members)
    for age, group in enumerate(reversed(recent)):
        if wanted.isdisjoint(group):
            continue
        w = (n - age) / n
        hits = sum(1 for v in group if v in wanted)
        for v in group:
            weights[v] = weights.get(v, 0.0) + w * (hits - (1 if v in wanted else 0))
    return weights


def pick_group(
    candidates: Sequence[Candidate],
    k: int,
    *,
    seed: int,
    recent: Sequence[Sequence[int]] = (),
    settings: MatchmakingSettings | None = None,
) -> tuple[int, ...] | None:
    """The next group of ``k`` version ids (anchor first), or None if fewer than k are active.

    ``recent``: the groups of the most recent sets, oldest first (the runner passes the
    last few dozen). The same arguments always give the same group.
    """
    settings = settings or MatchmakingSettings()
    n = len(candidates)
    if k < 1:
        raise ValueError("a group needs at least one seat")
    if n < k:
        return None
    ids = [c.version_id for c in candidates]
    if len(set(ids)) != n:
        raise ValueError("a version appears twice among the candidates")
    data = np.array([(c.games, c.mu, c.sigma) for c in candidates], dtype=np.float64)
    games, mu, sigma = data[:, 0], data[:, 1], data[:, 2]
    rng = np.random.default_rng(seed)

    effective = games
    lowest = effective.min()
    tied = np.flatnonzero(effective == lowest)
    if len(tied) > 1:
        tied = tied[sigma[tied] == sigma[tied].max()]
    anchor = int(tied[rng.integers(len(tied))]) if len(tied) > 1 else int(tied[0])
    if k == 1:
        return (ids[anchor],)

    s = settings.slack(k)
    window = np.flatnonzero(effective <= lowest + s)
    window = window[window != anchor]
    if len(window) < k - 1:
        others = np.argsort(effective, kind="stable")
        others = others[others != anchor]
        window = others[: k - 1]

    w_mu, w_sigma2 = mu[window], sigma[window] ** 2
    base = (
        settings.w_sigma * sigma[window] / settings.sigma0
        - settings.w_games * (effective[window] - lowest) / (s + k)
        + settings.noise * rng.random(len(window))
    )
    two_beta2 = 2.0 * settings.beta**2
    quality_sum = np.zeros(len(window))
    chosen = [anchor]
    available = np.ones(len(window), dtype=bool)
    position = {ids[i]: j for j, i in enumerate(window.tolist())} if recent else {}
    for _ in range(k - 1):
        last = chosen[-1]
        c2 = two_beta2 + sigma[last] ** 2 + w_sigma2
        quality_sum += np.sqrt(two_beta2 / c2) * np.exp(-((w_mu - mu[last]) ** 2) / (2.0 * c2))
        score = base + quality_sum / len(chosen)
        if recent:
            penalty = np.zeros(len(window))
            for vid, weight in _recent_weights([ids[c] for c in chosen], recent).items():
                j = position.get(vid)
                if j is not None:
                    penalty[j] = weight
            score -= settings.w_recent * penalty
        score[~available] = -math.inf
        best = int(np.argmax(score))
        available[best] = False
        chosen.append(int(window[best]))
    return tuple(ids[i] for i in chosen)
