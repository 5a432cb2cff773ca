"""``arena bench strength`` (formerly ``python -m bots.strength``): the ladder as JSON."""

from __future__ import annotations

import json
from typing import Any


def test_bench_strength_json(run_cli: Any) -> None:
    proc = run_cli(
        "bench", "strength", "--game", "dziobaki", "--games", "2", "--bot", "random",
        "--bot", "greedy", "--seed", "3", "--repeats", "1", "--max-repeats", "1", "--json",
    )  # fmt: skip
    assert proc.exit_code == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert (report["seed"], report["games"], list(report["results"])) == (3, 2, ["dziobaki"])
    rows = report["results"]["dziobaki"]["rows"]
    assert sorted(r["bot"] for r in rows) == ["greedy", "random"]
    for row in rows:
        assert row["games"] == 2 and 0 <= row["win_rate"] <= 1
        assert 0 < row["ms_per_move"] <= row["max_ms"] and row["p99_ms"] <= row["max_ms"]


def test_bench_strength_names_an_unknown_game(run_cli: Any) -> None:
    proc = run_cli("bench", "strength", "--game", "chess")
    assert proc.exit_code == 2 and "unknown game(s) ['chess']" in proc.stderr
