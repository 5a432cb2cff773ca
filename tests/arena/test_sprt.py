"""The SPRT: pentanomial pairs from a tournament's games, the GSPRT's decisions, and
its error rates on synthetic pairs of known strength (``arena.bench.ratings``)."""

from __future__ import annotations

import math

import pytest

from arena.bench.ratings import sprt_rates
from arena.errors import UserError
from arena.tournament.config import ConfigError, load_config
from arena.tournament.ratings import GameSummary, RatingFit
from arena.tournament.sprt import SprtSpec, llr, pentanomial, separated, sprt_state


def test_pairs_of_a_round_make_the_pentanomial() -> None:
    def g(gid: str, rnd: int, names: list[str], ranks: list[int]) -> GameSummary:
        return GameSummary(gid, rnd, names, ranks, [0.0, 0.0], [])

    games = [
        g("a", 0, ["x", "y"], [1, 2]),
        g("b", 0, ["y", "x"], [1, 2]),  # 1 + 0: score 1/2
        g("c", 1, ["x", "y"], [1, 2]),
        g("d", 1, ["y", "x"], [2, 1]),  # 2 wins: score 1
        g("e", 2, ["x", "y"], [1, 1]),
        g("f", 2, ["y", "x"], [1, 2]),  # draw + loss: score 1/4
        g("h", 3, ["x", "y"], [1, 2]),  # an incomplete pair: not counted
    ]
    assert pentanomial(games, "x") == [0, 1, 1, 0, 1]
    assert pentanomial(games, "y") == [1, 0, 1, 1, 0]


def test_the_llr_points_to_the_truth() -> None:
    even = [10, 40, 100, 40, 10]
    assert llr(even, 0, 10) < 0 < llr(even, -10, 0)
    assert llr([0, 0, 0, 0, 0], 0, 10) == 0.0
    spec = SprtSpec.parse("elo0=0,elo1=10")
    assert sprt_state([0, 50, 100, 200, 150], spec).decision == "H1"
    assert sprt_state([150, 200, 100, 50, 0], spec).decision == "H0"


def test_a_stopping_rule_that_does_not_fit_the_tournament_is_refused() -> None:
    base = {"game": "dziobaki", "bots": ["random", "greedy"]}
    cfg = load_config(None, {**base, "sprt": "elo1=5,elo0=-5"})
    assert cfg.sprt == "elo0=-5,elo1=5,alpha=0.05,beta=0.05"
    with pytest.raises(ConfigError, match="for more bots use until_separated"):
        load_config(None, {**base, "bots": ["random", "greedy", "ismcts"], "sprt": "elo0=0,elo1=5"})
    with pytest.raises(ConfigError, match="pick one"):
        load_config(None, {**base, "sprt": "elo0=0,elo1=5", "until_separated": True})
    with pytest.raises(ConfigError, match="must be below"):
        load_config(None, {**base, "sprt": "elo0=9,elo1=5"})


def test_bad_specs_are_refused_with_the_reason() -> None:
    for text, reason in [
        ("elo0=10,elo1=0", "must be below"),
        ("elo0=0", "needs elo0= and elo1="),
        ("elo0=0,elo1=x", "not a number"),
        ("elo0=0,elo1=5,gamma=1", "not one of"),
        ("elo0=0,elo1=5,alpha=0.7", "between 0 and 0.5"),
    ]:
        with pytest.raises(UserError, match=reason):
            SprtSpec.parse(text)


def test_error_rates_are_near_alpha_and_beta() -> None:
    """200 SPRTs at each hypothesis: accepting H1 at elo0 (alpha) and H0 at elo1 (beta)
    happen at most alpha (beta) plus 3 binomial standard errors of the time."""
    spec = SprtSpec.parse("elo0=0,elo1=40,alpha=0.05,beta=0.05")
    at0, at1 = sprt_rates(spec, 200, seed=3)
    tol = 3 * math.sqrt(0.05 * 0.95 / 200)
    assert at0.undecided == at1.undecided == 0
    assert at0.h1 / at0.runs <= spec.alpha + tol
    assert 1 - at1.h1 / at1.runs <= spec.beta + tol
    assert 50 < at0.mean_games < 2000 and 50 < at1.mean_games < 2000


def test_separation_needs_every_adjacent_pair_apart() -> None:
    apart = RatingFit(
        {"a": 1700, "b": 1500, "c": 1300},
        {"a": 1650, "b": 1450, "c": 1200},
        {"a": 1750, "b": 1550, "c": 1400},
        {"a": 1, "b": 1, "c": 1},
    )
    assert separated(apart)
    apart.low["a"] = 1540
    assert not separated(apart)
