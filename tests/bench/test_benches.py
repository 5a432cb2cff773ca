"""Every ``arena bench`` of issue 22 part 5 run tiny: ``--json`` carries the machine and
how each headline figure settled, and ``--compare`` against that output names every
figure of it.

The figures themselves are not asserted (time belongs to the benchmarks, and a busy
machine may not settle): only the shape, the repeat counts the bounds allow, and that a
comparison lines up with its own earlier output.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.bench import report
from arena.bench.ladder import HEADLINE as LADDER_HEADLINE
from arena.bench.ratings import HEADLINE as RATINGS_HEADLINE
from arena.bench.strength import run_game, run_repeated


def json_then_compare(run_cli: Any, tmp_path: Path, *args: str) -> tuple[dict[str, Any], str]:
    """``arena ARGS --json``, then ``arena ARGS --compare`` that output; checks the machine
    line and block and that the comparison names every figure; returns the JSON and the
    second run's text."""
    first = run_cli(*args, "--json")
    assert first.exit_code == 0, first.stderr
    data = json.loads(first.stdout)
    assert data["machine"]["cpus"] >= 1 and len(data["machine"]["load_average"]) == 3
    earlier = tmp_path / "before.json"
    earlier.write_text(first.stdout)
    second = run_cli(*args, "--compare", str(earlier))
    assert second.exit_code == 0, second.stderr
    text = second.stdout
    assert text.startswith("machine: ") and " cores, load average " in text
    assert "compared with the earlier run" in text
    keys = [c.key for c in report.compare(data, data)]
    assert keys, "a benchmark with no figures"
    missing = [key for key in keys if f"\n  {key}  " not in text]
    assert not missing, f"--compare did not name {missing}"
    return data, text


def test_bench_strength_batches_until_the_means_settle(run_cli: Any, tmp_path: Path) -> None:
    args = ["bench", "strength", "--game", "dziobaki", "--games", "2", "--bot", "random"]
    data, text = json_then_compare(
        run_cli, tmp_path, *args, "--bot", "greedy", "--repeats", "1", "--max-repeats", "2"
    )
    result = data["results"]["dziobaki"]
    # one batch can never look stable, so a second one is played: 2 x 2 games
    assert result["repeats"] == 2 and [r["games"] for r in result["rows"]] == [4, 4]
    assert set(result["stability"]) == {"random", "greedy"}
    assert all(s["repeats"] == 2 for s in result["stability"].values())
    assert "\n  results.dziobaki.rows.greedy.mean  " in text  # rows keyed by bot, not rank
    assert "[2 batches, " in text


def test_two_strength_batches_are_one_batch_twice_as_long() -> None:
    bots = ["random", "greedy"]
    rows, repeated = run_repeated("dziobaki", bots, 2, 5, 1, repeats=2, max_repeats=2)
    whole = run_game("dziobaki", bots, 4, 5, 1)
    assert len(repeated.runs) == 2
    for key in ("bot", "games", "mean", "mean_ci", "win_rate"):
        assert [r[key] for r in rows] == [r[key] for r in whole]


def test_bench_ladder_repeats_its_timings(run_cli: Any, tmp_path: Path) -> None:
    args = ["bench", "ladder", "--no-throughput", "--repeats", "1", "--max-repeats", "1"]
    data, text = json_then_compare(run_cli, tmp_path, *args)
    assert set(data["stability"]) == set(LADDER_HEADLINE)
    assert all(s["repeats"] == 1 and not s["stable"] for s in data["stability"].values())
    assert isinstance(data["matchmaking"]["players"], int)  # counts stay counts
    assert "NOT STABLE after 1 repeats: matchmaking.sizes.10.median_us" in text


def test_bench_ratings_pools_its_batches(run_cli: Any, tmp_path: Path) -> None:
    args = ["bench", "ratings", "--reps", "3", "--repeats", "1", "--max-repeats", "2"]
    data, text = json_then_compare(run_cli, tmp_path, *args)
    assert set(data["stability"]) == set(RATINGS_HEADLINE)
    spread = [row for row in data["coverage"] if row["case"] == "spread"]
    assert len(spread) == 6 and all(row["reps"] == 6 for row in spread)  # 2 batches of 3
    assert [row["runs"] for row in data["sprt"]["rows"]] == [6, 6]
    assert "(6 replications per row in 2 batches" in text


@pytest.mark.server  # a lobby and a game server on loopback
def test_bench_lobby_repeats_connects(run_cli: Any, tmp_path: Path) -> None:
    args = ["bench", "lobby", "--trials", "2", "--max-repeats", "2"]
    data, text = json_then_compare(run_cli, tmp_path, *args)
    assert data["trials"] == 2 and data["stability"]["repeats"] == 2
    assert "2 connects: median" in text


@pytest.mark.server  # cmd: bot programs against the game server
def test_bench_sandbox_repeats_pairs(run_cli: Any, tmp_path: Path) -> None:
    args = ["bench", "sandbox", "--repeats", "1", "--max-repeats", "1"]
    data, text = json_then_compare(run_cli, tmp_path, *args, "--games", "1", "--max-games", "1")
    for part in (data["startup"]["true"], data["startup"]["bot"], data["per_move"]):
        assert part["stability"]["repeats"] == 1 and part["ratio"] > 0
    assert "per move (zooloretto_mini" in text


@pytest.mark.server  # arena tournament processes
def test_bench_startup_runs_one_case(run_cli: Any, tmp_path: Path) -> None:
    args = ["bench", "startup", "--case", "no-tracking", "--repeats", "1", "--max-repeats", "1"]
    data, text = json_then_compare(run_cli, tmp_path, *args)
    assert data["no-tracking"]["stability"]["repeats"] == 1
    assert "tracking-fresh" not in data and "goal_met" not in data
    assert "no-tracking" in text and "(1 runs)" in text


def test_bench_options_are_checked(run_cli: Any) -> None:
    for args, words in (
        (["startup", "--case", "warm"], "unknown case(s) ['warm']"),
        (["sandbox", "--games", "3", "--max-games", "2"], "--max-games >= --games"),
        (["strength", "--repeats", "3", "--max-repeats", "2"], "--max-repeats"),
        (["ratings", "--repeats", "0"], "--repeats must be >= 1"),
        (["lobby", "--trials", "5", "--max-repeats", "4"], "--max-repeats"),
        (["lobby", "--game", "chess"], "unknown game 'chess'"),
        (["sandbox", "--game", "chess"], "unknown game 'chess'"),
    ):
        proc = run_cli("bench", *args)
        assert proc.exit_code == 2 and words in proc.stderr, (args, proc.stderr)
