"""The ladder's measurements run and report what ``arena bench ladder`` will print (their
numbers are for the closing note, never asserted)."""

from __future__ import annotations

import pytest

from arena.ladder.bench import bench_commit, bench_matchmaking, bench_placement


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
