"""OpenSkill Plackett–Luce ratings over plain data: direction of updates, ties, forfeits,
records, and the order the ratings converge to on synthetic results."""

from __future__ import annotations

import random

import pytest

from arena.ladder.rating import (
    DEFAULT_BETA,
    DEFAULT_MU,
    DEFAULT_SIGMA,
    PROVISIONAL_SIGMA,
    Outcome,
    OutcomeError,
    RatingSettings,
    Skill,
    effective_ranks,
    ordinal,
    outcome_of,
    rate,
    rate_outcome,
)

S = RatingSettings()


def test_defaults_and_the_stated_threshold() -> None:
    assert (S.mu, S.sigma, S.beta) == (25.0, 25 / 3, 25 / 6)
    assert PROVISIONAL_SIGMA == DEFAULT_BETA == DEFAULT_SIGMA / 2
    assert S.initial().provisional() and not Skill(30, 4.0).provisional()
    assert ordinal(DEFAULT_MU, DEFAULT_SIGMA) == 0.0 and Skill(30, 2).ordinal == 24
    with pytest.raises(ValueError, match="sigma must be positive"):
        RatingSettings(sigma=0)


def test_the_winner_gains_the_loser_loses_and_both_grow_surer() -> None:
    a, b, c = rate(S, [S.initial()] * 3, [1, 2, 3])
    assert a.mu > b.mu > c.mu and abs(b.mu - DEFAULT_MU) < 1.0
    assert max(a.sigma, b.sigma, c.sigma) < DEFAULT_SIGMA


def test_ties_move_equal_players_equally() -> None:
    a, b = rate(S, [S.initial(), S.initial()], [1, 1])
    assert a == b and a.mu == pytest.approx(DEFAULT_MU)
    x, y, z = rate(S, [S.initial()] * 3, [1, 1, 3])
    assert x == y and x.mu > DEFAULT_MU > z.mu


def test_an_upset_moves_ratings_more_than_the_expected_result() -> None:
    strong, weak = Skill(35, 3), Skill(15, 3)
    expected = rate(S, [strong, weak], [1, 2])
    upset = rate(S, [strong, weak], [2, 1])
    assert abs(upset[0].mu - 35) > abs(expected[0].mu - 35)


def test_forfeits_rank_last_and_tie_with_each_other() -> None:
    assert effective_ranks([1, 2, 3, 4], [0]) == [4, 1, 2, 3]
    assert effective_ranks([1, 2, 3, 4], [0, 3]) == [3, 1, 2, 3]
    assert effective_ranks([2, 1, 1], []) == [3, 1, 1]
    o = Outcome(ranks=(1, 2), forfeited=(0,))
    winner_who_crashed, other = rate_outcome(S, [S.initial(), S.initial()], o)
    assert winner_who_crashed.mu < DEFAULT_MU < other.mu


def test_a_records_forfeits_come_from_its_standing_and_failure_events() -> None:
    record = {
        "result": {"ranks": [1, 2, 3], "scores": [9, 5, 1]},
        "standing": {"ranks": [3, 1, 2], "forfeited": [0]},
        "events": [
            {"step": 4, "seat": 0, "kind": "timeout", "reason": "took 2 s"},
            {"step": 4, "seat": 0, "kind": "forfeit", "reason": "timeout: seat 0 forfeits"},
            {"step": 9, "seat": 1, "kind": "illegal", "reason": "not legal"},  # random policy
            {"step": 12, "seat": 2, "kind": "stderr", "reason": "a warning"},
            {"step": 20, "seat": 2, "kind": "disconnect", "reason": "stream closed"},
        ],
    }
    outcome = outcome_of(record)
    assert outcome.forfeited == (0, 2)
    assert dict(outcome.reasons) == {0: "timeout: took 2 s", 2: "disconnect: stream closed"}
    assert outcome.effective_ranks == [2, 1, 2]
    assert outcome.scores == (9.0, 5.0, 1.0)
    assert outcome_of(outcome.to_json()) == outcome


@pytest.mark.parametrize(
    "bad",
    [
        {"ranks": [1, 5]},
        {"ranks": "12"},
        {"ranks": [1, 2], "forfeited": [2]},
        {"ranks": [1, 2], "scores": [1]},
        {"result": "won"},
        {"ranks": []},
    ],
)
def test_malformed_results_are_refused(bad: dict[str, object]) -> None:
    with pytest.raises(OutcomeError):
        outcome_of(bad)


def test_rating_needs_two_players_and_matching_seats() -> None:
    with pytest.raises(OutcomeError, match="two players"):
        rate(S, [S.initial()], [1])
    with pytest.raises(OutcomeError, match="3 seats, the match 2"):
        rate_outcome(S, [S.initial()] * 2, Outcome(ranks=(1, 2, 3)))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_ratings_order_bots_by_true_strength_on_synthetic_results(players: int) -> None:
    """Five bots of true skills 10..30 (performances N(skill, β²), the model's assumption)
    play 400 random groups: the ordinals come out in the true order."""
    rng = random.Random(players)
    true = [10.0, 15.0, 20.0, 25.0, 30.0]
    skills = [S.initial() for _ in true]
    for _ in range(400):
        group = rng.sample(range(len(true)), players)
        perf = [rng.gauss(true[b], DEFAULT_BETA) for b in group]
        ranks = [1 + sum(1 for q in perf if q > p) for p in perf]
        for b, new in zip(group, rate(S, [skills[b] for b in group], ranks), strict=True):
            skills[b] = new
    order = sorted(range(len(true)), key=lambda b: skills[b].ordinal)
    assert order == [0, 1, 2, 3, 4]
    assert all(not s.provisional() for s in skills)
