"""Matchmaking: seeded and pure; the fairness bound holds after every one of many picks; a
new version is placed in the stated number of picks; close ratings, uncertain and
least-played versions and fresh pairings are preferred."""

from __future__ import annotations

import random

import pytest

from arena.ladder.matchmaking import (
    Candidate,
    MatchmakingSettings,
    duplicate_set,
    pick_group,
    placement_base,
)

SETTINGS = MatchmakingSettings()


class Ladder:
    """A simulated ladder: versions with fixed skills whose games grow as they are picked."""

    def __init__(self, n: int, k: int, seed: int, mu_spread: float = 8.0) -> None:
        self.k = k
        self.rng = random.Random(seed)
        self.mu = {v: self.rng.gauss(25, mu_spread) for v in range(n)}
        self.sigma = {v: self.rng.uniform(1.0, 8.0) for v in range(n)}
        self.games = dict.fromkeys(range(n), 0)
        self.recent: list[tuple[int, ...]] = []
        self.picks = 0

    def candidates(self) -> list[Candidate]:
        return [Candidate(v, self.mu[v], self.sigma[v], self.games[v]) for v in self.games]

    def pick(self) -> tuple[int, ...]:
        group = pick_group(self.candidates(), self.k, seed=self.picks, recent=self.recent[-50:])
        assert group is not None and len(set(group)) == self.k
        for v in group:
            self.games[v] += self.k  # the duplicate set: k games each
        self.recent.append(group)
        self.picks += 1
        return group

    def join(self, v: int, mu: float = 25.0, sigma: float = 25 / 3) -> None:
        self.games[v] = placement_base(list(self.games.values()), self.k)
        self.mu[v], self.sigma[v] = mu, sigma

    @property
    def spread(self) -> int:
        return max(self.games.values()) - min(self.games.values())


def test_the_same_snapshot_and_seed_give_the_same_group() -> None:
    ladder = Ladder(30, 3, seed=1)
    field = ladder.candidates()
    assert pick_group(field, 3, seed=5) == pick_group(list(field), 3, seed=5)
    assert len({pick_group(field, 3, seed=s) for s in range(20)}) > 1  # the seed matters


def test_too_few_versions_and_bad_input() -> None:
    one = [Candidate(1, 25, 8, 0)]
    assert pick_group(one, 2, seed=0) is None
    assert pick_group(one, 1, seed=0) == (1,)
    with pytest.raises(ValueError, match="twice"):
        pick_group([Candidate(1, 25, 8, 0), Candidate(1, 20, 8, 0)], 2, seed=0)
    assert duplicate_set((4, 5)) == [(4, 5), (5, 4)]


@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize("n", [4, 5, 9, 40])
def test_every_versions_share_stays_within_the_bound_after_every_pick(n: int, k: int) -> None:
    """max games − min games ≤ s + k after each of 600 picks (ratings spread wide, so
    match quality pulls hard towards some pairings)."""
    bound = SETTINGS.spread_bound(k)
    ladder = Ladder(n, k, seed=n * 10 + k, mu_spread=15.0)
    for _ in range(600):
        ladder.pick()
        assert ladder.spread <= bound
    total_games = 600 * k  # each pick plays k games
    for games in ladder.games.values():
        share = games / total_games
        assert abs(share - k / n) <= bound / total_games + 1e-12


@pytest.mark.parametrize("k", [2, 3, 4])
def test_a_new_version_is_placed_within_the_stated_picks(k: int) -> None:
    ladder = Ladder(12, k, seed=k)
    for _ in range(400):
        ladder.pick()
    newcomer = 99
    ladder.join(newcomer)
    guaranteed = SETTINGS.placement_picks(k)
    assert guaranteed >= 3
    for _ in range(guaranteed):
        assert newcomer in ladder.pick()
    # its burst is bounded: it is never owed more than C games, and the field settles back
    for _ in range(400):
        ladder.pick()
        assert ladder.spread <= SETTINGS.placement(k)
    assert ladder.spread <= SETTINGS.spread_bound(k)


def test_a_newcomer_in_a_young_ladder_starts_at_zero() -> None:
    assert placement_base([3, 5, 4], 2) == 0
    assert placement_base([100, 96], 2) == 100 - SETTINGS.placement(2)


def test_the_least_played_version_anchors_and_ties_go_to_the_less_certain() -> None:
    field = [
        Candidate(1, 25, 2.0, 10),
        Candidate(2, 25, 6.0, 10),
        Candidate(3, 25, 2.0, 12),
    ]
    assert pick_group(field, 2, seed=0)[0] == 2  # type: ignore[index]  # enough: not None
    field.append(Candidate(4, 25, 1.0, 9))
    assert pick_group(field, 2, seed=0)[0] == 4  # type: ignore[index]  # enough: not None


def test_close_ratings_are_preferred() -> None:
    field = [
        Candidate(1, 25.0, 3.0, 0),
        Candidate(2, 40.0, 3.0, 2),
        Candidate(3, 26.0, 3.0, 2),
        Candidate(4, 10.0, 3.0, 2),
    ]
    assert {pick_group(field, 2, seed=s) for s in range(10)} == {(1, 3)}


def test_a_pairing_just_played_is_avoided() -> None:
    field = [Candidate(v, 25.0, 3.0, 2 if v else 0) for v in range(4)]
    first = pick_group(field, 2, seed=0)
    assert first is not None and first[0] == 0
    again = pick_group(field, 2, seed=0, recent=[first])
    assert again is not None and again[0] == 0 and again[1] != first[1]
    for seed in range(10):
        group = pick_group(field, 2, seed=seed, recent=[(0, 1), (0, 2)])
        assert group == (0, 3)


def test_versions_far_ahead_sit_out() -> None:
    field = [Candidate(v, 25.0, 3.0, 0) for v in range(3)] + [Candidate(9, 25.0, 8.0, 50)]
    for seed in range(20):
        assert 9 not in pick_group(field, 3, seed=seed)  # type: ignore[operator]  # enough: not None
    # ... unless there are not enough others within the window
    short = [Candidate(0, 25.0, 3.0, 0), Candidate(9, 25.0, 3.0, 50), Candidate(8, 25, 3.0, 60)]
    assert pick_group(short, 2, seed=0) == (0, 9)
