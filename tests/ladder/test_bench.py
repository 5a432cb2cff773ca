"""The ladder's measurements run and report what ``arena bench ladder`` will print (their
numbers are for the closing note, never asserted)."""

from __future__ import annotations

import pytest

from arena.bench.ladder import (
    bench_commit,
    bench_matchmaking,
    bench_placement,
    bench_throughput,
)


def test_matchmaking_bench_reports_each_size() -> None:
    report = bench_matchmaking(sizes=(5, 50), players=3, decisions=20)
    assert report["players"] == 3 and set(report["sizes"]) == {"5", "50"}
    assert all(row["median_us"] > 0 for row in report["sizes"].values())


def test_commit_bench_on_sqlite() -> None:
    report = bench_commit(None, matches=6)
    assert report["backend"] == "sqlite" and report["commits"] == 6


@pytest.mark.xdist_group("postgres")
@pytest.mark.server
def test_commit_bench_on_postgresql(postgres_url: str) -> None:
    report = bench_commit(postgres_url, matches=6, players=3)
    assert report["backend"] == "postgresql" and report["commits"] == 6


def test_placement_bench_counts_games_until_not_provisional() -> None:
    report = bench_placement(players=2, trials=5)
    assert 1 <= report["median_games"] <= report["max_games"] < 500


@pytest.mark.server
@pytest.mark.xdist_group("ray")
@pytest.mark.usefixtures("ray_cluster")
def test_throughput_bench_plays_the_same_games_as_a_ladder_and_as_a_tournament() -> None:
    report = bench_throughput(games=40, workers=2)
    assert report["ladder"]["games"] == report["tournament"]["games"] == 40
    assert report["ratio"] > 0 and report["goal_ratio"] == 0.9


def test_commit_bench_reports_batched_commits() -> None:
    report = bench_commit(None, matches=4, batch=8)
    assert report["batch"] == 8 and report["batched_ms_per_result"] > 0
