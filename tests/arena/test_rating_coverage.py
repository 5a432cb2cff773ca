"""The headline rating's 95 % intervals cover the truth on games drawn from a known
Plackett–Luce model (``arena.bench.ratings``; the full table is ``arena bench ratings``).

Few replications, so the bounds are binomial tolerances around the 93-97 % goal: with
n bot-intervals per row, 95 % coverage lies within 3 standard errors of the bounds used
here except by a fluke of about 1 in 1000 (the draws are seeded: the test is
deterministic; the tolerance says the figures are not tuned to the seed)."""

from __future__ import annotations

import math

import pytest

from arena.bench.ratings import coverage, dominant_coverage


def tolerance(trials: int, p: float = 0.95) -> float:
    return 3 * math.sqrt(p * (1 - p) / trials)


@pytest.mark.parametrize(
    ("players", "per_bot", "reps"),
    [(2, 10, 80), (2, 40, 50), (2, 200, 10), (4, 10, 80), (4, 40, 50), (4, 200, 10)],
)
def test_intervals_cover_the_truth(players: int, per_bot: int, reps: int) -> None:
    row = coverage(players, per_bot, reps, seed=11)
    tol = tolerance(row.trials)
    assert 0.93 - tol <= row.coverage <= 0.97 + tol, row.to_json()


def test_a_dominant_bot_that_never_lost_is_covered() -> None:
    row = dominant_coverage(100, seed=11)
    assert row.trials == 100
    assert row.coverage >= 0.90 - 3 * math.sqrt(0.9 * 0.1 / 100), row.to_json()
    assert row.mean_half_width > 150  # a sweep of 12 games leaves a wide interval
